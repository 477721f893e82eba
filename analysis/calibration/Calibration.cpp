// Calibration: matching measured tasks to simulated ones, the objective, the
// fit and its report (see Calibration.h).
#include "analysis/calibration/Calibration.h"

#include "analysis/calibration/PatternSearch.h"
#include "analysis/calibration/RobustLeastSquares.h"
#include "analysis/simulation/Simulation.h"
#include "core/AtomicFile.h"
#include "core/EnumNames.h"
#include "core/Version.h"
#include "runtime/ScheduleTrace.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace pto {

namespace {

namespace fs = std::filesystem;

enum class MatchKey { SubgraphLabel, Label, Subgraph };

constexpr auto kMatchKeyNames = enumNames<MatchKey>({
    {MatchKey::SubgraphLabel, "subgraph+label"}, {MatchKey::Label, "label"}, {MatchKey::Subgraph, "subgraph"}});

std::string_view name(MatchKey key) { return kMatchKeyNames.name(key); }

std::string groupOf(MatchKey key, int subgraph, const std::string& label) {
  switch (key) {
  case MatchKey::SubgraphLabel: return std::to_string(subgraph) + "\x1f" + label;
  case MatchKey::Label: return label;
  case MatchKey::Subgraph: return std::to_string(subgraph);
  }
  return {};
}

TaskMatch matchBy(MatchKey key, const MeasuredTrace& measured, const std::vector<SimulatedTaskIdentity>& simulated) {
  TaskMatch match;
  match.key = std::string(name(key));
  // Program order on both sides: device task, then task id.
  std::vector<std::size_t> order(measured.tasks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const MeasuredTask &x = measured.tasks[a], &y = measured.tasks[b];
    return std::tie(x.seq, x.taskId) < std::tie(y.seq, y.taskId);
  });
  std::map<std::string, std::vector<std::size_t>> measuredGroups, simulatedGroups;
  for (std::size_t i : order) {
    const MeasuredTask& task = measured.tasks[i];
    measuredGroups[groupOf(key, task.subgraph, task.label)].push_back(i);
  }
  for (std::size_t id = 0; id < simulated.size(); ++id)
    simulatedGroups[groupOf(key, simulated[id].subgraph, simulated[id].label)].push_back(id);

  std::set<std::string> groups;
  for (const auto& [group, members] : measuredGroups) groups.insert(group);
  for (const auto& [group, members] : simulatedGroups) groups.insert(group);
  for (const std::string& group : groups) {
    const std::vector<std::size_t>& ours = simulatedGroups[group];
    const std::vector<std::size_t>& theirs = measuredGroups[group];
    bool byLoop = !ours.empty() && !theirs.empty();
    for (std::size_t id : ours) byLoop = byLoop && !simulated[id].loop.empty();
    for (std::size_t i : theirs) byLoop = byLoop && !measured.tasks[i].loop.empty();
    std::size_t paired = 0;
    if (byLoop) {
      std::map<std::string, std::vector<std::size_t>> byIteration;
      for (auto it = ours.rbegin(); it != ours.rend(); ++it) byIteration[simulated[*it].loop].push_back(*it);
      for (std::size_t i : theirs) {
        auto& candidates = byIteration[measured.tasks[i].loop];
        if (candidates.empty()) continue;
        match.pairs.emplace_back(i, candidates.back());
        candidates.pop_back();
        ++paired;
      }
    } else {
      paired = std::min(ours.size(), theirs.size());
      for (std::size_t k = 0; k < paired; ++k) match.pairs.emplace_back(theirs[k], ours[k]);
    }
    match.unpairedMeasured += theirs.size() - paired;
    match.unpairedSimulated += ours.size() - paired;
    if (paired != theirs.size() || paired != ours.size()) {
      TaskMatch::Group mismatch;
      const std::size_t any = !ours.empty() ? ours.front() : 0;
      mismatch.label = !theirs.empty() ? measured.tasks[theirs.front()].label : simulated[any].label;
      mismatch.subgraph = !theirs.empty() ? measured.tasks[theirs.front()].subgraph : simulated[any].subgraph;
      mismatch.measured = theirs.size();
      mismatch.simulated = ours.size();
      match.mismatched.push_back(mismatch);
    }
  }
  return match;
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  const std::size_t at = std::min(values.size() - 1, static_cast<std::size_t>(q * static_cast<double>(values.size() - 1) + 0.5));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(at), values.end());
  return values[at];
}

