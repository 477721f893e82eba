// A run's busy time per kernel line (see LineCost.h for the rule).
#include "analysis/report/LineCost.h"

#include "npusim/ProgramTiming.h"
#include "runtime/trace/Trace.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

namespace pto {
namespace {

constexpr std::size_t kNoLine = static_cast<std::size_t>(-1);

// One line's part of something, as a fraction (the parts of a list sum to 1).
struct LinePart {
  std::size_t line = kNoLine;
  double fraction = 0.0;
};

// Parts in proportion to `weights` (line -> weight); evenly by `counts` when
// every weight is zero; empty when there is nothing to count.
std::vector<LinePart> partsOf(const std::map<std::size_t, double>& weights, const std::map<std::size_t, int>& counts) {
  double total = 0.0;
  for (const auto& [line, weight] : weights) total += weight;
  std::vector<LinePart> parts;
  if (total > 0.0) {
    for (const auto& [line, weight] : weights)
      if (weight > 0.0) parts.push_back({line, weight / total});
    return parts;
  }
  int count = 0;
  for (const auto& [line, n] : counts) count += n;
  for (const auto& [line, n] : counts)
    if (n > 0) parts.push_back({line, static_cast<double>(n) / count});
  return parts;
}

// What every task of one subgraph splits its cycles by.
struct SubgraphSplit {
  std::vector<std::size_t> lines;  // every line of its tile ops, each once
  std::array<std::vector<LinePart>, kPipeCount> byPipe;  // a pipe's cycles; empty: no instruction on it
  std::vector<LinePart> byCost;    // all instructions' modelled costs (no pipe intervals)
  std::vector<LinePart> evenly;    // over `lines`
  // Per line: non-sync instructions of one task, by opcode.
  std::map<std::size_t, std::map<PtoOpcode, std::int64_t>> opcodes;
};

// Each instruction's modelled cost alone (see LineCost.h); 0 for sync and
// for a program the machine cannot time (then counts decide).
std::vector<double> instructionCosts(const PtoProgram& program, const MachineDescription& machine) {
  std::vector<double> costs(program.instructions.size(), 0.0);
  DiagnosticEngine quiet;
  std::optional<TimedProgram> timed = timeProgram(program, machine, quiet);
  if (!timed) return costs;
  for (const std::vector<TimedStep>& steps : timed->steps)
    for (const TimedStep& step : steps) {
      if (step.instruction < 0 || static_cast<std::size_t>(step.instruction) >= costs.size()) continue;
      double cost = 0.0;
      if (step.kind == StepKind::Compute) cost = step.cycles;
      else if (step.kind == StepKind::GmTransfer)
        cost = step.latencyCycles +
               (step.pathBytesPerCycle > 0.0 ? static_cast<double>(step.bytes) / step.pathBytesPerCycle : 0.0);
      costs[static_cast<std::size_t>(step.instruction)] = cost;
    }
  return costs;
}

class LineCostBuilder {
public:
  LineCostBuilder(const Compilation& compilation, const MachineDescription& machine)
      : m_compilation(compilation), m_machine(machine), m_splits(compilation.blocks.subgraphs.size()),
        m_costs(compilation.programs.size()) {}

