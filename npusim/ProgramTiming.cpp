// Per-program step lists with machine costs, and the untimed completion check.
#include "npusim/ProgramTiming.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>

namespace pto {

namespace {

using P = PtoOpcode;

std::string where(const PtoProgram& program, int index) {
  std::ostringstream out;
  out << "program " << program.programId << " instruction " << index << " ("
      << name(program.instructions[static_cast<std::size_t>(index)].opcode) << ")";
  return out.str();
}

// Runs the step lists with every instruction taking no time: the pipes can
// all finish iff they can with any durations (each pipe is in order and a
// raise only ever unblocks), so a stuck state here is a deadlock of the program.
bool completesUntimed(const PtoProgram& program, const TimedProgram& timed, DiagnosticEngine& diags) {
  std::array<std::size_t, kPipeCount> position{};
  std::vector<int> raised(static_cast<std::size_t>(timed.flagSlots), 0);
  bool progress = true;
  while (progress) {
    progress = false;
    for (std::size_t p = 0; p < kPipeCount; ++p) {
      const std::vector<TimedStep>& steps = timed.steps[p];
      while (position[p] < steps.size()) {
        const TimedStep& step = steps[position[p]];
        if (step.kind == StepKind::WaitFlag) {
          if (raised[static_cast<std::size_t>(step.slot)] == 0) break;
          --raised[static_cast<std::size_t>(step.slot)];
        } else if (step.kind == StepKind::SetFlag) {
          ++raised[static_cast<std::size_t>(step.slot)];
        } else if (step.kind == StepKind::Barrier) {
          bool all = true;  // every pipe waits at this same barrier
          for (std::size_t q = 0; q < kPipeCount; ++q)
            all = all && position[q] < timed.steps[q].size() &&
                  timed.steps[q][position[q]].instruction == step.instruction;
          if (!all) break;
          for (std::size_t q = 0; q < kPipeCount; ++q) ++position[q];
          progress = true;
          continue;
        }
        ++position[p];
        progress = true;
      }
    }
  }
  bool done = true;
  for (std::size_t p = 0; p < kPipeCount; ++p) done = done && position[p] == timed.steps[p].size();
  if (done) return true;
  auto error = diags.error({});
  error << "program " << program.programId << " can never finish: its synchronisation deadlocks (";
  bool first = true;
  for (std::size_t p = 0; p < kPipeCount; ++p) {
    if (position[p] == timed.steps[p].size()) continue;
    int index = timed.steps[p][position[p]].instruction;
    error << (first ? "" : ", ") << name(static_cast<Pipe>(p)) << " waits at " << where(program, index);
    first = false;
  }
  error << ")";
  return false;
}

} // namespace

VectorOpClass vectorOpClassOf(PtoOpcode opcode) {
  switch (opcode) {
  case P::TMUL: case P::TMULS: return VectorOpClass::Mul;
  case P::TDIV: case P::TDIVS: case P::TRECIP: return VectorOpClass::Div;
  case P::TEXP: return VectorOpClass::Exp;
  case P::TLOG: return VectorOpClass::Log;
  case P::TSQRT: case P::TRSQRT: return VectorOpClass::Sqrt;
  case P::TSIGMOID: case P::TTANH: case P::TVEC: return VectorOpClass::Composite;
  case P::TROWSUM: case P::TROWMAX: case P::TROWMIN:
  case P::TCOLSUM: case P::TCOLMAX: case P::TCOLMIN: return VectorOpClass::Reduce;
  case P::TCVT: return VectorOpClass::Cast;
  case P::TCOPY: case P::TEXPANDS: case P::TEXPAND: case P::TTRANS: case P::TGATHER: case P::TSCATTER:
    return VectorOpClass::Copy;
  default: return VectorOpClass::Add;
  }
}

std::optional<DataPath> transferPathOf(const PtoInstruction& instruction) {
  if (instruction.dst.empty() || instruction.srcs.empty()) return std::nullopt;
  MemoryKind from = instruction.srcs[0].memory;
  MemoryKind to = instruction.dst[0].memory;
  // Resuming a split-k accumulation loads GM -> L0C through the L1 copy engine.
  if (from == MemoryKind::GM && to == MemoryKind::L0C) return DataPath::GmToL1;
  return dataPathBetween(from, to);
}

std::optional<TimedProgram> timeProgram(const PtoProgram& program, const MachineDescription& machine,
                                        DiagnosticEngine& diags) {
  TimedProgram timed;
  timed.programId = program.programId;
  timed.coreType = program.coreType;
  std::map<std::tuple<Pipe, Pipe, int>, int> slots;
  auto slotOf = [&](const PtoInstruction& instruction) {
    auto key = std::make_tuple(instruction.srcPipe, instruction.dstPipe, instruction.eventId);
    auto [found, inserted] = slots.emplace(key, static_cast<int>(slots.size()));
    return found->second;
  };
  bool ok = true;
  for (std::size_t i = 0; i < program.instructions.size(); ++i) {
    const PtoInstruction& instruction = program.instructions[i];
    const int index = static_cast<int>(i);
    TimedStep step;
    step.instruction = index;
    Pipe pipe = instruction.pipe;
    switch (instruction.opcode) {
    case P::SET_FLAG:
      step.kind = StepKind::SetFlag;
      step.slot = slotOf(instruction);
      pipe = instruction.srcPipe;
      break;
    case P::WAIT_FLAG:
      step.kind = StepKind::WaitFlag;
      step.slot = slotOf(instruction);
      pipe = instruction.dstPipe;
      break;
    case P::BARRIER:
      step.kind = StepKind::Barrier;
      for (std::vector<TimedStep>& steps : timed.steps) steps.push_back(step);
      continue;
    case P::TMATMUL:
    case P::TMATMUL_ACC: {
      ++timed.instructionCount;
      if (instruction.dst.empty() || instruction.srcs.empty() || instruction.dst[0].shape.empty()) {
        diags.error({}) << where(program, index) << " has no destination or source tile";
        ok = false;
        continue;
      }
      const std::vector<std::int64_t>& out = instruction.dst[0].shape;
      std::int64_t m = out.size() >= 2 ? out[out.size() - 2] : 1;
      std::int64_t n = out.back();
      std::int64_t k = m * n > 0 ? instruction.elements / (m * n) : 0;
      DataType dtype = instruction.srcs[0].dtype;
      std::optional<std::int64_t> cycles = machine.cubeMatmulCycles(m, k, n, dtype);
      if (!cycles) {
        diags.error({}) << where(program, index) << " multiplies " << name(dtype) << " tiles, which the cube of machine '"
                        << machine.name << "' does not take";
        ok = false;
        continue;
      }
      step.cycles = static_cast<double>(*cycles);
      break;
    }
    default:
      ++timed.instructionCount;
      if (isTransfer(instruction.opcode)) {
        std::optional<DataPath> path = transferPathOf(instruction);
        if (!path || !machine.hasPath(*path)) {
          auto error = diags.error({});
          error << where(program, index) << " moves data ";
          if (instruction.dst.empty() || instruction.srcs.empty()) error << "without operands";
          else
            error << name(instruction.srcs[0].memory) << " -> " << name(instruction.dst[0].memory) << ", a path machine '"
                  << machine.name << "' does not have";
          ok = false;
          continue;
        }
        bool readsGm = source(*path) == MemoryKind::GM;
        bool writesGm = destination(*path) == MemoryKind::GM;
        if (!readsGm && !writesGm) {
          step.cycles = machine.transferCycles(*path, instruction.bytes);
          break;
        }
        const PathRate& rate = *machine.paths[static_cast<std::size_t>(*path)];
        step.kind = StepKind::GmTransfer;
        step.readsGm = readsGm;
        step.gmRegion = readsGm ? instruction.srcs[0].gmRegion : instruction.dst[0].gmRegion;
        step.bytes = std::max<std::int64_t>(instruction.bytes, 0);
        step.pathBytesPerCycle = peakBytesPerCycle(machine, *path);
        step.latencyCycles = rate.saturationBytes / step.pathBytesPerCycle;
        // A load of short runs is bound by the runs, not the bytes: its rate
        // is capped at one run per runNs (the start-up stays the path's).
        if (readsGm && rate.runNs > 0.0 && instruction.srcs[0].gmRunBytes > 0) {
          const PtoOperand& gm = instruction.srcs[0];
          std::int64_t run = gm.gmRunBytes;
          // Into L1 the DMA converts ND to NZ row by row: a run is one row of
          // the tile however the rows lie. An NZ tensor's fractal columns go
          // in as they lie.
          if (destination(*path) == MemoryKind::L1 && !gm.gmNz && !gm.shape.empty())
            run = std::min(run, gm.shape.back() * static_cast<std::int64_t>(sizeOf(gm.dtype)));
          step.pathBytesPerCycle =
              std::min(step.pathBytesPerCycle, static_cast<double>(run) / (rate.runNs * machine.clockGHz));
        }
        if (step.gmRegion < 0) {
          diags.error({}) << where(program, index) << " has a global-memory operand without a region index";
          ok = false;
          continue;
        }
        int& count = readsGm ? timed.readRegionCount : timed.writeRegionCount;
        count = std::max(count, step.gmRegion + 1);
        break;
      }
      step.cycles = static_cast<double>(machine.vectorCycles(vectorOpClassOf(instruction.opcode),
                                                             largestOperandBytes(instruction)));
      break;
    }
    timed.steps[static_cast<std::size_t>(pipe)].push_back(step);
  }
  timed.flagSlots = static_cast<int>(slots.size());
  for (std::size_t p = 0; p < kPipeCount; ++p)
    if (!timed.steps[p].empty()) timed.stepPipes[static_cast<std::size_t>(timed.stepPipeCount++)] = static_cast<std::uint8_t>(p);
  if (!ok || !completesUntimed(program, timed, diags)) return std::nullopt;
  return timed;
}

std::int64_t largestOperandBytes(const PtoInstruction& instruction) {
  std::int64_t bytes = 0;
  for (const PtoOperand& operand : instruction.dst) bytes = std::max(bytes, operand.bytes);
  for (const PtoOperand& operand : instruction.srcs) bytes = std::max(bytes, operand.bytes);
  return bytes;
}

double peakBytesPerCycle(const MachineDescription& machine, DataPath path) {
  if (!machine.hasPath(path) || machine.clockGHz <= 0.0) return 0.0;
  return machine.paths[static_cast<std::size_t>(path)]->peakGiBps * kBytesPerGiB / (machine.clockGHz * 1e9);
}

} // namespace pto
