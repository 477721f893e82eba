// `pto report --task N` and `--bubbles`: the view inside one task as text
// rows per pipe, and the per-core bubble and pipe-use tables PyPTO's
// swimlane script writes (bubble_analysis.log, pipe_usage.csv).
#include "app/pto/ReportInside.h"

#include "analysis/report/CoreBubbles.h"
#include "analysis/report/TaskInside.h"
#include "analysis/tuning/TileBufferCheck.h"
#include "app/pto/CommandOutput.h"

#include <algorithm>
#include <cstdio>

namespace pto::cli {
namespace {

constexpr int kTimelineColumns = 72;
constexpr std::size_t kSliceRows = 48;

// One character per column of [start, end): '#' an instruction on the chain
// that sets the task's end, '=' another instruction, '~' a wait, '.' idle.
std::string pipeStrip(const InsidePipe& pipe, double start, double end) {
  std::string strip(kTimelineColumns, '.');
  const double perColumn = std::max(1e-9, (end - start) / kTimelineColumns);
  auto paint = [&](const InsideSlice& slice, char mark) {
    int from = static_cast<int>((slice.startCycle - start) / perColumn);
    int to = static_cast<int>((slice.endCycle - start) / perColumn - 1e-9);
    for (int c = std::max(0, from); c <= std::min(kTimelineColumns - 1, to); ++c)
      if (strip[static_cast<std::size_t>(c)] != '#') strip[static_cast<std::size_t>(c)] = mark;
  };
  for (const InsideSlice& slice : pipe.slices)
    if (slice.wait) paint(slice, '~');
  for (const InsideSlice& slice : pipe.slices)
    if (!slice.wait) paint(slice, slice.onChain ? '#' : '=');
  return strip;
}

void printInside(const std::string& project, const TaskInside& inside) {
  const double duration = inside.durationCycles();
  std::printf("%s: task %d on %s (subgraph %d%s, program %d), cycles %lld..%lld (%lld cycles, %.2f us)\n",
              project.c_str(), inside.task, inside.core.c_str(), inside.subgraph,
              inside.label.empty() ? "" : (", label '" + inside.label + "'").c_str(), inside.programId,
              static_cast<long long>(inside.startCycle), static_cast<long long>(inside.endCycle),
              static_cast<long long>(duration), duration / (inside.clockGHz * 1000.0));
  std::printf("why: %s\n\n", inside.why.c_str());
  std::printf("%-8s %6s %6s %9s %9s  %s\n", "pipe", "instr", "busy", "waiting", "on chain",
              "timeline ('#' on the chain that sets the end, '=' busy, '~' waiting, '.' idle)");
  for (const InsidePipe& pipe : inside.pipes)
    std::printf("%-8s %6d %5.0f%% %9.0f %8.0f%%  |%s|\n", pipe.pipe.c_str(), pipe.instructions, 100.0 * pipe.busyShare,
                pipe.waitCycles, duration > 0 ? 100.0 * pipe.chainCycles / duration : 0.0,
                pipeStrip(pipe, static_cast<double>(inside.startCycle), static_cast<double>(inside.endCycle)).c_str());
  if (!inside.waitCyclesByReason.empty()) {
    std::printf("\nwaits by reason (cycles, over all pipes):");
    for (const auto& [reason, cycles] : inside.waitCyclesByReason) std::printf("  %s %.0f", reason.c_str(), cycles);
    std::printf("\n");
  }
  // Every slice in time order, relative to the task's start.
  std::vector<std::pair<const InsidePipe*, const InsideSlice*>> slices;
  for (const InsidePipe& pipe : inside.pipes)
    for (const InsideSlice& slice : pipe.slices) slices.emplace_back(&pipe, &slice);
  std::stable_sort(slices.begin(), slices.end(),
                   [](const auto& a, const auto& b) { return a.second->startCycle < b.second->startCycle; });
  std::printf("\n%10s %10s  %-8s %5s %-10s %s\n", "start", "cycles", "pipe", "instr", "what", "detail");
  std::size_t shown = 0;
  for (const auto& [pipe, slice] : slices) {
    if (shown++ == kSliceRows) break;
    std::string detail;
    if (slice->wait) detail = "waits: " + slice->reason + (slice->event >= 0 ? " event " + std::to_string(slice->event) : "");
    else {
      detail = slice->source.empty() ? "(no kernel line)" : slice->source;
      if (slice->bytes > 0) {
        char extra[96];
        std::snprintf(extra, sizeof extra, "; %s, start-up %.0f, bandwidth wait %.0f", formatBytes(slice->bytes).c_str(),
                      slice->startupCycles, slice->bandwidthWaitCycles);
        detail += extra;
      }
      if (slice->onChain) detail += "; on the chain";
    }
    std::printf("%10.1f %10.1f  %-8s %5d %-10s %s\n", slice->startCycle - static_cast<double>(inside.startCycle),
                slice->cycles(), pipe->pipe.c_str(), slice->instruction, slice->wait ? "wait" : slice->mnemonic.c_str(),
                detail.c_str());
  }
  if (slices.size() > kSliceRows)
    std::printf("... %zu more slices (--json - lists every one)\n", slices.size() - kSliceRows);
}

void printBubbles(const std::string& project, const BubbleReport& report) {
  std::printf("%s: %zu cores ran tasks over %lld cycles (from cycle %lld)\n\n", project.c_str(), report.cores.size(),
              static_cast<long long>(report.spanCycles), static_cast<long long>(report.firstStartCycle));
  std::printf("pipe usage (mean busy cycles per core of the type that ran a task, share of the span)\n");
  for (const PipeUsageSummary& pipe : report.pipes)
    std::printf("  %-4s %-8s %3d cores  %12.0f cycles  %6.2f %%\n", pipe.coreType.c_str(), pipe.pipe.c_str(),
                pipe.cores, pipe.meanBusyCycles, 100.0 * pipe.usage);
  std::printf("\nbubbles per core (gaps between its tasks; schedule wait: the core was free and the data ready; "
              "predecessor wait: the data was not)\n");
  std::printf("  %-8s %5s %11s %11s %5s %10s %10s %13s %13s  %s\n", "core", "tasks", "work", "busy", "gaps", "total",
              "max", "schedule", "predecessor", "pipe usage (busy / the core's span)");
  for (const CoreBubbles& row : report.cores) {
    std::string usage;
    for (const auto& [pipe, share] : row.pipeUsage) {
      char part[32];
      std::snprintf(part, sizeof part, "%s%s %.0f%%", usage.empty() ? "" : ", ", pipe.c_str(), 100.0 * share);
      usage += part;
    }
    std::printf("  %-8s %5d %11lld %11lld %5d %10lld %10lld %13lld %13lld  %s\n", row.core.c_str(), row.tasks,
                static_cast<long long>(row.workCycles), static_cast<long long>(row.busyCycles), row.gaps,
                static_cast<long long>(row.gapCycles), static_cast<long long>(row.maxGapCycles),
                static_cast<long long>(row.scheduleWaitCycles), static_cast<long long>(row.predecessorWaitCycles),
                usage.c_str());
  }
  std::printf("\ntasks that waited longest for dispatch (core free, data ready)\n");
  for (const TaskWait& wait : report.topScheduleWaits)
    std::printf("  task %-8d %lld cycles\n", wait.task, static_cast<long long>(wait.cycles));
}

} // namespace

void addBubbleReportOptions(CLI::App& command, bool& bubbles) {
  command.add_flag("--bubbles", bubbles,
                   "Report each core's bubbles (gaps between its tasks: schedule vs predecessor wait) and pipe usage "
                   "instead (JSON: bubbles)");
}

int reportInsideTask(const OperatorProject& project, const ProjectRunResult& run, int task,
                     const std::string& jsonTarget, DiagnosticEngine& diags) {
  const Compilation& compilation = run.compiled->compilation;
  const auto taskCount = static_cast<int>(compilation.tasks.tasks.size());
  if (task >= taskCount) {
    diags.error(SourceLocation{project.file.string()})
        << "--task " << task << ": the run has " << taskCount << " tasks, numbered 0.." << taskCount - 1
        << " as in the swimlane";
    return failCommand("report", jsonTarget, diags);
  }
  std::optional<TaskInside> inside = insideTask(compilation, *run.simulation, *run.machine, run.runtime, task, diags);
  if (!inside) return failCommand("report", jsonTarget, diags);
  if (jsonTarget != "-") printInside(project.name, *inside);
  return finishCommand("report", jsonTarget, diags, [&](nlohmann::ordered_json& json) {
    json["project"] = project.name;
    json["inside_task"] = taskInsideJson(*inside);
  });
}

int reportBubbles(const OperatorProject& project, const ProjectRunResult& run, const std::string& jsonTarget,
                  DiagnosticEngine& diags) {
  const BubbleReport report = bubbleReport(run.compiled->compilation.tasks, run.simulation->schedule);
  if (jsonTarget != "-") printBubbles(project.name, report);
  return finishCommand("report", jsonTarget, diags, [&](nlohmann::ordered_json& json) {
    json["project"] = project.name;
    json["bubbles"] = bubbleReportJson(report);
  });
}

void printCriticalPathSplit(const HealthReport& report) {
  const CriticalPathSplit split = criticalPathSplit(report.criticalPath);
  const double length = static_cast<double>(std::max<std::int64_t>(1, report.criticalPath.lengthCycles));
  std::printf("critical split  running %.0f %%, data wait %.0f %%, core wait %.0f %%, dispatch %.0f %% (cycles %lld / "
              "%lld / %lld / %lld)\n",
              100.0 * split.runningCycles / length, 100.0 * split.dataWaitCycles / length,
              100.0 * split.coreWaitCycles / length, 100.0 * split.dispatchCycles / length,
              static_cast<long long>(split.runningCycles), static_cast<long long>(split.dataWaitCycles),
              static_cast<long long>(split.coreWaitCycles), static_cast<long long>(split.dispatchCycles));
}

} // namespace pto::cli
