// The view inside one task: slices per pipe from the recorded steps, and the
// chain of slices that set the task's end.
#include "analysis/report/TaskInside.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace pto {
namespace {

// Steps closer than this (cycles) are simultaneous, as in the simulator.
constexpr double kEpsilon = 1e-6;

bool busy(const StepTiming& step) { return step.kind == StepKind::Compute || step.kind == StepKind::GmTransfer; }

std::string sourceOf(const Compilation& compilation, const PtoInstruction& instruction) {
  if (instruction.tileOp == kNoId) return {};
  const TileGraph& tiles = compilation.tiles;
  const TensorOp& op = tiles.graph.op(tiles.tileOp(instruction.tileOp).tensorOp);
  if (!op.location.known()) return {};
  return std::filesystem::path(op.location.file).filename().string() + ":" + std::to_string(op.location.line);
}

std::string flagReason(const PtoInstruction& instruction) {
  return "flag " + std::string(name(instruction.srcPipe)) + "->" + std::string(name(instruction.dstPipe));
}

// Walks the chain back from the last step to end; marks its busy steps and
// returns the cycles it spends on each pipe's instructions.
std::array<double, kPipeCount> walkChain(const TaskSteps& steps, const PtoProgram& program,
                                         std::array<std::vector<bool>, kPipeCount>& onChain) {
  std::array<double, kPipeCount> chain{};
  int pipe = -1, index = -1;
  double last = -1.0;
  for (std::size_t p = 0; p < kPipeCount; ++p)
    for (std::size_t i = 0; i < steps.pipes[p].size(); ++i)
      if (busy(steps.pipes[p][i]) && steps.pipes[p][i].endCycle > last) {
        last = steps.pipes[p][i].endCycle;
        pipe = static_cast<int>(p);
        index = static_cast<int>(i);
      }
  std::size_t guard = 0, total = 0;
  for (const auto& list : steps.pipes) total += list.size();
  while (pipe >= 0 && index >= 0 && guard++ <= 2 * total + 2) {
    const std::vector<StepTiming>& list = steps.pipes[static_cast<std::size_t>(pipe)];
    const StepTiming& step = list[static_cast<std::size_t>(index)];
    const double waited = step.endCycle - step.startCycle;
    if (busy(step)) {
      chain[static_cast<std::size_t>(pipe)] += std::max(0.0, waited);
      onChain[static_cast<std::size_t>(pipe)][static_cast<std::size_t>(index)] = true;
    } else if (step.kind == StepKind::WaitFlag && waited > kEpsilon) {
      // The raise that released it: a SET_FLAG of the same flag at its end.
      const PtoInstruction& wait = program.instructions[static_cast<std::size_t>(step.instruction)];
      const auto& raiser = steps.pipes[static_cast<std::size_t>(wait.srcPipe)];
      for (std::size_t i = raiser.size(); i-- > 0;) {
        const PtoInstruction& set = program.instructions[static_cast<std::size_t>(raiser[i].instruction)];
        if (raiser[i].kind == StepKind::SetFlag && set.dstPipe == wait.dstPipe && set.eventId == wait.eventId &&
            std::abs(raiser[i].endCycle - step.endCycle) <= kEpsilon) {
          pipe = static_cast<int>(wait.srcPipe);
          index = static_cast<int>(i);
          break;
        }
      }
    } else if (step.kind == StepKind::Barrier && waited > kEpsilon) {
      // The last pipe to arrive waited not at all.
      for (std::size_t p = 0; p < kPipeCount; ++p)
        for (std::size_t i = 0; i < steps.pipes[p].size(); ++i) {
          const StepTiming& other = steps.pipes[p][i];
          if (other.kind == StepKind::Barrier && other.instruction == step.instruction &&
              other.endCycle - other.startCycle <= kEpsilon) {
            pipe = static_cast<int>(p);
            index = static_cast<int>(i);
          }
        }
    }
    --index;
  }
  return chain;
}

std::string cyclesText(double cycles) {
  char buffer[32];
  if (cycles >= 10000.0) std::snprintf(buffer, sizeof buffer, "%.1fk", cycles / 1000.0);
  else std::snprintf(buffer, sizeof buffer, "%.0f", cycles);
  return buffer;
}

std::string whyOf(const TaskInside& inside) {
  const double duration = std::max(1.0, inside.durationCycles());
  std::vector<const InsidePipe*> onChain;
  for (const InsidePipe& pipe : inside.pipes)
    if (pipe.chainCycles > 0.0) onChain.push_back(&pipe);
  std::sort(onChain.begin(), onChain.end(), [](const InsidePipe* a, const InsidePipe* b) { return a->chainCycles > b->chainCycles; });
  std::string text = "the chain that sets its end runs";
  for (std::size_t i = 0; i < onChain.size() && i < 3; ++i) {
    char part[64];
    std::snprintf(part, sizeof part, "%s %.0f %% on %s", i == 0 ? "" : ",", 100.0 * onChain[i]->chainCycles / duration,
                  onChain[i]->pipe.c_str());
    text += part;
  }
  if (onChain.empty()) text += " on no instruction";
  if (inside.chainIdleCycles > 0.5) {
    char part[64];
    std::snprintf(part, sizeof part, " (%.0f %% waiting)", 100.0 * inside.chainIdleCycles / duration);
    text += part;
  }
  for (const InsidePipe& pipe : inside.pipes)
    if (pipe.pipe == inside.busiestPipe) {
      char part[96];
      std::snprintf(part, sizeof part, "; busiest pipe %s, %.0f %% busy", pipe.pipe.c_str(), 100.0 * pipe.busyShare);
      text += part;
    }
  std::vector<std::pair<std::string, double>> waits(inside.waitCyclesByReason.begin(), inside.waitCyclesByReason.end());
  std::sort(waits.begin(), waits.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (!waits.empty()) text += "; waits";
  for (std::size_t i = 0; i < waits.size() && i < 3; ++i)
    text += (i == 0 ? " " : ", ") + waits[i].first + " " + cyclesText(waits[i].second) + " cycles";
  return text;
}

} // namespace

TaskInside taskInside(const Compilation& compilation, const Schedule& schedule, const TaskSteps& steps,
                      double clockGHz) {
  TaskInside inside;
  inside.task = steps.task;
  inside.clockGHz = clockGHz;
  inside.programId = steps.programId;
  inside.core = std::string(name(steps.core.type)) + " " + std::to_string(steps.core.index);
  const Task& task = compilation.tasks.tasks.at(static_cast<std::size_t>(steps.task));
  inside.subgraph = task.subgraph;
  if (task.subgraph >= 0 && static_cast<std::size_t>(task.subgraph) < compilation.blocks.subgraphs.size())
    inside.label = compilation.blocks.subgraphs[static_cast<std::size_t>(task.subgraph)].label;
  const TaskRecord& record = schedule.tasks.at(static_cast<std::size_t>(steps.task));
  inside.startCycle = record.startCycle;
  inside.endCycle = record.endCycle;
  const PtoProgram& program = compilation.programs.at(static_cast<std::size_t>(steps.programId));

  std::array<std::vector<bool>, kPipeCount> onChain;
  for (std::size_t p = 0; p < kPipeCount; ++p) onChain[p].assign(steps.pipes[p].size(), false);
  const std::array<double, kPipeCount> chain = walkChain(steps, program, onChain);
  double chainBusy = 0.0;
  for (double cycles : chain) chainBusy += cycles;
  inside.chainIdleCycles = std::max(0.0, inside.durationCycles() - chainBusy);

  double busiest = -1.0, longestChain = -1.0;
  for (std::size_t p = 0; p < kPipeCount; ++p) {
    const std::vector<StepTiming>& list = steps.pipes[p];
    bool used = std::any_of(list.begin(), list.end(), [](const StepTiming& s) { return s.kind != StepKind::Barrier; });
    if (!used) continue;
    InsidePipe pipe;
    pipe.pipe = std::string(name(static_cast<Pipe>(p)));
    for (std::size_t i = 0; i < list.size(); ++i) {
      const StepTiming& step = list[i];
      if (step.startCycle < 0.0 || step.kind == StepKind::SetFlag) continue;
      const PtoInstruction& instruction = program.instructions[static_cast<std::size_t>(step.instruction)];
      InsideSlice slice;
      slice.instruction = step.instruction;
      slice.mnemonic = std::string(name(instruction.opcode));
      slice.startCycle = step.startCycle;
      slice.endCycle = step.endCycle;
      if (busy(step)) {
        slice.source = sourceOf(compilation, instruction);
        slice.onChain = onChain[p][i];
        if (step.kind == StepKind::GmTransfer) {
          slice.bytes = instruction.bytes;
          slice.startupCycles = std::max(0.0, step.dataCycle - step.startCycle);
          slice.bandwidthWaitCycles = std::max(0.0, step.endCycle - step.dataCycle - step.aloneDataCycles);
          inside.waitCyclesByReason["GM start-up"] += slice.startupCycles;
          if (slice.bandwidthWaitCycles > kEpsilon) inside.waitCyclesByReason["GM bandwidth"] += slice.bandwidthWaitCycles;
        }
        ++pipe.instructions;
        pipe.busyCycles += slice.cycles();
      } else {
        if (slice.cycles() <= kEpsilon) continue;
        slice.wait = true;
        if (step.kind == StepKind::WaitFlag) {
          slice.reason = flagReason(instruction);
          slice.waitsForPipe = std::string(name(instruction.srcPipe));
          slice.event = instruction.eventId;
        } else {
          slice.reason = "barrier";
        }
        inside.waitCyclesByReason[slice.reason] += slice.cycles();
        pipe.waitCycles += slice.cycles();
      }
      pipe.slices.push_back(std::move(slice));
    }
    pipe.busyShare = inside.durationCycles() > 0 ? pipe.busyCycles / inside.durationCycles() : 0.0;
    pipe.chainCycles = chain[p];
    if (pipe.busyCycles > busiest) {
      busiest = pipe.busyCycles;
      inside.busiestPipe = pipe.pipe;
    }
    if (pipe.chainCycles > longestChain) {
      longestChain = pipe.chainCycles;
      inside.chainPipe = pipe.pipe;
    }
    inside.pipes.push_back(std::move(pipe));
  }
  inside.why = whyOf(inside);
  return inside;
}

std::optional<TaskInside> insideTask(const Compilation& compilation, const Simulation& simulation,
                                     const MachineDescription& machine, const TimingRunOptions& runtime, TaskId task,
                                     DiagnosticEngine& diags) {
  const std::size_t tasks = simulation.schedule.tasks.size();
  if (task < 0 || static_cast<std::size_t>(task) >= tasks) {
    diags.error(compilation.tiles.graph.kernelLocation)
        << "the run has no task " << task << "; its tasks are 0.." << static_cast<long long>(tasks) - 1;
    return std::nullopt;
  }
  StepRecorder recorder({task});
  SimulationRequest request;
  request.machine = &machine;
  request.mode = SimulationMode::Timing;
  request.runtime = runtime;
  request.keepPipeIntervals = false;
  request.stepRecorder = &recorder;
  std::vector<HostTensor> noArguments;  // timing mode reads no data
  std::optional<Simulation> again = simulate(compilation, noArguments, request, diags);
  if (!again) return std::nullopt;
  const TaskSteps* steps = recorder.steps(task);
  const TaskRecord& before = simulation.schedule.tasks[static_cast<std::size_t>(task)];
  const TaskRecord& now = again->schedule.tasks.at(static_cast<std::size_t>(task));
  if (!steps || before.startCycle != now.startCycle || before.endCycle != now.endCycle) {
    diags.error({}) << "internal error: task " << task << " ran from cycle " << now.startCycle << " to " << now.endCycle
                    << " when simulated again, not " << before.startCycle << " to " << before.endCycle
                    << " as in the run (the simulation is not deterministic)";
    return std::nullopt;
  }
  return taskInside(compilation, simulation.schedule, *steps, simulation.clockGHz);
}

nlohmann::ordered_json taskInsideJson(const TaskInside& inside) {
  using json = nlohmann::ordered_json;
  json pipes = json::array();
  for (const InsidePipe& pipe : inside.pipes) {
    json slices = json::array();
    for (const InsideSlice& slice : pipe.slices) {
      json item = {{"kind", slice.wait ? "wait" : "instruction"},
                   {"instruction", slice.instruction},
                   {"mnemonic", slice.mnemonic},
                   {"start_cycle", slice.startCycle},
                   {"end_cycle", slice.endCycle}};
      if (slice.wait) {
        item["reason"] = slice.reason;
        if (!slice.waitsForPipe.empty()) item["waits_for_pipe"] = slice.waitsForPipe;
        if (slice.event >= 0) item["event"] = slice.event;
      } else {
        item["source"] = slice.source;
        item["on_chain"] = slice.onChain;
        if (slice.bytes > 0 || slice.startupCycles > 0) {
          item["bytes"] = slice.bytes;
          item["startup_cycles"] = slice.startupCycles;
          item["bandwidth_wait_cycles"] = slice.bandwidthWaitCycles;
        }
      }
      slices.push_back(std::move(item));
    }
    pipes.push_back({{"pipe", pipe.pipe},
                     {"instructions", pipe.instructions},
                     {"busy_cycles", pipe.busyCycles},
                     {"wait_cycles", pipe.waitCycles},
                     {"busy_share", pipe.busyShare},
                     {"chain_cycles", pipe.chainCycles},
                     {"slices", std::move(slices)}});
  }
  json waits = json::object();
  for (const auto& [reason, cycles] : inside.waitCyclesByReason) waits[reason] = cycles;
  return {{"task", inside.task},
          {"core", inside.core},
          {"subgraph", inside.subgraph},
          {"label", inside.label},
          {"program", inside.programId},
          {"start_cycle", inside.startCycle},
          {"end_cycle", inside.endCycle},
          {"busiest_pipe", inside.busiestPipe},
          {"chain_pipe", inside.chainPipe},
          {"chain_idle_cycles", inside.chainIdleCycles},
          {"wait_cycles_by_reason", std::move(waits)},
          {"why", inside.why},
          {"pipes", std::move(pipes)}};
}

} // namespace pto