  void addTask(const Schedule& schedule, const TaskRecord& record) {
    const auto& tasks = m_compilation.tasks.tasks;
    if (record.task < 0 || static_cast<std::size_t>(record.task) >= tasks.size()) return;
    const Task& task = tasks[static_cast<std::size_t>(record.task)];
    const SubgraphSplit& split = splitOf(task.subgraph);
    const std::size_t type = static_cast<std::size_t>(record.core.type);
    const std::int64_t start = record.startCycle, end = std::max(record.startCycle, record.endCycle);
    const double duration = static_cast<double>(end - start);
    m_report.busyCycles[type] += duration;

    for (std::size_t line : split.lines) {
      SourceLineCost& entry = m_lines[line];
      entry.tasks.push_back(record.task);
      if (entry.subgraphs.empty() || entry.subgraphs.back() != task.subgraph) entry.subgraphs.push_back(task.subgraph);
    }
    for (const auto& [line, opcodes] : split.opcodes)
      for (const auto& [opcode, count] : opcodes) {
        m_opcodes[line][opcode] += count;
        m_lines[line].instructions += count;
      }

    // The intervals inside the task, on pipes the model knows.
    struct Edge {
      std::int64_t cycle;
      int delta;
      std::size_t pipe;
    };
    std::vector<Edge> edges;
    for (const PipeInterval& interval : schedule.pipes(record)) {
      std::optional<Pipe> pipe = parsePipe(interval.pipe());
      const std::int64_t from = std::max(interval.startCycle, start), to = std::min(interval.endCycle, end);
      if (!pipe || to <= from) continue;
      const auto p = static_cast<std::size_t>(*pipe);
      const double cycles = static_cast<double>(to - from);
      m_report.pipeCycles[p] += cycles;
      for (const LinePart& part : partsOnPipe(split, p)) m_lines[part.line].pipeCycles[p] += cycles * part.fraction;
      edges.push_back({from, +1, p});
      edges.push_back({to, -1, p});
    }

    // Each cycle shared evenly among the pipes busy in it.
    std::array<double, kPipeCount> pipeShare{};
    std::array<int, kPipeCount> open{};
    std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.cycle < b.cycle; });
    int busyPipes = 0;
    for (std::size_t i = 0; i < edges.size(); ++i) {
      if (i > 0 && busyPipes > 0 && edges[i].cycle > edges[i - 1].cycle) {
        const double each = static_cast<double>(edges[i].cycle - edges[i - 1].cycle) / busyPipes;
        for (std::size_t p = 0; p < kPipeCount; ++p)
          if (open[p] > 0) pipeShare[p] += each;
      }
      const int before = open[edges[i].pipe];
      open[edges[i].pipe] += edges[i].delta;
      busyPipes += (open[edges[i].pipe] > 0) - (before > 0);
    }
    double covered = 0.0;
    for (double share : pipeShare) covered += share;
    if (covered > 0.0) {
      // The cycles no pipe was busy in go in proportion to the rest.
      const double scale = duration / covered;
      for (std::size_t p = 0; p < kPipeCount; ++p) {
        if (pipeShare[p] <= 0.0) continue;
        for (const LinePart& part : partsOnPipe(split, p))
          m_lines[part.line].coreCycles[type] += pipeShare[p] * scale * part.fraction;
      }
      return;
    }
    const std::vector<LinePart>& parts = split.byCost.empty() ? split.evenly : split.byCost;
    for (const LinePart& part : parts) m_lines[part.line].coreCycles[type] += duration * part.fraction;
  }

  LineCostReport finish() && {
    m_report.machine = m_machine.name;
    m_report.clockGHz = m_machine.clockGHz;
    const double total = m_report.totalBusyCycles();
    for (std::size_t line = 0; line < m_lines.size(); ++line) {
      SourceLineCost& entry = m_lines[line];
      if (entry.tasks.empty()) continue;
      entry.share = total > 0.0 ? entry.cycles() / total : 0.0;
      std::sort(entry.tasks.begin(), entry.tasks.end());
      std::sort(entry.subgraphs.begin(), entry.subgraphs.end());
      entry.subgraphs.erase(std::unique(entry.subgraphs.begin(), entry.subgraphs.end()), entry.subgraphs.end());
      for (const auto& [opcode, count] : m_opcodes[line]) entry.opcodes.emplace_back(opcode, count);
      std::stable_sort(entry.opcodes.begin(), entry.opcodes.end(),
                       [](const auto& a, const auto& b) { return a.second > b.second; });
      m_report.lines.push_back(std::move(entry));
    }
    std::sort(m_report.lines.begin(), m_report.lines.end(), [](const SourceLineCost& a, const SourceLineCost& b) {
      return std::tie(a.file, a.line) < std::tie(b.file, b.line);
    });
    return std::move(m_report);
  }

private:
  const std::vector<LinePart>& partsOnPipe(const SubgraphSplit& split, std::size_t pipe) const {
    return split.byPipe[pipe].empty() ? split.evenly : split.byPipe[pipe];
  }

