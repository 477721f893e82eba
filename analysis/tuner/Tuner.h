// Tuner: searches a space of project settings (tile shapes per site, merge
// counts per label, runtime options) by simulating each point, the kernel
// traced once (TracedProject). Points that cannot compile are pruned before
// simulating where a cheap check can tell (a vec or cube tile that is not
// aligned or does not fit its buffers: TileBufferChecker), with the reasons
// counted. Strategies: grid (every point in order), random (a seeded sample
// without repeats) and evolve (a seeded population: the fittest points'
// neighbours, one dimension changed at a time). Points are simulated in
// parallel on a thread pool, or on another machine's or a cluster's workers
// through a RemotePointEvaluator (a Dask cluster: DaskEvaluator.h), where the
// evolve strategy turns steady-state: each result that arrives breeds the
// next point, so no worker waits for a generation's slowest point. A sweep
// can also be cut into shards (grid and random only: point i belongs to shard
// i mod N) that run anywhere and merge into the result the unsharded sweep
// gives.
//
// Result cache. Given the project's run ledger, every point simulated is kept
// there under a key that fingerprints all its result depends on: PTO Studio's
// version, the kernel's text, the traced tensor graph (argument shapes and
// dtypes included), the project document with the point's values set (its
// `tune` section left out, so widening the space or the budget keeps the
// results) and the bytes of the machine file it simulates on. A sweep then
// simulates only the points the cache does not have; failed points are kept
// with their message, cancelled ones are not. The baseline (the project's own
// settings) is kept the same way, so a rerun of a declared space simulates
// nothing.
//
// The space is the project's `tune.space` when it has one:
//   "tune": {"space": {"pass_options.vec_nbuffer_setting.softmax": [1, 2, 4],
//                      "tile_settings.vec.softmax": [[8, 512], [16, 512]],
//                      "runtime_options.device_sched_mode": [0, 1, 2, 3]}}
// (each key a dotted path into pto-project.json, each value the list of
// values to try), else one derived from the run: the merge count of every
// label with more tasks than cores of its type (vec_nbuffer_setting for
// vector labels, cube_l1_reuse_setting for cube labels: 1 to 32) and the
// scheduling policy (device_sched_mode 0-3).
#pragma once

#include "analysis/run/ProjectRun.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pto {

struct TuneDimension {
  std::string path;                 // "pass_options.vec_nbuffer_setting.softmax"
  std::vector<nlohmann::json> values;
};

struct TuneSpace {
  std::vector<TuneDimension> dimensions;
  std::string origin;  // "project" (tune.space) or "derived"
  std::size_t pointCount() const;  // points in the full grid
  // The grid's point `index` (the last dimension varying fastest): an index into each dimension's values.
  std::vector<int> choiceAt(std::size_t index) const;
};

enum class TuneStrategy { Grid, Random, Evolve };
std::optional<TuneStrategy> parseTuneStrategy(std::string_view text);
std::string_view name(TuneStrategy strategy);

class RunLedger;

// What simulating one point gave.
struct TunePointOutcome {
  std::string status;  // "ok" or "failed"
  std::string reason;  // why it failed
  double makespanUs = 0.0;
  double busyUs = 0.0;
};

// Simulates `project` with `settings` ({dotted tune path: value}) set: what a
// worker of a distributed sweep does with each point it is sent.
TunePointOutcome simulateTuneSettings(VariantSimulator& simulator, const OperatorProject& project,
                                 const nlohmann::json& settings);

// A point's values as {dotted tune path: value}.
nlohmann::json tuneSettings(const TuneSpace& space, const std::vector<int>& choice);
// The project document with a point's values set.
nlohmann::json tuneDocument(const OperatorProject& project, const TuneSpace& space, const std::vector<int>& choice);

// Points simulated somewhere else than this process's threads. submit() may
// hold points back to send them in batches; next() sends what is held and
// waits for a result.
class RemotePointEvaluator {
public:
  virtual ~RemotePointEvaluator() = default;
  virtual void submit(std::size_t id, const nlohmann::json& settings) = 0;
  struct Result {
    std::size_t id = 0;
    TunePointOutcome outcome;
  };
  // The next result of a submitted point. nullopt when `cancelled` says so
  // (asked every fraction of a second while waiting) or when the evaluator
  // broke down (then with an error in `diags`).
  virtual std::optional<Result> next(const std::function<bool()>& cancelled, DiagnosticEngine& diags) = 0;
  // Where the points run, for people: "Dask cluster at tcp://10.0.0.5:8786 (2 workers)".
  virtual std::string where() const = 0;
};

struct TunePoint;

