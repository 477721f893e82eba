// Implementation of OoOSchedule.
#include "compiler/passes/OoOSchedule.h"

#include <algorithm>
#include <array>
#include <functional>
#include <queue>
#include <string>

namespace pto {
namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

std::optional<int> readMode(const CompileSettings& settings, DiagnosticEngine& diags) {
  const OptionInfo& mode = *findDeclaration(oooScheduleOptions(), "ooo_sched_mode");
  const nlohmann::ordered_json& json = settings.passOptions;
  if (!json.is_object() || !json.contains(mode.name)) return static_cast<int>(mode.defaultInteger());
  const auto& given = json[mode.name];
  // PyPTO's own values (config.py: "", "GAPMIN" or "HLF") choose how its OoO scheduler searches a list
  // schedule (GapMin with or without local search, or highest level first: core_assign.cpp); this pass's list
  // scheduling stands for all three. Its sparse attention kernel asks for "GAPMIN".
  if (given.is_string()) {
    const std::string text = given.get<std::string>();
    if (text.empty() || text == "GAPMIN" || text == "HLF") return 1;
  }
  if (!given.is_number_integer() || given.get<std::int64_t>() < mode.minimum || given.get<std::int64_t>() > mode.maximum)
    return diags.error(settings.locationOf("pass_options"))
           << "pass_options.ooo_sched_mode must be 0 (keep program order) or 1 (list scheduling), or PyPTO's \"\", "
           << "\"GAPMIN\" or \"HLF\" (list scheduling), got " << given.dump();
  return static_cast<int>(given.get<std::int64_t>());
}

} // namespace

const std::vector<OptionInfo>& oooScheduleOptions() {
  static const std::vector<OptionInfo> declarations = {
      declareOption("ooo_sched_mode", OptionScope::Pass, OptionType::Enum, 1, "1 (list scheduling)",
                    "Instruction order inside a task: list scheduling overlaps the pipes (next tile's copy-in while "
                    "this one computes).",
                    "OoOSchedule")
          .choose({{0, "keep program order"}, {1, "list scheduling"}})};
  return declarations;
}

bool checkOoOScheduleOptions(const CompileSettings& settings, const TensorGraph&, DiagnosticEngine& diags) {
  return readMode(settings, diags).has_value();
}

std::int64_t estimatedCycles(const PtoInstruction& instruction) {
  // Rough rates in bytes per cycle (machine-model.md: GM->UB ~58, UB->GM
  // ~109, L1->L0 ~128-256, L0C->GM ~40 at 1.85 GHz) and start-up costs.
  switch (instruction.opcode) {
  case PtoOpcode::TLOAD:
  case PtoOpcode::MGATHER: return 30 + ceilDiv(instruction.bytes, 64);
  case PtoOpcode::TSTORE:
  case PtoOpcode::MSCATTER: return 30 + ceilDiv(instruction.bytes, 128);
  case PtoOpcode::TMOV: return 10 + ceilDiv(instruction.bytes, 192);
  case PtoOpcode::TSTORE_ACC: return 30 + ceilDiv(instruction.bytes, 40);
  case PtoOpcode::TMATMUL:
  case PtoOpcode::TMATMUL_ACC: return 6 + ceilDiv(instruction.elements, 4096);
  case PtoOpcode::SET_FLAG:
  case PtoOpcode::WAIT_FLAG:
  case PtoOpcode::BARRIER: return 1;
  default: break;
  }
  std::int64_t item = 4;
  if (!instruction.dst.empty()) item = static_cast<std::int64_t>(sizeOf(instruction.dst[0].dtype));
  std::int64_t cycles = ceilDiv(instruction.elements * item, 256);
  switch (instruction.opcode) {
  case PtoOpcode::TEXP:
  case PtoOpcode::TLOG:
  case PtoOpcode::TSQRT:
  case PtoOpcode::TRSQRT:
  case PtoOpcode::TDIV:
  case PtoOpcode::TRECIP:
  case PtoOpcode::TSIGMOID:
  case PtoOpcode::TTANH:
  case PtoOpcode::TVEC: cycles *= 2; break;
  default: break;
  }
  return 16 + cycles;
}