  std::size_t lineOf(TileOpId id) {
    const TileOp& op = m_compilation.tiles.tileOp(id);
    std::string file;
    int line = 0;
    if (op.tensorOp != kNoId) {
      const SourceLocation& location = m_compilation.tiles.graph.op(op.tensorOp).location;
      if (location.known()) {
        file = location.file;
        line = location.line;
      }
    }
    auto [it, inserted] = m_lineIds.try_emplace({file, line}, m_lines.size());
    if (inserted) {
      SourceLineCost entry;
      entry.file = file;
      entry.line = line;
      m_lines.push_back(std::move(entry));
      m_opcodes.emplace_back();
    }
    return it->second;
  }

  const std::vector<double>& costsOf(int programId) {
    std::vector<double>& costs = m_costs.at(static_cast<std::size_t>(programId));
    const PtoProgram& program = m_compilation.programs[static_cast<std::size_t>(programId)];
    if (costs.empty() && !program.instructions.empty()) costs = instructionCosts(program, m_machine);
    return costs;
  }

  const SubgraphSplit& splitOf(SubgraphId id) {
    SubgraphSplit& split = m_splits.at(static_cast<std::size_t>(id));
    if (!split.lines.empty()) return split;
    const Subgraph& subgraph = m_compilation.blocks.subgraph(id);
    std::vector<std::size_t> lineAt;  // by position in subgraph.ops
    lineAt.reserve(subgraph.ops.size());
    for (TileOpId op : subgraph.ops) lineAt.push_back(lineOf(op));
    split.lines = lineAt;
    std::sort(split.lines.begin(), split.lines.end());
    split.lines.erase(std::unique(split.lines.begin(), split.lines.end()), split.lines.end());
    if (split.lines.empty()) split.lines.push_back(lineOfNothing());
    for (std::size_t line : split.lines) split.evenly.push_back({line, 1.0 / static_cast<double>(split.lines.size())});

    const int programId = subgraph.programId;
    if (programId < 0 || static_cast<std::size_t>(programId) >= m_compilation.programs.size()) return split;
    const PtoProgram& program = m_compilation.programs[static_cast<std::size_t>(programId)];
    // The program names the tile ops of the first subgraph of its class: positions carry over.
    std::unordered_map<TileOpId, std::size_t> positionOf;
    if (program.subgraph != kNoId) {
      const Subgraph& first = m_compilation.blocks.subgraph(program.subgraph);
      for (std::size_t position = 0; position < first.ops.size(); ++position)
        positionOf.try_emplace(first.ops[position], position);
    }
    const std::vector<double>& costs = costsOf(programId);
    std::array<std::map<std::size_t, double>, kPipeCount> pipeWeights;
    std::array<std::map<std::size_t, int>, kPipeCount> pipeCounts;
    std::map<std::size_t, double> allWeights;
    std::map<std::size_t, int> allCounts;
    for (std::size_t i = 0; i < program.instructions.size(); ++i) {
      const PtoInstruction& instruction = program.instructions[i];
      if (isSync(instruction.opcode)) continue;
      auto found = positionOf.find(instruction.tileOp);
      const std::size_t line = found != positionOf.end() && found->second < lineAt.size() ? lineAt[found->second]
                                                                                          : split.lines.front();
      const auto p = static_cast<std::size_t>(instruction.pipe);
      const double cost = i < costs.size() ? costs[i] : 0.0;
      pipeWeights[p][line] += cost;
      ++pipeCounts[p][line];
      allWeights[line] += cost;
      ++allCounts[line];
      ++split.opcodes[line][instruction.opcode];
    }
    for (std::size_t p = 0; p < kPipeCount; ++p) split.byPipe[p] = partsOf(pipeWeights[p], pipeCounts[p]);
    split.byCost = partsOf(allWeights, allCounts);
    return split;
  }

