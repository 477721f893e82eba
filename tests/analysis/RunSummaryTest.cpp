// RunSummary, the IDE's summary numbers: they agree with `pto run --json` on
// the same project, utilisation matches a recount from the schedule, and the
// delta against a previous run follows its definition.
#include "analysis/run/ProjectRun.h"
#include "analysis/run/RunSummary.h"
#include "core/project/ProjectFile.h"

#include "CliRunner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace pto {
namespace {

std::string example(const std::string& name) { return std::string(PTO_SOURCE_DIR) + "/resources/examples/" + name; }

struct ExampleRun {
  OperatorProject project;
  ProjectRunResult run;
};

ExampleRun runExample(const std::string& name) {
  DiagnosticEngine diags;
  auto project = loadProject(example(name), diags);
  EXPECT_TRUE(project);
  auto run = runProject(*project, diags);
  std::ostringstream printed;
  diags.print(printed);
  EXPECT_TRUE(run) << printed.str();
  return {*project, std::move(*run)};
}

TEST(RunSummary, AgreesWithTheCliReport) {
  ExampleRun example = runExample("softmax");
  RunSummary summary = summarizeRun(example.run, example.project.name);

  test::Result cli = test::runPto("run " + pto::example("softmax") + " --json -");
  ASSERT_EQ(cli.exitCode, 0) << cli.err;
  nlohmann::json report = nlohmann::json::parse(cli.out);

  // The simulator is deterministic: the same project gives the same numbers,
  // so the two must agree to the printed precision (JSON keeps doubles exact).
  ASSERT_TRUE(summary.simulated);
  EXPECT_DOUBLE_EQ(summary.makespanUs, report["makespan_us"].get<double>());
  EXPECT_EQ(summary.makespanCycles, report["makespan_cycles"].get<std::int64_t>());
  EXPECT_EQ(summary.machine, report["machine"]);
  EXPECT_EQ(summary.mode, report["mode"]);
  EXPECT_EQ(summary.tasks, report["tasks"].get<std::int64_t>());
  EXPECT_EQ(summary.subgraphs, report["subgraphs"].get<std::int64_t>());
  EXPECT_EQ(summary.dependencies, report["dependencies"].get<std::int64_t>());
  EXPECT_EQ(summary.outputsFrom, report["outputs_from"]);
  ASSERT_EQ(summary.coreTypes.size(), 2u);
  for (const CoreTypeSummary& type : summary.coreTypes) {
    EXPECT_DOUBLE_EQ(type.utilization, report["utilization"][type.name].get<double>()) << type.name;
    EXPECT_EQ(type.tasks, report["tasks_by_core_type"][type.name].get<int>()) << type.name;
  }
  ASSERT_EQ(summary.outputs.size(), report["outputs"].size());
  for (std::size_t i = 0; i < summary.outputs.size(); ++i) {
    const nlohmann::json& output = report["outputs"][i];
    EXPECT_EQ(summary.outputs[i].name, output["name"]);
    EXPECT_EQ(summary.outputs[i].pass, output["pass"].get<bool>());
    EXPECT_DOUBLE_EQ(summary.outputs[i].maxAbsError, output["max_abs_err"].get<double>());
    EXPECT_DOUBLE_EQ(summary.outputs[i].maxRelError, output["max_rel_err"].get<double>());
    EXPECT_DOUBLE_EQ(summary.outputs[i].rtol, output["rtol"].get<double>());
    EXPECT_EQ(summary.outputs[i].goldenSource, output["golden"]);
  }
  EXPECT_TRUE(summary.pass());
  EXPECT_FALSE(summary.deltaUs());
}

TEST(RunSummary, UtilisationIsBusyTimeOverCoresTimesMakespan) {
  ExampleRun example = runExample("muls_add_matmul_rowsum");
  RunSummary summary = summarizeRun(example.run, example.project.name);
  const Simulation& simulation = *example.run.simulation;
  // Recount from the schedule: task time per core type.
  std::array<std::int64_t, 2> busy{};
  std::array<int, 2> tasks{};
  for (const TaskRecord& record : simulation.schedule.tasks) {
    std::size_t type = static_cast<std::size_t>(record.core.type);
    busy[type] += record.endCycle - record.startCycle;
    ++tasks[type];
  }
  ASSERT_GT(summary.makespanCycles, 0);
  EXPECT_NEAR(summary.makespanUs, static_cast<double>(summary.makespanCycles) / (simulation.clockGHz * 1000.0), 1e-9);
  for (std::size_t type = 0; type < 2; ++type) {
    const CoreTypeSummary& shown = summary.coreTypes[type];
    EXPECT_EQ(shown.tasks, tasks[type]);
    if (shown.cores == 0) continue;
    double expected = static_cast<double>(busy[type]) / (shown.cores * static_cast<double>(summary.makespanCycles));
    EXPECT_NEAR(shown.utilization, expected, 1e-9) << shown.name;
  }
}

TEST(RunSummary, DeltaAgainstThePreviousRun) {
  RunSummary previous;
  previous.simulated = true;
  previous.makespanUs = 40.0;
  ExampleRun example = runExample("softmax");
  RunSummary summary = summarizeRun(example.run, "softmax", previous);
  ASSERT_TRUE(summary.deltaUs());
  EXPECT_DOUBLE_EQ(*summary.deltaUs(), summary.makespanUs - 40.0);
  EXPECT_DOUBLE_EQ(*summary.deltaPercent(), 100.0 * (summary.makespanUs - 40.0) / 40.0);
  // A previous entry without a simulation gives nothing to compare with.
  RunSummary unsimulated;
  EXPECT_FALSE(summarizeRun(example.run, "softmax", unsimulated).deltaUs());
  // pass() is every output passing.
  RunSummary failing = summary;
  failing.outputs.push_back({"z", "float32", {4}, false, 1.0, 1.0, 4, 4, 1e-5, 1e-6, "reference", ""});
  EXPECT_FALSE(failing.pass());
}

} // namespace
} // namespace pto
