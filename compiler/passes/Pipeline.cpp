// The pipeline, in order, and the pass runner.
#include "compiler/passes/Pipeline.h"

#include "compiler/ir/BlockGraphJson.h"
#include "compiler/ir/ExecuteGraphJson.h"
#include "compiler/ir/PtoProgramText.h"
#include "compiler/ir/TileGraphJson.h"
#include "compiler/passes/AllocateBuffers.h"
#include "compiler/passes/ApplyPartitionOverrides.h"
#include "compiler/passes/BuildExecuteGraph.h"
#include "compiler/passes/ExpandFunction.h"
#include "compiler/passes/GenerateMoveOp.h"
#include "compiler/passes/GraphPartition.h"
#include "compiler/passes/InsertSync.h"
#include "compiler/passes/L1CopyInReuseMerge.h"
#include "compiler/passes/LowerToPto.h"
#include "compiler/passes/NBufferMerge.h"
#include "compiler/passes/OoOSchedule.h"
#include "compiler/passes/PassResultCache.h"
#include "compiler/passes/RemoveRedundantOp.h"
#include "core/json/JsonPrinter.h"

#include <chrono>
#include <future>

namespace pto {

const std::vector<PassInfo>& tilePipeline() {
  static const std::vector<PassInfo> passes = {
      {"ExpandFunction", "cut tensor ops into tile ops by their tile shapes", &expandFunction, true},
      {"RemoveRedundantOp", "fold views into the regions that read them", &removeRedundantOp, false},
      {"ForwardAssemble", "let producers write straight into the tensors they are copied to", &forwardAssemble, false},
      // GenerateMoveOp fills in the copies of the subgraphs GraphPartition makes.
      {"GraphPartition", "cut the tile graph into subgraphs, one task kind each", &graphPartition, true,
       &graphPartitionOptions, &checkGraphPartitionOptions},
      {"ApplyPartitionOverrides", "apply the project's partition_overrides (move, split, merge)", &applyPartitionOverrides, true},
      // Merges after the partition is final and before the copies are made.
      // Cube merges first: a group of cube subgraphs becomes one, so the vector
      // subgraphs that consume them are no longer separated by cube subgraphs
      // they depend on and can merge (PyPTO's LI: L1 reuse 32, then the 32
      // vector steps of the group N at a time).
      {"L1CopyInReuseMerge", "merge cube subgraphs that load the same data; cube n-buffer", &l1CopyInReuseMerge,
       false, &l1CopyInReuseMergeOptions, &checkL1CopyInReuseMergeOptions},
      {"NBufferMerge", "merge isomorphic vector subgraphs N per task (vec_nbuffer_setting)", &nBufferMerge, false,
       &nBufferMergeOptions, &checkNBufferMergeOptions},
      {"GenerateMoveOp", "add each subgraph's copies from and to global memory", &generateMoveOp, true},
      {"AllocateBuffers", "place each subgraph's tiles in on-chip buffers; check capacities", &allocateBuffers, true},
      {"LowerToPto", "one PTO instruction program per isomorphic subgraph class", &lowerToPto, true},
      // Flags follow the final order: InsertSync after OoOSchedule.
      {"OoOSchedule", "order each program's instructions so that pipes overlap", &oooSchedule, false,
       &oooScheduleOptions, &checkOoOScheduleOptions},
      {"InsertSync", "set/wait flags between dependent instructions of different pipes", &insertSync, true},
      // Tasks last: they need every subgraph's final copies.
      {"BuildExecuteGraph", "one task per subgraph execution, linked by global-memory dependencies", &buildExecuteGraph,
       true},
  };
  return passes;
}

namespace {

std::size_t mixed(std::size_t hash, std::size_t value) {
  return hash ^ (value + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2));
}

// The tile ops' part of the fingerprint: most of its cost (every region of
// every op), and unchanged by most passes, so kept with the stamp it was
// made at and made again only when the stamp differs.
struct TileOpsHash {
  std::uint64_t stamp = 0;  // 0: none yet
  std::size_t hash = 0;
};

std::size_t hashOfTileOps(const TileGraph& tiles) {
  std::size_t hash = tiles.tileOps().size();
  auto mix = [&](std::size_t value) { hash = mixed(hash, value); };
  for (const TileOp& op : tiles.tileOps()) {
    mix(static_cast<std::size_t>(op.kind));
    mix(static_cast<std::size_t>(op.accumulate));
    for (const auto* regions : {&op.inputs, &op.outputs})
      for (const TileRegion& region : *regions) {
        mix(static_cast<std::size_t>(region.tensor));
        for (const SymbolicScalar& offset : region.offsets) mix(offset.hash());
        for (std::int64_t size : region.shape) mix(static_cast<std::size_t>(size));
        for (const SymbolicScalar& size : region.valid) mix(size.hash());
      }
  }
  return hash;
}

// Cheap identity of the IR, to notice a pass that changed nothing.
std::size_t fingerprint(const Compilation& compilation, TileOpsHash& tileOps) {
  const TileGraph& tiles = compilation.tiles;
  if (tileOps.stamp == 0 || tileOps.stamp != tiles.tileOpsStamp()) {
    tileOps.hash = hashOfTileOps(tiles);
    tileOps.stamp = tiles.tileOpsStamp();
  }
  std::size_t hash = tileOps.hash;
  auto mix = [&](std::size_t value) { hash = mixed(hash, value); };
  const BlockGraph& blocks = compilation.blocks;
  mix(blocks.subgraphs.size());
  for (const Subgraph& subgraph : blocks.subgraphs) {
    mix(subgraph.ops.size());
    mix(subgraph.copyIns.size());
    mix(subgraph.copyOuts.size());
    mix(subgraph.buffers.size());
    mix(static_cast<std::size_t>(subgraph.programId));
  }
  mix(compilation.programs.size());
  for (const PtoProgram& program : compilation.programs) {
    mix(program.instructions.size());
    for (const PtoInstruction& instruction : program.instructions) mix(static_cast<std::size_t>(instruction.opcode));
  }
  mix(compilation.tasks.tasks.size());
  mix(compilation.tasks.edgeCount);
  return hash;
}

} // namespace