// How far a sweep has got, reported as its points' results arrive.
struct TuneProgress {
  int done = 0;         // points evaluated (simulated or from the cache)
  int total = 0;        // points the sweep will evaluate at most
  int simulated = 0;    // of the done: simulated by this sweep
  double bestUs = 0.0;  // the fastest makespan so far (0: none yet)
  double seconds = 0.0;
  double ratePerSecond = 0.0;  // simulated points per second so far
  double etaSeconds = -1.0;    // -1: not known yet
  std::string where;           // where the points run
  // The point that just arrived and the sweep's space, valid only during the
  // call (copy what is kept): a view fills its table as results come in
  // instead of when the sweep ends, which on a cluster may be hours later.
  const TunePoint* point = nullptr;
  const TuneSpace* space = nullptr;
};

struct TuneOptions {
  TuneStrategy strategy = TuneStrategy::Grid;
  int budget = 100;       // points simulated at most (pruned ones do not count)
  int shardIndex = 0;     // 0-based
  int shardCount = 1;
  unsigned seed = 1;
  int threads = 0;        // 0: one per hardware thread
  std::function<bool()> cancelled;
  // The result cache (see the header); null: none. With readCache false
  // every point is simulated again and the cache refreshed (`--no-cache`).
  RunLedger* cache = nullptr;
  bool readCache = true;
  // Where points are simulated when not on `threads` threads here; null: here.
  RemotePointEvaluator* remote = nullptr;
  // Called (from the sweep's threads, one call at a time) as results arrive.
  std::function<void(const TuneProgress&)> progress;
};

struct TunePoint {
  std::vector<int> choice;  // an index into each dimension's values
  std::string status;       // "ok", "pruned" or "failed"
  std::string reason;       // why pruned or failed
  double makespanUs = 0.0;
  double busyUs = 0.0;      // core time the tasks took: the cost side of the Pareto front
  bool cached = false;      // taken from the result cache, not simulated by this sweep
};

struct TuneResult {
  TuneSpace space;
  TuneStrategy strategy = TuneStrategy::Grid;
  int shardIndex = 0, shardCount = 1;
  unsigned seed = 1;
  double baselineUs = 0.0;
  bool baselineCached = false;    // the baseline came from the result cache
  std::vector<TunePoint> points;  // every point looked at, in evaluation order
  int evaluated = 0, pruned = 0, failed = 0;
  int cached = 0;  // of the evaluated: taken from the result cache
  std::map<std::string, int> prunedReasons;
  double seconds = 0.0;
  // Made on this machine for the sweep, baseline included: points that
  // compile to the same settings, or simulate the same (VariantSimulator),
  // share one.
  int compilations = 0, simulations = 0;
  int resumedSimulations = 0;  // of the simulations, those resumed from a fork (VariantSimulator::resumedSimulations)
  std::string where;  // where the points ran: "this machine (2 threads)", "Dask cluster at ..."
  // Indices into points: the fastest, and the points no other beats on both
  // makespan and busy time (fastest first).
  int best = -1;
  std::vector<int> pareto;
};

// The space to search for `traced` (see the header); errors for a malformed
// `tune.space`. `baseline` is the project's own settings compiled and
// simulated, which a derived space is read from (null: the project declares
// its space).
std::optional<TuneSpace> tuneSpaceOf(const TracedProject& traced, const VariantSimulator::Outcome* baseline,
                                     DiagnosticEngine& diags);

// The passes before which a sweep of `space` keeps its compilations' IR
// (VariantSimulator::keepStagesBefore): those that read a pass option the
// space varies, the only stages a point resumes from (a point differing in
// tile settings, overrides or the machine shares no stage; one differing in
// runtime options shares the compilation). nullopt when the space varies a
// pass option no pass declares (the runner's disable_pass): then the
// default, every pass that reads options.
std::optional<std::set<std::string, std::less<>>> stagesToKeepFor(const TuneSpace& space);

// The patch (RFC 6902) that sets a point's values on the project.
nlohmann::json tunePatch(const OperatorProject& project, const TuneSpace& space, const std::vector<int>& choice);

// The grid indices of `space` in the order a grid or random sweep takes
// them (random: a permutation seeded by `seed`); every shard of a sweep, and
// their merge, computes the same list.
std::vector<std::size_t> sweepOrder(const TuneSpace& space, TuneStrategy strategy, unsigned seed);

std::optional<TuneResult> tune(const TracedProject& traced, const TuneOptions& options, DiagnosticEngine& diags);

// Counts result.points (evaluated, pruned, failed, cached, pruned reasons)
// and finds the fastest and the Pareto front; what tune() does at its end,
// for a view that shows the points a sweep has delivered so far.
void summarise(TuneResult& result);

// `pto tune --json`: {strategy, shard, space, baseline_us, baseline_cached, evaluated, pruned,
// pruned_reasons, failed, seconds, rate_per_second, best, pareto, points}.
nlohmann::ordered_json tuneResultJson(const TuneResult& result, const OperatorProject& project);
// Shards of one sweep (their JSON) as the unsharded sweep's result; errors
// when they are not shards of one space and strategy.
std::optional<TuneResult> mergeTuneShards(const std::vector<nlohmann::ordered_json>& shards, const std::vector<std::string>& files,
                                          DiagnosticEngine& diags);

} // namespace pto
