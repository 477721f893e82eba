// `pto report --memory`: per on-chip memory, a table of the buffers (offset,
// size, lifetime, tile, kernel line, ping-pong half), a small text map of
// offset against instruction, and capacity, peak and fragmentation.
#include "app/pto/ReportMemory.h"

#include "analysis/report/MemoryMap.h"
#include "analysis/tuning/TileBufferCheck.h"
#include "app/pto/CommandOutput.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace pto::cli {
namespace {

// The letter a buffer has in the text map: its row in the table.
char symbolOf(std::size_t row) {
  static const std::string kSymbols = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return row < kSymbols.size() ? kSymbols[row] : '#';
}

// Offset (rows, top = highest) against instruction (columns), up to the
// footprint: each cell shows a buffer live in its instructions and bytes.
void printTextMap(const MemorySpaceMap& space, int instructions) {
  if (space.buffers.empty() || instructions <= 0 || space.footprintBytes <= 0) return;
  constexpr int kMaxColumns = 64, kMaxRows = 12;
  const int columns = std::min(kMaxColumns, instructions);
  const int perColumn = (instructions + columns - 1) / columns;
  const std::int64_t perRow = std::max<std::int64_t>(
      32, ((space.footprintBytes + kMaxRows - 1) / kMaxRows + 31) / 32 * 32);
  const int rows = static_cast<int>((space.footprintBytes + perRow - 1) / perRow);
  std::printf("  map: x = instruction 0..%d (%d per column), y = offset 0..%s (%s per row); letters are the buffers "
              "above, '.' is free\n",
              instructions - 1, perColumn, formatBytes(space.footprintBytes).c_str(), formatBytes(perRow).c_str());
  for (int row = rows - 1; row >= 0; --row) {
    const std::int64_t low = row * perRow, high = low + perRow;
    std::string line;
    for (int column = 0; column < columns; ++column) {
      const int first = column * perColumn, last = first + perColumn - 1;
      char cell = '.';
      for (std::size_t b = 0; b < space.buffers.size() && cell == '.'; ++b) {
        const MemoryMapBuffer& buffer = space.buffers[b];
        if (buffer.firstInstruction <= last && first <= buffer.lastInstruction && buffer.offsetBytes < high &&
            low < buffer.offsetBytes + buffer.bytes)
          cell = symbolOf(b);
      }
      line += cell;
    }
    std::printf("  %10lld |%s\n", static_cast<long long>(low), line.c_str());
  }
  if (space.footprintBytes < space.capacityBytes)
    std::printf("  %10s  (free from %s up to the capacity, %s)\n", "", formatBytes(space.footprintBytes).c_str(),
                formatBytes(space.capacityBytes).c_str());
}

void printMemoryMap(const std::string& project, const MemoryMap& map, bool chosenForUs) {
  std::printf("%s: subgraph %d (%s%s, program %d), %d instructions, %d member%s, buffers %s\n", project.c_str(),
              map.subgraph, map.coreType.c_str(), map.label.empty() ? "" : (", label '" + map.label + "'").c_str(),
              map.programId, map.instructionCount, map.members, map.members == 1 ? "" : "s", map.overlap.c_str());
  if (map.task)
    std::printf("task %d ran on %s from cycle %lld to %lld\n", map.task->task, map.task->core.c_str(),
                static_cast<long long>(map.task->startCycle), static_cast<long long>(map.task->endCycle));
  if (chosenForUs) std::printf("(the subgraph whose memory is fullest; --subgraph N or --task N for another)\n");
  std::printf("time is the instruction index in issue order (the simulator does not time single instructions)\n");
  for (const MemorySpaceMap& space : map.spaces) {
    std::printf("\n%s: capacity %s; ", memoryLabel(space.memory).c_str(), formatBytes(space.capacityBytes).c_str());
    if (space.buffers.empty()) {
      std::printf("no buffers\n");
      continue;
    }
    std::printf("peak %s live (%.1f %%) at instruction %d; footprint %s; fragmentation %.3f at the peak (largest free "
                "block %s, holes %s)\n",
                formatBytes(space.peakLiveBytes).c_str(), 100.0 * space.utilization, space.peakInstruction,
                formatBytes(space.footprintBytes).c_str(), space.fragmentation,
                formatBytes(space.largestFreeBytesAtPeak).c_str(), formatBytes(space.holeBytesAtPeak).c_str());
    std::printf("  %-2s %10s %8s %-13s %-9s %-4s %-28s %s\n", "", "offset", "bytes", "instructions", "ops", "half",
                "tile", "line");
    for (std::size_t b = 0; b < space.buffers.size(); ++b) {
      const MemoryMapBuffer& buffer = space.buffers[b];
      const std::string instructions = std::to_string(buffer.firstInstruction) + "-" + std::to_string(buffer.lastInstruction);
      const std::string ops = std::to_string(buffer.firstOp) + "-" + std::to_string(buffer.lastOp);
      const std::string half = buffer.pingPongHalf < 0 ? "-" : std::to_string(buffer.pingPongHalf);
      std::string tile = buffer.name() + " " + buffer.dtype;
      if (buffer.inPlaceOf >= 0) tile += " (in place)";
      std::printf("  %c  %10lld %8lld %-13s %-9s %-4s %-28s %s\n", symbolOf(b), static_cast<long long>(buffer.offsetBytes),
                  static_cast<long long>(buffer.bytes), instructions.c_str(), ops.c_str(), half.c_str(), tile.c_str(),
                  buffer.source().empty() ? "-" : buffer.source().c_str());
    }
    printTextMap(space, map.instructionCount);
  }
}

} // namespace

