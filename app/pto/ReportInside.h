// `pto report --task N` (without --memory): one task's instructions per pipe
// on a cycle timeline with their waits (analysis/report/TaskInside.h);
// `pto report --bubbles`: each core's bubbles and pipe use
// (analysis/report/CoreBubbles.h); and the critical path's split into
// running, data wait, core wait and dispatch for the normal report.
#pragma once

#include "analysis/report/HealthReport.h"
#include "analysis/run/ProjectRun.h"
#include "core/Diagnostics.h"
#include "core/project/OperatorProject.h"

#include <CLI/CLI.hpp>

#include <string>

namespace pto::cli {

// Adds --bubbles to `command`.
void addBubbleReportOptions(CLI::App& command, bool& bubbles);

// Simulates the run again recording task `task`, prints its pipes (unless
// JSON goes to stdout) and writes the JSON report (key "inside_task").
int reportInsideTask(const OperatorProject& project, const ProjectRunResult& run, int task,
                     const std::string& jsonTarget, DiagnosticEngine& diags);

// Prints the bubble and pipe-use tables (unless JSON goes to stdout) and
// writes the JSON report (key "bubbles").
int reportBubbles(const OperatorProject& project, const ProjectRunResult& run, const std::string& jsonTarget,
                  DiagnosticEngine& diags);

// One line: the critical path's running, data wait, core wait and dispatch.
void printCriticalPathSplit(const HealthReport& report);

} // namespace pto::cli
