#include "analysis/tuner/Tuner.h"

#include "analysis/tuner/TuneResultCache.h"
#include "analysis/tuning/OptionCatalog.h"
#include "analysis/tuning/TileBufferCheck.h"
#include "analysis/tuning/TileSites.h"
#include "core/EnumNames.h"
#include "core/project/ProjectFile.h"
#include "npusim/MachineFile.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <set>
#include <thread>

namespace pto {
namespace {

using json = nlohmann::json;

// A dotted tune path as JSON-pointer tokens: the group, then (for
// tile_settings and pass_options) the section or option, then the key, which
// may itself hold dots ("kernel.py:12", the label "li.qk").
std::vector<std::string> pathTokens(const std::string& path) {
  std::vector<std::string> tokens;
  std::size_t at = 0;
  const std::size_t first = path.find('.');
  if (first == std::string::npos) return {path};
  tokens.push_back(path.substr(0, first));
  at = first + 1;
  if (tokens[0] == "tile_settings" || tokens[0] == "pass_options") {
    const std::size_t second = path.find('.', at);
    if (second == std::string::npos) {
      tokens.push_back(path.substr(at));
      return tokens;
    }
    tokens.push_back(path.substr(at, second - at));
    at = second + 1;
  }
  tokens.push_back(path.substr(at));
  return tokens;
}

json withValue(json document, const std::string& path, const json& value) {
  json* node = &document;
  const std::vector<std::string> tokens = pathTokens(path);
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (!node->contains(tokens[i]) || !(*node)[tokens[i]].is_object()) (*node)[tokens[i]] = json::object();
    node = &(*node)[tokens[i]];
  }
  (*node)[tokens.back()] = value;
  return document;
}

// The option a pass_options or runtime_options path names (null for a tile
// setting or an unknown option).
const OptionInfo* optionOf(const std::vector<std::string>& tokens) {
  if (tokens.size() < 2) return nullptr;
  if (tokens[0] == "pass_options") return findOption(tokens[1], OptionScope::Pass);
  if (tokens[0] == "runtime_options") return findOption(tokens[1], OptionScope::Runtime);
  return nullptr;
}

// Checks that cost microseconds, run before a point is simulated.
class Pruner {
public:
  Pruner(const TracedProject& traced, const TuneSpace& space, const TargetInfo& target) : m_space(space) {
    const auto bindings = projectDimBindings(traced.project, traced.graph);
    const std::vector<TileSite> sites = collectTileSites(traced.graph, traced.project.tileSettings, bindings);
    m_optionProblems.resize(space.dimensions.size());
    for (std::size_t d = 0; d < space.dimensions.size(); ++d) {
      const std::vector<std::string> tokens = pathTokens(space.dimensions[d].path);
      // An option's values, checked once against its declaration by the
      // reader the pass or the runtime runs (a keyed option's value is the
      // object {key: value}).
      if (const OptionInfo* option = optionOf(tokens)) {
        for (const json& value : space.dimensions[d].values) {
          nlohmann::ordered_json setting = nlohmann::ordered_json::parse(value.dump());
          if (tokens.size() == 3) setting = nlohmann::ordered_json{{tokens[2], setting}};
          const std::string problem = validateOption(option->scope, option->name, setting, &traced.graph);
          m_optionProblems[d].push_back(problem);  // it names the option
        }
        continue;
      }
      if (tokens.size() != 3 || tokens[0] != "tile_settings") continue;
      for (const TileSite& site : sites)
        if (site.key == tokens[2] && std::string(name(site.section)) == tokens[1] && !site.governs.empty())
          m_checkers.emplace(d, TileBufferChecker(traced.graph, site, bindings, target));
    }
  }

