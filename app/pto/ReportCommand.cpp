// `pto report PROJECT`: run the project in timing mode and print its health
// report (analysis/report/HealthReport.h): the tile graph's shape, the execute
// graph, each core type's use and idle time by cause, waves per label, the
// critical path and the bound class of the run and of every subgraph.
#include "app/pto/Command.h"
#include "app/pto/TrustCommand.h"
#include "app/pto/CommandOutput.h"
#include "app/pto/ReportByLine.h"
#include "app/pto/ReportInside.h"
#include "app/pto/ReportMemory.h"

#include "analysis/report/HealthReport.h"
#include "analysis/run/ProjectRun.h"
#include "analysis/ledger/RunLedger.h"
#include "core/Version.h"
#include "core/project/ProjectFile.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <tuple>

namespace pto::cli {
namespace {

struct ReportOptions : ProjectCommandOptions {
  std::string machine;
  bool taskBounds = false;
  bool noRecord = false;
  bool byLine = false;
  bool bubbles = false;
  MemoryReportOptions memory;
  int subgraphRows = 12;
};

const ProjectCommandSpec kReportCommand{
    .name = "report",
    .description = "Run a project (timing mode) and report its health: graph shapes, core use, waves, bubbles, the "
                   "critical path and what bounds each subgraph",
    .jsonOutput = "the report as JSON"};

std::string microseconds(double cycles, double clockGHz) {
  char buffer[32];
  const double us = clockGHz > 0 ? cycles / (clockGHz * 1000.0) : 0.0;
  if (us >= 1000.0) std::snprintf(buffer, sizeof buffer, "%.3f ms", us / 1000.0);
  else if (us >= 10.0) std::snprintf(buffer, sizeof buffer, "%.1f us", us);
  else std::snprintf(buffer, sizeof buffer, "%.2f us", us);
  return buffer;
}

std::string bytes(std::int64_t count) {
  char buffer[32];
  if (count >= (std::int64_t{1} << 20)) std::snprintf(buffer, sizeof buffer, "%.1f MiB", count / 1048576.0);
  else if (count >= 1024) std::snprintf(buffer, sizeof buffer, "%.1f KiB", count / 1024.0);
  else std::snprintf(buffer, sizeof buffer, "%lld B", static_cast<long long>(count));
  return buffer;
}

void printReport(const std::string& project, const HealthReport& report, int subgraphRows) {
  const double ghz = report.clockGHz;
  auto time = [&](double cycles) { return microseconds(cycles, ghz); };
  std::printf("%s on %s: makespan %s (%lld cycles)\n", project.c_str(), report.machine.c_str(),
              time(static_cast<double>(report.makespanCycles)).c_str(), static_cast<long long>(report.makespanCycles));
  std::printf("bound: %s, from %s\n\n", report.bound.kind.c_str(), report.bound.evidence.c_str());

  const TileGraphHealth& tiles = report.tileGraph;
  std::printf("tile graph      %lld tile ops, %lld edges; depth %d, width %d; fan-in max %d (tile op #%d), mean "
              "%.1f; fan-out max %d (tile op #%d), mean %.1f\n",
              static_cast<long long>(tiles.tileOps), static_cast<long long>(tiles.edges), tiles.depth, tiles.width,
              tiles.maxFanIn, tiles.maxFanInOp, tiles.meanFanIn, tiles.maxFanOut, tiles.maxFanOutOp, tiles.meanFanOut);
  const ExecuteGraphHealth& execute = report.executeGraph;
  std::printf("execute graph   %lld tasks from %lld subgraphs, %lld programs (isomorphic rate %.0f %%), %lld "
              "dependencies; a task takes %s / %s / %s (min / mean / max); GM workspace peak %s\n",
              static_cast<long long>(execute.tasks), static_cast<long long>(execute.subgraphs),
              static_cast<long long>(execute.programs), 100.0 * execute.isomorphicRate,
              static_cast<long long>(execute.dependencies), time(static_cast<double>(execute.minTaskCycles)).c_str(),
              time(execute.meanTaskCycles).c_str(), time(static_cast<double>(execute.maxTaskCycles)).c_str(),
              bytes(execute.gmWorkspacePeakBytes).c_str());
  for (const CoreTypeHealth& type : report.coreTypes) {
    if (type.tasks == 0) continue;
    std::printf("%-15s %d tasks on %d cores: busy %.0f %%, idle while tasks were ready %.0f %%, idle while none "
                "were %.0f %%; ready to start %s mean, %s max\n",
                (type.coreType + " cores").c_str(), type.tasks, type.cores, 100.0 * type.utilization,
                100.0 * type.idleWhileReady, 100.0 * type.idleWhileNoneReady, time(type.meanDispatchLatency).c_str(),
                time(static_cast<double>(type.maxDispatchLatency)).c_str());
  }
  const CriticalPathHealth& path = report.criticalPath;
  auto split = [&](const std::map<std::string, std::int64_t>& cycles) {
    std::string parts;
    for (const auto& [key, count] : cycles) parts += (parts.empty() ? "" : ", ") + key + " " + time(static_cast<double>(count));
    return parts.empty() ? parts : " (" + parts + ")";
  };
  std::printf("critical path   %zu tasks: running %s%s, waiting %s%s of %s\n", path.tasks.size(),
              time(static_cast<double>(path.busyCycles)).c_str(), split(path.runningCyclesByClass).c_str(),
              time(static_cast<double>(path.waitCycles)).c_str(), split(path.waitCyclesByCause).c_str(),
              time(static_cast<double>(path.lengthCycles)).c_str());
  printCriticalPathSplit(report);

  std::printf("\nwaves (labels by busy time)\n");
  int shown = 0;
  for (const WaveHealth& wave : report.waves) {
    if (shown++ == subgraphRows) break;
    std::printf("  %-24s %s  %5d tasks on %2d cores: %.2f waves, last wave %d/%d busy; busy %s\n",
                wave.label.empty() ? "(no label)" : wave.label.c_str(), wave.coreType.c_str(), wave.tasks, wave.cores,
                wave.waves, wave.lastWaveTasks, wave.cores, time(static_cast<double>(wave.busyCycles)).c_str());
  }

  const std::vector<SubgraphGroup> ordered = subgraphGroups(report);
  std::printf("\nsubgraphs by task time (%zu in all; alike ones share a row; --json lists each)\n",
              report.subgraphs.size());
  shown = 0;
  for (const SubgraphGroup& row : ordered) {
    if (shown++ == subgraphRows) break;
    const SubgraphHealth& subgraph = *row.representative;
    std::string buffers;
    for (const auto& [memory, use] : subgraph.buffers)
      buffers += (buffers.empty() ? "" : ", ") + memory + " " + bytes(use[0]) + " of " + bytes(use[1]);
    const std::string ids =
        "sg " + std::to_string(subgraph.id) + (row.subgraphs > 1 ? " +" + std::to_string(row.subgraphs - 1) : "");
    // A subgraph no task ran (its loop ran no iteration at this shape) has no time and no bound.
    const std::string timing =
        row.tasks == 0 ? "no task ran at this shape"
                       : time(row.taskCycles) + " total, " + time(subgraph.meanCycles) + " each (pipes alone " +
                             time(subgraph.meanBoundCycles) + "); " + subgraph.bound.kind + "-bound: " +
                             subgraph.bound.evidence;
    std::printf("  %-10s %-18s %s %5d tasks, %s; %s; %s\n", ids.c_str(),
                subgraph.label.empty() ? "(no label)" : subgraph.label.c_str(), subgraph.coreType.c_str(), row.tasks,
                timing.c_str(), buffers.empty() ? "no on-chip buffers" : buffers.c_str(),
                subgraph.source.empty() ? "(no kernel line)" : subgraph.source.c_str());
  }

  // The same rows on the roofline: rates per core, in GOP/s at the machine's clock.
  const Roofline& roof = report.roofline;
  std::printf("\nroofline per core (ops per GM byte; GOP/s achieved and the roof it is under)\n");
  for (const RooflineCeiling& ceiling : roof.ceilings)
    std::printf("  ceiling  %-28s %s\n", ceiling.name.c_str(),
                (ceiling.compute ? std::to_string(static_cast<long long>(ceiling.opsPerCycle * roof.clockGHz)) + " GOP/s"
                                 : std::to_string(static_cast<long long>(ceiling.bytesPerCycle * roof.clockGHz)) + " GB/s")
                    .c_str());
  shown = 0;
  for (const SubgraphGroup& row : ordered) {
    if (shown++ == subgraphRows) break;
    const RooflinePoint& point = roof.points.at(static_cast<std::size_t>(row.representative->id));
    const std::string name = "sg " + std::to_string(point.subgraph) + " " + (point.label.empty() ? "(no label)" : point.label);
    if (!point.plottable()) {
      std::printf("  %-28s %s no %s\n", name.c_str(), point.coreType.c_str(),
                  point.ops > 0 ? "GM traffic" : "arithmetic: it only moves data");
      continue;
    }
    std::printf("  %-28s %s %8.2f ops/B  %9.1f GOP/s of %9.1f (%s roof): %3.0f %%\n", name.c_str(),
                point.coreType.c_str(), point.intensity, point.achievedOpsPerCycle * roof.clockGHz,
                point.roofOpsPerCycle * roof.clockGHz, point.limitedBy.c_str(), 100.0 * point.roofShare);
  }
}

int runReport(const ReportOptions& options) {
  DiagnosticEngine diags;
  auto project = loadTrustedProject(options.projectPath, diags);
  if (!project) return failCommand("report", options.jsonTarget, diags);
  ProjectRunOptions runOptions = options.runOptions(options.machine);
  runOptions.mode = SimulationMode::Timing;
  runOptions.check = PrecisionCheck::Never;
  auto run = runProject(*project, diags, runOptions);
  if (!run || !run->simulation || !run->compiled || !run->machine) return failCommand("report", options.jsonTarget, diags);
  printDiagnostics(diags);
  const HealthReport report = healthReport(run->compiled->compilation, run->simulation->schedule, *run->machine);
  if (!options.noRecord) {
    DiagnosticEngine recordDiags;  // a warning at worst; the diagnostics above are printed already
    recordRun(*project, *run, &report, recordDiags);
    printDiagnostics(recordDiags);
    for (const Diagnostic& diagnostic : recordDiags.diagnostics()) diags.report(diagnostic);
  }
  if (options.memory.memory) return reportMemory(*project, *run, options.memory, options.jsonTarget, diags);
  if (options.memory.task >= 0) return reportInsideTask(*project, *run, options.memory.task, options.jsonTarget, diags);
  if (options.bubbles) return reportBubbles(*project, *run, options.jsonTarget, diags);
  nlohmann::ordered_json byLine;
  if (options.byLine) byLine = reportByLine(*project, *run, options.jsonTarget != "-");
  else if (options.jsonTarget != "-") printReport(project->name, report, options.subgraphRows);
  return finishCommand("report", options.jsonTarget, diags, [&](nlohmann::ordered_json& json) {
    json["project"] = project->name;
    json.update(healthReportJson(report, options.taskBounds));
    if (options.byLine) json["by_line"] = std::move(byLine);
  });
}

} // namespace

void registerReportCommand(CLI::App& app, CommandRegistry& registry) {
  auto [command, options] = addProjectCommand(app, registry, kReportCommand, runReport);
  command->add_option("--machine", options->machine, "Simulate on MACHINE instead of the project's")
      ->type_name("MACHINE");
  command->add_flag("--task-bounds", options->taskBounds, "List every task's bound class in the JSON report");
  command->add_flag("--by-line", options->byLine, "Print each kernel line's share of busy time instead (JSON: by_line)");
  addMemoryReportOptions(*command, options->memory);
  addBubbleReportOptions(*command, options->bubbles);
  command->add_flag("--no-record", options->noRecord, "Do not record the run in the project's run ledger");
  addCountOption(*command, "--rows", options->subgraphRows, "Subgraphs and labels the text report lists");
}

} // namespace pto::cli
