// Implementation of InsertSync.
#include "compiler/passes/InsertSync.h"

#include <algorithm>

namespace pto {
namespace {

// Per pipe, the highest instruction index (in the unsynchronised list) known
// to have finished; pipes run in order, so everything before it has too.
using Clock = std::array<int, kPipeCount>;

Clock emptyClock() {
  Clock clock;
  clock.fill(-1);
  return clock;
}

void join(Clock& into, const Clock& from) {
  for (std::size_t p = 0; p < kPipeCount; ++p) into[p] = std::max(into[p], from[p]);
}

PtoInstruction flag(PtoOpcode opcode, Pipe src, Pipe dst, int eventId) {
  PtoInstruction instruction;
  instruction.opcode = opcode;
  instruction.pipe = opcode == PtoOpcode::SET_FLAG ? src : dst;
  instruction.srcPipe = src;
  instruction.dstPipe = dst;
  instruction.eventId = eventId;
  return instruction;
}

} // namespace

void insertSyncInto(PtoProgram& program, int eventIds) {
  std::vector<PtoInstruction>& instructions = program.instructions;
  const std::size_t n = instructions.size();
  const std::vector<std::vector<int>> predecessors = dependencePredecessors(instructions);
  std::array<Clock, kPipeCount> known;
  known.fill(emptyClock());
  std::vector<Clock> clockAfter(n, emptyClock());
  Clock lastOnPipe = emptyClock();
  // Per pipe pair and event id: the consumer before which its last wait sits.
  std::vector<std::vector<int>> lastWait(kPipeCount * kPipeCount,
                                         std::vector<int>(static_cast<std::size_t>(std::max(eventIds, 0)), -1));
  std::vector<std::vector<PtoInstruction>> before(n), after(n);

  for (std::size_t c = 0; c < n; ++c) {
    const std::size_t dst = static_cast<std::size_t>(instructions[c].pipe);
    const std::vector<int>& preds = predecessors[c];
    // Latest producers first: one wait covers the earlier ones of its pipe.
    for (auto it = preds.rbegin(); it != preds.rend(); ++it) {
      const int p = *it;
      const std::size_t src = static_cast<std::size_t>(instructions[static_cast<std::size_t>(p)].pipe);
      if (src == dst || known[dst][src] >= p) continue;
      std::vector<int>& ids = lastWait[src * kPipeCount + dst];
      // An id is free for a set after `p` once its last wait sits at or before `p`.
      auto id = std::find_if(ids.begin(), ids.end(), [&](int waitAt) { return waitAt <= p; });
      if (id == ids.end()) {
        PtoInstruction barrier;
        barrier.opcode = PtoOpcode::BARRIER;
        barrier.pipe = pipeOf(PtoOpcode::BARRIER);
        before[c].push_back(barrier);
        for (Clock& clock : known) join(clock, lastOnPipe);
        break;
      }
      *id = static_cast<int>(c);
      int eventId = static_cast<int>(id - ids.begin());
      after[static_cast<std::size_t>(p)].push_back(
          flag(PtoOpcode::SET_FLAG, static_cast<Pipe>(src), static_cast<Pipe>(dst), eventId));
      before[c].push_back(flag(PtoOpcode::WAIT_FLAG, static_cast<Pipe>(src), static_cast<Pipe>(dst), eventId));
      join(known[dst], clockAfter[static_cast<std::size_t>(p)]);
    }
    known[dst][dst] = static_cast<int>(c);
    clockAfter[c] = known[dst];
    lastOnPipe[dst] = static_cast<int>(c);
  }

  std::vector<PtoInstruction> synced;
  synced.reserve(n * 2);
  for (std::size_t i = 0; i < n; ++i) {
    for (PtoInstruction& instruction : before[i]) synced.push_back(std::move(instruction));
    synced.push_back(std::move(instructions[i]));
    for (PtoInstruction& instruction : after[i]) synced.push_back(std::move(instruction));
  }
  instructions = std::move(synced);
  program.recountPipes();
}

bool insertSync(Compilation& compilation, DiagnosticEngine& diags) {
  for (PtoProgram& program : compilation.programs) {
    for (const PtoInstruction& instruction : program.instructions)
      if (isSync(instruction.opcode))
        return diags.error(compilation.tiles.graph.kernelLocation)
               << "internal error in InsertSync: program " << program.programId << " is already synchronised";
    insertSyncInto(program);
  }
  return true;
}

} // namespace pto
