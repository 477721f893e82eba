// The measured-trace comparison's worker-thread part.
#include "app/studio/MeasuredComparisonJob.h"

#include "analysis/calibration/Calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pto::studio {

MeasuredComparisonOutcome compareRunWithMeasured(const std::filesystem::path& file, const ProjectRunResult& run,
                                                 const std::shared_ptr<const widgets::TraceIndex>& runTrace,
                                                 const std::string& projectName) {
  MeasuredComparisonOutcome outcome;
  outcome.file = file;
  if (!run.compiled || !run.simulation || !runTrace) {
    outcome.error = "run the project first: a measured trace is compared with the current run";
    return outcome;
  }
  DiagnosticEngine diags;
  MeasuredTraceOptions options;
  options.counterMHz = pyptoCounterMHzFor(run.simulation->machine);
  auto comparison = compareWithMeasured(file, options, run.compiled->compilation, *run.simulation, projectName, diags);
  if (!comparison) {
    outcome.error = diags.printed();
    return outcome;
  }
  const MeasuredTrace& measured = comparison->measured;
  const Schedule& schedule = run.simulation->schedule;
  const double usPerCycle = 1.0 / (run.simulation->clockGHz * 1000.0);

  // One time axis: the measured trace's clock has its own origin (a
  // counter's ticks), so it is shifted to start its first paired task when
  // the run starts its own.
  double measuredFirst = 1e300, simulatedFirst = 1e300;
  for (const auto& [m, s] : comparison->match.pairs) {
    measuredFirst = std::min(measuredFirst, measured.tasks[m].startUs);
    simulatedFirst = std::min(simulatedFirst, static_cast<double>(schedule.tasks[s].startCycle) * usPerCycle);
  }
  MeasuredTrace shifted = measured;
  if (!comparison->match.pairs.empty())
    for (MeasuredTask& task : shifted.tasks) {
      task.startUs += simulatedFirst - measuredFirst;
      task.endUs += simulatedFirst - measuredFirst;
    }

  const std::size_t tasksA = runTrace->trace().tasks().size();
  std::vector<widgets::ErrorClass> errorsA(tasksA, widgets::ErrorClass::Unpaired);
  std::vector<widgets::ErrorClass> errorsB(measured.tasks.size(), widgets::ErrorClass::Unpaired);
  outcome.inBOfA.assign(tasksA, trace::kNoTask);
  outcome.inAOfB.assign(measured.tasks.size(), trace::kNoTask);
  for (const TaskMismatch& mismatch : comparison->mismatches) {
    const widgets::ErrorClass error = widgets::errorClassOf(mismatch.error);
    errorsB[mismatch.measured] = error;
    outcome.inAOfB[mismatch.measured] = static_cast<trace::TaskIndex>(mismatch.simulated);
    if (mismatch.simulated < tasksA) {
      errorsA[mismatch.simulated] = error;
      outcome.inBOfA[mismatch.simulated] = static_cast<trace::TaskIndex>(mismatch.measured);
    }
  }
  outcome.traceA = std::make_shared<widgets::TraceIndex>(runTrace->sharedTrace(), runTrace->sourceName(), std::move(errorsA));
  outcome.traceB = std::make_shared<widgets::TraceIndex>(std::make_shared<trace::Trace>(swimlaneOf(shifted)),
                                                         file.string(), std::move(errorsB));
  for (std::size_t i = 0; i < comparison->mismatches.size() && i < 10; ++i) {
    const TaskMismatch& mismatch = comparison->mismatches[i];
    const MeasuredTask& task = measured.tasks[mismatch.measured];
    outcome.largest.push_back({static_cast<trace::TaskIndex>(mismatch.measured), static_cast<trace::TaskIndex>(mismatch.simulated),
                               task.label, task.lane, mismatch.measuredUs, mismatch.simulatedUs, mismatch.error});
  }
  const TraceError& error = comparison->error;
  char line[512];
  std::snprintf(line, sizeof line,
                "%s: %zu of %zu measured tasks paired (by %s); task error median %.1f %%, p90 %.1f %%; makespan %.3f us "
                "measured, %.3f us simulated (%+.1f %%)",
                file.filename().string().c_str(), comparison->match.pairs.size(), measured.tasks.size(),
                comparison->match.key.c_str(), 100.0 * error.medianTaskError, 100.0 * error.p90TaskError,
                error.measuredMakespanUs, error.simulatedMakespanUs, 100.0 * error.makespanError);
  outcome.summary = line;
  outcome.measuredMakespanUs = error.measuredMakespanUs;
  outcome.simulatedMakespanUs = error.simulatedMakespanUs;
  outcome.ok = true;
  return outcome;
}

} // namespace pto::studio
