// `pto report --memory`: the on-chip memory map of one subgraph or task
// (analysis/report/MemoryMap.h) as tables, a text picture and JSON.
#pragma once

#include "analysis/run/ProjectRun.h"
#include "core/Diagnostics.h"
#include "core/project/OperatorProject.h"

#include <CLI/CLI.hpp>

#include <string>

namespace pto::cli {

struct MemoryReportOptions {
  bool memory = false;
  int task = -1;      // -1: not asked for
  int subgraph = -1;  // -1: not asked for (and no task: the fullest subgraph)
};

// Adds --memory, --task N and --subgraph N to `command`.
void addMemoryReportOptions(CLI::App& command, MemoryReportOptions& options);

// Prints the map for the run's subgraph or task as asked (unless JSON goes to
// stdout) and writes the JSON report; an unknown task or subgraph is an error
// that says which exist. Returns the exit code.
int reportMemory(const OperatorProject& project, const ProjectRunResult& run, const MemoryReportOptions& options,
                 const std::string& jsonTarget, DiagnosticEngine& diags);

} // namespace pto::cli
