// Merging whole subgraphs into one task: what NBufferMerge and
// L1CopyInReuseMerge share — their merge-count settings, the checks every
// merge must pass, and rebuilding the block graph with fresh program ids.
//
// A merge turns subgraphs m1 < m2 < ... < mN (ids) of one scope, one core
// type and one segment of that scope (no nested loop between them) into one
// subgraph at m1's place whose `ops` are the members' ops one member after
// the other (`memberStarts` says where each begins). It is made only when
//   - order: no other subgraph of the scope with an id between m1 and a
//     member mk touches (read/write, write/read, write/write, regions that
//     may overlap in one iteration) what mk touches. The merged task runs
//     mk's ops where m1 ran, so nothing mk must follow may start after m1;
//     subgraph ids stay a topological order (no cycle between subgraphs);
//   - capacity: AllocateBuffers can place the merged subgraph's buffers
//     within the machine's capacities (planSubgraphBuffers). A longer run
//     than fits is cut to the longest that fits.
// Programs: subgraphs that were not merged keep their class; merged ones
// share a program when their members' programs agree one by one and their
// regions relate alike (same tensor, same relative offsets and shapes), so
// a program still describes every task of its class. Program ids are then
// renumbered 0.. in order of first use.
#pragma once

#include "compiler/ir/Compilation.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

// A merge-count option (vec_nbuffer_setting, cube_l1_reuse_setting,
// cube_nbuffer_setting) as PyPTO spells it: an object whose keys are
//   "DEFAULT" (or "-1", PyPTO's older integer key): every isomorphic group,
//   "func<magic>_<order>": the group of program id <order> (PTO Studio
//                          compiles one function; <magic> is not checked),
//   any other string: a semantic label; the count applies where ops with
//                     that label are (it must name a label of the kernel),
// each mapped to N >= 1 (N = 1: no merge). A plain integer N means
// {"DEFAULT": N}. {} (or no key matching a group) asks for the automatic
// count: the group's subgraphs divided by the cores of their type, at least
// 1, so that merging never leaves cores idle.
struct MergeCountSetting {
  bool given = false;
  std::optional<int> defaultCount;
  std::map<int, int> byProgram;
  std::map<std::string, int> byLabel;
};

std::optional<MergeCountSetting> readMergeCountSetting(const CompileSettings& settings, const TensorGraph& graph,
                                                       const char* key, DiagnosticEngine& diags);

// The setting a merge group (by its first subgraph) runs under: the
// project's when it sets `key`, else the one pypto.set_pass_options gave
// inside the kernel before the group's first op (PyPTO applies it to the ops
// that follow). nullopt after an error (at that op's line).
std::optional<MergeCountSetting> groupMergeCountSetting(const Compilation& compilation, const MergeCountSetting& project,
                                                        SubgraphId first, const char* key, DiagnosticEngine& diags);

class SubgraphMerger {
public:
  SubgraphMerger(Compilation& compilation, DiagnosticEngine& diags);
  ~SubgraphMerger();
  SubgraphMerger(const SubgraphMerger&) = delete;
  SubgraphMerger& operator=(const SubgraphMerger&) = delete;

  // The count `setting` gives a group of isomorphic subgraphs (ids) of
  // program `programId`: by program, else DEFAULT, else automatic; a label
  // of the group's ops replaces it (several labels: the largest).
  int groupCount(const MergeCountSetting& setting, int programId, const std::vector<SubgraphId>& group) const;
  // The count a label of this subgraph's ops sets (the largest), if any.
  std::optional<int> labelCount(const MergeCountSetting& setting, SubgraphId subgraph) const;

  struct ChunkResult {
    int merges = 0;         // merged subgraphs recorded
    int capacityLimit = 0;  // > 0: runs were cut to this many members for the buffers
  };
  // Cuts `candidates` (ids ascending; one scope and core type) into runs of
  // up to `count` consecutive candidates that pass the checks above and
  // records each run of two or more as a merge.
  ChunkResult chunk(const std::vector<SubgraphId>& candidates, int count);
  // Whether a merge was recorded.
  bool any() const { return !m_merges.empty(); }
  // Rebuilds the block graph with the recorded merges; renumbers programs.
  void apply();

  // The peak bytes per memory the merged subgraph of `members` would need, and
  // whether that fits the machine.
  bool fits(const std::vector<SubgraphId>& members) const;

private:
  struct Access;
  bool mayJoin(const std::vector<SubgraphId>& run, SubgraphId next);
  bool conflict(SubgraphId a, SubgraphId b);
  const Access& accessOf(SubgraphId id);
  Subgraph mergedSubgraph(const std::vector<SubgraphId>& members) const;
  std::string canonicalRelations(const Subgraph& merged);

  Compilation& m_compilation;
  DiagnosticEngine& m_diags;
  std::vector<int> m_segmentOfOp;  // by OpId: the stretch of its scope between nested loops
  std::vector<std::set<std::string>> m_labels;  // by subgraph: semantic labels of its ops
  std::vector<std::vector<SubgraphId>> m_merges;
  std::vector<std::unique_ptr<Access>> m_access;  // by subgraph, made on demand
  struct Boxes;
  std::unique_ptr<Boxes> m_boxes;
};

// The n-buffer merge: per scope and program, the unpinned subgraphs of
// `type` in id order, cut into runs of the count the group's setting gives
// (groupMergeCountSetting: the project's, else the kernel's own).
// Where the buffers cut a count, a warning at the group's first kernel line
// names `option`, the count asked for and the count used.
void mergeIsomorphicGroups(Compilation& compilation, DiagnosticEngine& diags, CoreType type,
                           const MergeCountSetting& setting, std::string_view option);

// The warning for a count the buffers cut.
void warnClamped(const Compilation& compilation, DiagnosticEngine& diags, std::string_view option, SubgraphId first,
                 int asked, int used);

} // namespace pto
