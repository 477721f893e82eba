// `pto tune PROJECT`: searches the project's settings space (analysis/tuner/Tuner.h)
// by simulating each point, and reports every point, the best and the Pareto
// front (makespan against busy core time). `--shard K/N` runs one share of a
// grid or random sweep (an array job on a batch scheduler); `--merge FILES`
// combines the shards' JSON into the unsharded result. `--apply` writes the
// best point into pto-project.json (atomically). Points simulated before (the
// result cache in the project's run ledger) are not simulated again unless
// `--no-cache` asks for it.
#include "app/pto/Command.h"
#include "app/pto/TrustCommand.h"
#include "app/pto/CommandOutput.h"

#include "analysis/advisor/Advisor.h"
#include "analysis/ledger/RunLedger.h"
#include "analysis/validation/PredictionConfidence.h"
#include "analysis/tuner/Tuner.h"
#include "core/Version.h"
#include "core/project/ProjectFile.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>

namespace pto::cli {
namespace {

struct TuneCommandOptions : ProjectCommandOptions {
  std::string strategy = "grid";
  std::string shard = "1/1";
  std::vector<std::string> mergeFiles;
  int budget = 100;
  unsigned seed = 1;
  int threads = 0;
  int rows = 10;
  bool apply = false;
  bool noCache = false;
};

const ProjectCommandSpec kTuneCommand{
    .name = "tune",
    .description = "Search a project's settings (its tune.space, else merge counts and scheduling policy) by "
                   "simulating each point; report the best and the Pareto front",
    .jsonOutput = "every point as JSON"};

std::string settingsText(const TuneResult& result, const TunePoint& point) {
  std::string text;
  for (std::size_t d = 0; d < result.space.dimensions.size(); ++d)
    text += (text.empty() ? "" : ", ") + result.space.dimensions[d].path + " " +
            result.space.dimensions[d].values[static_cast<std::size_t>(point.choice[d])].dump();
  return text;
}

void printResult(const std::string& project, const TuneResult& result, int rows) {
  std::printf("%s: %s sweep over %s space of %.0f points (shard %d/%d): %d evaluated (%d simulated, %d from the "
              "result cache), %d pruned, %d failed in %.2f s (%.0f simulated per second)\n",
              project.c_str(), std::string(name(result.strategy)).c_str(), result.space.origin.c_str(),
              result.space.size(), result.shardIndex + 1, result.shardCount, result.evaluated,
              result.evaluated - result.cached, result.cached, result.pruned, result.failed, result.seconds,
              result.seconds > 0 ? (result.evaluated - result.cached) / result.seconds : 0.0);
  for (const auto& [reason, count] : result.prunedReasons) std::printf("  pruned %d: %s\n", count, reason.c_str());
  // Failed points are listed with their message (and kept in the cache with it).
  std::map<std::string, int> failures;
  for (const TunePoint& point : result.points)
    if (point.status == "failed") ++failures[point.reason];
  for (const auto& [reason, count] : failures) std::printf("  failed %d: %s\n", count, reason.c_str());
  std::printf("baseline %.2f us\n", result.baselineUs);
  if (result.best < 0) {
    std::printf("no point compiled and simulated\n");
    return;
  }
  std::vector<int> ok;
  for (std::size_t i = 0; i < result.points.size(); ++i)
    if (result.points[i].status == "ok") ok.push_back(static_cast<int>(i));
  std::stable_sort(ok.begin(), ok.end(), [&](int a, int b) {
    return result.points[static_cast<std::size_t>(a)].makespanUs < result.points[static_cast<std::size_t>(b)].makespanUs;
  });
  std::printf("\nfastest points\n");
  for (int i = 0; i < std::min<int>(rows, static_cast<int>(ok.size())); ++i) {
    const TunePoint& point = result.points[static_cast<std::size_t>(ok[static_cast<std::size_t>(i)])];
    std::printf("  %9.2f us  busy %9.2f us  %s%s\n", point.makespanUs, point.busyUs, settingsText(result, point).c_str(),
                point.cached ? "  (cached)" : "");
  }
  std::printf("\nPareto front (no point is both faster and less busy)\n");
  for (int i : result.pareto) {
    const TunePoint& point = result.points[static_cast<std::size_t>(i)];
    std::printf("  %9.2f us  busy %9.2f us  %s\n", point.makespanUs, point.busyUs, settingsText(result, point).c_str());
  }
  const TunePoint& best = result.points[static_cast<std::size_t>(result.best)];
  std::printf("\nbest: %.2f us (%+.1f %% against the baseline): %s\n", best.makespanUs,
              100.0 * (best.makespanUs / result.baselineUs - 1.0), settingsText(result, best).c_str());
  std::printf("how sure: %s\n", confidenceOfRanking(recordedConfidence()).c_str());
}

int runTune(const TuneCommandOptions& options) {
  DiagnosticEngine diags;
  auto project = loadTrustedProject(options.projectPath, diags);
  if (!project) return failCommand("tune", options.jsonTarget, diags);
  std::optional<TuneResult> result;
  std::optional<TracedProject> traced;
  if (!options.mergeFiles.empty()) {
    std::vector<nlohmann::ordered_json> shards;
    for (const std::string& file : options.mergeFiles) {
      std::ifstream in(file);
      shards.push_back(nlohmann::ordered_json::parse(in, nullptr, /*allow_exceptions=*/false));
      if (!in.good() && !in.eof()) diags.error(SourceLocation{file}) << "cannot read the file";
      else if (shards.back().is_discarded()) diags.error(SourceLocation{file}) << "not JSON";
    }
    if (!diags.hasErrors()) result = mergeTuneShards(shards, options.mergeFiles, diags);
  } else {
    TuneOptions tuneOptions;
    tuneOptions.strategy = *parseTuneStrategy(options.strategy);  // CLI11 checked the spelling
    tuneOptions.budget = options.budget;
    tuneOptions.seed = options.seed;
    tuneOptions.threads = options.threads;
    const auto slash = options.shard.find('/');
    try {
      if (slash == std::string::npos) throw std::invalid_argument("no slash");
      tuneOptions.shardIndex = std::stoi(options.shard.substr(0, slash)) - 1;
      tuneOptions.shardCount = std::stoi(options.shard.substr(slash + 1));
    } catch (const std::exception&) {
      diags.error(SourceLocation{"--shard"}) << "expected K/N (shard K of N, 1 <= K <= N), got '" << options.shard << "'";
    }
    if (!diags.hasErrors()) traced = traceForVariants(*project, diags, options.traceOptions());
    // The result cache; a ledger that cannot be opened costs the cache only.
    std::optional<RunLedger> ledger;
    if (traced) {
      DiagnosticEngine ledgerDiags;
      ledger = RunLedger::open(project->directory(), ledgerDiags);
      for (const Diagnostic& diagnostic : ledgerDiags.diagnostics())
        diags.warning(diagnostic.location) << diagnostic.message << (ledger ? "" : "; the sweep runs without its result cache");
      tuneOptions.cache = ledger ? &*ledger : nullptr;
      tuneOptions.readCache = !options.noCache;
      result = tune(*traced, tuneOptions, diags);
    }
  }
  const TunePoint* best = result && result->best >= 0 ? &result->points[static_cast<std::size_t>(result->best)] : nullptr;
  if (options.apply && best && best->makespanUs >= result->baselineUs) {
    // The settings as they are beat every point tried: nothing to write.
    std::fprintf(stderr, "pto: left %s as it is: no point beat its %.3f us (the best took %.3f us)\n",
                 project->file.string().c_str(), result->baselineUs, best->makespanUs);
  } else if (options.apply && best) {
    const nlohmann::json patch = tunePatch(*project, result->space, best->choice);
    auto patched = patchedProject(*project, patch, diags);
    if (!patched || !saveProject(*patched, diags)) result.reset();
    else std::fprintf(stderr, "pto: wrote the best point into %s\n", project->file.string().c_str());
  }
  if (!result) return failCommand("tune", options.jsonTarget, diags);
  printDiagnostics(diags);
  if (options.jsonTarget != "-") printResult(project->name, *result, options.rows);
  return finishCommand("tune", options.jsonTarget, diags, [&](nlohmann::ordered_json& json) {
    json["project"] = project->name;
    json.update(tuneResultJson(*result, *project));
    json["confidence"] = confidenceOfRanking(recordedConfidence());
  });
}

} // namespace

void registerTuneCommand(CLI::App& app, CommandRegistry& registry) {
  auto [command, options] = addProjectCommand(app, registry, kTuneCommand, runTune);
  addCountOption(*command, "--budget", options->budget, "Points to simulate at most (pruned points do not count)", 0);
  command->add_option("--strategy", options->strategy, "grid, random (seeded) or evolve (seeded)")
      ->check(CLI::IsMember({"grid", "random", "evolve"}))
      ->capture_default_str();
  command->add_option("--shard", options->shard, "Run shard K of N of a grid or random sweep (an array job's index)")
      ->type_name("K/N")
      ->capture_default_str();
  command->add_option("--merge", options->mergeFiles, "Combine the --json results of all N shards into one")
      ->type_name("FILES")
      ->expected(1, -1);
  command->add_option("--seed", options->seed, "Seed of the random and evolve strategies")->capture_default_str();
  command->add_option("--threads", options->threads, "Points simulated at once (0: one per hardware thread)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  command->add_option("--rows", options->rows, "Fastest points the text lists")->check(CLI::PositiveNumber);
  command->add_flag("--apply", options->apply, "Write the best point into pto-project.json (atomically)");
  command->add_flag("--no-cache", options->noCache,
                    "Simulate every point again instead of taking earlier results from the project's ledger "
                    "(the ledger then keeps the new results)");
}

} // namespace pto::cli