// One trace against one simulation, through its pairs.
struct PairedTrace {
  const MeasuredTrace* trace = nullptr;
  TaskMatch match;
  bool heldOut = false;
  // Measured, per pair: duration; the span from the first paired start to the last end.
  std::vector<double> durUs;
  double makespanUs = 0.0;
  // The objective compares within a label by rank (Calibration.h): the pairs
  // of each label, and their measured durations sorted.
  std::vector<std::vector<std::size_t>> labelGroups;
  std::vector<std::vector<double>> sortedDurUs;
  std::vector<double> labelSpanUs;  // per label: its first start to its last end
};

PairedTrace pairedTrace(const MeasuredTrace& trace, TaskMatch match, bool heldOut,
                        const std::vector<SimulatedTaskIdentity>& simulated) {
  PairedTrace paired;
  paired.trace = &trace;
  paired.match = std::move(match);
  paired.heldOut = heldOut;
  double first = 1e300, last = -1e300;
  for (const auto& [m, s] : paired.match.pairs) {
    first = std::min(first, trace.tasks[m].startUs);
    last = std::max(last, trace.tasks[m].endUs);
  }
  std::map<std::string, std::vector<std::size_t>> byLabel;
  for (std::size_t i = 0; i < paired.match.pairs.size(); ++i) {
    const auto& [m, s] = paired.match.pairs[i];
    paired.durUs.push_back(trace.tasks[m].durUs());
    const SimulatedTaskIdentity& identity = simulated[s];
    byLabel[identity.label.empty() ? "sg " + std::to_string(identity.subgraph) : identity.label].push_back(i);
  }
  for (auto& [label, members] : byLabel) {
    std::vector<double> durations;
    double labelFirst = 1e300, labelLast = -1e300;
    for (std::size_t i : members) {
      const MeasuredTask& task = trace.tasks[paired.match.pairs[i].first];
      durations.push_back(paired.durUs[i]);
      labelFirst = std::min(labelFirst, task.startUs);
      labelLast = std::max(labelLast, task.endUs);
    }
    std::sort(durations.begin(), durations.end());
    paired.labelSpanUs.push_back(labelLast - labelFirst);
    paired.labelGroups.push_back(std::move(members));
    paired.sortedDurUs.push_back(std::move(durations));
  }
  paired.makespanUs = paired.match.pairs.empty() ? 0.0 : last - first;
  return paired;
}

struct SimulatedTimes {
  std::vector<double> durUs;
  std::vector<double> startUs;  // from the first paired start
  double makespanUs = 0.0;
};

SimulatedTimes simulatedTimes(const PairedTrace& paired, const Schedule& schedule, double clockGHz) {
  SimulatedTimes times;
  const double usPerCycle = 1.0 / (clockGHz * 1000.0);
  std::int64_t first = INT64_MAX, last = INT64_MIN;
  for (const auto& [m, s] : paired.match.pairs) {
    first = std::min(first, schedule.tasks[s].startCycle);
    last = std::max(last, schedule.tasks[s].endCycle);
  }
  for (const auto& [m, s] : paired.match.pairs) {
    const TaskRecord& record = schedule.tasks[s];
    times.durUs.push_back(static_cast<double>(record.endCycle - record.startCycle) * usPerCycle);
    times.startUs.push_back(static_cast<double>(record.startCycle - first) * usPerCycle);
  }
  times.makespanUs = paired.match.pairs.empty() ? 0.0 : static_cast<double>(last - first) * usPerCycle;
  return times;
}

// A simulated duration of zero (a task with nothing to do) compares as 1 ns.
constexpr double kShortestUs = 1e-3;
// Scales of the objective's terms: a task's duration off by 5 % and the
// makespan off by 2 % count as one unit each.
constexpr double kDurationScale = 0.05;
constexpr double kMakespanScale = 0.02;
constexpr std::size_t kListedMismatches = 10;

// The objective's terms for one trace (Calibration.h), each divided by its
// scale and weighted so that the trace's terms sum to its objective. Within
// a label the k-th shortest measured task meets the k-th shortest simulated
// one.
void appendResiduals(const PairedTrace& paired, const SimulatedTimes& times, bool partial, double traceWeight,
                     Residuals& into) {
  const std::size_t n = paired.durUs.size();
  if (n == 0) return;
  const double perTask = traceWeight / static_cast<double>(n);
  const bool withMakespan = !partial && paired.makespanUs > 0.0 && times.makespanUs > 0.0;
  const double perLabel = traceWeight / static_cast<double>(std::max<std::size_t>(1, paired.labelGroups.size()));
  std::vector<double> durations;
  for (std::size_t g = 0; g < paired.labelGroups.size(); ++g) {
    durations.clear();
    for (std::size_t i : paired.labelGroups[g]) durations.push_back(times.durUs[i]);
    double first = 1e300, last = -1e300;
    for (std::size_t i : paired.labelGroups[g]) {
      first = std::min(first, times.startUs[i]);
      last = std::max(last, times.startUs[i] + times.durUs[i]);
    }
    std::sort(durations.begin(), durations.end());
    for (std::size_t k = 0; k < durations.size(); ++k) {
      const double ratio = std::max(paired.sortedDurUs[g][k], kShortestUs) / std::max(durations[k], kShortestUs);
      into.push_back({std::log(ratio) / kDurationScale, perTask});
    }
    if (withMakespan)
      into.push_back({std::log(std::max(paired.labelSpanUs[g], kShortestUs) / std::max(last - first, kShortestUs)) /
                          kMakespanScale,
                      perLabel});
  }
  if (withMakespan) into.push_back({std::log(paired.makespanUs / times.makespanUs) / kMakespanScale, traceWeight});
}