void addMemoryReportOptions(CLI::App& command, MemoryReportOptions& options) {
  CLI::Option* memory = command.add_flag(
      "--memory", options.memory,
      "Report the on-chip memory map instead: per memory, each buffer's offset, size and lifetime (instructions), "
      "peak, utilisation and fragmentation");
  CLI::Option* task = command.add_option("--task", options.task,
                                         "Task N's instructions per pipe on a cycle timeline with their waits "
                                         "(JSON: inside_task); with --memory: the map of the subgraph it runs")
                          ->type_name("N")
                          ->check(CLI::NonNegativeNumber);
  command.add_option("--subgraph", options.subgraph, "With --memory: the map of subgraph N (default: the fullest)")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber)
      ->needs(memory)
      ->excludes(task);
  if (CLI::Option* byLine = command.get_option_no_throw("--by-line")) memory->excludes(byLine);
}

int reportMemory(const OperatorProject& project, const ProjectRunResult& run, const MemoryReportOptions& options,
                 const std::string& jsonTarget, DiagnosticEngine& diags) {
  const Compilation& compilation = run.compiled->compilation;
  const SourceLocation where{project.file.string()};
  const auto taskCount = static_cast<int>(compilation.tasks.tasks.size());
  const auto subgraphCount = static_cast<int>(compilation.blocks.subgraphs.size());
  if (options.task >= taskCount) {
    diags.error(where) << "--task " << options.task << ": the run has " << taskCount << " tasks, numbered 0.."
                       << taskCount - 1 << " as in the swimlane";
    return failCommand("report", jsonTarget, diags);
  }
  if (options.subgraph >= subgraphCount) {
    diags.error(where) << "--subgraph " << options.subgraph << ": the kernel compiled into " << subgraphCount
                       << " subgraphs (0.." << subgraphCount - 1 << "); `pto graph --stage block` lists them";
    return failCommand("report", jsonTarget, diags);
  }
  const bool chosenForUs = options.task < 0 && options.subgraph < 0;
  const SubgraphId subgraph = options.subgraph >= 0 ? options.subgraph : fullestSubgraph(compilation);
  if (options.task < 0 && subgraph == kNoId) {
    diags.error(where) << "no subgraph of the kernel holds an on-chip buffer: there is no memory map to show";
    return failCommand("report", jsonTarget, diags);
  }
  const MemoryMap map = options.task >= 0
                            ? memoryMapOfTask(compilation, run.simulation ? &run.simulation->schedule : nullptr, options.task)
                            : memoryMap(compilation, subgraph);
  if (jsonTarget != "-") printMemoryMap(project.name, map, chosenForUs);
  return finishCommand("report", jsonTarget, diags, [&](nlohmann::ordered_json& json) {
    json["project"] = project.name;
    json["memory_map"] = memoryMapJson(map);
  });
}

} // namespace pto::cli
