#include "analysis/report/Roofline.h"

#include "analysis/report/HealthReport.h"
#include "core/DataType.h"
#include "npusim/ProgramTiming.h"

#include <algorithm>
#include <map>
#include <set>

namespace pto {
namespace {

// Vector-pipe instructions that move or fill data inside the core rather than compute on it.
bool movesOnly(PtoOpcode opcode) {
  return opcode == PtoOpcode::TCOPY || opcode == PtoOpcode::TTRANS || opcode == PtoOpcode::TEXPANDS ||
         opcode == PtoOpcode::TGATHER || opcode == PtoOpcode::TSCATTER;
}

// The widest element an instruction touches: it names the dtype whose ceiling the point is drawn against.
DataType widestType(const PtoInstruction& instruction) {
  DataType widest = instruction.dst.empty() ? DataType::Fp32 : instruction.dst[0].dtype;
  for (const PtoOperand& operand : instruction.srcs)
    if (sizeOf(operand.dtype) > sizeOf(widest)) widest = operand.dtype;
  return widest;
}

// A path's peak in bytes per cycle; 0 when there is no path or the chip lacks it.
double pathBytesPerCycle(const MachineDescription& machine, std::optional<DataPath> path) {
  return path ? peakBytesPerCycle(machine, *path) : 0.0;
}

// Cycles a transfer's data phase needs at its path's peak (no start-up).
double peakTransferCycles(const PtoInstruction& instruction, const MachineDescription& machine) {
  const double bytesPerCycle = pathBytesPerCycle(machine, transferPathOf(instruction));
  return bytesPerCycle > 0.0 ? static_cast<double>(instruction.bytes) / bytesPerCycle : 0.0;
}

// One program's work: operations and GM bytes, and the cycles its arithmetic,
// its GM reads and its GM writes need at their units' peaks (each is done
// by one unit in order, so the task takes at least the largest of the three).
struct ProgramWork {
  double ops = 0.0;
  double gmReadBytes = 0.0, gmWriteBytes = 0.0;
  double computeCycles = 0.0, readCycles = 0.0, writeCycles = 0.0;
  std::set<DataType> cubeTypes, vectorTypes;
};

ProgramWork programWork(const PtoProgram& program, const MachineDescription& machine) {
  ProgramWork work;
  for (const PtoInstruction& instruction : program.instructions) {
    if (isTransfer(instruction.opcode)) {
      const bool reads = !instruction.srcs.empty() && instruction.srcs[0].memory == MemoryKind::GM;
      const bool writes = !instruction.dst.empty() && instruction.dst[0].memory == MemoryKind::GM;
      if (reads) work.gmReadBytes += static_cast<double>(instruction.bytes);
      if (writes) work.gmWriteBytes += static_cast<double>(instruction.bytes);
      if (reads) work.readCycles += peakTransferCycles(instruction, machine);
      if (writes) work.writeCycles += peakTransferCycles(instruction, machine);
    } else if (instruction.opcode == PtoOpcode::TMATMUL || instruction.opcode == PtoOpcode::TMATMUL_ACC) {
      if (instruction.srcs.empty()) continue;
      const DataType dtype = instruction.srcs[0].dtype;
      const std::optional<CubeRate>& rate = machine.cube[static_cast<std::size_t>(dtype)];
      if (!rate || rate->macsPerCycle <= 0) continue;  // the simulator refuses such a program
      work.ops += 2.0 * static_cast<double>(instruction.elements);
      work.computeCycles += static_cast<double>(instruction.elements) / static_cast<double>(rate->macsPerCycle);
      work.cubeTypes.insert(dtype);
    } else if (instruction.pipe == Pipe::VECTOR && !isSync(instruction.opcode) && !movesOnly(instruction.opcode)) {
      if (machine.vector.bytesPerCycle <= 0.0) continue;
      const double factor = machine.vector.costFactors[static_cast<std::size_t>(vectorOpClassOf(instruction.opcode))];
      work.ops += static_cast<double>(instruction.elements);
      work.computeCycles += factor * static_cast<double>(largestOperandBytes(instruction)) / machine.vector.bytesPerCycle;
      work.vectorTypes.insert(widestType(instruction));
    }
  }
  return work;
}

} // namespace

Roofline roofline(const Compilation& compilation, const Schedule& schedule, const MachineDescription& machine) {
  Roofline result;
  result.clockGHz = machine.clockGHz;
  const std::vector<Subgraph>& subgraphs = compilation.blocks.subgraphs;

  std::map<int, ProgramWork> workOf;  // by program id
  for (const PtoProgram& program : compilation.programs) workOf[program.programId] = programWork(program, machine);

  // Task time per subgraph.
  struct Times {
    double cycles = 0.0;
    int tasks = 0;
    TaskId longest = kNoId;
    std::int64_t longestCycles = -1;
  };
  std::vector<Times> times(subgraphs.size());
  for (const Task& task : compilation.tasks.tasks) {
    if (task.subgraph < 0 || static_cast<std::size_t>(task.subgraph) >= subgraphs.size() ||
        static_cast<std::size_t>(task.id) >= schedule.tasks.size())
      continue;
    const TaskRecord& record = schedule.tasks[static_cast<std::size_t>(task.id)];
    Times& t = times[static_cast<std::size_t>(task.subgraph)];
    const std::int64_t duration = record.endCycle - record.startCycle;
    t.cycles += static_cast<double>(duration);
    ++t.tasks;
    if (duration > t.longestCycles) t.longestCycles = duration, t.longest = task.id;
  }

  const double aicCopyIn = pathBytesPerCycle(machine, DataPath::GmToL1);
  const double aivCopyIn = pathBytesPerCycle(machine, DataPath::GmToUb);
  std::set<DataType> cubeTypes, vectorTypes;
  bool anyAic = false, anyAiv = false;
  for (const Subgraph& subgraph : subgraphs) {
    RooflinePoint point;
    point.subgraph = subgraph.id;
    point.label = subgraph.label;
    point.coreType = std::string(name(subgraph.coreType));
    point.source = subgraphSource(compilation, subgraph);
    const Times& t = times[static_cast<std::size_t>(subgraph.id)];
    point.tasks = t.tasks;
    point.longestTask = t.longest;
    if (t.tasks > 0) point.meanCycles = t.cycles / t.tasks;
    auto work = workOf.find(subgraph.programId);
    if (work != workOf.end()) {
      const ProgramWork& w = work->second;
      point.ops = w.ops;
      point.gmReadBytes = w.gmReadBytes;
      point.gmWriteBytes = w.gmWriteBytes;
      if (point.plottable()) {
        point.intensity = point.ops / point.gmReadBytes;
        point.achievedOpsPerCycle = point.ops / point.meanCycles;
        // The lowest of the three roofs names the limit; a unit with nothing to do sets none.
        const std::pair<const char*, double> roofs[] = {
            {"compute", w.computeCycles}, {"GM read", w.readCycles}, {"GM write", w.writeCycles}};
        for (const auto& [limit, cycles] : roofs) {
          if (cycles <= 0.0) continue;
          const double roof = point.ops / cycles;
          if (point.limitedBy.empty() || roof < point.roofOpsPerCycle) point.limitedBy = limit, point.roofOpsPerCycle = roof;
        }
        point.computeRoofOpsPerCycle = w.computeCycles > 0.0 ? point.ops / w.computeCycles : 0.0;
        point.roofShare = point.roofOpsPerCycle > 0 ? point.achievedOpsPerCycle / point.roofOpsPerCycle : 0.0;
        (subgraph.coreType == CoreType::AIC ? anyAic : anyAiv) = true;
        cubeTypes.insert(w.cubeTypes.begin(), w.cubeTypes.end());
        vectorTypes.insert(w.vectorTypes.begin(), w.vectorTypes.end());
      }
    }
    result.points.push_back(std::move(point));
  }

  // Ceilings for what the points use: compute per dtype, then memory per core type.
  // Dtypes at one rate share a line: "VECTOR float32, int32 add-class peak".
  auto addComputeCeilings = [&](const std::set<DataType>& types, const char* unit, const char* coreType,
                                const char* suffix, auto opsPerCycleOf) {
    std::map<double, std::string> namesByRate;
    for (DataType dtype : types) {
      std::string& names = namesByRate[opsPerCycleOf(dtype)];
      names += (names.empty() ? "" : ", ") + std::string(name(dtype));
    }
    for (auto rate = namesByRate.rbegin(); rate != namesByRate.rend(); ++rate)
      result.ceilings.push_back({std::string(unit) + " " + rate->second + suffix, coreType, true, rate->first, 0.0});
  };
  addComputeCeilings(cubeTypes, "CUBE", "AIC", " peak", [&](DataType dtype) {
    return 2.0 * static_cast<double>(machine.cube[static_cast<std::size_t>(dtype)]->macsPerCycle);
  });
  addComputeCeilings(vectorTypes, "VECTOR", "AIV", " add-class peak", [&](DataType dtype) {
    return machine.vector.bytesPerCycle / static_cast<double>(sizeOf(dtype));
  });
  const double gmShared = machine.sustainedGmBytesPerCycle();
  if (anyAic) {
    result.ceilings.push_back({"GM -> L1 peak, one core", "AIC", false, 0.0, aicCopyIn});
    if (machine.aicCores > 0)
      result.ceilings.push_back({"GM shared by " + std::to_string(machine.aicCores) + " AIC cores", "AIC", false, 0.0,
                                 gmShared / machine.aicCores});
  }
  if (anyAiv) {
    result.ceilings.push_back({"GM -> UB peak, one core", "AIV", false, 0.0, aivCopyIn});
    if (machine.aivCores > 0)
      result.ceilings.push_back({"GM shared by " + std::to_string(machine.aivCores) + " AIV cores", "AIV", false, 0.0,
                                 gmShared / machine.aivCores});
  }
  return result;
}

} // namespace pto