  // Empty when the point may compile; else why it cannot.
  std::string reasonAgainst(const std::vector<int>& choice) const {
    for (std::size_t d = 0; d < m_space.dimensions.size(); ++d) {
      const TuneDimension& dimension = m_space.dimensions[d];
      const json& value = dimension.values[static_cast<std::size_t>(choice[d])];
      const std::vector<std::string> tokens = pathTokens(dimension.path);
      if (!m_optionProblems[d].empty() && !m_optionProblems[d][static_cast<std::size_t>(choice[d])].empty())
        return m_optionProblems[d][static_cast<std::size_t>(choice[d])];
      auto checker = m_checkers.find(d);
      if (checker == m_checkers.end()) continue;
      const TileBufferCheck check = checker->second.checkJson(value);
      if (check.fit == TileFit::Invalid)
        return "tile_settings." + tokens[1] + ": " + (check.problems.empty() ? "not a tile shape" : check.problems.front());
      if (check.fit == TileFit::DoesNotFit) {
        for (const MemoryUse& use : check.memories)
          if (!use.fits()) return "tile_settings." + tokens[1] + ": the tile does not fit " + std::string(name(use.memory));
        return "tile_settings." + tokens[1] + ": the tile does not fit its buffers";
      }
    }
    return {};
  }

private:
  const TuneSpace& m_space;
  std::map<std::size_t, TileBufferChecker> m_checkers;
  std::vector<std::vector<std::string>> m_optionProblems;  // per option dimension and value: why not ("" when fine)
};

double busyMicroseconds(const Simulation& simulation) {
  std::int64_t cycles = 0;
  for (const TaskRecord& record : simulation.schedule.tasks) cycles += record.endCycle - record.startCycle;
  return static_cast<double>(cycles) / (simulation.clockGHz * 1000.0);
}

// The project document with `settings` ({dotted path: value}) set.
json documentWith(const OperatorProject& project, const json& settings) {
  json document = json::parse(project.document.dump());
  for (const auto& [path, value] : settings.items()) document = withValue(std::move(document), path, value);
  return document;
}

// The project with `settings` set, as a project (read again: its settings' places move).
std::optional<OperatorProject> variantWith(const OperatorProject& project, const json& settings, DiagnosticEngine& diags) {
  return parseProject(documentWith(project, settings).dump(2), project.file, diags);
}

TunePointOutcome outcomeOf(const std::optional<VariantSimulator::Outcome>& run, const DiagnosticEngine& diags) {
  if (!run) return {"failed", diags.diagnostics().empty() ? "did not compile" : diags.diagnostics().front().message};
  return {"ok", "", run->simulation.stats.makespanUs, busyMicroseconds(run->simulation)};
}

// Counts a sweep's results as they arrive and passes them on
// (TuneOptions::progress); results arrive on several threads at once.
class ProgressReporter {
public:
  ProgressReporter(const TuneOptions& options, std::string where, const TuneSpace& space)
      : m_callback(options.progress), m_start(std::chrono::steady_clock::now()) {
    m_progress.where = std::move(where);
    m_progress.space = &space;
  }

  void expect(int total) {
    std::lock_guard lock(m_mutex);
    m_progress.total = total;
  }

  void add(const TunePoint& point) {
    std::lock_guard lock(m_mutex);
    ++m_progress.done;
    if (!point.cached) ++m_progress.simulated;
    if (point.status == "ok" && (m_progress.bestUs == 0.0 || point.makespanUs < m_progress.bestUs))
      m_progress.bestUs = point.makespanUs;
    if (!m_callback) return;
    const auto now = std::chrono::steady_clock::now();
    m_progress.seconds = std::chrono::duration<double>(now - m_start).count();
    m_progress.ratePerSecond = m_progress.seconds > 0 ? m_progress.simulated / m_progress.seconds : 0.0;
    // The time left comes from the rate since the first simulated result:
    // before it lie the workers' start-up and the kernel's trace, which the
    // points still to come do not pay again. Points still to come are
    // assumed to need simulating (the cache answers before them).
    if (!point.cached && m_progress.simulated == 1) m_firstResult = now;
    const double steady = std::chrono::duration<double>(now - m_firstResult).count();
    const int left = std::max(0, m_progress.total - m_progress.done);
    m_progress.etaSeconds =
        m_progress.simulated >= 2 && steady > 0 ? left / ((m_progress.simulated - 1) / steady) : (left == 0 ? 0.0 : -1.0);
    m_progress.point = &point;
    m_callback(m_progress);
    m_progress.point = nullptr;
  }

private:
  std::function<void(const TuneProgress&)> m_callback;
  std::chrono::steady_clock::time_point m_start, m_firstResult;
  std::mutex m_mutex;
  TuneProgress m_progress;
};

// What every evaluation of a sweep shares.
struct Sweep {
  VariantSimulator& simulator;
  const TracedProject& traced;
  const TuneSpace& space;
  TuneResultCache& cache;
  const TuneOptions& options;
  int threads;
  ProgressReporter& progress;
};

void setOutcome(TunePoint& point, const TunePointOutcome& outcome) {
  point.status = outcome.status;
  point.reason = outcome.reason;
  point.makespanUs = outcome.makespanUs;
  point.busyUs = outcome.busyUs;
}

// Points that need the same simulation (VariantSimulator::simulationKey:
// compiled kernels the same to the timing model, the same runtime options):
// the first taken is simulated and its twins take its outcome. A thread that
// reaches a twin whose first is still being simulated by another does not
// wait for it (the simulator would make it wait) but goes on to its next
// point; the first hands its outcome on when it is done.
class Twins {
public:
  Twins(std::vector<TunePoint>& points, ProgressReporter& progress) : m_points(points), m_progress(progress) {}

