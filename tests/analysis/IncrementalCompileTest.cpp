// Incremental recompilation (compiler/passes/PassResultCache.h through
// VariantSimulator): points of a sweep that differ in merge counts, pass
// options read by late passes or runtime options reuse the stages they share,
// and each point's result equals the same point compiled and simulated from
// scratch (simulateVariant: every pass runs, no cache) bit for bit: the IR
// printed after the last pass, the makespan and every task's core and times.
// Which passes ran is what the pass declarations imply (hand-derived below).
#include "analysis/run/ProjectRun.h"
#include "analysis/tuner/Tuner.h"
#include "compiler/passes/PassResultCache.h"
#include "core/json/JsonPrinter.h"
#include "core/project/ProjectFile.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace pto {
namespace {

namespace fs = std::filesystem;

const fs::path kExamples = fs::path(PTO_SOURCE_DIR) / "resources/examples";

TracedProject tracedExample(const std::string& name) {
  DiagnosticEngine diags;
  auto project = loadProject(kExamples / name, diags);
  EXPECT_TRUE(project) << diags.printed();
  auto traced = project ? traceForVariants(*project, diags) : std::nullopt;
  EXPECT_TRUE(traced) << diags.printed();
  return traced ? std::move(*traced) : TracedProject{};
}

// The project with `section.path...` set to `value` ("pass_options", {"cube_l1_reuse_setting", "DEFAULT"}).
OperatorProject withSetting(OperatorProject project, const std::string& section, const std::vector<std::string>& path,
                            const nlohmann::ordered_json& value) {
  nlohmann::ordered_json* at = section == "pass_options" ? &project.passOptions : &project.runtimeOptions;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) at = &(*at)[path[i]];
  (*at)[path.back()] = value;
  return project;
}

// The point run through `simulator` equals the point compiled and simulated
// from scratch. `compareIr`: also the IR printed (most of the test's time; asked
// for where the point resumed from a kept stage).
void expectSameAsFromScratch(VariantSimulator& simulator, const TracedProject& traced, const OperatorProject& point,
                             const std::string& what, bool compareIr = false) {
  SCOPED_TRACE(what);
  DiagnosticEngine diags;
  auto reused = simulator.run(point, diags);
  ASSERT_TRUE(reused) << diags.printed();
  auto fresh = simulateVariant(traced, point, diags);
  ASSERT_TRUE(fresh) << diags.printed();
  for (const PassRecord& record : fresh->compiled.passes) EXPECT_FALSE(record.reused) << record.name;
  if (compareIr) {
    EXPECT_EQ(printJson(irSnapshot(reused->compiled->compilation)), printJson(irSnapshot(fresh->compiled.compilation)));
  }
  EXPECT_EQ(reused->simulation.stats.makespanCycles, fresh->simulation.stats.makespanCycles);
  EXPECT_EQ(reused->simulation.stats.makespanUs, fresh->simulation.stats.makespanUs);
  // The timing model's own counts too: a run resumed from a fork continues a copy of its state.
  EXPECT_EQ(reused->simulation.stats.instructions, fresh->simulation.stats.instructions);
  EXPECT_EQ(reused->simulation.stats.l2HitLines, fresh->simulation.stats.l2HitLines);
  EXPECT_EQ(reused->simulation.stats.l2MissLines, fresh->simulation.stats.l2MissLines);
  const auto& a = reused->simulation.schedule.tasks;
  const auto& b = fresh->simulation.schedule.tasks;
  ASSERT_EQ(a.size(), b.size());
  int differing = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    differing += a[i].task != b[i].task || a[i].core != b[i].core || a[i].readyCycle != b[i].readyCycle ||
                 a[i].dispatchCycle != b[i].dispatchCycle || a[i].startCycle != b[i].startCycle ||
                 a[i].endCycle != b[i].endCycle || a[i].coreFreedCycle != b[i].coreFreedCycle ||
                 a[i].resolvedCycle != b[i].resolvedCycle || a[i].dispatchAicpu != b[i].dispatchAicpu ||
                 a[i].completionAicpu != b[i].completionAicpu;
  EXPECT_EQ(differing, 0) << "tasks whose core or times differ";
}

const std::vector<std::string> kAll = {"ExpandFunction",     "RemoveRedundantOp", "ForwardAssemble",
                                       "GraphPartition",     "ApplyPartitionOverrides",
                                       "L1CopyInReuseMerge", "NBufferMerge",      "GenerateMoveOp",
                                       "AllocateBuffers",    "LowerToPto",        "OoOSchedule",
                                       "InsertSync",         "BuildExecuteGraph"};
