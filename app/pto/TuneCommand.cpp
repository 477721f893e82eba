// `pto tune PROJECT`: searches the project's settings space (analysis/tuner/Tuner.h)
// by simulating each point, and reports every point, the best and the Pareto
// front (makespan against busy core time). `--shard K/N` runs one share of a
// grid or random sweep (an array job on a batch scheduler); `--merge FILES`
// combines the shards' JSON into the unsharded result. `--apply` writes the
// best point into pto-project.json (atomically). Points simulated before (the
// result cache in the project's run ledger) are not simulated again unless
// `--no-cache` asks for it. `--dask ADDRESS` simulates the points on a Dask
// cluster's workers, each of which runs `pto tune PROJECT --serve-points`:
// points in on stdin, results out on stdout, one JSON line per batch.
#include "app/pto/Command.h"
#include "app/pto/TrustCommand.h"
#include "app/pto/CommandOutput.h"

#include "analysis/advisor/Advisor.h"
#include "analysis/ledger/RunLedger.h"
#include "analysis/validation/PredictionConfidence.h"
#include "analysis/tuner/DaskEvaluator.h"
#include "analysis/tuner/Tuner.h"
#include "core/Version.h"
#include "core/project/ProjectFile.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <list>
#include <map>
#include <memory>
#include <unistd.h>

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
  std::string dask;
  int batch = 4;
  double daskTimeout = 10.0;
  bool servePoints = false;
  bool quiet = false;
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
  std::printf("%s: %s sweep over %s space of %zu points (shard %d/%d): %d evaluated (%d simulated, %d from the "
              "result cache), %d pruned, %d failed in %.2f s (%.0f simulated per second) on %s\n",
              project.c_str(), std::string(name(result.strategy)).c_str(), result.space.origin.c_str(),
              result.space.pointCount(), result.shardIndex + 1, result.shardCount, result.evaluated,
              result.evaluated - result.cached, result.cached, result.pruned, result.failed, result.seconds,
              result.seconds > 0 ? (result.evaluated - result.cached) / result.seconds : 0.0,
              result.where.c_str());
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

// Progress on stderr as results arrive: rewritten in place on a terminal,
// a line every few seconds in a log.
class ProgressPrinter {
public:
  void operator()(const TuneProgress& progress) {
    const auto now = std::chrono::steady_clock::now();
    const bool last = progress.done >= progress.total;
    // A short sweep prints nothing; a long one ends with its last count.
    if (last && !m_terminal && !m_any) return;
    if (!last && now - m_printed < (m_terminal ? std::chrono::milliseconds(250) : std::chrono::milliseconds(5000)))
      return;
    m_printed = now;
    m_any = true;
    char best[32] = "-", eta[32] = "-";
    if (progress.bestUs > 0) std::snprintf(best, sizeof best, "%.2f", progress.bestUs);
    if (progress.etaSeconds >= 0) std::snprintf(eta, sizeof eta, "%.0f s", progress.etaSeconds);
    std::fprintf(stderr, "%spto tune: %d/%d points, %.1f simulated/s, best %s us, ETA %s, on %s%s", m_terminal ? "\r" : "",
                 progress.done, progress.total, progress.ratePerSecond, best, eta,
                 progress.where.c_str(), m_terminal && !last ? "\x1b[K" : "\n");
    if (m_terminal && last) m_finished = true;
    std::fflush(stderr);
  }
  ~ProgressPrinter() {
    if (m_terminal && !m_finished && m_any) std::fputc('\n', stderr);
  }

private:
  bool m_terminal = ::isatty(2) != 0;
  bool m_finished = false;
  bool m_any = false;
  std::chrono::steady_clock::time_point m_printed = std::chrono::steady_clock::now();
};

// `--serve-points`: what a Dask worker runs. Each line on stdin is
// {"setup": {"document", "kernel"}, "points": [{"id", "settings"}]} and is
// answered by one line {"points": [{"id", "status", "reason", "makespan_us",
// "busy_us"}]}, or {"error": message} when the setup does not trace. The
// setup is the project document and kernel text the sweep's own process
// traced (the IDE's unsaved edits included), so that every worker simulates
// what it would; each setup is traced once and kept, with its compilations,
// for the worker's later batches. Without a setup the project on disk is used.
class PointServer {
public:
  explicit PointServer(const TuneCommandOptions& options) : m_options(options) {}