  // True when `point` is the first of `key` and is to be simulated;
  // otherwise it is a twin, filled in now or once its first is done.
  bool claim(const StageKey& key, std::size_t point) {
    std::lock_guard lock(m_mutex);
    auto [entry, added] = m_byKey.try_emplace(key, Entry{point, false, {}});
    if (added) return true;
    if (entry->second.done) copyTo(entry->second.first, point);
    else entry->second.waiting.push_back(point);
    return false;
  }
  // The first of `key` has its outcome.
  void done(const StageKey& key) {
    std::lock_guard lock(m_mutex);
    Entry& entry = m_byKey.at(key);
    entry.done = true;
    for (std::size_t twin : entry.waiting) copyTo(entry.first, twin);
    entry.waiting.clear();
  }

private:
  struct Entry {
    std::size_t first;
    bool done;
    std::vector<std::size_t> waiting;
  };
  void copyTo(std::size_t first, std::size_t twin) {
    const TunePoint& from = m_points[first];
    setOutcome(m_points[twin], {from.status, from.reason, from.makespanUs, from.busyUs});
    m_progress.add(m_points[twin]);
  }

  std::vector<TunePoint>& m_points;
  ProgressReporter& m_progress;
  std::mutex m_mutex;
  std::map<StageKey, Entry> m_byKey;
};

// Simulates `which` here, in parallel on the sweep's threads.
//
// Points that differ only in runtime options share one compilation (the
// simulator keeps it), and a thread that reaches a point whose compilation
// another thread is making waits for it. So the points are handed out in
// groups of one compilation: a thread keeps to its group, takes a group
// nobody has started when its own is done (its compilation runs beside the
// others' instead of after them) and, when none is left, helps with the
// group that has the most points left. At most one group per thread is open
// at a time, so the simulator's kept compilations still serve every group.
// Points needing the same simulation (Twins) are simulated once.
// The order changes no result: each point's simulation is its own.
void simulateHere(const Sweep& sweep, std::vector<TunePoint>& points, const std::vector<std::size_t>& which) {
  struct Group {
    std::vector<std::size_t> points;  // indices into `points`
    std::size_t next = 0;
    bool started = false;
  };
  std::vector<Group> groups;
  {
    std::map<std::vector<int>, std::size_t> groupOf;  // the choices that reach the compiler -> group
    for (std::size_t i : which) {
      std::vector<int> compiled;
      for (std::size_t d = 0; d < sweep.space.dimensions.size(); ++d)
        if (!sweep.space.dimensions[d].path.starts_with("runtime_options."))
          compiled.push_back(points[i].choice[d]);
      auto [found, added] = groupOf.try_emplace(std::move(compiled), groups.size());
      if (added) groups.emplace_back();
      groups[found->second].points.push_back(i);
    }
  }
  std::mutex mutex;
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  // The next point for a thread working on `group` (kNone: none yet); false when all are taken.
  auto take = [&](std::size_t& group, std::size_t& point) {
    std::lock_guard lock(mutex);
    if (group == kNone || groups[group].next == groups[group].points.size()) {
      group = kNone;
      for (std::size_t g = 0; g < groups.size() && group == kNone; ++g)
        if (!groups[g].started) group = g;
      for (std::size_t g = 0, most = 0; g < groups.size() && group == kNone; ++g)
        if (groups[g].points.size() - groups[g].next > most) {
          most = groups[g].points.size() - groups[g].next;
          group = g;
        }
      if (group == kNone) return false;
      groups[group].started = true;
    }
    point = groups[group].points[groups[group].next++];
    return true;
  };
  Twins twins(points, sweep.progress);
  auto work = [&] {
    std::size_t group = kNone, index = 0;
    while (take(group, index)) {
      TunePoint& point = points[index];
      if (sweep.options.cancelled && sweep.options.cancelled()) {
        point.status = "failed";
        point.reason = TuneResultCache::kCancelled;
        continue;
      }
      DiagnosticEngine diags;
      auto variant = variantWith(sweep.traced.project, tuneSettings(sweep.space, point.choice), diags);
      std::optional<StageKey> key;
      if (variant) key = sweep.simulator.simulationKey(*variant, diags);
      if (!key) {
        setOutcome(point, outcomeOf(std::nullopt, diags));
        sweep.progress.add(point);
        continue;
      }
      if (!twins.claim(*key, index)) continue;
      setOutcome(point, outcomeOf(sweep.simulator.run(*variant, diags), diags));
      sweep.progress.add(point);
      twins.done(*key);
    }
  };
  const int count = std::max(1, std::min<int>(sweep.threads, static_cast<int>(which.size())));
  std::vector<std::thread> pool;
  for (int t = 1; t < count; ++t) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
}

// Sends `all` to the remote evaluator after taking what the result cache
// has; returns how many were sent.
std::size_t sendRemote(const Sweep& sweep, std::vector<TunePoint>& points, const std::vector<std::size_t>& all,
                       DiagnosticEngine& diags) {
  const std::vector<std::size_t> which = sweep.cache.fill(sweep.space, points, all, diags);
  for (std::size_t i : all)
    if (points[i].cached) sweep.progress.add(points[i]);
  for (std::size_t i : which) sweep.options.remote->submit(i, tuneSettings(sweep.space, points[i].choice));
  return which.size();
}

// Applies a remote evaluator's next result and returns its point; nullopt
// when none came (cancelled, or the evaluator broke down: its error is in
// `diags`).
std::optional<std::size_t> receiveRemote(const Sweep& sweep, std::vector<TunePoint>& points, DiagnosticEngine& diags) {
  auto result = sweep.options.remote->next(sweep.options.cancelled, diags);
  if (!result) return std::nullopt;
  TunePoint& point = points[result->id];
  setOutcome(point, result->outcome);
  sweep.progress.add(point);
  return result->id;
}

// Points sent away that never came back are reported as cancelled, which
// the cache does not keep.
void markUnfinished(std::vector<TunePoint>& points, const std::vector<std::size_t>& which) {
  for (std::size_t i : which)
    if (points[i].status.empty()) {
      points[i].status = "failed";
      points[i].reason = TuneResultCache::kCancelled;
    }
}

// Evaluates `all` (status still empty), each point's result depending on it
// alone: what the result cache has, then the rest simulated here or by the
// remote evaluator.
void evaluate(const Sweep& sweep, std::vector<TunePoint>& points, const std::vector<std::size_t>& all,
              DiagnosticEngine& diags) {
  if (sweep.options.remote) {
    const std::size_t sent = sendRemote(sweep, points, all, diags);
    // Kept as they arrive, a few hundred at a time: a long distributed sweep
    // stopped half way keeps what it has.
    std::vector<std::size_t> arrived;
    for (std::size_t received = 0; received < sent; ++received) {
      auto index = receiveRemote(sweep, points, diags);
      if (!index) break;
      arrived.push_back(*index);
      if (arrived.size() == 256) {
        sweep.cache.keep(sweep.space, points, arrived, diags);
        arrived.clear();
      }
    }
    sweep.cache.keep(sweep.space, points, arrived, diags);
    markUnfinished(points, all);
    return;
  }
  const std::vector<std::size_t> which = sweep.cache.fill(sweep.space, points, all, diags);
  for (std::size_t i : all)
    if (points[i].cached) sweep.progress.add(points[i]);
  simulateHere(sweep, points, which);
  sweep.cache.keep(sweep.space, points, which, diags);
}

} // namespace

