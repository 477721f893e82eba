// `pto runs` and `pto compare`: `pto run` records each run in the project's
// run ledger (.pto/ledger.sqlite) unless --no-record; two runs of the softmax
// example around a changed tile are listed, and their comparison names the
// setting and gives the makespan delta the two `pto run --json` reports give.
// A ledger that cannot be written only warns.
#include "CliRunner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <unistd.h>

namespace pto::test {
namespace {

namespace fs = std::filesystem;

// A copy of the softmax example (its files only: not a ledger the example may have), removed when the
// object goes.
class SoftmaxCopy {
public:
  SoftmaxCopy() : m_dir(fs::temp_directory_path() / ("pto-runs-" + std::to_string(std::random_device{}()))) {
    fs::create_directories(m_dir);
    for (const char* file : {"kernel.py", "pto-project.json"}) fs::copy_file(fs::path(example("softmax")) / file, m_dir / file);
  }
  ~SoftmaxCopy() {
    fs::permissions(m_dir, fs::perms::owner_all, fs::perm_options::add);
    fs::remove_all(m_dir);
  }
  SoftmaxCopy(const SoftmaxCopy&) = delete;
  SoftmaxCopy& operator=(const SoftmaxCopy&) = delete;

  const fs::path& dir() const { return m_dir; }
  std::string quoted() const { return "'" + m_dir.string() + "'"; }
  fs::path ledger() const { return m_dir / ".pto" / "ledger.sqlite"; }