std::vector<std::string> from(const std::string& first) {
  auto at = std::find(kAll.begin(), kAll.end(), first);
  return {at, kAll.end()};
}

TEST(IncrementalCompile, LightningIndexerPointsEqualFromScratchAndReuseTheirSharedStages) {
  const TracedProject traced = tracedExample("lightning_indexer_tuning/l1_reuse");
  ASSERT_FALSE(traced.graph.ops().empty());
  VariantSimulator simulator(traced);
  const OperatorProject& base = traced.project;  // cube_l1_reuse_setting DEFAULT 32
  // 1: compiled from the graph.
  expectSameAsFromScratch(simulator, traced, base, "as given");
  // 2: another L1 reuse count: the passes before L1CopyInReuseMerge are reused.
  const OperatorProject reuse8 = withSetting(base, "pass_options", {"cube_l1_reuse_setting", "DEFAULT"}, 8);
  expectSameAsFromScratch(simulator, traced, reuse8, "cube_l1_reuse_setting 8", true);
  // 3: the instruction scheduler's mode, read by OoOSchedule alone, with runtime options.
  expectSameAsFromScratch(
      simulator, traced,
      withSetting(withSetting(withSetting(base, "pass_options", {"ooo_sched_mode"}, 0), "runtime_options",
                              {"stitch_function_max_num"}, 1),
                  "runtime_options", {"device_sched_mode"}, 2),
      "ooo_sched_mode 0, stitch_function_max_num 1, device_sched_mode 2");
  EXPECT_EQ(simulator.compilations(), 3);
  const std::vector<std::vector<std::string>> expected = {kAll, from("L1CopyInReuseMerge"), from("OoOSchedule")};
  EXPECT_EQ(simulator.passesRun(), expected);
}