void summarise(TuneResult& result) {
  result.evaluated = result.pruned = result.failed = result.cached = 0;
  result.prunedReasons.clear();
  result.best = -1;
  result.pareto.clear();
  std::vector<int> ok;
  for (std::size_t i = 0; i < result.points.size(); ++i) {
    const TunePoint& point = result.points[i];
    if (point.status == "pruned") {
      ++result.pruned;
      ++result.prunedReasons[point.reason];
      continue;
    }
    ++result.evaluated;
    if (point.cached) ++result.cached;
    if (point.status != "ok") {
      ++result.failed;
      continue;
    }
    ok.push_back(static_cast<int>(i));
  }
  // By makespan, then busy time: of points that tie on makespan only the least busy can be on the front
  // (the others are dominated), whatever order they arrived in (a sweep on several threads or workers).
  std::stable_sort(ok.begin(), ok.end(), [&](int a, int b) {
    const TunePoint& first = result.points[static_cast<std::size_t>(a)];
    const TunePoint& second = result.points[static_cast<std::size_t>(b)];
    if (first.makespanUs != second.makespanUs) return first.makespanUs < second.makespanUs;
    return first.busyUs < second.busyUs;
  });
  if (!ok.empty()) result.best = ok.front();
  double leastBusy = INFINITY;
  for (int i : ok)
    if (result.points[static_cast<std::size_t>(i)].busyUs < leastBusy) {
      result.pareto.push_back(i);
      leastBusy = result.points[static_cast<std::size_t>(i)].busyUs;
    }
}