  std::size_t lineOfNothing() {
    auto [it, inserted] = m_lineIds.try_emplace({std::string(), 0}, m_lines.size());
    if (inserted) {
      m_lines.emplace_back();
      m_opcodes.emplace_back();
    }
    return it->second;
  }

  const Compilation& m_compilation;
  const MachineDescription& m_machine;
  std::vector<SubgraphSplit> m_splits;
  std::vector<std::vector<double>> m_costs;  // by program id, made when first needed
  std::map<std::pair<std::string, int>, std::size_t> m_lineIds;
  std::vector<SourceLineCost> m_lines;
  std::vector<std::map<PtoOpcode, std::int64_t>> m_opcodes;  // by line id
  LineCostReport m_report;
};

} // namespace

const SourceLineCost* LineCostReport::find(std::string_view file, int line) const {
  const std::string_view wanted = trace::fileNameOf(file);
  for (const SourceLineCost& entry : lines)
    if (entry.line == line && trace::fileNameOf(entry.file) == wanted) return &entry;
  return nullptr;
}

LineCostReport lineCostReport(const Compilation& compilation, const Schedule& schedule,
                              const MachineDescription& machine) {
  LineCostBuilder builder(compilation, machine);
  for (const TaskRecord& record : schedule.tasks) builder.addTask(schedule, record);
  return std::move(builder).finish();
}

std::vector<std::pair<Pipe, double>> busiestPipes(const SourceLineCost& line) {
  std::vector<std::pair<Pipe, double>> pipes;
  for (std::size_t p = 0; p < kPipeCount; ++p)
    if (line.pipeCycles[p] > 0.0) pipes.emplace_back(static_cast<Pipe>(p), line.pipeCycles[p]);
  std::stable_sort(pipes.begin(), pipes.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return pipes;
}

nlohmann::ordered_json lineCostJson(const LineCostReport& report,
                                    const std::function<std::string(const std::string& file, int line)>& lineText) {
  using Json = nlohmann::ordered_json;
  auto perCoreType = [](const std::array<double, 2>& cycles) {
    return Json{{"AIC", cycles[0]}, {"AIV", cycles[1]}, {"total", cycles[0] + cycles[1]}};
  };
  Json pipes = Json::object();
  for (std::size_t p = 0; p < kPipeCount; ++p)
    if (report.pipeCycles[p] > 0.0) pipes[std::string(name(static_cast<Pipe>(p)))] = report.pipeCycles[p];
  Json lines = Json::array();
  for (const SourceLineCost& line : report.lines) {
    Json entry{{"file", line.file}, {"line", line.line}};
    if (lineText) entry["text"] = lineText(line.file, line.line);
    entry["share"] = line.share;
    entry["cycles"] = perCoreType(line.coreCycles);
    Json linePipes = Json::object();
    for (const auto& [pipe, cycles] : busiestPipes(line)) linePipes[std::string(name(pipe))] = cycles;
    entry["pipes"] = std::move(linePipes);
    entry["tasks"] = line.tasks.size();
    entry["task_ids"] = line.tasks;
    entry["subgraphs"] = line.subgraphs;
    entry["instructions"] = line.instructions;
    Json opcodes = Json::object();
    for (const auto& [opcode, count] : line.opcodes) opcodes[std::string(name(opcode))] = count;
    entry["opcodes"] = std::move(opcodes);
    lines.push_back(std::move(entry));
  }
  return Json{{"machine", report.machine},
              {"clock_ghz", report.clockGHz},
              {"busy_cycles", perCoreType(report.busyCycles)},
              {"pipe_cycles", std::move(pipes)},
              {"lines", std::move(lines)}};
}

} // namespace pto