  nlohmann::json answer(const nlohmann::json& request) {
    if (!request.is_object() || !request.contains("points") || !request["points"].is_array())
      return {{"error", "expected {\"setup\": {...}, \"points\": [...]} on each line"}};
    Setup& setup = setupFor(request.value("setup", nlohmann::json()));
    if (!setup.simulator) return {{"error", setup.error}};
    nlohmann::json answer{{"points", nlohmann::json::array()}};
    for (const auto& point : request["points"]) {
      const TunePointOutcome outcome =
          simulateTuneSettings(*setup.simulator, setup.traced->project, point.value("settings", nlohmann::json::object()));
      answer["points"].push_back({{"id", point.value("id", 0)},
                                  {"status", outcome.status},
                                  {"reason", outcome.reason},
                                  {"makespan_us", outcome.makespanUs},
                                  {"busy_us", outcome.busyUs}});
    }
    return answer;
  }

private:
  struct Setup {
    std::optional<TracedProject> traced;
    std::unique_ptr<VariantSimulator> simulator;
    std::string error;
  };

  Setup& setupFor(const nlohmann::json& setup) {
    const std::string key = setup.is_null() ? std::string() : setup.dump();
    auto found = m_setups.find(key);
    if (found != m_setups.end()) {
      m_recent.remove(key);
      m_recent.push_front(key);
      return found->second;
    }
    // A worker lives long and may serve many sweeps (an IDE's edits, one
    // after another): the setups used least recently go, with their
    // compilations.
    while (m_setups.size() >= kKeptSetups) {
      m_setups.erase(m_recent.back());
      m_recent.pop_back();
    }
    m_recent.push_front(key);
    Setup& made = m_setups[key];
    DiagnosticEngine diags;
    auto project = loadTrustedProject(m_options.projectPath, diags);
    ProjectTraceOptions trace = m_options.traceOptions();
    if (project && setup.is_object()) {
      if (setup.contains("document") && setup["document"].is_object())
        project = parseProject(setup["document"].dump(2), project->file, diags);
      if (setup.contains("kernel") && setup["kernel"].is_string()) trace.sourceText = setup["kernel"].get<std::string>();
    }
    if (project) made.traced = traceForVariants(*project, diags, trace);
    if (made.traced) made.simulator = std::make_unique<VariantSimulator>(*made.traced);
    else made.error = diags.diagnostics().empty() ? "the project did not trace" : diags.diagnostics().front().message;
    return made;
  }

  static constexpr std::size_t kKeptSetups = 4;
  const TuneCommandOptions& m_options;
  std::map<std::string, Setup> m_setups;
  std::list<std::string> m_recent;  // keys, most recently used first
};

int servePoints(const TuneCommandOptions& options) {
  PointServer server(options);
  for (std::string line; std::getline(std::cin, line);) {
    const auto request = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    std::cout << server.answer(request).dump() << std::endl;
  }
  return 0;
}

int runTune(const TuneCommandOptions& options) {
  if (options.servePoints) return servePoints(options);
  DiagnosticEngine diags;
  auto project = loadTrustedProject(options.projectPath, diags);
  if (!project) return failCommand("tune", options.jsonTarget, diags);
  std::optional<TuneResult> result;
  std::optional<TracedProject> traced;
  if (!options.mergeFiles.empty()) {
    if (!options.dask.empty())
      diags.error(SourceLocation{"--dask"}) << "--merge combines shards already run; leave out --dask";
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
    if (!options.dask.empty() && tuneOptions.shardCount > 1)
      diags.error(SourceLocation{"--dask"}) << "a sweep on a Dask cluster is not cut into shards: leave out --shard";
    if (!diags.hasErrors()) traced = traceForVariants(*project, diags, options.traceOptions());
    std::unique_ptr<RemotePointEvaluator> cluster;
    if (traced && !options.dask.empty()) {
      DaskConnection connection = DaskConnection::forSweep(*traced, options.dask);
      connection.batchSize = options.batch;
      connection.traceTimeoutSeconds = options.timeoutSeconds;
      connection.connectSeconds = options.daskTimeout;
      cluster = connectDask(connection, diags);
      if (!cluster) traced.reset();
      tuneOptions.remote = cluster.get();
    }
    ProgressPrinter printer;
    if (!options.quiet) tuneOptions.progress = std::ref(printer);
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
  command->add_option("--dask", options->dask,
                      "Simulate the points on the Dask cluster whose scheduler is at ADDRESS (every worker needs pto "
                      "and the project folder at this machine's paths)")
      ->type_name("ADDRESS");
  addCountOption(*command, "--batch", options->batch, "Points per Dask task (with --dask)", 1);
  command->add_option("--dask-timeout", options->daskTimeout, "Seconds to wait for the Dask scheduler to answer")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_flag("--serve-points", options->servePoints,
                    "Worker mode (what a Dask worker runs): trace once, then answer each line of points on stdin "
                    "with their results on stdout");
  command->add_flag("--quiet", options->quiet, "No progress lines on stderr");
  command->add_flag("--no-cache", options->noCache,
                    "Simulate every point again instead of taking earlier results from the project's ledger "
                    "(the ledger then keeps the new results)");
}

} // namespace pto::cli
