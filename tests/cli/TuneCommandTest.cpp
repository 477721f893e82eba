// `pto tune` end to end on the softmax example with a declared space of 4 tile shapes x 3 merge counts: points
// that cannot compile are pruned with their reasons and never simulated; the best point is the fastest of
// separate `pto run`s of every valid point (an independent path: a fresh trace per run); shards merge into the
// unsharded result; two threads give what one gives.
#include "CliRunner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace pto::test {
namespace {

namespace fs = std::filesystem;

const std::vector<std::vector<int>> kTiles = {{1, 4, 1, 64}, {1, 8, 1, 64}, {4, 64}, {1, 32, 1, 256}};
const std::vector<int> kMerges = {0, 1, 4};

fs::path softmaxWithSpace() {
  const fs::path folder = fs::temp_directory_path() / ("pto-tune-" + std::to_string(::getpid()));
  fs::remove_all(folder);
  fs::create_directories(folder);
  const fs::path example = fs::path(PTO_SOURCE_DIR) / "resources/examples/softmax";
  fs::copy_file(example / "kernel.py", folder / "kernel.py");
  nlohmann::ordered_json project = nlohmann::ordered_json::parse(slurp(example / "pto-project.json"));
  project["tune"] = {{"space",
                      {{"tile_settings.vec.kernel.py:22", kTiles}, {"pass_options.vec_nbuffer_setting.softmax", kMerges}}}};
  std::ofstream(folder / "pto-project.json") << project.dump(2);
  return folder;
}

// The points' settings and outcomes (no host time is listed per point), not
// where they came from (simulated or the result cache).
nlohmann::json outcomes(const nlohmann::json& tuned) {
  nlohmann::json points = tuned["points"];
  for (auto& point : points) point.erase("cached");
  return points;
}

int cachedPoints(const nlohmann::json& tuned) {
  int cached = 0;
  for (const auto& point : tuned["points"]) cached += point["cached"].get<bool>() ? 1 : 0;
  return cached;
}

TEST(TuneCommand, AGridSweepPrunesWhatCannotCompileAndFindsTheFastestPoint) {
  const fs::path project = softmaxWithSpace();
  const nlohmann::json tuned = runPtoJson("tune '" + project.string() + "' --strategy grid --budget 100 --threads 2");
  ASSERT_TRUE(tuned.is_object());
  EXPECT_EQ(tuned["space_size"], 12);
  // The [4, 64] tile (rank 2 for the kernel's rank-4 ops) with every merge count, and the
  // merge count 0 with the three other tiles.
  EXPECT_EQ(tuned["pruned"], 6);
  EXPECT_EQ(tuned["evaluated"], 6);
  EXPECT_EQ(tuned["failed"], 0);
  int mergeReasons = 0;
  for (const auto& [reason, count] : tuned["pruned_reasons"].items())
    if (reason.starts_with("pass_options.vec_nbuffer_setting")) mergeReasons += count.get<int>();
  EXPECT_EQ(mergeReasons, 3) << tuned["pruned_reasons"].dump();

  // Every valid point run on its own: the tuner's best must be the fastest of them.
  double fastest = 1e300;
  for (const auto& tile : {kTiles[0], kTiles[1], kTiles[3]})
    for (int merge : {1, 4}) {
      nlohmann::ordered_json document = nlohmann::ordered_json::parse(slurp(project / "pto-project.json"));
      document.erase("tune");
      document["tile_settings"] = {{"vec", {{"kernel.py:22", tile}}}};
      document["pass_options"] = {{"vec_nbuffer_setting", {{"softmax", merge}}}};
      const fs::path point = project / "point";
      fs::create_directories(point);
      fs::copy_file(project / "kernel.py", point / "kernel.py", fs::copy_options::overwrite_existing);
      std::ofstream(point / "pto-project.json") << document.dump(2);
      const nlohmann::json run = runPtoJson("run '" + point.string() + "' --no-check --no-record");
      fastest = std::min(fastest, run["makespan_us"].get<double>());
    }
  EXPECT_NEAR(tuned["best"]["makespan_us"].get<double>(), fastest, 1e-9);
  EXPECT_LT(tuned["best"]["makespan_us"].get<double>(), tuned["baseline_us"].get<double>());
  // The front runs fastest first, so it starts at the best point; every point on it is ok and no later one is
  // busier than an earlier one (else the earlier one would beat it on both).
  ASSERT_FALSE(tuned["pareto"].empty());
  double previousBusy = 1e300;
  for (const auto& index : tuned["pareto"]) {
    const auto& point = tuned["points"][index.get<std::size_t>()];
    EXPECT_EQ(point["status"], "ok");
    EXPECT_LT(point["busy_us"].get<double>(), previousBusy);
    previousBusy = point["busy_us"];
  }
  EXPECT_EQ(tuned["points"][tuned["pareto"][0].get<std::size_t>()]["makespan_us"], tuned["best"]["makespan_us"]);

  // One thread gives the same points (simulated again, not from the cache).
  const nlohmann::json single =
      runPtoJson("tune '" + project.string() + "' --strategy grid --budget 100 --threads 1 --no-cache");
  EXPECT_EQ(single["cached"], 0);
  EXPECT_EQ(outcomes(single), outcomes(tuned));
}

TEST(TuneCommand, ShardsOfARandomSweepMergeIntoTheUnshardedSweep) {
  const fs::path project = softmaxWithSpace();
  const std::string common = "tune '" + project.string() + "' --strategy random --seed 7 --budget 5 --threads 1 --no-cache";
  const nlohmann::json whole = runPtoJson(common);
  for (int k = 1; k <= 3; ++k) {
    Result shard = runPto(common + " --shard " + std::to_string(k) + "/3 --json '" +
                          (project / ("shard" + std::to_string(k) + ".json")).string() + "'");
    ASSERT_EQ(shard.exitCode, 0) << shard.err;
  }
  const nlohmann::json merged =
      runPtoJson("tune '" + project.string() + "' --merge '" + (project / "shard1.json").string() + "' '" +
              (project / "shard2.json").string() + "' '" + (project / "shard3.json").string() + "'");
  EXPECT_EQ(whole["evaluated"], 5);
  EXPECT_EQ(merged["evaluated"], whole["evaluated"]);
  EXPECT_EQ(merged["pruned"], whole["pruned"]);
  EXPECT_EQ(outcomes(merged), outcomes(whole));
  EXPECT_EQ(merged["best"]["settings"], whole["best"]["settings"]);
  EXPECT_EQ(merged["best"]["makespan_us"], whole["best"]["makespan_us"]);

  Result missing = runPto("tune '" + project.string() + "' --merge '" + (project / "shard1.json").string() + "'");
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_NE(missing.err.find("only 1 of the 3 shards"), std::string::npos) << missing.err;
  Result evolve = runPto("tune '" + project.string() + "' --strategy evolve --shard 1/2");
  EXPECT_EQ(evolve.exitCode, 1);
  EXPECT_NE(evolve.err.find("cannot be cut into shards"), std::string::npos) << evolve.err;
}

TEST(TuneCommand, EvolveStaysWithinItsBudgetAndApplyWritesTheBestPoint) {
  const fs::path project = softmaxWithSpace();
  const nlohmann::json evolved = runPtoJson("tune '" + project.string() + "' --strategy evolve --budget 4 --seed 3");
  EXPECT_LE(evolved["evaluated"].get<int>(), 4);
  EXPECT_GE(evolved["evaluated"].get<int>(), 1);
  auto keysOf = [&] {
    std::vector<std::string> keys;
    const nlohmann::ordered_json document = nlohmann::ordered_json::parse(slurp(project / "pto-project.json"));
    for (const auto& [key, value] : document.items()) keys.push_back(key);
    return keys;
  };
  std::vector<std::string> keysBefore = keysOf();
  const nlohmann::json applied = runPtoJson("tune '" + project.string() + "' --budget 100 --apply");
  const nlohmann::json saved = nlohmann::json::parse(slurp(project / "pto-project.json"));
  // The user's key order stays ("name" first, not sorted); the new tile_settings goes last.
  std::vector<std::string> keysAfter = keysOf();
  keysAfter.erase(std::remove(keysAfter.begin(), keysAfter.end(), "tile_settings"), keysAfter.end());
  keysAfter.erase(std::remove(keysAfter.begin(), keysAfter.end(), "pass_options"), keysAfter.end());
  keysBefore.erase(std::remove(keysBefore.begin(), keysBefore.end(), "pass_options"), keysBefore.end());
  EXPECT_EQ(keysAfter, keysBefore);
  EXPECT_EQ(keysAfter.front(), "name");
  EXPECT_EQ(saved["tile_settings"]["vec"]["kernel.py:22"], applied["best"]["settings"]["tile_settings.vec.kernel.py:22"]);
  const nlohmann::json run = runPtoJson("run '" + project.string() + "' --no-check --no-record");
  EXPECT_NEAR(run["makespan_us"].get<double>(), applied["best"]["makespan_us"].get<double>(), 1e-9);
}

// The result cache: a rerun simulates nothing (its baseline neither), a
// larger budget only the new points, and what the cache gives equals a fresh
// simulation (--no-cache); editing the machine file, or the kernel, makes
// every point new.
TEST(TuneCommand, ARerunSimulatesOnlyPointsItHasNotSeen) {
  const fs::path project = softmaxWithSpace();
  const std::string grid = "tune '" + project.string() + "' --strategy grid --threads 2 --budget ";
  const nlohmann::json first = runPtoJson(grid + "3");
  ASSERT_TRUE(first.is_object());
  EXPECT_EQ(first["evaluated"], 3);
  EXPECT_EQ(first["cached"], 0);
  EXPECT_EQ(first["baseline_cached"], false);
  const nlohmann::json again = runPtoJson(grid + "3");
  EXPECT_EQ(again["cached"], 3);
  EXPECT_EQ(cachedPoints(again), 3);
  EXPECT_EQ(outcomes(again), outcomes(first));
  EXPECT_EQ(again["baseline_cached"], true);
  EXPECT_EQ(again["baseline_us"], first["baseline_us"]);
  const nlohmann::json wider = runPtoJson(grid + "6");
  EXPECT_EQ(wider["evaluated"], 6);
  EXPECT_EQ(wider["cached"], 3);
  const nlohmann::json fresh = runPtoJson(grid + "6 --no-cache");
  EXPECT_EQ(fresh["cached"], 0);
  EXPECT_EQ(fresh["baseline_cached"], false);
  EXPECT_EQ(fresh["baseline_us"], first["baseline_us"]);
  EXPECT_EQ(outcomes(wider), outcomes(fresh));

  // The machine file's bytes are part of the key.
  nlohmann::ordered_json document = nlohmann::ordered_json::parse(slurp(project / "pto-project.json"));
  const std::string machine = document["machine"];
  fs::copy_file(fs::path(PTO_SOURCE_DIR) / "resources/machines" / (machine + ".json"), project / "mine.json");
  document["machine"] = "mine.json";
  std::ofstream(project / "pto-project.json") << document.dump(2);
  EXPECT_EQ(runPtoJson(grid + "3")["cached"], 0);
  EXPECT_EQ(runPtoJson(grid + "3")["cached"], 3);
  nlohmann::ordered_json mine = nlohmann::ordered_json::parse(slurp(project / "mine.json"));
  mine["description"] = mine.value("description", std::string()) + " (edited)";
  std::ofstream(project / "mine.json") << mine.dump(2);
  EXPECT_EQ(runPtoJson(grid + "3")["cached"], 0);

  // So is the kernel's text.
  std::ofstream(project / "kernel.py", std::ios::app) << "\n# edited\n";
  EXPECT_EQ(runPtoJson(grid + "3")["cached"], 0);

}

// Options in a space are checked against the passes' and the runtime's
// declarations: a name nothing declares stops the sweep, a value out of its
// declared range prunes the points that have it; a tile setting must name a
// tile site of the kernel.
TEST(TuneCommand, ASpaceIsCheckedAgainstTheOptionDeclarationsAndTheTileSites) {
  const fs::path project = softmaxWithSpace();
  nlohmann::ordered_json document = nlohmann::ordered_json::parse(slurp(project / "pto-project.json"));
  auto tuneSpace = [&](const nlohmann::ordered_json& space) {
    document["tune"] = {{"space", space}};
    std::ofstream(project / "pto-project.json") << document.dump(2);
    return runPto("tune '" + project.string() + "' --json -");
  };
  Result misspelt = tuneSpace({{"runtime_options.stich_function_max_num", {1, 4}}});
  EXPECT_EQ(misspelt.exitCode, 1);
  EXPECT_NE(misspelt.err.find("tune.space.runtime_options.stich_function_max_num: no runtime_options option is named "
                              "'stich_function_max_num'; the runtime_options are "),
            std::string::npos)
      << misspelt.err;
  EXPECT_NE(misspelt.err.find("stitch_function_max_num"), std::string::npos) << misspelt.err;
  Result noSite = tuneSpace({{"tile_settings.vec.kernel.py:99", {{1, 4, 1, 64}}}});
  EXPECT_EQ(noSite.exitCode, 1);
  EXPECT_NE(noSite.err.find("the kernel has no vec tile site 'kernel.py:99'; its sites are "), std::string::npos)
      << noSite.err;
  EXPECT_NE(noSite.err.find("kernel.py:22"), std::string::npos) << noSite.err;

  Result ranged = tuneSpace({{"runtime_options.stitch_function_max_num", {0, 4}}, {"runtime_options.device_sched_mode", {0, 9}}});
  ASSERT_EQ(ranged.exitCode, 0) << ranged.err;
  const nlohmann::json swept = nlohmann::json::parse(ranged.out);
  EXPECT_EQ(swept["evaluated"], 1);  // stitch 4 with policy 0
  EXPECT_EQ(swept["pruned"], 3);
  int stitch = 0, policy = 0;
  for (const auto& [reason, count] : swept["pruned_reasons"].items()) {
    if (reason.starts_with("runtime_options.stitch_function_max_num")) stitch += count.get<int>();
    if (reason.starts_with("runtime_options.device_sched_mode")) policy += count.get<int>();
  }
  EXPECT_EQ(stitch, 2) << swept["pruned_reasons"].dump();
  EXPECT_EQ(policy, 1) << swept["pruned_reasons"].dump();
}

TEST(TuneCommand, ApplyLeavesTheProjectAloneWhenNoPointBeatsIt) {
  // The space holds only the kernel's own tile shape (kernel.py:22 sets
  // 1, 4, 1, 64): its best point is the current settings, not better.
  const fs::path project = softmaxWithSpace();
  nlohmann::ordered_json document = nlohmann::ordered_json::parse(slurp(project / "pto-project.json"));
  document["tune"] = {{"space", {{"tile_settings.vec.kernel.py:22", {{1, 4, 1, 64}}}}}};
  std::ofstream(project / "pto-project.json") << document.dump(2);
  const std::string before = slurp(project / "pto-project.json");
  Result result = runPto("tune '" + project.string() + "' --apply");
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.err.find("left " + (project / "pto-project.json").string() + " as it is: no point beat"), std::string::npos)
      << result.err;
  EXPECT_EQ(slurp(project / "pto-project.json"), before);
}

} // namespace
} // namespace pto::test