TraceError errorOf(const PairedTrace& paired, const SimulatedTimes& times) {
  TraceError error;
  std::vector<double> taskErrors;
  for (std::size_t i = 0; i < paired.durUs.size(); ++i)
    taskErrors.push_back(std::abs(std::max(paired.durUs[i], kShortestUs) / std::max(times.durUs[i], kShortestUs) - 1.0));
  error.medianTaskError = quantile(taskErrors, 0.5);
  error.p90TaskError = quantile(taskErrors, 0.9);
  error.measuredMakespanUs = paired.makespanUs;
  error.simulatedMakespanUs = times.makespanUs;
  error.makespanError = paired.makespanUs > 0.0 ? times.makespanUs / paired.makespanUs - 1.0 : 0.0;
  return error;
}

std::string listed(const std::set<std::string>& names, std::size_t most = 6) {
  std::string text;
  std::size_t shown = 0;
  for (const std::string& item : names) {
    if (shown == most) {
      text += ", ... (" + std::to_string(names.size() - most) + " more)";
      break;
    }
    text += (shown++ ? ", " : "") + ("'" + item + "'");
  }
  return text.empty() ? "none" : text;
}

std::string groupName(const TaskMatch::Group& group) {
  std::string text = group.label.empty() ? std::string("unlabelled tasks") : "label '" + group.label + "'";
  if (group.subgraph >= 0) text += " (subgraph " + std::to_string(group.subgraph) + ")";
  return text;
}

// Whether the trace's tasks pair with the project's; errors say why not and what to do.
bool checkPairing(const PairedTrace& paired, const std::vector<SimulatedTaskIdentity>& simulated,
                  const std::string& projectName, bool partial, DiagnosticEngine& diags) {
  const MeasuredTrace& trace = *paired.trace;
  const SourceLocation where{trace.file.string()};
  const TaskMatch& match = paired.match;
  const std::size_t measuredCount = trace.tasks.size();
  if (match.pairs.size() * 2 < measuredCount || match.pairs.size() * 2 < simulated.size()) {
    std::set<std::string> theirs, ours;
    for (const MeasuredTask& task : trace.tasks) theirs.insert(task.label.empty() ? "sg " + std::to_string(task.subgraph) : task.label);
    for (const SimulatedTaskIdentity& task : simulated) ours.insert(task.label);
    diags.error(where) << "only " << match.pairs.size() << " of the trace's " << measuredCount
                       << " tasks pair with one of the " << simulated.size() << " tasks of project '" << projectName
                       << "' (by " << match.key
                       << "): the trace looks like another kernel's, or the same kernel at other shapes or settings; "
                          "calibrate with a trace of this project as it is configured"
                       << "\n  the trace's labels: " << listed(theirs) << "\n  the project's labels: " << listed(ours);
    return false;
  }
  if (partial) return true;
  bool ok = true;
  if (!trace.missingFromProfile.empty()) {
    diags.error(where) << "the topology lists " << trace.missingFromProfile.size()
                       << " tasks the profile has no times for (first: " << trace.missingFromProfile.front()
                       << "): PyPTO records a bounded number of tasks per core, so a long run loses some; record a "
                          "shorter run, or pass --partial to fit on the tasks that were recorded";
    ok = false;
  }
  if (!match.mismatched.empty()) {
    // Counted per label over the whole trace: a label whose tasks each have
    // their own subgraph would otherwise list every task.
    std::map<std::string, TaskMatch::Group> byLabel;
    std::map<std::string, std::set<int>> subgraphs;
    for (const TaskMatch::Group& group : match.mismatched) {
      byLabel[group.label].label = group.label;
      subgraphs[group.label].insert(group.subgraph);
    }
    for (const MeasuredTask& task : trace.tasks)
      if (auto found = byLabel.find(task.label); found != byLabel.end()) ++found->second.measured;
    for (const SimulatedTaskIdentity& task : simulated)
      if (auto found = byLabel.find(task.label); found != byLabel.end()) ++found->second.simulated;
    std::ostringstream groups;
    std::size_t shown = 0;
    for (auto& [label, group] : byLabel) {
      if (shown++ == 5) {
        groups << "\n  ... and " << byLabel.size() - 5 << " more labels";
        break;
      }
      group.subgraph = subgraphs[label].size() == 1 ? *subgraphs[label].begin() : -1;
      groups << "\n  " << groupName(group) << ": " << group.measured << " measured, " << group.simulated
             << " simulated";
      if (group.measured < group.simulated) groups << " (" << group.simulated - group.measured << " missing from the trace)";
      else if (group.measured > group.simulated) groups << " (" << group.measured - group.simulated << " extra in the trace)";
      else groups << " (as many, but they pair with other tasks)";
    }
    diags.error(where) << match.unpairedMeasured << " measured and " << match.unpairedSimulated
                       << " simulated tasks have no partner (matched by " << match.key
                       << "): the trace misses tasks or has extra ones; record the trace with the project's shapes and "
                          "settings, or pass --partial to fit on the "
                       << match.pairs.size() << " tasks that pair:" << groups.str();
    ok = false;
  }
  return ok;
}