// cube_l1_reuse_setting 64 on the LI's groups of 32 matmuls merges what 32
// merges: the two compilations differ in their settings but not in what the
// timing model reads, so a point of each with the same runtime options is
// simulated once; runtime options that change the schedule are a simulation
// of their own, those that cannot (equivalentConfig: on a2, whose scheduler
// threads own cores, the fair policy 2 is 0; stitch limits past every root
// call) share it. Each result still equals its point compiled and simulated
// from scratch.
TEST(IncrementalCompile, CompilationsTheSameToTheTimingModelShareTheirSimulations) {
  const TracedProject traced = tracedExample("lightning_indexer_tuning/l1_reuse");
  ASSERT_FALSE(traced.graph.ops().empty());
  VariantSimulator simulator(traced);
  const OperatorProject& base = traced.project;  // cube_l1_reuse_setting DEFAULT 32
  const OperatorProject reuse64 = withSetting(base, "pass_options", {"cube_l1_reuse_setting", "DEFAULT"}, 64);
  DiagnosticEngine diags;
  const auto key32 = simulator.simulationKey(base, diags);
  const auto key64 = simulator.simulationKey(reuse64, diags);
  const auto key8 = simulator.simulationKey(withSetting(base, "pass_options", {"cube_l1_reuse_setting", "DEFAULT"}, 8), diags);
  const auto keyAffinity = simulator.simulationKey(withSetting(reuse64, "runtime_options", {"device_sched_mode"}, 1), diags);
  const auto keyFair = simulator.simulationKey(withSetting(reuse64, "runtime_options", {"device_sched_mode"}, 2), diags);
  const auto keyBoth = simulator.simulationKey(withSetting(reuse64, "runtime_options", {"device_sched_mode"}, 3), diags);
  const auto keyStitch16 = simulator.simulationKey(withSetting(base, "runtime_options", {"stitch_function_max_num"}, 16), diags);
  // Both past the kernel's 2 129 tasks, so past its root calls.
  const auto keyStitchFar = simulator.simulationKey(withSetting(base, "runtime_options", {"stitch_function_max_num"}, 50000), diags);
  const auto keyStitchFarther =
      simulator.simulationKey(withSetting(base, "runtime_options", {"stitch_function_max_num"}, 100000), diags);
  ASSERT_TRUE(key32 && key64 && key8 && keyAffinity && keyFair && keyBoth && keyStitch16 && keyStitchFar &&
              keyStitchFarther)
      << diags.printed();
  EXPECT_EQ(*key32, *key64);
  EXPECT_NE(*key32, *key8);
  EXPECT_NE(*key64, *keyAffinity);
  EXPECT_EQ(*key64, *keyFair);
  EXPECT_EQ(*keyAffinity, *keyBoth);
  EXPECT_NE(*key32, *keyStitch16);
  EXPECT_EQ(*keyStitchFar, *keyStitchFarther);
  EXPECT_EQ(simulator.compilations(), 3);
  EXPECT_EQ(simulator.simulations(), 0);
  expectSameAsFromScratch(simulator, traced, base, "as given");
  expectSameAsFromScratch(simulator, traced, reuse64, "cube_l1_reuse_setting 64");
  EXPECT_EQ(simulator.simulations(), 1);
  expectSameAsFromScratch(simulator, traced, withSetting(reuse64, "runtime_options", {"device_sched_mode"}, 2),
                          "cube_l1_reuse_setting 64, device_sched_mode 2");
  EXPECT_EQ(simulator.simulations(), 1);
  // At the given stitch limit the affinity rule changes core choices (from
  // about 95 of 219 us on), so mode 1 resumes mode 0's run where they part
  // (ScheduleFork) and still equals its own simulation from scratch.
  EXPECT_EQ(simulator.resumedSimulations(), 0);
  expectSameAsFromScratch(simulator, traced, withSetting(reuse64, "runtime_options", {"device_sched_mode"}, 1),
                          "cube_l1_reuse_setting 64, device_sched_mode 1");
  EXPECT_EQ(simulator.resumedSimulations(), 1);
  expectSameAsFromScratch(simulator, traced, withSetting(reuse64, "runtime_options", {"device_sched_mode"}, 3),
                          "cube_l1_reuse_setting 64, device_sched_mode 3");
  EXPECT_EQ(simulator.simulations(), 2);
  // The two far limits share one simulation, the given one's unless its 128
  // already holds every device task's calls.
  const bool givenLimitBinds = *keyStitchFar != *key32;
  expectSameAsFromScratch(simulator, traced, withSetting(base, "runtime_options", {"stitch_function_max_num"}, 50000),
                          "stitch_function_max_num 50000");
  expectSameAsFromScratch(simulator, traced, withSetting(base, "runtime_options", {"stitch_function_max_num"}, 100000),
                          "stitch_function_max_num 100000");
  EXPECT_EQ(simulator.simulations(), 2 + int{givenLimitBinds});
  // With one root call per device task no core choice of the LI's run is one
  // the affinity rule would change (the run says so:
  // Schedule::affinityChangedNothing), so device_sched_mode 1 takes mode 0's
  // simulation; its result still equals its own simulation from scratch.
  const OperatorProject oneCall = withSetting(base, "runtime_options", {"stitch_function_max_num"}, 1);
  const int simulationsBefore = simulator.simulations();
  expectSameAsFromScratch(simulator, traced, oneCall, "stitch_function_max_num 1");
  expectSameAsFromScratch(simulator, traced, withSetting(oneCall, "runtime_options", {"device_sched_mode"}, 1),
                          "stitch_function_max_num 1, device_sched_mode 1");
  EXPECT_EQ(simulator.simulations(), simulationsBefore + 1);
  EXPECT_EQ(simulator.compilations(), 3);
}

TEST(IncrementalCompile, SoftmaxPointsEqualFromScratchAndReuseTheirSharedStages) {
  const TracedProject traced = tracedExample("softmax");
  ASSERT_FALSE(traced.graph.ops().empty());
  VariantSimulator simulator(traced);
  const OperatorProject& base = traced.project;
  expectSameAsFromScratch(simulator, traced, base, "as given");
  for (int count : {2, 4}) {
    const OperatorProject merged = withSetting(base, "pass_options", {"vec_nbuffer_setting", "softmax"}, count);
    expectSameAsFromScratch(simulator, traced, merged, "vec_nbuffer_setting " + std::to_string(count), true);
    for (int mode : {1, 3})
      expectSameAsFromScratch(simulator, traced, withSetting(merged, "runtime_options", {"device_sched_mode"}, mode),
                              "vec_nbuffer_setting " + std::to_string(count) + ", device_sched_mode " +
                                  std::to_string(mode));
  }
  // The partition's copy-in bound is read by GraphPartition: everything from there runs again.
  expectSameAsFromScratch(simulator, traced, withSetting(base, "pass_options", {"mg_copyin_upper_bound"}, 4096),
                          "mg_copyin_upper_bound 4096", true);
  const std::vector<std::vector<std::string>> expected = {kAll, from("NBufferMerge"), from("NBufferMerge"),
                                                          from("GraphPartition")};
  EXPECT_EQ(simulator.passesRun(), expected);
}