nlohmann::ordered_json irSnapshot(const Compilation& compilation) {
  // The execute graph is the largest level of a big kernel (DIA: 8 753
  // tasks, as long as the other three together): made on a second thread
  // while this one makes the rest. The writers only read the compilation.
  constexpr std::size_t kTasksWorthAThread = 2000;
  std::future<nlohmann::ordered_json> execute;
  if (compilation.tasks.tasks.size() >= kTasksWorthAThread)
    execute = std::async(std::launch::async, [&compilation] { return executeGraphToJson(compilation); });
  nlohmann::ordered_json levels = tileGraphToJson(compilation.tiles);
  if (!compilation.blocks.subgraphs.empty()) levels["block"] = blockGraphToJson(compilation);
  if (!compilation.programs.empty()) levels["pto"] = ptoProgramsToJson(compilation);
  if (execute.valid()) levels["execute"] = execute.get();
  else if (!compilation.tasks.tasks.empty()) levels["execute"] = executeGraphToJson(compilation);
  return levels;
}

const std::vector<OptionInfo>& passRunnerOptions() {
  static const std::vector<OptionInfo> declarations = [] {
    const auto P = OptionScope::Pass;
    OptionInfo disable = declareOption("disable_pass", P, OptionType::List, nlohmann::ordered_json::array(), "none",
                                       "Passes to skip, to see what each one buys (only optional passes can be "
                                       "skipped).",
                                       "the pass runner");
    for (const PassInfo& pass : tilePipeline())
      if (!pass.required) disable.values.emplace_back(pass.name);
    return std::vector<OptionInfo>{
        std::move(disable),
        declareOption("enable_pass_verify", P, OptionType::Bool, false, "false",
                      "After every pass, execute its result on the project's data and stop at the first pass that "
                      "leaves the golden's tolerance (slow; for hunting miscompiles).",
                      "the pass runner")};
  }();
  return declarations;
}