  // Sets the vec tile of the kernel's label `softmax` in the project file.
  void setSoftmaxTile(const std::vector<int>& shape) const {
    auto project = nlohmann::ordered_json::parse(slurp(m_dir / "pto-project.json"));
    project["tile_settings"]["vec"]["softmax"] = shape;
    std::ofstream(m_dir / "pto-project.json") << project.dump(2);
  }

private:
  fs::path m_dir;
};

nlohmann::json runJson(const SoftmaxCopy& project, const std::string& options = "") {
  Result run = runPto("run " + project.quoted() + " --no-check --json - " + options);
  EXPECT_EQ(run.exitCode, 0) << run.err;
  return nlohmann::json::parse(run.out);
}

TEST(RunsCommand, TwoRunsAroundAChangedTileAreListedAndCompared) {
  SoftmaxCopy project;
  const auto first = runJson(project);
  project.setSoftmaxTile({1, 8, 1, 256});
  const auto second = runJson(project);
  ASSERT_NE(first["makespan_cycles"], second["makespan_cycles"]) << "the tile should change the makespan";

  Result runs = runPto("runs " + project.quoted() + " --json -");
  ASSERT_EQ(runs.exitCode, 0) << runs.err;
  const auto listed = nlohmann::json::parse(runs.out);
  EXPECT_EQ(listed["command"], "runs");
  ASSERT_EQ(listed["runs"].size(), 2u) << runs.out;
  const auto& latest = listed["runs"][0];
  EXPECT_EQ(latest["id"], 2);
  EXPECT_EQ(latest["previous"], 1);
  EXPECT_EQ(latest["makespan_cycles"], second["makespan_cycles"]);
  EXPECT_EQ(latest["tasks"], second["tasks"]);
  EXPECT_EQ(latest["mode"], "timing");
  EXPECT_EQ(latest["machine"], "a2");
  EXPECT_EQ(latest["trace_kept"], true);
  EXPECT_EQ(latest["kernel_changed"], false);
  EXPECT_EQ(latest["changes"], nlohmann::json::parse(R"([{"pointer": "/tile_settings/vec/softmax", "b": [1, 8, 1, 256]}])"));
  EXPECT_EQ(listed["runs"][1]["makespan_cycles"], first["makespan_cycles"]);
  EXPECT_TRUE(listed["runs"][1]["previous"].is_null());

  Result text = runPto("runs " + project.quoted());
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_NE(text.out.find("/tile_settings/vec/softmax (none) -> [1,8,1,256]"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("(first run)"), std::string::npos) << text.out;

  Result compare = runPto("compare " + project.quoted() + " latest previous --json -");
  ASSERT_EQ(compare.exitCode, 0) << compare.err;
  const auto compared = nlohmann::json::parse(compare.out);
  EXPECT_EQ(compared["a"]["id"], 2);
  EXPECT_EQ(compared["b"]["id"], 1);
  // B minus A: the first run's makespan minus the second's.
  EXPECT_EQ(compared["makespan"]["delta_cycles"].get<std::int64_t>(),
            first["makespan_cycles"].get<std::int64_t>() - second["makespan_cycles"].get<std::int64_t>());
  EXPECT_NEAR(compared["makespan"]["delta_us"].get<double>(),
              first["makespan_us"].get<double>() - second["makespan_us"].get<double>(), 1e-9);
  EXPECT_EQ(compared["settings"], nlohmann::json::parse(R"([{"pointer": "/tile_settings/vec/softmax", "a": [1, 8, 1, 256]}])"));
  EXPECT_EQ(compared["kernel_changed"], false);
  EXPECT_EQ(compared["tasks"]["compared"], true);
  const int matched = compared["tasks"]["matched"];
  EXPECT_EQ(matched + compared["tasks"]["only_in_a"].get<int>(), second["tasks"].get<int>());
  EXPECT_EQ(matched + compared["tasks"]["only_in_b"].get<int>(), first["tasks"].get<int>());
  ASSERT_FALSE(compared["labels"].empty());
  EXPECT_EQ(compared["labels"][0]["label"], "softmax");
  EXPECT_EQ(compared["labels"][0]["tasks_a"], second["tasks"]);
  EXPECT_EQ(compared["labels"][0]["tasks_b"], first["tasks"]);
  ASSERT_EQ(compared["subgraph_groups"].size(), 1u) << compared["subgraph_groups"].dump();
  EXPECT_EQ(compared["subgraph_groups"][0]["subgraphs_a"], second["subgraphs"]);
  EXPECT_EQ(compared["subgraph_groups"][0]["subgraphs_b"], first["subgraphs"]);

  // Ids and -N name the same runs.
  Result byId = runPto("compare " + project.quoted() + " 2 -1 --json -");
  ASSERT_EQ(byId.exitCode, 0) << byId.err;
  EXPECT_EQ(nlohmann::json::parse(byId.out)["makespan"], compared["makespan"]);
  Result missing = runPto("compare " + project.quoted() + " latest 7");
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_NE(missing.err.find("error: there is no run 7; the runs are 1 to 2 (pto runs lists them)"), std::string::npos)
      << missing.err;
}

TEST(RunsCommand, NoRecordRecordsNothing) {
  SoftmaxCopy project;
  runJson(project, "--no-record");
  EXPECT_FALSE(fs::exists(project.ledger()));
  Result runs = runPto("runs " + project.quoted() + " --json -");
  ASSERT_EQ(runs.exitCode, 0) << runs.err;
  EXPECT_TRUE(nlohmann::json::parse(runs.out)["runs"].empty()) << runs.out;
  EXPECT_FALSE(fs::exists(project.ledger())) << "listing creates no ledger";
}

TEST(RunsCommand, AReadOnlyProjectFolderWarnsAndTheRunSucceeds) {
  SoftmaxCopy project;
  fs::permissions(project.dir(), fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                  fs::perm_options::remove);
  if (::access(project.dir().c_str(), W_OK) == 0) GTEST_SKIP() << "running as root: permissions do not stop writes";
  Result run = runPto("run " + project.quoted() + " --no-check");
  EXPECT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.err.find(project.ledger().string() + ": warning: the run was not recorded: cannot create the folder"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.out.find("makespan"), std::string::npos) << run.out;
}

TEST(RunsCommand, AnUnwritableLedgerWarnsAndTheRunSucceeds) {
  SoftmaxCopy project;
  std::ofstream(project.dir() / ".pto") << "a file where the ledger's folder should be";
  Result run = runPto("run " + project.quoted() + " --no-check --json -");
  EXPECT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.err.find(project.ledger().string() + ": warning: the run was not recorded: cannot create the folder"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;  // one line
  const auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["pass"], true);
  ASSERT_EQ(report["diagnostics"].size(), 1u);
  EXPECT_EQ(report["diagnostics"][0]["severity"], "warning");
}

TEST(RunsCommand, ACorruptLedgerIsMovedAsideAndANewOneStarted) {
  SoftmaxCopy project;
  fs::create_directories(project.ledger().parent_path());
  std::ofstream(project.ledger()) << "not a database at all, but long enough to hold an SQLite header's worth";
  Result run = runPto("report " + project.quoted());
  EXPECT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.err.find("warning: the run ledger is not a database (file is not a database); moved it aside to "
                         "ledger.sqlite.corrupt-"),
            std::string::npos)
      << run.err;
  Result runs = runPto("runs " + project.quoted() + " --json -");
  ASSERT_EQ(runs.exitCode, 0) << runs.err;
  EXPECT_EQ(nlohmann::json::parse(runs.out)["runs"].size(), 1u) << "pto report recorded its run";
}

} // namespace
} // namespace pto::test