// Every point of a whole sweep, run by tune() on two threads with stages,
// compilations and simulations shared (and only the stages its space resumes
// from kept), equals the point run by a simulator of its own, which compiles
// every pass and shares nothing: status, makespan and busy time, bit for
// bit. The LI's declared space (48 points: L1 reuse counts, stitch limits,
// every policy; every third point checked, as each costs a whole compile)
// and softmax's derived one (tile shapes, merge counts, policies; all).
void expectSweepEqualsPointsAlone(const std::string& example, int expectedPoints, std::size_t every) {
  SCOPED_TRACE(example);
  const TracedProject traced = tracedExample(example);
  ASSERT_FALSE(traced.graph.ops().empty());
  TuneOptions options;
  options.budget = 1000;
  options.threads = 2;
  // What a view sees as results arrive: every evaluated point once, with the
  // sweep's space (the IDE's table fills from these while the sweep runs).
  TuneResult arrived;
  options.progress = [&](const TuneProgress& progress) {
    ASSERT_TRUE(progress.point && progress.space);
    if (arrived.space.dimensions.empty()) arrived.space = *progress.space;
    arrived.points.push_back(*progress.point);
  };
  DiagnosticEngine diags;
  auto result = tune(traced, options, diags);
  ASSERT_TRUE(result) << diags.printed();
  ASSERT_EQ(static_cast<int>(result->points.size()), expectedPoints);
  summarise(arrived);
  EXPECT_EQ(arrived.evaluated, result->evaluated);
  EXPECT_EQ(arrived.space.dimensions.size(), result->space.dimensions.size());
  std::map<std::vector<int>, const TunePoint*> byChoice;
  for (const TunePoint& point : result->points) byChoice[point.choice] = &point;
  for (const TunePoint& point : arrived.points) {
    auto found = byChoice.find(point.choice);
    ASSERT_NE(found, byChoice.end());
    EXPECT_EQ(point.status, found->second->status);
    EXPECT_EQ(point.makespanUs, found->second->makespanUs);
    EXPECT_EQ(point.busyUs, found->second->busyUs);
  }
  ASSERT_GE(arrived.best, 0);
  EXPECT_EQ(arrived.points[static_cast<std::size_t>(arrived.best)].makespanUs,
            result->points[static_cast<std::size_t>(result->best)].makespanUs);
  EXPECT_EQ(arrived.pareto.size(), result->pareto.size());
  EXPECT_LT(result->simulations, expectedPoints);  // shared, or the test shows nothing
  int differing = 0;
  for (std::size_t i = 0; i < result->points.size(); i += every) {
    const TunePoint& point = result->points[i];
    VariantSimulator alone(traced);
    const TunePointOutcome outcome = simulateTuneSettings(alone, traced.project, tuneSettings(result->space, point.choice));
    const bool same = outcome.status == point.status && outcome.makespanUs == point.makespanUs && outcome.busyUs == point.busyUs;
    differing += !same;
    EXPECT_TRUE(same) << tuneSettings(result->space, point.choice).dump() << ": swept " << point.status << " "
                      << point.makespanUs << " us, busy " << point.busyUs << "; alone " << outcome.status << " "
                      << outcome.makespanUs << " us, busy " << outcome.busyUs;
    if (differing > 3) break;
  }
}

TEST(IncrementalCompile, EveryPointOfTheLightningIndexerSweepEqualsThePointAlone) {
  expectSweepEqualsPointsAlone("lightning_indexer_tuning/l1_reuse", 48, 3);
}

TEST(IncrementalCompile, EveryPointOfTheSoftmaxSweepEqualsThePointAlone) { expectSweepEqualsPointsAlone("softmax", 240, 1); }