std::vector<OptionInfo> passOptionDeclarations() {
  std::vector<OptionInfo> all = passRunnerOptions();
  for (const PassInfo& pass : tilePipeline())
    if (pass.options) all.insert(all.end(), pass.options().begin(), pass.options().end());
  return all;
}

bool checkPassOption(std::string_view name, const nlohmann::ordered_json& value, const TensorGraph& graph,
                     DiagnosticEngine& diags) {
  CompileSettings settings;
  settings.passOptions = nlohmann::ordered_json{{std::string(name), value}};
  if (name == "disable_pass") {
    disabledPassesFrom(settings.passOptions, SourceLocation{}, diags);
    return true;
  }
  if (name == "enable_pass_verify") {
    // The runner turns verification on only for `true`; say so rather than ignore a typo silently.
    if (!value.is_boolean())
      diags.error(SourceLocation{}) << "pass_options.enable_pass_verify must be true or false, got " << value.dump();
    return true;
  }
  for (const PassInfo& pass : tilePipeline())
    if (pass.options && findDeclaration(pass.options(), name)) {
      if (pass.checkOptions) pass.checkOptions(settings, graph, diags);
      return true;
    }
  return false;
}

std::set<std::string> disabledPassesFrom(const nlohmann::ordered_json& passOptions, const SourceLocation& where,
                                         DiagnosticEngine& diags) {
  std::set<std::string> disabledPasses;
  if (!passOptions.is_object() || !passOptions.contains("disable_pass")) return disabledPasses;
  const auto& disabled = passOptions["disable_pass"];
  std::vector<std::string> names;
  if (disabled.is_string()) names.push_back(disabled.get<std::string>());
  else if (disabled.is_array())
    for (const auto& entry : disabled)
      if (entry.is_string()) names.push_back(entry.get<std::string>());
  for (const std::string& passName : names) {
    bool known = false;
    for (const PassInfo& pass : tilePipeline())
      if (pass.name == passName) {
        known = true;
        if (pass.required)
          diags.warning(where) << "disable_pass: " << passName << " cannot be disabled; later passes need what it builds";
      }
    if (!known) diags.warning(where) << "disable_pass: there is no pass named '" << passName << "'";
    disabledPasses.insert(passName);
  }
  return disabledPasses;
}

std::optional<std::string_view> passReadingOption(std::string_view option) {
  for (const PassInfo& pass : tilePipeline())
    if (pass.options && findDeclaration(pass.options(), option)) return pass.name;
  return std::nullopt;
}

namespace {

// Whether the pipeline keeps the IR before `pass`: by default the passes a
// point's options can change (they read options), so a later compilation
// differing only there starts from it.
bool keptBefore(const PassInfo& pass, const CompileOptions& options) {
  if (options.keepStagesBefore) return options.keepStagesBefore->contains(pass.name);
  return pass.options != nullptr;
}

} // namespace