std::size_t TuneSpace::pointCount() const {
  std::size_t count = 1;
  for (const TuneDimension& dimension : dimensions) count *= std::max<std::size_t>(1, dimension.values.size());
  return count;
}

std::vector<int> TuneSpace::choiceAt(std::size_t index) const {
  std::vector<int> choice(dimensions.size(), 0);
  for (std::size_t d = dimensions.size(); d-- > 0;) {
    const std::size_t radix = dimensions[d].values.size();
    choice[d] = static_cast<int>(index % radix);
    index /= radix;
  }
  return choice;
}

std::vector<std::size_t> sweepOrder(const TuneSpace& space, TuneStrategy strategy, unsigned seed) {
  std::vector<std::size_t> order(space.pointCount());
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (strategy == TuneStrategy::Random) {
    std::mt19937_64 random(seed);
    std::shuffle(order.begin(), order.end(), random);
  }
  return order;
}

constexpr auto kTuneStrategyNames = enumNames<TuneStrategy>({
    {TuneStrategy::Grid, "grid"}, {TuneStrategy::Random, "random"}, {TuneStrategy::Evolve, "evolve"}});

std::string_view name(TuneStrategy strategy) { return kTuneStrategyNames.name(strategy); }

std::optional<TuneStrategy> parseTuneStrategy(std::string_view text) { return kTuneStrategyNames.parse(text); }

json tuneSettings(const TuneSpace& space, const std::vector<int>& choice) {
  json settings = json::object();
  for (std::size_t d = 0; d < space.dimensions.size(); ++d)
    settings[space.dimensions[d].path] = space.dimensions[d].values[static_cast<std::size_t>(choice[d])];
  return settings;
}

TunePointOutcome simulateTuneSettings(VariantSimulator& simulator, const OperatorProject& project, const json& settings) {
  DiagnosticEngine diags;
  std::optional<VariantSimulator::Outcome> run;
  auto variant = variantWith(project, settings, diags);
  if (variant) run = simulator.run(*variant, diags);
  return outcomeOf(run, diags);
}

std::optional<std::set<std::string, std::less<>>> stagesToKeepFor(const TuneSpace& space) {
  constexpr std::string_view kPassOptions = "pass_options.";
  std::set<std::string, std::less<>> passes;
  for (const TuneDimension& dimension : space.dimensions) {
    if (!dimension.path.starts_with(kPassOptions)) continue;
    std::string_view option = std::string_view(dimension.path).substr(kPassOptions.size());
    option = option.substr(0, option.find('.'));
    auto pass = passReadingOption(option);
    if (!pass) return std::nullopt;
    passes.emplace(*pass);
  }
  return passes;
}

json tuneDocument(const OperatorProject& project, const TuneSpace& space, const std::vector<int>& choice) {
  return documentWith(project, tuneSettings(space, choice));
}

json tunePatch(const OperatorProject& project, const TuneSpace& space, const std::vector<int>& choice) {
  return json::diff(json::parse(project.document.dump()), tuneDocument(project, space, choice));
}