TEST(IncrementalCompile, StageKeysChangeFromTheFirstPassThatReadsAChangedOption) {
  CompileSettings settings;
  const StageKey graph = StageKeyBuilder().add("a graph").key();
  const std::vector<StageKey> plain = stageKeys(graph, settings, {}, true);
  settings.passOptions["ooo_sched_mode"] = 0;
  const std::vector<StageKey> changed = stageKeys(graph, settings, {}, true);
  ASSERT_EQ(plain.size(), kAll.size());
  for (std::size_t i = 0; i < kAll.size(); ++i)
    EXPECT_EQ(plain[i] == changed[i], i < 10) << kAll[i];  // OoOSchedule is pass 11
  // Disabling a pass changes the keys from that pass on; another graph changes all of them.
  const std::vector<StageKey> disabled = stageKeys(graph, CompileSettings{}, {"NBufferMerge"}, true);
  for (std::size_t i = 0; i < kAll.size(); ++i) EXPECT_EQ(plain[i] == disabled[i], i < 6) << kAll[i];
  const std::vector<StageKey> other = stageKeys(StageKeyBuilder().add("another graph").key(), CompileSettings{}, {}, true);
  for (std::size_t i = 0; i < kAll.size(); ++i) EXPECT_NE(plain[i], other[i]) << kAll[i];
}

// The traced graph's fingerprint (the stage keys' start and the result
// cache's key) is the same for two traces of one kernel and changes with any
// field, also those the graph's JSON dump leaves out.
TEST(IncrementalCompile, TheGraphFingerprintSeesEveryField) {
  const TracedProject traced = tracedExample("lightning_indexer_tuning/l1_reuse");
  const TracedProject again = tracedExample("lightning_indexer_tuning/l1_reuse");
  ASSERT_FALSE(traced.graph.ops().empty());
  const StageKey key = fingerprintOf(traced.graph);
  EXPECT_EQ(key, fingerprintOf(again.graph));
  auto changed = [&](auto&& change) {
    TensorGraph graph = traced.graph;
    change(graph);
    return fingerprintOf(graph) != key;
  };
  const TensorId last = static_cast<TensorId>(traced.graph.tensors().size() - 1);
  const OpId lastOp = static_cast<OpId>(traced.graph.ops().size() - 1);
  EXPECT_TRUE(changed([&](TensorGraph& g) { g.tensor(last).validShape.push_back(SymbolicScalar(1)); }));
  EXPECT_TRUE(changed([&](TensorGraph& g) { g.tensor(last).reshapeOf = 0; }));
  EXPECT_TRUE(changed([&](TensorGraph& g) { g.tensor(0).shape[0] = SymbolicScalar::symbol("N"); }));
  EXPECT_TRUE(changed([&](TensorGraph& g) { g.op(lastOp).label += "x"; }));
  EXPECT_TRUE(changed([&](TensorGraph& g) { g.op(lastOp).attrs["extra"] = std::int64_t{1}; }));
  EXPECT_TRUE(changed([&](TensorGraph& g) { g.op(lastOp).passOptions["vec_nbuffer_setting"] = 2; }));
  EXPECT_TRUE(changed([&](TensorGraph& g) { g.op(lastOp).location.line += 1; }));
  EXPECT_TRUE(changed([&](TensorGraph& g) { g.kernelOptions["x"] = 1; }));
  EXPECT_TRUE(changed([&](TensorGraph& g) { g.elementReadArguments.push_back(0); }));
  ASSERT_FALSE(traced.graph.loops().empty());
  EXPECT_TRUE(changed([&](TensorGraph& g) { g.loop(0).submitBeforeLoop = !g.loop(0).submitBeforeLoop; }));
  EXPECT_TRUE(changed([&](TensorGraph& g) { g.loop(0).stop = g.loop(0).stop + SymbolicScalar(1); }));
  // A constant and a symbol of the same spelling differ.
  EXPECT_NE(fingerprintOf([&] {
              TensorGraph g = traced.graph;
              g.tensor(0).shape[0] = SymbolicScalar(7);
              return g;
            }()),
            fingerprintOf([&] {
              TensorGraph g = traced.graph;
              g.tensor(0).shape[0] = SymbolicScalar::symbol("7");
              return g;
            }()));
}

TEST(IncrementalCompile, PassesRanSummarySaysWhichPassesRan) {
  std::vector<PassRecord> passes(4);
  for (std::size_t i = 0; i < passes.size(); ++i) passes[i].name = kAll[i];
  EXPECT_EQ(passesRanSummary(passes), "all 4 passes ran");
  passes[0].reused = passes[1].reused = true;
  EXPECT_EQ(passesRanSummary(passes), "2 passes ran (ForwardAssemble onwards), 2 reused");
  passes[2].reused = passes[3].reused = true;
  EXPECT_EQ(passesRanSummary(passes), "no pass ran (4 reused)");
}

} // namespace
} // namespace pto
