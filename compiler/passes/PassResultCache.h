// Results of the pass pipeline kept between compilations, so that a
// compilation whose inputs differ only in what late passes read (a merge
// count, the instruction scheduler's mode) starts where an earlier one's
// passes first read something different instead of from the tensor graph.
//
// Keys: a stage (the IR after pass i) is keyed by a fingerprint chained over
// the pipeline. The chain starts from what every pass may read: the traced
// graph (fingerprintOf), the dynamic dims' bindings, tile_settings,
// partition_overrides and the target machine's TargetInfo, and (for a cache
// keyed on places) where those settings stand in the project file, which
// diagnostics quote. Each pass then adds its name, whether disable_pass turns
// it off, and the values of the pass_options it declares (PassInfo::options).
// So two compilations share the stages before the first pass whose declared
// options differ. That is exact only while a pass reads no pass option it
// does not declare: a pass that reads a new option must declare it.
//
// Which stages are kept: by default the IR before each pass that reads
// options and after the last pass, so a point changing only one pass's
// options copies at most that many compilations; a caller that knows better
// names the passes (CompileOptions::keepStagesBefore, keepLastStage: a
// sweep keeps only the stages its space's points resume from). Copies are
// the cost of reuse (a Compilation is mutated in place by the passes).
//
// Safe to use from several threads at once; entries are immutable once kept
// and shared, so a reader keeps one alive while it copies it.
#pragma once

#include "compiler/passes/Pipeline.h"
#include "compiler/passes/StageKey.h"
#include "core/Diagnostics.h"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

// The fingerprint of a traced graph: every field of its tensors, ops, loops
// and body. Costs a walk of the graph: compute it once per traced graph.
StageKey fingerprintOf(const TensorGraph& graph);

class PassResultCache {
public:
  // The IR after a pass, with what the passes up to it reported.
  struct Stage {
    Compilation compilation;
    std::vector<PassRecord> passes;  // one per pass up to this one
    std::vector<Diagnostic> reported;  // warnings and notes of those passes (a stage never holds an error)
    bool withSnapshots = false;        // passes[].snapshotJson were kept
  };

  // `keptStages`: how many stages it holds (the least recently used go).
  // `keyedOnPlaces`: whether where the settings stand in the project file is
  // part of the key. The IDE needs it (a reused stage's warnings must point
  // at the lines the file has now); a tuning sweep does not report warnings,
  // and its points' files differ in where settings stand when a value's
  // length changes, so it leaves places out.
  explicit PassResultCache(std::size_t keptStages = 16, bool keyedOnPlaces = true);

  std::shared_ptr<const Stage> find(const StageKey& key);
  void keep(const StageKey& key, std::shared_ptr<const Stage> stage);
  bool keyedOnPlaces() const { return m_keyedOnPlaces; }
  std::size_t size() const;
  void clear();

private:
  const std::size_t m_kept;
  const bool m_keyedOnPlaces;
  mutable std::mutex m_mutex;
  std::map<StageKey, std::shared_ptr<const Stage>> m_stages;
  std::deque<StageKey> m_order;  // least recently used first
};

// The key of the stage after each pass of tilePipeline() (index i: after pass
// i), for `graph` compiled with `settings` and `disabledPasses`.
std::vector<StageKey> stageKeys(const StageKey& graphKey, const CompileSettings& settings,
                                const std::set<std::string>& disabledPasses, bool keyedOnPlaces);

// "all 13 passes ran" / "8 of 13 passes ran (L1CopyInReuseMerge onwards); 5 reused"
std::string passesRanSummary(const std::vector<PassRecord>& passes);

} // namespace pto