// Times in other units than µs show as a duration ratio far from 1.
bool checkUnits(const PairedTrace& paired, const SimulatedTimes& times, DiagnosticEngine& diags) {
  std::vector<double> ratios;
  for (std::size_t i = 0; i < paired.durUs.size(); ++i)
    if (times.durUs[i] > 0.0 && paired.durUs[i] > 0.0) ratios.push_back(paired.durUs[i] / times.durUs[i]);
  if (ratios.empty()) return true;
  const double median = quantile(ratios, 0.5);
  constexpr double kPlausible = 8.0;  // twice the widest parameter bound
  if (median <= kPlausible && median >= 1.0 / kPlausible) return true;
  std::ostringstream guess;
  if (median > 300.0 && median < 3000.0) guess << "nanoseconds rather than microseconds (--time-scale 0.001)";
  else if (median > 0.0003 && median < 0.003) guess << "milliseconds rather than microseconds (--time-scale 1000)";
  else if (median > 20.0 && median < 100.0)
    guess << "ticks of PyPTO's 50 MHz counter not divided by 50 (--time-scale 0.02, or --counter-mhz 50 for a "
             "tilefwk_L1_prof_data file)";
  else guess << "some unit other than microseconds (--time-scale " << 1.0 / median << ")";
  diags.error(SourceLocation{paired.trace->file.string()})
      << "the measured task durations are a median " << median
      << " times the simulated ones, further than any machine parameter may move (x" << 1.0 / kPlausible << " .. x"
      << kPlausible << "): the trace's times look like " << guess.str()
      << "; convert the file, or pass --time-scale F to multiply every time read by F";
  return false;
}

std::string fixed(double value, int digits) {
  std::ostringstream out;
  out.precision(digits);
  out << std::fixed << value;
  return out.str();
}

nlohmann::ordered_json errorJson(const TraceError& error) {
  return {{"median_task_error", error.medianTaskError},
          {"p90_task_error", error.p90TaskError},
          {"makespan_error", error.makespanError},
          {"measured_makespan_us", error.measuredMakespanUs},
          {"simulated_makespan_us", error.simulatedMakespanUs}};
}

// The worst-case summary over a set of traces (fit or held out).
nlohmann::ordered_json residualJson(const std::vector<TraceFit>& traces, bool heldOut) {
  std::vector<double> medians, p90s, makespans;
  for (const TraceFit& trace : traces)
    if (trace.heldOut == heldOut) {
      medians.push_back(trace.after.medianTaskError);
      p90s.push_back(trace.after.p90TaskError);
      makespans.push_back(std::abs(trace.after.makespanError));
    }
  if (medians.empty()) return nullptr;
  return {{"traces", medians.size()},
          {"median_task_error", *std::max_element(medians.begin(), medians.end())},
          {"p90_task_error", *std::max_element(p90s.begin(), p90s.end())},
          {"makespan_error", *std::max_element(makespans.begin(), makespans.end())}};
}

} // namespace