std::optional<TuneSpace> tuneSpaceOf(const TracedProject& traced, const VariantSimulator::Outcome* baseline,
                                     DiagnosticEngine& diags) {
  TuneSpace space;
  const auto& tune = traced.project.tune;
  const SourceLocation where = traced.project.locationOf("tune");
  if (tune.is_object() && tune.contains("space")) {
    space.origin = "project";
    const auto& declared = tune["space"];
    std::vector<TileSite> sites;  // collected at the first tile setting
    if (!declared.is_object() || declared.empty()) {
      diags.error(where) << "tune.space: expected an object of setting paths, each with a list of values to try";
      return std::nullopt;
    }
    for (const auto& [path, values] : declared.items()) {
      const std::vector<std::string> tokens = pathTokens(path);
      static const std::set<std::string> groups = {"tile_settings", "pass_options", "runtime_options"};
      if (!groups.count(tokens[0]) || tokens.size() < 2 || tokens.back().empty()) {
        diags.error(where) << "tune.space." << path
                           << ": not a setting the tuner can change (tile_settings.vec|cube.KEY, pass_options.OPTION"
                              "[.KEY] or runtime_options.OPTION)";
        return std::nullopt;
      }
      if (!values.is_array() || values.empty()) {
        diags.error(where) << "tune.space." << path << ": expected a non-empty list of values";
        return std::nullopt;
      }
      // A tile setting names a tile site of the kernel, and an option is one
      // the passes or the runtime declare: a misspelt one would sweep a
      // setting nothing reads.
      if (tokens[0] == "tile_settings") {
        if (sites.empty())
          sites = collectTileSites(traced.graph, traced.project.tileSettings,
                                   projectDimBindings(traced.project, traced.graph));
        std::string known;
        bool found = false;
        for (const TileSite& site : sites)
          if (std::string(name(site.section)) == tokens[1]) {
            found = found || site.key == tokens.back();
            known += (known.empty() ? "" : ", ") + site.key;
          }
        if (!found) {
          diags.error(where) << "tune.space." << path << ": the kernel has no " << tokens[1] << " tile site '"
                             << tokens.back() << "'" << (known.empty() ? std::string(" (it has none)") : "; its sites are " + known);
          return std::nullopt;
        }
      }
      if (tokens[0] != "tile_settings" && !optionOf(tokens)) {
        const OptionScope scope = tokens[0] == "pass_options" ? OptionScope::Pass : OptionScope::Runtime;
        std::string known;
        for (const OptionInfo& option : optionCatalog())
          if (option.scope == scope) known += (known.empty() ? "" : ", ") + option.name;
        diags.error(where) << "tune.space." << path << ": no " << tokens[0] << " option is named '" << tokens[1]
                           << "'; the " << tokens[0] << " are " << known;
        return std::nullopt;
      }
      TuneDimension dimension{path, {}};
      for (const auto& value : values) dimension.values.push_back(json::parse(value.dump()));
      space.dimensions.push_back(std::move(dimension));
    }
    return space;
  }
  space.origin = "derived";
  if (!baseline) {
    diags.error(where) << "internal error: a derived tune space needs the project's compilation";
    return std::nullopt;
  }
  const Compilation& compilation = baseline->compiled->compilation;
  const MachineDescription& machine = *baseline->machine;
  std::map<std::pair<std::string, CoreType>, int> tasks;
  for (const Task& task : compilation.tasks.tasks) {
    const Subgraph& subgraph = compilation.blocks.subgraph(task.subgraph);
    if (!subgraph.label.empty()) ++tasks[{subgraph.label, subgraph.coreType}];
  }
  for (const auto& [key, count] : tasks) {
    const int cores = key.second == CoreType::AIC ? machine.aicCores : machine.aivCores;
    if (count <= cores) continue;
    const std::string option = key.second == CoreType::AIC ? "cube_l1_reuse_setting" : "vec_nbuffer_setting";
    TuneDimension dimension{"pass_options." + option + "." + key.first, {}};
    for (int n : {1, 2, 4, 8, 16, 32})
      if (n <= std::max(1, count / cores) * 2) dimension.values.push_back(n);
    if (dimension.values.size() > 1) space.dimensions.push_back(std::move(dimension));
  }
  space.dimensions.push_back({"runtime_options.device_sched_mode", {0, 1, 2, 3}});
  return space;
}

