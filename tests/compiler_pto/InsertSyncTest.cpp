// InsertSync against the brute-force contract check (PtoTestSupport.h's syncIsSound: every cross-pipe
// dependence ordered by happens-before, flags alternating per event, no deadlock in a simulation of in-order
// pipes) on random programs with plenty and with scarce event ids, plus small cases worked out by hand.
#include "PtoTestSupport.h"

#include "compiler/passes/InsertSync.h"
#include "compiler/passes/OoOSchedule.h"

#include <gtest/gtest.h>

namespace pto::testing {
namespace {

using P = PtoOpcode;

PtoOperand ub(std::int64_t offset, std::int64_t bytes) {
  PtoOperand operand;
  operand.memory = MemoryKind::UB;
  operand.offsetBytes = offset;
  operand.bytes = bytes;
  operand.shape = {bytes / 4};
  return operand;
}

PtoInstruction make(PtoOpcode opcode, std::vector<PtoOperand> dst, std::vector<PtoOperand> srcs, int tag) {
  PtoInstruction instruction;
  instruction.opcode = opcode;
  instruction.pipe = pipeOf(opcode);
  instruction.dst = std::move(dst);
  instruction.srcs = std::move(srcs);
  instruction.tileOp = tag;
  return instruction;
}

TEST(InsertSync, RandomProgramsAreSoundWithEightEventIds) {
  std::mt19937 random(20240611);
  for (int trial = 0; trial < 400; ++trial) {
    PtoProgram program;
    program.instructions = randomInstructions(random, 1 + trial % 60);
    const std::vector<PtoInstruction> original = program.instructions;
    insertSyncInto(program, kEventIdsPerPipePair);
    ASSERT_TRUE(syncIsSound(program.instructions, original, kEventIdsPerPipePair)) << "trial " << trial;
  }
}

TEST(InsertSync, RandomProgramsAreSoundWhenEventIdsRunOut) {
  std::mt19937 random(7);
  int barriers = 0;
  for (int eventIds : {0, 1, 2}) {
    for (int trial = 0; trial < 200; ++trial) {
      PtoProgram program;
      program.instructions = randomInstructions(random, 10 + trial % 50);
      const std::vector<PtoInstruction> original = program.instructions;
      insertSyncInto(program, eventIds);
      ASSERT_TRUE(syncIsSound(program.instructions, original, eventIds)) << eventIds << " ids, trial " << trial;
      for (const PtoInstruction& instruction : program.instructions) barriers += instruction.opcode == P::BARRIER;
    }
  }
  EXPECT_GT(barriers, 0);  // the fallback was exercised
}

TEST(InsertSync, ScheduledRandomProgramsStaySound) {
  std::mt19937 random(99);
  for (int trial = 0; trial < 200; ++trial) {
    PtoProgram program;
    program.instructions = randomInstructions(random, 1 + trial % 50);
    scheduleProgram(program);
    const std::vector<PtoInstruction> scheduled = program.instructions;
    insertSyncInto(program);
    ASSERT_TRUE(syncIsSound(program.instructions, scheduled, kEventIdsPerPipePair)) << "trial " << trial;
  }
}

TEST(InsertSync, SamePipeDependencesNeedNoFlags) {
  PtoProgram program;
  program.instructions = {make(P::TEXP, {ub(0, 64)}, {ub(64, 64)}, 0), make(P::TADD, {ub(128, 64)}, {ub(0, 64)}, 1),
                          make(P::TMUL, {ub(0, 64)}, {ub(128, 64)}, 2)};
  insertSyncInto(program);
  EXPECT_EQ(opcodes(program, true), (std::vector<P>{P::TEXP, P::TADD, P::TMUL}));
  EXPECT_EQ(program.count(Pipe::VECTOR), 3);
}

TEST(InsertSync, OneWaitCoversEveryEarlierInstructionOfThePipe) {
  // Two loads, one compute reading both: only the later load is waited for.
  PtoProgram program;
  program.instructions = {make(P::TLOAD, {ub(0, 64)}, {}, 0), make(P::TLOAD, {ub(64, 64)}, {}, 1),
                          make(P::TADD, {ub(128, 64)}, {ub(0, 64), ub(64, 64)}, 2)};
  insertSyncInto(program);
  EXPECT_EQ(opcodes(program, true), (std::vector<P>{P::TLOAD, P::TLOAD, P::SET_FLAG, P::WAIT_FLAG, P::TADD}));
}

TEST(InsertSync, DependencesImpliedThroughAnotherPipeGetNoFlag) {
  // load (MTE2) -> exp (VECTOR) -> store (MTE3), and the store also reads what the load wrote: the chain
  // through VECTOR already orders load before store.
  PtoProgram program;
  program.instructions = {make(P::TLOAD, {ub(0, 64)}, {}, 0), make(P::TEXP, {ub(64, 64)}, {ub(0, 64)}, 1),
                          make(P::TSTORE, {}, {ub(0, 64), ub(64, 64)}, 2)};
  insertSyncInto(program);
  EXPECT_EQ(opcodes(program, true),
            (std::vector<P>{P::TLOAD, P::SET_FLAG, P::WAIT_FLAG, P::TEXP, P::SET_FLAG, P::WAIT_FLAG, P::TSTORE}));
  EXPECT_EQ(program.instructions[5].srcPipe, Pipe::VECTOR);
  EXPECT_EQ(program.instructions[5].dstPipe, Pipe::MTE3);
}

TEST(InsertSync, EventIdsAreRecycledAndABarrierTakesOverWhenAllAreLive) {
  // Two loads into separate buffers, then two computes each reading one of them, in load order: two
  // MTE2->VECTOR set..wait spans that overlap in issue order, so they need two ids.
  PtoProgram program;
  program.instructions = {make(P::TLOAD, {ub(0, 64)}, {}, 0), make(P::TLOAD, {ub(64, 64)}, {}, 1),
                          make(P::TEXP, {ub(256, 64)}, {ub(0, 64)}, 2), make(P::TEXP, {ub(320, 64)}, {ub(64, 64)}, 3)};
  // With one id: load0 -> exp0 takes e0 (set after 0, wait before 2); load1 -> exp1 needs a set after 1,
  // before e0's wait: no id is free, so exp1 gets a barrier.
  PtoProgram scarce = program;
  insertSyncInto(scarce, 1);
  EXPECT_EQ(opcodes(scarce, true),
            (std::vector<P>{P::TLOAD, P::SET_FLAG, P::TLOAD, P::WAIT_FLAG, P::TEXP, P::BARRIER, P::TEXP}));
  // With two ids the second span takes e1.
  insertSyncInto(program, 2);
  EXPECT_EQ(opcodes(program, true), (std::vector<P>{P::TLOAD, P::SET_FLAG, P::TLOAD, P::SET_FLAG, P::WAIT_FLAG, P::TEXP,
                                              P::WAIT_FLAG, P::TEXP}));
  EXPECT_EQ(program.instructions[1].eventId, 0);
  EXPECT_EQ(program.instructions[3].eventId, 1);
}

TEST(InsertSync, AnAlreadySynchronisedProgramIsAnInternalError) {
  Compilation compilation;
  compilation.programs.resize(1);
  compilation.programs[0].programId = 0;
  compilation.programs[0].instructions = {make(P::TLOAD, {ub(0, 64)}, {}, 0),
                                          make(P::TEXP, {ub(64, 64)}, {ub(0, 64)}, 1)};
  DiagnosticEngine diags;
  ASSERT_TRUE(insertSync(compilation, diags));
  EXPECT_FALSE(insertSync(compilation, diags));
  EXPECT_EQ(messages(diags), "internal error in InsertSync: program 0 is already synchronised\n");
}

} // namespace
} // namespace pto::testing