TaskMatch matchTasks(const MeasuredTrace& measured, const std::vector<SimulatedTaskIdentity>& simulated) {
  std::optional<TaskMatch> best;
  for (MatchKey key : {MatchKey::SubgraphLabel, MatchKey::Label, MatchKey::Subgraph}) {
    TaskMatch match = matchBy(key, measured, simulated);
    if (match.unpairedMeasured == 0 && match.unpairedSimulated == 0) return match;
    if (!best || match.pairs.size() > best->pairs.size()) best = std::move(match);
  }
  return *best;
}

std::vector<SimulatedTaskIdentity> simulatedTaskIdentities(const Compilation& compilation, const Simulation& simulation) {
  // The labels as the swimlane names them (a subgraph's representative op).
  const trace::Trace swimlane = simulationTrace(compilation, simulation);
  std::vector<SimulatedTaskIdentity> identities(compilation.tasks.tasks.size());
  for (const Task& task : compilation.tasks.tasks) {
    SimulatedTaskIdentity& identity = identities[static_cast<std::size_t>(task.id)];
    identity.subgraph = task.subgraph;
    identity.label = std::string(swimlane.str(swimlane.tasks()[static_cast<std::size_t>(task.id)].label));
    identity.loop = loopIndicesText(task.loopIndices);
    identity.seq = simulation.schedule.tasks[static_cast<std::size_t>(task.id)].deviceTask;
  }
  return identities;
}

std::vector<TaskMismatch> taskMismatches(const MeasuredTrace& measured, const TaskMatch& match, const Simulation& simulation) {
  std::vector<TaskMismatch> mismatches;
  const double usPerCycle = 1.0 / (simulation.clockGHz * 1000.0);
  for (const auto& [m, s] : match.pairs) {
    const TaskRecord& record = simulation.schedule.tasks[s];
    TaskMismatch mismatch;
    mismatch.measured = m;
    mismatch.simulated = s;
    mismatch.measuredUs = measured.tasks[m].durUs();
    mismatch.simulatedUs = static_cast<double>(record.endCycle - record.startCycle) * usPerCycle;
    mismatch.error = std::max(mismatch.measuredUs, kShortestUs) / std::max(mismatch.simulatedUs, kShortestUs) - 1.0;
    mismatches.push_back(mismatch);
  }
  // Largest first by |log ratio|: twice too long and half too long weigh alike.
  std::stable_sort(mismatches.begin(), mismatches.end(), [](const TaskMismatch& a, const TaskMismatch& b) {
    return std::abs(std::log1p(a.error)) > std::abs(std::log1p(b.error));
  });
  return mismatches;
}

std::optional<MeasuredRunComparison> compareWithMeasured(const fs::path& file, const MeasuredTraceOptions& options,
                                                         const Compilation& compilation, const Simulation& simulation,
                                                         const std::string& projectName, DiagnosticEngine& diags) {
  auto measured = readMeasuredTrace(file, options, diags);
  if (!measured) return std::nullopt;
  MeasuredRunComparison comparison;
  comparison.measured = std::move(*measured);
  const std::vector<SimulatedTaskIdentity> identities = simulatedTaskIdentities(compilation, simulation);
  const PairedTrace paired = pairedTrace(comparison.measured, matchTasks(comparison.measured, identities), false, identities);
  if (!checkPairing(paired, identities, projectName, /*partial=*/true, diags)) return std::nullopt;
  comparison.match = paired.match;
  comparison.error = errorOf(paired, simulatedTimes(paired, simulation.schedule, simulation.clockGHz));
  comparison.mismatches = taskMismatches(comparison.measured, comparison.match, simulation);
  comparison.errorOfTask.assign(comparison.measured.tasks.size(), std::numeric_limits<double>::quiet_NaN());
  comparison.simulatedOf.assign(comparison.measured.tasks.size(), MeasuredRunComparison::kNoPair);
  for (const TaskMismatch& mismatch : comparison.mismatches) {
    comparison.errorOfTask[mismatch.measured] = mismatch.error;
    comparison.simulatedOf[mismatch.measured] = mismatch.simulated;
  }
  return comparison;
}

std::vector<bool> defaultHoldOut(std::size_t traceCount) {
  std::vector<bool> heldOut(traceCount, false);
  if (traceCount >= 2) heldOut.back() = true;
  return heldOut;
}

