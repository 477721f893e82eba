// The tile compiler's pass pipeline and the runner that times each pass,
// notices passes that change nothing, keeps snapshots for the pass viewer,
// honours `disable_pass`, and (verify mode) checks every pass's result.
#pragma once

#include "compiler/ir/Compilation.h"

#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

// A pass's record: its PyPTO-style name, what it does, the function.
struct PassInfo {
  std::string_view name;
  std::string_view summary;
  bool (*run)(Compilation&, DiagnosticEngine&);
  bool required;  // passes later ones depend on cannot be disabled
};

// The passes in order (Pipeline.cpp lists them, one line each).
const std::vector<PassInfo>& tilePipeline();

struct PassRecord {
  std::string name;
  double milliseconds = 0.0;
  bool changed = false;
  bool skipped = false;     // disabled by disable_pass
  std::string snapshotJson;  // the IR after the pass, when snapshots were asked for
};

struct CompileOptions {
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

// The passes `pass_options.disable_pass` (a pass name or a list of names)
// turns off; names of no pass, and passes that cannot be disabled, are
// warnings at `where` (the latter still listed: the runner keeps them on).
std::set<std::string> disabledPassesFrom(const nlohmann::ordered_json& passOptions, const SourceLocation& where,
                                         DiagnosticEngine& diags);

// Every IR level that exists so far (the tile graph, plus "block", "pto" and
// "execute" once made): what a snapshot holds, for the pass viewer and
// --dump-passes.
nlohmann::ordered_json irSnapshot(const Compilation& compilation);

std::optional<CompileResult> compileKernel(const TensorGraph& graph, CompileSettings settings, DiagnosticEngine& diags,
                                           const CompileOptions& options = {});

} // namespace pto