void scheduleProgram(PtoProgram& program, int mode) {
  if (mode == 0 || program.instructions.size() < 2) return;
  std::vector<PtoInstruction>& instructions = program.instructions;
  const std::size_t n = instructions.size();
  const std::vector<std::vector<int>> predecessors = dependencePredecessors(instructions);
  std::vector<std::vector<int>> successors(n);
  std::vector<int> waiting(n, 0);
  for (std::size_t j = 0; j < n; ++j) {
    waiting[j] = static_cast<int>(predecessors[j].size());
    for (int i : predecessors[j]) successors[static_cast<std::size_t>(i)].push_back(static_cast<int>(j));
  }
  // Per pipe, the ready instructions: `pending` until the pipe is free at
  // their ready time (by ready time, then program order), then `available`
  // (by program order), all of which could start when the pipe is free.
  using Pending = std::pair<std::int64_t, int>;
  std::array<std::priority_queue<Pending, std::vector<Pending>, std::greater<>>, kPipeCount> pending;
  std::array<std::priority_queue<int, std::vector<int>, std::greater<>>, kPipeCount> available;
  std::array<std::int64_t, kPipeCount> pipeFree{};
  std::vector<std::int64_t> readyAt(n, 0);
  auto pipeOfInstruction = [&](std::size_t i) { return static_cast<std::size_t>(instructions[i].pipe); };
  for (std::size_t i = 0; i < n; ++i)
    if (waiting[i] == 0) pending[pipeOfInstruction(i)].emplace(0, static_cast<int>(i));
  std::vector<int> order;
  order.reserve(n);
  while (order.size() < n) {
    // The instruction that could start earliest; program order breaks ties.
    std::size_t bestPipe = kPipeCount;
    std::int64_t bestStart = 0;
    int best = 0;
    for (std::size_t pipe = 0; pipe < kPipeCount; ++pipe) {
      while (!pending[pipe].empty() && pending[pipe].top().first <= pipeFree[pipe]) {
        available[pipe].push(pending[pipe].top().second);
        pending[pipe].pop();
      }
      std::int64_t start;
      int candidate;
      if (!available[pipe].empty())
        start = pipeFree[pipe], candidate = available[pipe].top();
      else if (!pending[pipe].empty())
        start = pending[pipe].top().first, candidate = pending[pipe].top().second;
      else
        continue;
      if (bestPipe == kPipeCount || start < bestStart || (start == bestStart && candidate < best))
        bestPipe = pipe, bestStart = start, best = candidate;
    }
    if (bestPipe == kPipeCount) break;  // cannot happen: the dependences form a DAG
    if (!available[bestPipe].empty() && available[bestPipe].top() == best)
      available[bestPipe].pop();
    else
      pending[bestPipe].pop();
    std::size_t chosen = static_cast<std::size_t>(best);
    std::int64_t finish = bestStart + estimatedCycles(instructions[chosen]);
    pipeFree[bestPipe] = finish;
    order.push_back(best);
    for (int s : successors[chosen]) {
      std::size_t next = static_cast<std::size_t>(s);
      readyAt[next] = std::max(readyAt[next], finish);
      if (--waiting[next] == 0) pending[pipeOfInstruction(next)].emplace(readyAt[next], s);
    }
  }
  std::vector<PtoInstruction> reordered;
  reordered.reserve(n);
  for (int i : order) reordered.push_back(std::move(instructions[static_cast<std::size_t>(i)]));
  instructions = std::move(reordered);
}

bool oooSchedule(Compilation& compilation, DiagnosticEngine& diags) {
  std::optional<int> mode = readMode(compilation.settings, diags);
  if (!mode) return false;
  for (PtoProgram& program : compilation.programs) {
    for (const PtoInstruction& instruction : program.instructions)
      if (isSync(instruction.opcode))
        return diags.error(compilation.tiles.graph.kernelLocation)
               << "internal error in OoOSchedule: program " << program.programId
               << " already holds sync instructions (OoOSchedule must run before InsertSync)";
    scheduleProgram(program, *mode);
  }
  return true;
}

} // namespace pto