std::optional<TuneResult> tune(const TracedProject& traced, const TuneOptions& options, DiagnosticEngine& diags) {
  const auto start = std::chrono::steady_clock::now();
  if (options.shardCount < 1 || options.shardIndex < 0 || options.shardIndex >= options.shardCount) {
    diags.error(SourceLocation{"--shard"}) << "a shard is K/N with 1 <= K <= N";
    return std::nullopt;
  }
  if (options.strategy == TuneStrategy::Evolve && options.shardCount > 1) {
    diags.error(SourceLocation{"--shard"})
        << "the evolve strategy chooses each generation from the last one's results, so it cannot be cut into "
           "shards; shard a grid or random sweep";
    return std::nullopt;
  }
  // The baseline goes through the sweep's simulator: its compilation serves
  // the points that share it and, when the project's own settings are a
  // point of the space, its simulation is that point's. A derived space is
  // read off its compilation, so there it comes first (and its stages are
  // kept before the threads start). A declared space needs nothing of it:
  // the points start at once and the baseline is taken after them, most
  // often a point already made, instead of alone on one thread while the
  // others wait (a ninth of the LI sweep's time on two threads). A rerun of
  // a declared space takes it from the result cache.
  VariantSimulator simulator(traced);
  TuneResultCache cache(traced, options, simulator);
  const bool declared = traced.project.tune.is_object() && traced.project.tune.contains("space");
  // A declared space is read before the baseline compiles, so that the
  // baseline keeps only the stages the points resume from.
  std::optional<TuneSpace> space;
  auto readSpace = [&](const VariantSimulator::Outcome* from) {
    space = tuneSpaceOf(traced, from, diags);
    if (!space) return false;
    if (auto passes = stagesToKeepFor(*space)) simulator.keepStagesBefore(std::move(*passes));
    return true;
  };
  if (declared && !readSpace(nullptr)) return std::nullopt;
  std::optional<TunePointOutcome> baselineOutcome = declared ? cache.findBaseline(diags) : std::nullopt;
  std::optional<VariantSimulator::Outcome> baseline;
  auto runBaseline = [&] {
    baseline = simulator.run(traced.project, diags, true);
    if (!baseline) return false;
    baselineOutcome = outcomeOf(baseline, diags);
    cache.keepBaseline(*baselineOutcome, diags);
    return true;
  };
  // A remote sweep's points run elsewhere: this machine's threads have the
  // time for the baseline first.
  const bool baselineLast = declared && !baselineOutcome && !options.remote;
  if (!baselineOutcome && !baselineLast && !runBaseline()) return std::nullopt;
  if (!declared && !readSpace(&*baseline)) return std::nullopt;
  std::optional<TargetInfo> target;
  if (baseline) {
    target = baseline->compiled->compilation.settings.target;
  } else if (auto machine = findMachine(traced.project.machine, diags, traced.project.locationOf("machine"),
                                        traced.project.directory())) {
    target = machine->targetInfo();
  } else {
    return std::nullopt;
  }
  TuneResult result;
  result.space = *space;
  result.strategy = options.strategy;
  result.shardIndex = options.shardIndex;
  result.shardCount = options.shardCount;
  result.seed = options.seed;
  result.baselineCached = !baseline && !baselineLast;
  const int threads = options.threads > 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  const Pruner pruner(traced, result.space, *target);
  result.where = options.remote ? options.remote->where()
                                : "this machine (" + std::to_string(threads) + (threads == 1 ? " thread)" : " threads)");
  ProgressReporter progress(options, result.where, result.space);
  const Sweep sweep{simulator, traced, result.space, cache, options, threads, progress};
  const std::size_t size = result.space.pointCount();
  const auto budget = static_cast<std::size_t>(std::max(0, options.budget));

  if (options.strategy != TuneStrategy::Evolve) {
    // The sweep's order (grid, or a seeded permutation), cut at the budget of
    // points that survive pruning; every shard computes the same list and
    // simulates its share of it.
    const std::vector<std::size_t> order = sweepOrder(result.space, options.strategy, options.seed);
    std::size_t kept = 0;
    std::vector<std::size_t> mine;
    for (std::size_t index : order) {
      if (kept == budget) break;
      TunePoint point;
      point.choice = result.space.choiceAt(index);
      point.reason = pruner.reasonAgainst(point.choice);
      const bool pruned = !point.reason.empty();
      const bool ours = static_cast<int>((pruned ? index : kept) % static_cast<std::size_t>(options.shardCount)) ==
                        options.shardIndex;
      if (!pruned) ++kept;
      if (!ours) continue;
      if (pruned) point.status = "pruned";
      else mine.push_back(result.points.size());
      result.points.push_back(std::move(point));
    }
    progress.expect(static_cast<int>(mine.size()));
    evaluate(sweep, result.points, mine, diags);
  } else {
    std::mt19937_64 random(options.seed);
    std::set<std::vector<int>> seen;
    // A new point, unless seen before; its index when it is to be evaluated.
    auto consider = [&](std::vector<int> choice) -> std::optional<std::size_t> {
      if (!seen.insert(choice).second) return std::nullopt;
      TunePoint point;
      point.choice = std::move(choice);
      point.reason = pruner.reasonAgainst(point.choice);
      const bool pruned = !point.reason.empty();
      if (pruned) point.status = "pruned";
      result.points.push_back(std::move(point));
      return pruned ? std::nullopt : std::optional(result.points.size() - 1);
    };
    // Parents: the four fastest so far.
    auto fittest = [&] {
      std::vector<std::size_t> ok;
      for (std::size_t i = 0; i < result.points.size(); ++i)
        if (result.points[i].status == "ok") ok.push_back(i);
      std::stable_sort(ok.begin(), ok.end(), [&](std::size_t a, std::size_t b) {
        return result.points[a].makespanUs < result.points[b].makespanUs;
      });
      ok.resize(std::min<std::size_t>(ok.size(), 4));
      return ok;
    };
    // A child of parents[tries mod 4] that changes one dimension (by a step,
    // or to any value one time in four); empty when that dimension has one value.
    auto breed = [&](const std::vector<std::size_t>& parents, std::size_t tries) {
      std::vector<int> child = result.points[parents[tries % parents.size()]].choice;
      const std::size_t d = std::uniform_int_distribution<std::size_t>(0, child.size() - 1)(random);
      const int radix = static_cast<int>(result.space.dimensions[d].values.size());
      if (radix < 2) return std::vector<int>();
      const int step = (random() % 2 == 0) ? 1 : -1;
      child[d] = random() % 4 == 0 ? static_cast<int>(random() % static_cast<unsigned>(radix))
                                   : std::clamp(child[d] + step, 0, radix - 1);
      return child;
    };
    const std::size_t population = std::min<std::size_t>(std::max<std::size_t>(budget, 1), 16);
    progress.expect(static_cast<int>(std::min<std::size_t>(budget, size)));
    std::vector<std::size_t> batch;
    for (std::size_t tries = 0; batch.size() < population && seen.size() < size && tries < 64 * population; ++tries)
      if (auto index = consider(result.space.choiceAt(std::uniform_int_distribution<std::size_t>(0, size - 1)(random))))
        batch.push_back(*index);
    if (!options.remote) {
      // Generations: each one bred from the results of all before it, so
      // that a seed gives one sweep whatever the threads.
      std::size_t simulated = 0;
      while (!batch.empty() && simulated < budget) {
        if (simulated + batch.size() > budget) batch.resize(budget - simulated);
        evaluate(sweep, result.points, batch, diags);
        simulated += batch.size();
        const std::vector<std::size_t> parents = fittest();
        batch.clear();
        for (std::size_t tries = 0;
             batch.size() < population && seen.size() < size && tries < 64 * population && !parents.empty(); ++tries) {
          std::vector<int> child = breed(parents, tries);
          if (auto index = child.empty() ? std::nullopt : consider(std::move(child))) batch.push_back(*index);
        }
      }
    } else {
      // Steady state: every result that arrives breeds one more point, so a
      // cluster's workers never wait for a generation's slowest point (the
      // order of arrival decides the sweep, so a seed does not repeat it).
      if (batch.size() > budget) batch.resize(budget);
      std::size_t sent = batch.size();
      std::size_t inFlight = sendRemote(sweep, result.points, batch, diags);
      std::vector<std::size_t> dispatched = batch;
      auto refill = [&] {
        while (sent < budget && inFlight < population && seen.size() < size) {
          const std::vector<std::size_t> parents = fittest();
          std::optional<std::size_t> index;
          for (std::size_t tries = 0; !index && tries < 64 * population && seen.size() < size; ++tries) {
            std::vector<int> child =
                parents.empty() ? result.space.choiceAt(std::uniform_int_distribution<std::size_t>(0, size - 1)(random))
                                : breed(parents, tries);
            if (!child.empty()) index = consider(std::move(child));
          }
          if (!index) return;
          ++sent;
          dispatched.push_back(*index);
          inFlight += sendRemote(sweep, result.points, {*index}, diags);
        }
      };
      refill();
      while (inFlight > 0) {
        auto index = receiveRemote(sweep, result.points, diags);
        if (!index) break;
        --inFlight;
        cache.keep(result.space, result.points, {*index}, diags);
        refill();
      }
      markUnfinished(result.points, dispatched);
    }
  }
  // Points chosen past the budget were never simulated.
  result.points.erase(std::remove_if(result.points.begin(), result.points.end(),
                                     [](const TunePoint& point) { return point.status.empty(); }),
                      result.points.end());
  if (baselineLast && !runBaseline()) return std::nullopt;
  result.baselineUs = baselineOutcome->makespanUs;
  summarise(result);
  result.compilations = simulator.compilations();
  result.simulations = simulator.simulations();
  result.resumedSimulations = simulator.resumedSimulations();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (diags.hasErrors()) return std::nullopt;  // a remote evaluator broke down
  return result;
}

} // namespace pto