std::optional<CompileResult> compileKernel(const TensorGraph& graph, CompileSettings settings, DiagnosticEngine& diags,
                                           const CompileOptions& options) {
  const std::vector<PassInfo>& pipeline = tilePipeline();
  // A verifier must see every pass run; it gets no reuse.
  PassResultCache* reuse = options.afterPass ? nullptr : options.reuse;
  std::vector<StageKey> keys;
  std::size_t resumeAt = 0;  // the first pass to run
  std::shared_ptr<const PassResultCache::Stage> resumed;
  if (reuse) {
    keys = stageKeys(options.graphKey ? *options.graphKey : fingerprintOf(graph), settings, options.disabledPasses,
                     reuse->keyedOnPlaces());
    for (std::size_t after = pipeline.size(); after-- > 0 && !resumed;) {
      auto stage = reuse->find(keys[after]);
      if (stage && (stage->withSnapshots || !options.keepSnapshots)) {
        resumed = std::move(stage);
        resumeAt = after + 1;
      }
    }
  }
  CompileResult result;
  if (resumed) {
    // The stage's compilation was made with settings equal in all that the
    // passes before it read; the passes after it read this compilation's.
    result.compilation = resumed->compilation;
    result.compilation.settings = std::move(settings);
    result.passes = resumed->passes;
    for (PassRecord& record : result.passes) {
      record.reused = true;
      record.milliseconds = 0.0;
      if (options.onPassRecorded) options.onPassRecorded(record);
    }
    for (const Diagnostic& diagnostic : resumed->reported) diags.report(diagnostic);
  } else {
    result.compilation.settings = std::move(settings);
    result.compilation.tiles.graph = graph;
    result.compilation.tiles.bindings = result.compilation.settings.bindings;
  }
  // What the passes run here report, for the stages this compilation keeps.
  std::vector<Diagnostic> reported = resumed ? resumed->reported : std::vector<Diagnostic>{};
  auto keepStage = [&](std::size_t after) {
    // A pass that reported an error and went on is not a result to repeat.
    for (const Diagnostic& diagnostic : reported)
      if (diagnostic.severity == Severity::Error) return;
    auto stage = std::make_shared<PassResultCache::Stage>();
    stage->compilation = result.compilation;
    stage->passes = result.passes;
    stage->reported = reported;
    stage->withSnapshots = options.keepSnapshots;
    reuse->keep(keys[after], std::move(stage));
  };
  TileOpsHash tileOpsHash;
  std::size_t before = options.recordChanges ? fingerprint(result.compilation, tileOpsHash) : 0;
  std::string lastSnapshot = result.passes.empty() ? std::string() : result.passes.back().snapshotJson;
  for (std::size_t index = resumeAt; index < pipeline.size(); ++index) {
    const PassInfo& pass = pipeline[index];
    if (options.cancelled && options.cancelled()) return diags.error(graph.kernelLocation) << "cancelled";
    if (reuse && index > resumeAt && keptBefore(pass, options)) keepStage(index - 1);
    PassRecord record;
    record.name = std::string(pass.name);
    if (!pass.required && options.disabledPasses.count(record.name)) {
      record.skipped = true;
      if (options.onPassRecorded) options.onPassRecorded(record);
      result.passes.push_back(std::move(record));
      continue;
    }
    const std::size_t reportedBefore = diags.diagnostics().size();
    auto start = std::chrono::steady_clock::now();
    if (!pass.run(result.compilation, diags)) return std::nullopt;
    record.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    for (std::size_t i = reportedBefore; i < diags.diagnostics().size(); ++i) reported.push_back(diags.diagnostics()[i]);
    if (options.recordChanges) {
      std::size_t after = fingerprint(result.compilation, tileOpsHash);
      record.changed = after != before;
      before = after;
    }
    // A pass that changed nothing has its predecessor's snapshot: copied,
    // not printed again (printing is most of a big kernel's compile time).
    if (options.keepSnapshots)
      record.snapshotJson = record.changed || lastSnapshot.empty() ? printJson(irSnapshot(result.compilation)) : lastSnapshot;
    if (options.keepSnapshots) lastSnapshot = record.snapshotJson;
    if (options.onPassRecorded) options.onPassRecorded(record);
    result.passes.push_back(std::move(record));
    if (options.afterPass && !options.afterPass(pass, result.compilation)) return std::nullopt;
  }
  if (reuse && options.keepLastStage && resumeAt < pipeline.size()) keepStage(pipeline.size() - 1);
  return result;
}

} // namespace pto