std::string calibratedMachineName(const std::string& baseName) {
  constexpr std::string_view kSuffix = "-calibrated";
  if (baseName.size() >= kSuffix.size() && baseName.compare(baseName.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0)
    return baseName;
  return baseName + std::string(kSuffix);
}

std::optional<CalibrationResult> calibrate(const CalibrationInput& input, const CalibrationOptions& options,
                                           DiagnosticEngine& diags) {
  const auto started = std::chrono::steady_clock::now();
  const MachineDescription& base = *input.machine;
  const SourceLocation machineAt{base.file.string()};

  // The figures to fit, as the base file has them.
  std::string text, readError;
  if (!readFile(base.file, text, readError)) return diags.error(machineAt) << "cannot read the machine file: " << readError;
  const nlohmann::ordered_json baseJson = nlohmann::ordered_json::parse(text, nullptr, false);
  if (baseJson.is_discarded()) return diags.error(machineAt) << "the machine file is not JSON";
  std::vector<const CalibrationParameter*> parameters;
  std::vector<const CalibrationParameter*> absent;
  if (options.parameters.empty()) {
    for (const CalibrationParameter& parameter : calibrationParameters())
      if (parameter.byDefault) parameters.push_back(&parameter);
  } else {
    for (const std::string& key : options.parameters) {
      const CalibrationParameter* parameter = findCalibrationParameter(key);
      if (!parameter) {
        std::set<std::string> known;
        for (const CalibrationParameter& each : calibrationParameters()) known.insert(std::string(each.key));
        return diags.error(SourceLocation{"--parameters"})
               << "no calibration parameter '" << key << "'; the parameters are " << listed(known, 100);
      }
      parameters.push_back(parameter);
    }
  }
  std::erase_if(parameters, [&](const CalibrationParameter* parameter) {
    if (machineFigure(baseJson, parameter->key)) return false;
    absent.push_back(parameter);
    return true;
  });

  CalibrationResult result;
  const bool partial = options.partial;
  auto simulateWith = [&](const std::vector<double>& factors, DiagnosticEngine& into) -> std::optional<Simulation> {
    auto machine = scaledMachine(baseJson, base.file, parameters, factors, into);
    if (!machine) return std::nullopt;
    SimulationRequest request;
    request.machine = &*machine;
    request.mode = SimulationMode::Timing;
    request.runtime = input.runtime;
    request.keepPipeIntervals = false;
    std::vector<HostTensor> arguments;  // timing mode reads no data
    ++result.simulations;
    return simulate(*input.compilation, arguments, request, into);
  };

  const std::vector<double> ones(parameters.size(), 1.0);
  auto baseline = simulateWith(ones, diags);
  if (!baseline) return std::nullopt;

  const std::vector<SimulatedTaskIdentity> identities = simulatedTaskIdentities(*input.compilation, *baseline);

  std::vector<PairedTrace> paired;
  bool ok = true;
  for (std::size_t t = 0; t < input.traces.size(); ++t) {
    paired.push_back(pairedTrace(input.traces[t], matchTasks(input.traces[t], identities),
                                 t < input.heldOut.size() && input.heldOut[t], identities));
    ok = checkPairing(paired.back(), identities, input.projectName, partial, diags) && ok;
    if (ok) ok = checkUnits(paired.back(), simulatedTimes(paired.back(), baseline->schedule, baseline->clockGHz), diags) && ok;
  }
  if (!ok) return std::nullopt;
  std::size_t fitted = 0;
  for (const PairedTrace& trace : paired) fitted += trace.heldOut ? 0 : 1;
  if (fitted == 0) return diags.error(SourceLocation{"--hold-out"}) << "every trace is held out: leave at least one to fit on";

  auto residualsOf = [&](const Simulation& simulation) {
    Residuals residuals;
    for (const PairedTrace& trace : paired)
      if (!trace.heldOut)
        appendResiduals(trace, simulatedTimes(trace, simulation.schedule, simulation.clockGHz), partial,
                        1.0 / static_cast<double>(fitted), residuals);
    return residuals;
  };
  result.objectiveBefore = robustObjective(residualsOf(*baseline));

  // Fitted in log factors: a factor and its inverse are equally far. Each
  // point is simulated once; the search and the final checks share them.
  std::map<std::vector<double>, std::optional<Residuals>> cache;
  auto residualsAt = [&](const std::vector<double>& logFactors) -> std::optional<Residuals> {
    if (auto found = cache.find(logFactors); found != cache.end()) return found->second;
    std::vector<double> factors(logFactors.size());
    for (std::size_t i = 0; i < factors.size(); ++i) factors[i] = std::exp(logFactors[i]);
    DiagnosticEngine quiet;
    auto simulation = simulateWith(factors, quiet);
    std::optional<Residuals> residuals = simulation ? std::optional<Residuals>(residualsOf(*simulation)) : std::nullopt;
    cache[logFactors] = residuals;
    if (options.onProgress) options.onProgress(result.simulations, residuals ? robustObjective(*residuals) : -1.0);
    return residuals;
  };
  constexpr double kFailed = 1e30;
  auto objective = [&](const std::vector<double>& logFactors) {
    auto residuals = residualsAt(logFactors);
    return residuals ? robustObjective(*residuals) : kFailed;
  };
  std::vector<double> lower, upper;
  for (const CalibrationParameter* parameter : parameters) {
    lower.push_back(std::log(parameter->minFactor));
    upper.push_back(std::log(parameter->maxFactor));
  }
  // Levenberg-Marquardt does the travelling; a pattern search with small
  // steps then polishes where integer cycles make the slopes ragged. The
  // last 2 n + 2 simulations are kept for the constraint checks below.
  const int reserved = 2 * static_cast<int>(parameters.size()) + 2;
  RobustLeastSquaresOptions leastSquares;
  leastSquares.budget = std::max(1, (options.budget - reserved) * 3 / 4);
  RobustLeastSquaresResult travelled =
      robustLeastSquares(residualsAt, std::vector<double>(parameters.size(), 0.0), lower, upper, leastSquares);
  PatternSearchOptions polish;
  polish.initialStep = 0.02;
  polish.finalStep = 0.0005;
  polish.budget = std::max(1, options.budget - reserved - result.simulations);
  PatternSearchResult found = patternSearch(objective, travelled.x, lower, upper, polish);
  result.converged = travelled.converged && found.converged;
  result.objectiveAfter = found.value;

  // What each parameter's fit means: moved, unchanged, at a bound, or not
  // constrained (5 % either way changes nothing the traces show).
  std::vector<double> factors(parameters.size());
  for (std::size_t i = 0; i < parameters.size(); ++i) factors[i] = std::exp(found.x[i]);
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    ParameterFit fit;
    fit.parameter = parameters[i];
    fit.from = machineFigure(baseJson, parameters[i]->key)->get<double>();
    fit.factor = factors[i];
    bool flat = true;
    for (double sign : {1.0, -1.0}) {
      std::vector<double> probe = found.x;
      probe[i] = std::clamp(probe[i] + sign * std::log(1.05), lower[i], upper[i]);
      if (probe[i] != found.x[i]) flat = flat && objective(probe) == found.value;
    }
    const double atBound = std::min(std::abs(found.x[i] - lower[i]), std::abs(found.x[i] - upper[i]));
    fit.status = flat ? "not constrained" : atBound < 1e-3 ? "at bound" : std::abs(fit.factor - 1.0) < 5e-4 ? "unchanged" : "moved";
    result.parameters.push_back(fit);
  }
  for (const CalibrationParameter* parameter : absent) {
    ParameterFit fit;
    fit.parameter = parameter;
    fit.status = "absent";
    result.parameters.push_back(fit);
  }

  DiagnosticEngine quiet;
  auto calibrated = simulateWith(factors, quiet);
  if (!calibrated) return diags.error(machineAt) << "the calibrated machine does not simulate: " << quiet.printed();
  for (const PairedTrace& trace : paired) {
    TraceFit fit;
    fit.file = trace.trace->file;
    fit.format = std::string(name(trace.trace->format));
    fit.heldOut = trace.heldOut;
    fit.matchKey = trace.match.key;
    fit.tasks = trace.match.pairs.size();
    fit.before = errorOf(trace, simulatedTimes(trace, baseline->schedule, baseline->clockGHz));
    fit.after = errorOf(trace, simulatedTimes(trace, calibrated->schedule, calibrated->clockGHz));
    fit.notes = trace.trace->notes;
    fit.largestMismatches = taskMismatches(*trace.trace, trace.match, *calibrated);
    if (fit.largestMismatches.size() > kListedMismatches) fit.largestMismatches.resize(kListedMismatches);
    for (const TaskMismatch& mismatch : fit.largestMismatches) fit.largestMismatchTasks.push_back(trace.trace->tasks[mismatch.measured]);
    result.traces.push_back(std::move(fit));
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  // The calibrated file: the base with the fitted figures, and where they came from.
  nlohmann::ordered_json file = scaledMachineJson(baseJson, parameters, factors);
  file["description"] = baseJson.value("description", std::string()) + " (calibrated by pto calibrate on project '" +
                        input.projectName + "')";
  nlohmann::ordered_json provenance;
  provenance["tool"] = std::string("pto calibrate ") + kVersion;
  provenance["project"] = input.projectName;
  provenance["base_machine"] = base.file.string();
  provenance["fit_traces"] = nlohmann::ordered_json::array();
  provenance["held_out_traces"] = nlohmann::ordered_json::array();
  for (const TraceFit& trace : result.traces)
    provenance[trace.heldOut ? "held_out_traces" : "fit_traces"].push_back(trace.file.string());
  provenance["parameters"] = nlohmann::ordered_json::array();
  std::string moved;
  for (const ParameterFit& fit : result.parameters) {
    if (fit.status == "absent") continue;
    const nlohmann::ordered_json* value = machineFigure(file, fit.parameter->key);
    provenance["parameters"].push_back({{"key", fit.parameter->key},
                                        {"from", fit.from},
                                        {"to", value ? value->get<double>() : fit.from},
                                        {"factor", fit.factor},
                                        {"bounds", {fit.parameter->minFactor, fit.parameter->maxFactor}},
                                        {"status", fit.status}});
    if (fit.status == "moved" || fit.status == "at bound")
      moved += (moved.empty() ? "" : ", ") + std::string(fit.parameter->key) + " x" + fixed(fit.factor, 3);
  }
  provenance["residual"] = {{"fit", residualJson(result.traces, false)}, {"held_out", residualJson(result.traces, true)}};
  provenance["simulations"] = result.simulations;
  provenance["seconds"] = result.seconds;
  if (!file.contains("notes") || !file["notes"].is_array()) file["notes"] = nlohmann::ordered_json::array();
  file["notes"].push_back("calibration: " + (moved.empty() ? std::string("no figure moved") : moved) + " from " +
                          std::to_string(fitted) + " measured trace(s) of project '" + input.projectName +
                          "' (the \"calibration\" object lists them, the bounds and the residual error)");
  file["calibration"] = provenance;
  // The moved figures' sources now are this fit, on the traces it used.
  if (file.contains("sources") && file["sources"].is_object()) {
    nlohmann::ordered_json traces = nlohmann::ordered_json::array();
    for (const TraceFit& trace : result.traces)
      if (!trace.heldOut) traces.push_back(trace.file.filename().string());
    for (const ParameterFit& fit : result.parameters)
      if (fit.status == "moved" || fit.status == "at bound")
        file["sources"][std::string(fit.parameter->key)] = {
            {"kind", "fit"},
            {"source", "pto calibrate on project '" + input.projectName + "' (the \"calibration\" object)"},
            {"fitted_on", traces}};
  }
  result.machineFile = std::move(file);
  return result;
}

nlohmann::ordered_json mismatchesJson(const TraceFit& trace) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < trace.largestMismatches.size(); ++i) {
    const TaskMismatch& mismatch = trace.largestMismatches[i];
    const MeasuredTask& task = trace.largestMismatchTasks[i];
    list.push_back({{"seq", task.seq},
                    {"task_id", task.taskId},
                    {"label", task.label},
                    {"lane", task.lane},
                    {"simulated_task", mismatch.simulated},
                    {"measured_us", mismatch.measuredUs},
                    {"simulated_us", mismatch.simulatedUs},
                    {"error", mismatch.error}});
  }
  return list;
}

