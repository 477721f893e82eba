// The tile compiler's pass pipeline and the runner that times each pass,
// notices passes that change nothing, keeps snapshots for the pass viewer,
// honours `disable_pass`, and (verify mode) checks every pass's result.
#pragma once

#include "compiler/ir/Compilation.h"
#include "compiler/passes/StageKey.h"
#include "compiler/settings/Options.h"

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

// A pass's record: its PyPTO-style name, what it does, the function, and the
// pass_options it reads.
struct PassInfo {
  std::string_view name;
  std::string_view summary;
  bool (*run)(Compilation&, DiagnosticEngine&);
  bool required;  // passes later ones depend on cannot be disabled
  // Its options, declared (compiler/settings/Options.h), and a check of their
  // values as the pass reads them, without compiling (`graph` gives the
  // labels a merge setting may name); null for a pass that reads none.
  const std::vector<OptionInfo>& (*options)() = nullptr;
  bool (*checkOptions)(const CompileSettings&, const TensorGraph& graph, DiagnosticEngine&) = nullptr;
};

// The passes in order (Pipeline.cpp lists them, one line each).
const std::vector<PassInfo>& tilePipeline();

struct PassRecord {
  std::string name;
  double milliseconds = 0.0;
  bool changed = false;
  bool skipped = false;     // disabled by disable_pass
  // Not run: its result was an earlier compilation's (CompileOptions::reuse);
  // milliseconds is 0 and `changed` is what that compilation recorded.
  bool reused = false;
  std::string snapshotJson;  // the IR after the pass, when snapshots were asked for
};

class PassResultCache;

struct CompileOptions {
  // Where to reuse stages of earlier compilations from and keep this one's
  // (PassResultCache.h); null: every pass runs. Reuse never changes the
  // result: a reused stage is the IR the same passes made from the same inputs.
  PassResultCache* reuse = nullptr;
  // What identifies the graph in `reuse`: fingerprintOf(graph) when the
  // caller has it, or any constant for a cache that only ever sees one graph
  // (a sweep's simulator); computed per compilation when unset.
  std::optional<StageKey> graphKey;
  // Which stages a compilation keeps in `reuse`: the IR before each pass
  // named here (unset: before every pass that reads options) and, with
  // keepLastStage, the result. A sweep that knows which options its points
  // vary keeps only the stages they resume from, and one that keeps its
  // results itself keeps no last stage: a stage is a copy of the IR, and
  // copying and freeing the stages nothing read was a sixth of the LI
  // sweep's time.
  std::optional<std::set<std::string, std::less<>>> keepStagesBefore;
  bool keepLastStage = true;
  bool keepSnapshots = false;
  // Whether each pass record says if the pass changed the IR: a fingerprint
  // of the IR after every pass, a few per cent of a compile that a caller
  // wanting only the result (the tuner) skips.
  bool recordChanges = true;
  std::set<std::string> disabledPasses;
  // Called after each pass with the IR it produced; returning false stops
  // compilation (verify mode reports the first pass whose result diverges).
  std::function<bool(const PassInfo&, const Compilation&)> afterPass;
  std::function<bool()> cancelled;
  // Called with each pass's record as it is made, so a caller keeps the
  // passes (and snapshots) up to one that afterPass stops at: the pass
  // viewer marks the first pass whose result diverges.
  std::function<void(const PassRecord&)> onPassRecorded;
};

struct CompileResult {
  Compilation compilation;
  std::vector<PassRecord> passes;
};

// The runner's own options (disable_pass, enable_pass_verify), declared.
const std::vector<OptionInfo>& passRunnerOptions();
// Every pass option: the runner's, then each pass's, in pipeline order.
std::vector<OptionInfo> passOptionDeclarations();
// Checks `value` for the pass option `name` as the pass (or the runner) that
// declares it reads it, reporting to `diags` what a compile would report.
// False, with nothing reported, for a name nothing declares.
bool checkPassOption(std::string_view name, const nlohmann::ordered_json& value, const TensorGraph& graph,
                     DiagnosticEngine& diags);

// The passes `pass_options.disable_pass` (a pass name or a list of names)
// turns off; names of no pass, and passes that cannot be disabled, are
// warnings at `where` (the latter still listed: the runner keeps them on).
std::set<std::string> disabledPassesFrom(const nlohmann::ordered_json& passOptions, const SourceLocation& where,
                                         DiagnosticEngine& diags);

// Every IR level that exists so far (the tile graph, plus "block", "pto" and
// "execute" once made): what a snapshot holds, for the pass viewer and
// --dump-passes.
nlohmann::ordered_json irSnapshot(const Compilation& compilation);

// The pass that declares the pass option `option` (PassInfo::options);
// nullopt for the runner's own options and names nothing declares.
std::optional<std::string_view> passReadingOption(std::string_view option);

std::optional<CompileResult> compileKernel(const TensorGraph& graph, CompileSettings settings, DiagnosticEngine& diags,
                                           const CompileOptions& options = {});

} // namespace pto