nlohmann::ordered_json calibrationResultJson(const CalibrationResult& result) {
  nlohmann::ordered_json json;
  json["parameters"] = nlohmann::ordered_json::array();
  for (const ParameterFit& fit : result.parameters) {
    nlohmann::ordered_json entry = {{"key", fit.parameter->key},
                                    {"meaning", fit.parameter->meaning},
                                    {"bounds", {fit.parameter->minFactor, fit.parameter->maxFactor}},
                                    {"status", fit.status}};
    if (fit.status != "absent") {
      entry["from"] = fit.from;
      const nlohmann::ordered_json* value = machineFigure(result.machineFile, fit.parameter->key);
      entry["to"] = value ? value->get<double>() : fit.from;
      entry["factor"] = fit.factor;
    }
    json["parameters"].push_back(entry);
  }
  json["traces"] = nlohmann::ordered_json::array();
  for (const TraceFit& trace : result.traces)
    json["traces"].push_back({{"file", trace.file.string()},
                              {"format", trace.format},
                              {"role", trace.heldOut ? "held out" : "fit"},
                              {"matched_by", trace.matchKey},
                              {"tasks", trace.tasks},
                              {"before", errorJson(trace.before)},
                              {"after", errorJson(trace.after)},
                              {"notes", trace.notes},
                              {"largest_mismatches", mismatchesJson(trace)}});
  json["residual"] = {{"fit", residualJson(result.traces, false)}, {"held_out", residualJson(result.traces, true)}};
  json["simulations"] = result.simulations;
  json["seconds"] = result.seconds;
  json["simulations_per_second"] = result.seconds > 0.0 ? result.simulations / result.seconds : 0.0;
  json["objective_before"] = result.objectiveBefore;
  json["objective_after"] = result.objectiveAfter;
  json["converged"] = result.converged;
  return json;
}

} // namespace pto
