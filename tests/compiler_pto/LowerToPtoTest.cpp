// LowerToPto (with AllocateBuffers before it and InsertSync after it, OoOSchedule in program-order mode so
// the listing follows the lowering) on hand-made subgraphs. The expected listings are worked out by hand: the
// buffer offsets from AllocateBuffers' first-fit contract, the instructions from LowerToPto.h, the flags
// from InsertSync.h (worked through in the comments). Listings are compared with runs of spaces folded.
#include "PtoTestSupport.h"
#include "tests/TestDtypes.h"

#include "compiler/ir/PtoProgramText.h"
#include "compiler/passes/InsertSync.h"
#include "compiler/passes/LowerToPto.h"

#include <gtest/gtest.h>

#include <numeric>
#include <regex>
#include <set>

namespace pto::testing {
namespace {

const nlohmann::ordered_json kProgramOrder = {{"ooo_sched_mode", 0}};

std::string folded(const std::string& text) { return std::regex_replace(text, std::regex(" +"), " "); }

std::string listing(const Compilation& compilation, int program = 0) {
  return folded(ptoProgramToText(compilation, compilation.programs.at(static_cast<std::size_t>(program))));
}

// y = exp(x) + z on [4, 64] fp32, one vec tile: tile ops exp x -> t, add t, z -> y.
TensorGraph expAdd() {
  TensorGraphBuilder builder("exp_add", kernelLine(1));
  const auto [x, z, y] = addArguments(builder, {{"x", kF32, {4, 64}}, {"z", kF32, {4, 64}}, {"y", kF32, {4, 64}}});
  builder.beginPath();
  builder.setVecTile({4, 64}, kernelLine(4));
  const TensorId t = addOp(builder, TensorOpKind::Exp, {x}, {}, 5);
  addOp(builder, TensorOpKind::Add, {t, z}, {}, 6, {y});
  builder.endPath();
  return builder.finish();
}

TEST(LowerToPto, VectorSubgraphLoadsComputesAndStoresWithFlagsBetweenPipes) {
  Compilation compilation = tiled(expAdd(), kProgramOrder);
  addSubgraph(compilation, {0, 1}, CoreType::AIV);
  std::string errors;
  ASSERT_TRUE(runBackEnd(compilation, &errors)) << errors;
  // UB, first fit by first use, 1024 bytes a tile, ping-pong (a buffer stays reserved one op past its last
  // use): x@0 (ops 0, reserved to 1), t@1024 (ops 0-1), z@2048 (x's bytes are still reserved at op 1),
  // y@3072. Unsynchronised: 0 TLOAD x, 1 TEXP, 2 TLOAD z, 3 TADD, 4 TSTORE. Flags: TEXP after TLOAD x
  // (MTE2->VECTOR e0); TLOAD z overwrites nothing TEXP reads, so it needs no wait and can run while TEXP
  // computes; TADD after TLOAD z (MTE2->VECTOR e0 again); TSTORE after TADD (VECTOR->MTE3 e0).
  EXPECT_EQ(listing(compilation),
            folded(R"(program 0: AIV, from subgraph 0 'exp', 11 instructions (MTE2 4, VECTOR 5, MTE3 2)
    0  MTE2    TLOAD       ub[0:1024] <- gm:x[0:4, 0:64] f32 [4, 64] ; exp @ kernel.py:5
    1  MTE2    SET_FLAG    MTE2->VECTOR e0
    2  VECTOR  WAIT_FLAG   MTE2->VECTOR e0
    3  VECTOR  TEXP        ub[1024:2048] <- ub[0:1024] f32 [4, 64] ; exp @ kernel.py:5
    4  MTE2    TLOAD       ub[2048:3072] <- gm:z[0:4, 0:64] f32 [4, 64] ; add @ kernel.py:6
    5  MTE2    SET_FLAG    MTE2->VECTOR e0
    6  VECTOR  WAIT_FLAG   MTE2->VECTOR e0
    7  VECTOR  TADD        ub[3072:4096] <- ub[1024:2048], ub[2048:3072] f32 [4, 64] ; add @ kernel.py:6
    8  VECTOR  SET_FLAG    VECTOR->MTE3 e0
    9  MTE3    WAIT_FLAG   VECTOR->MTE3 e0
   10  MTE3    TSTORE      gm:y[0:4, 0:64] <- ub[3072:4096] f32 [4, 64] ; add @ kernel.py:6
)"));
  const PtoProgram& program = compilation.programs[0];
  ASSERT_EQ(program.instructions.size(), 11u);
  EXPECT_EQ(program.programId, 0);
  EXPECT_EQ(program.coreType, CoreType::AIV);
  EXPECT_EQ(program.subgraph, 0);
  EXPECT_EQ(program.instructions[0].bytes, 1024);
  EXPECT_EQ(program.instructions[0].srcs[0].gmRegion, 0);
  EXPECT_EQ(program.instructions[4].srcs[0].gmRegion, 1);
  EXPECT_EQ(program.instructions[10].dst[0].gmRegion, 0);
  EXPECT_EQ(program.instructions[3].tileOp, 0);
  EXPECT_EQ(program.instructions[7].tileOp, 1);
  EXPECT_EQ(program.instructions[7].elements, 256);
  EXPECT_EQ(compilation.blocks.subgraphs[0].overlap, BufferOverlap::PingPong);
}

// c = a @ b: a [16, 64] fp16, b [64, 32] fp16, c fp16; cube tile m 16, k 32, n 32: two k-steps into an fp32
// accumulator, then the cast into c. The L1 depth is the L0 one, so each step loads its own operands (the
// subgraphs here list their copy-ins by hand; L1 blocks are PtoPipelineTest's).
TensorGraph matmulTwoKSteps(DataType out = kF16) {
  return matmulKernel(16, 64, 32, {.mL0 = 16, .mL1 = 16, .kL0 = 32, .kAL1 = 32, .kBL1 = 32, .nL0 = 32, .nL1 = 32}, out);
}

TEST(LowerToPto, MatmulWithTwoKStepsStagesThroughL1AndL0AndConvertsOnTheWayOut) {
  Compilation compilation = tiled(matmulTwoKSteps(), kProgramOrder);
  ASSERT_EQ(compilation.tiles.tileOps().size(), 3u);  // two k-steps and the cast
  addSubgraph(compilation, {0, 1, 2}, CoreType::AIC);
  std::string errors;
  ASSERT_TRUE(runBackEnd(compilation, &errors)) << errors;
  // Buffers, ping-pong: L1 a0@0 (1024 bytes) b0@1024 (2048) at op 0 and, still reserved at op 1, a1@3072
  // b1@4096; L0A a0@0 a1@1024, L0B b0@0 b1@2048; L0C acc@0 (2048 bytes fp32) for all three ops.
  // Unsynchronised: 0 TLOAD a0  1 TLOAD b0  2 TMOV a0  3 TMOV b0  4 TMATMUL  5 TLOAD a1  6 TLOAD b1
  // 7 TMOV a1  8 TMOV b1  9 TMATMUL_ACC  10 TSTORE_ACC. The second k-step's loads and moves use other bytes
  // than the first's, so none of them waits for the first step (no MTE1->MTE2 or CUBE->MTE1 flags):
  // 2<-0 MTE2->MTE1 e0; 3<-1 MTE2->MTE1 e1; 4<-3 MTE1->CUBE e0 (covers 2); 7<-5 e0, 8<-6 e1; 9<-8
  // MTE1->CUBE e0; 10<-9 CUBE->FIXPIPE e0.
  EXPECT_EQ(listing(compilation),
            folded(R"(program 0: AIC, from subgraph 0 'matmul', 25 instructions (MTE2 8, MTE1 10, CUBE 5, FIXPIPE 2)
    0  MTE2    TLOAD       l1[0:1024] <- gm:a[0:16, 0:32] f16 [16, 32] ; matmul @ kernel.py:3
    1  MTE2    SET_FLAG    MTE2->MTE1 e0
    2  MTE2    TLOAD       l1[1024:3072] <- gm:b[0:32, 0:32] f16 [32, 32] ; matmul @ kernel.py:3
    3  MTE2    SET_FLAG    MTE2->MTE1 e1
    4  MTE1    WAIT_FLAG   MTE2->MTE1 e0
    5  MTE1    TMOV        l0a[0:1024] <- l1[0:1024] f16 [16, 32] ; matmul @ kernel.py:3
    6  MTE1    WAIT_FLAG   MTE2->MTE1 e1
    7  MTE1    TMOV        l0b[0:2048] <- l1[1024:3072] f16 [32, 32] ; matmul @ kernel.py:3
    8  MTE1    SET_FLAG    MTE1->CUBE e0
    9  CUBE    WAIT_FLAG   MTE1->CUBE e0
   10  CUBE    TMATMUL     l0c[0:2048] <- l0a[0:1024], l0b[0:2048] f16->f32 [16, 32] ; matmul @ kernel.py:3
   11  MTE2    TLOAD       l1[3072:4096] <- gm:a[0:16, 32:64] f16 [16, 32] ; matmul @ kernel.py:3
   12  MTE2    SET_FLAG    MTE2->MTE1 e0
   13  MTE2    TLOAD       l1[4096:6144] <- gm:b[32:64, 0:32] f16 [32, 32] ; matmul @ kernel.py:3
   14  MTE2    SET_FLAG    MTE2->MTE1 e1
   15  MTE1    WAIT_FLAG   MTE2->MTE1 e0
   16  MTE1    TMOV        l0a[1024:2048] <- l1[3072:4096] f16 [16, 32] ; matmul @ kernel.py:3
   17  MTE1    WAIT_FLAG   MTE2->MTE1 e1
   18  MTE1    TMOV        l0b[2048:4096] <- l1[4096:6144] f16 [32, 32] ; matmul @ kernel.py:3
   19  MTE1    SET_FLAG    MTE1->CUBE e0
   20  CUBE    WAIT_FLAG   MTE1->CUBE e0
   21  CUBE    TMATMUL_ACC l0c[0:2048] <- l0a[1024:2048], l0b[2048:4096] f16->f32 [16, 32] acc+ ; matmul @ kernel.py:3
   22  CUBE    SET_FLAG    CUBE->FIXPIPE e0
   23  FIXPIPE WAIT_FLAG   CUBE->FIXPIPE e0
   24  FIXPIPE TSTORE_ACC  gm:c[0:16, 0:32] <- l0c[0:2048] f32->f16 [16, 32] ; matmul @ kernel.py:3
)"));
  const PtoProgram& program = compilation.programs[0];
  ASSERT_EQ(program.instructions.size(), 25u);
  EXPECT_EQ(program.instructions[10].elements, 16 * 32 * 32);
  EXPECT_EQ(program.instructions[24].bytes, 16 * 32 * 2);
  EXPECT_EQ(program.instructions[24].opKind, TensorOpKind::Cast);
  EXPECT_EQ(program.count(Pipe::CUBE), 5);
}

TEST(LowerToPto, AnFp32MatmulStoresItsAccumulatorWithoutConversion) {
  Compilation compilation = tiled(matmulTwoKSteps(kF32), kProgramOrder);
  ASSERT_EQ(compilation.tiles.tileOps().size(), 2u);
  addSubgraph(compilation, {0, 1}, CoreType::AIC);
  std::string errors;
  ASSERT_TRUE(allocateAndLower(compilation, &errors)) << errors;
  const PtoProgram& program = compilation.programs[0];
  using P = PtoOpcode;
  EXPECT_EQ(opcodes(program), (std::vector<P>{P::TLOAD, P::TLOAD, P::TMOV, P::TMOV, P::TMATMUL, P::TLOAD, P::TLOAD,
                                              P::TMOV, P::TMOV, P::TMATMUL_ACC, P::TSTORE_ACC}));
  const PtoInstruction& store = program.instructions.back();
  EXPECT_EQ(store.srcs[0].dtype, kF32);
  EXPECT_EQ(store.dst[0].dtype, kF32);
  EXPECT_EQ(store.accumulate, TileAccumulate::None);
}

TEST(LowerToPto, SplitKStepsLoadTheAccumulatorIntoL0CFirst) {
  Compilation compilation = tiled(matmulTwoKSteps(kF32), kProgramOrder);
  addSubgraph(compilation, {0}, CoreType::AIC);
  addSubgraph(compilation, {1}, CoreType::AIC);
  // The second k-step reads c (it accumulates) and writes it.
  ASSERT_EQ(compilation.blocks.subgraphs[1].copyIns.size(), 3u);
  std::string errors;
  ASSERT_TRUE(allocateAndLower(compilation, &errors)) << errors;
  using P = PtoOpcode;
  const PtoProgram& second = compilation.programs[1];
  ASSERT_EQ(opcodes(second),
            (std::vector<P>{P::TLOAD, P::TLOAD, P::TLOAD, P::TMOV, P::TMOV, P::TMATMUL_ACC, P::TSTORE_ACC}));
  EXPECT_EQ(second.instructions[2].dst[0].memory, MemoryKind::L0C);
  EXPECT_EQ(second.instructions[2].srcs[0].gmRegion, 2);
  // c is read (copy-in 2) and written (copy-out 0): one GM alias class, so the load precedes the store.
  EXPECT_EQ(second.instructions[2].srcs[0].gmAlias, second.instructions[6].dst[0].gmAlias);
  EXPECT_EQ(opcodes(compilation.programs[0]),
            (std::vector<P>{P::TLOAD, P::TLOAD, P::TMOV, P::TMOV, P::TMATMUL, P::TSTORE_ACC}));
}

TEST(LowerToPto, SplitKStepsOfAConvertedResultAccumulateBeforeTheConversion) {
  Compilation compilation = tiled(matmulTwoKSteps(kF16), kProgramOrder);
  addSubgraph(compilation, {0}, CoreType::AIC);
  addSubgraph(compilation, {1, 2}, CoreType::AIC);
  // The first subgraph's accumulator is a temporary: hand it over through global memory, as GenerateMoveOp would.
  compilation.blocks.subgraphs[0].copyOuts = compilation.tiles.tileOp(0).outputs;
  std::string errors;
  ASSERT_TRUE(allocateAndLower(compilation, &errors)) << errors;
  using P = PtoOpcode;
  const PtoProgram& second = compilation.programs[1];
  ASSERT_EQ(opcodes(second),
            (std::vector<P>{P::TLOAD, P::TLOAD, P::TLOAD, P::TMOV, P::TMOV, P::TMATMUL_ACC, P::TSTORE_ACC}));
  EXPECT_EQ(second.instructions[2].dst[0].memory, MemoryKind::L0C);
  EXPECT_EQ(second.instructions[6].srcs[0].dtype, kF32);
  EXPECT_EQ(second.instructions[6].dst[0].dtype, kF16);
}

TEST(LowerToPto, VectorOpsOfACubeSubgraphReadTheMatmulResultThroughUb) {
  // y = (a @ b) + z with the add in the cube subgraph, as GraphPartition makes it on machines with L0C -> UB.
  TensorGraphBuilder builder("mm_add", kernelLine(1));
  const auto [a, b, z, y] =
      addArguments(builder, {{"a", kF16, {16, 64}}, {"b", kF16, {64, 32}}, {"z", kF32, {16, 32}},
                             {"y", kF32, {16, 32}}});
  CubeTileShape cube;
  cube.mL0 = 16, cube.mL1 = 16, cube.kL0 = 32, cube.kAL1 = cube.kBL1 = 32, cube.nL0 = 32, cube.nL1 = 32;
  builder.beginPath();
  builder.setCubeTile(cube, kernelLine(2));
  builder.setVecTile({16, 32}, kernelLine(2));
  const TensorId c = addOp(builder, TensorOpKind::Matmul, {a, b}, {{"out_dtype", kF32}}, 3);
  addOp(builder, TensorOpKind::Add, {c, z}, {}, 4, {y});
  builder.endPath();
  Compilation compilation = tiled(builder.finish(), kProgramOrder);
  ASSERT_EQ(compilation.tiles.tileOps().size(), 3u);
  addSubgraph(compilation, {0, 1, 2}, CoreType::AIC);
  std::string errors;
  ASSERT_TRUE(runBackEnd(compilation, &errors)) << errors;
  std::vector<PtoInstruction> real;
  for (const PtoInstruction& instruction : compilation.programs[0].instructions)
    if (!isSync(instruction.opcode)) real.push_back(instruction);
  using P = PtoOpcode;
  std::vector<P> kinds;
  for (const PtoInstruction& instruction : real) kinds.push_back(instruction.opcode);
  ASSERT_EQ(kinds, (std::vector<P>{P::TLOAD, P::TLOAD, P::TMOV, P::TMOV, P::TMATMUL, P::TLOAD, P::TLOAD, P::TMOV,
                                   P::TMOV, P::TMATMUL_ACC, P::TLOAD, P::TMOV_ACC, P::TADD, P::TSTORE}));
  // z is loaded into UB and the matmul result moved there on the fixpipe: UB tiles of 2048 bytes stacked from 0.
  EXPECT_EQ(real[10].dst[0].memory, MemoryKind::UB);
  EXPECT_EQ(real[11].pipe, Pipe::FIXPIPE);
  EXPECT_EQ(real[11].srcs[0].memory, MemoryKind::L0C);
  EXPECT_EQ(real[12].srcs[0].offsetBytes, real[11].dst[0].offsetBytes);
  EXPECT_EQ(real[12].srcs[1].offsetBytes, real[10].dst[0].offsetBytes);
  std::set<std::int64_t> offsets = {real[10].dst[0].offsetBytes, real[11].dst[0].offsetBytes,
                                    real[12].dst[0].offsetBytes};
  EXPECT_EQ(offsets, (std::set<std::int64_t>{0, 2048, 4096}));
  EXPECT_EQ(real[13].srcs[0].offsetBytes, real[12].dst[0].offsetBytes);
  EXPECT_TRUE(syncIsSound(compilation.programs[0].instructions, real, kEventIdsPerPipePair));
}

// y = cast(x, fp16) @ w: x [16, 32] fp32, w [32, 16] fp16, one vec tile and one k-step; the cast and the
// matmul in one cube subgraph, as GraphPartition makes them on a machine with a UB -> L1 path (the 950).
TEST(LowerToPto, AVectorResultReachesTheMatmulThroughL1OnMte3) {
  TensorGraphBuilder builder("cast_mm", kernelLine(1));
  const auto [x, w, y] = addArguments(builder, {{"x", kF32, {16, 32}}, {"w", kF16, {32, 16}}, {"y", kF32, {16, 16}}});
  CubeTileShape cube;
  cube.mL0 = cube.mL1 = 16, cube.kL0 = cube.kAL1 = cube.kBL1 = 32, cube.nL0 = cube.nL1 = 16;
  builder.beginPath();
  builder.setCubeTile(cube, kernelLine(2));
  builder.setVecTile({16, 32}, kernelLine(2));
  const TensorId half = addOp(builder, TensorOpKind::Cast, {x}, {{"dtype", kF16}}, 3);
  addOp(builder, TensorOpKind::Matmul, {half, w}, {{"out_dtype", kF32}}, 4, {y});
  builder.endPath();
  Compilation compilation = tiled(builder.finish(), kProgramOrder);
  ASSERT_EQ(compilation.tiles.tileOps().size(), 2u);
  addSubgraph(compilation, {0, 1}, CoreType::AIC);
  std::string errors;
  ASSERT_TRUE(runBackEnd(compilation, &errors)) << errors;
  std::vector<PtoInstruction> real;
  for (const PtoInstruction& instruction : compilation.programs[0].instructions)
    if (!isSync(instruction.opcode)) real.push_back(instruction);
  using P = PtoOpcode;
  std::vector<P> kinds;
  for (const PtoInstruction& instruction : real) kinds.push_back(instruction.opcode);
  ASSERT_EQ(kinds, (std::vector<P>{P::TLOAD, P::TCVT, P::TLOAD, P::TMOV, P::TMOV, P::TMOV, P::TMATMUL,
                                   P::TSTORE_ACC}));
  // The cast's tile (UB, 16 x 32 fp16 = 1024 bytes) goes into the L1 buffer the matmul's A operand takes.
  const PtoInstruction& intoL1 = real[3];
  EXPECT_EQ(intoL1.pipe, Pipe::MTE3);
  EXPECT_EQ(intoL1.srcs[0].memory, MemoryKind::UB);
  EXPECT_EQ(intoL1.srcs[0].offsetBytes, real[1].dst[0].offsetBytes);
  EXPECT_EQ(intoL1.srcs[0].bytes, 1024);
  EXPECT_EQ(intoL1.dst[0].memory, MemoryKind::L1);
  EXPECT_EQ(real[4].srcs[0].memory, MemoryKind::L1);
  EXPECT_EQ(real[4].srcs[0].offsetBytes, intoL1.dst[0].offsetBytes);
  EXPECT_EQ(real[4].dst[0].memory, MemoryKind::L0A);
  EXPECT_NE(real[2].dst[0].offsetBytes, intoL1.dst[0].offsetBytes) << "w's L1 tile and the cast's share bytes";
  EXPECT_TRUE(syncIsSound(compilation.programs[0].instructions, real, kEventIdsPerPipePair));
}

// y = chain of `steps` (muls 0.5, adds) over (a @ b): [64, 128] fp32 tiles of 32 KiB, all in one cube subgraph
// as on a machine with L0C -> UB. AllocateBuffers plans the vector ops' UB tiles, reusing dead ones: one
// step's input and its result are live, and with the ping-pong reserve the one before (3 tiles, 96 KiB),
// where the tiles once stacked above the plan took 32 KiB per op (1 + 2 * 8 = 17 tiles, 544 KiB, past any
// UB) and a simulator's bounds check refused the program.
TEST(LowerToPto, TheVectorOpsOfACubeSubgraphTakePlannedReusedUbBuffers) {
  TensorGraphBuilder builder("mm_chain", kernelLine(1));
  const auto [a, b, y] = addArguments(builder, {{"a", kF16, {64, 32}}, {"b", kF16, {32, 128}}, {"y", kF32, {64, 128}}});
  CubeTileShape cube;
  cube.mL0 = cube.mL1 = 64, cube.kL0 = cube.kAL1 = cube.kBL1 = 32, cube.nL0 = cube.nL1 = 128;
  builder.beginPath();
  builder.setCubeTile(cube, kernelLine(2));
  builder.setVecTile({64, 128}, kernelLine(2));
  TensorId value = addOp(builder, TensorOpKind::Matmul, {a, b}, {{"out_dtype", kF32}}, 3);
  const int steps = 8;
  for (int step = 0; step < steps; ++step) {
    value = addOp(builder, TensorOpKind::MulS, {value}, {{"scalar", 0.5}}, 4);
    const std::vector<TensorId> into = step + 1 == steps ? std::vector<TensorId>{y} : std::vector<TensorId>{};
    value = addOp(builder, TensorOpKind::AddS, {value}, {{"scalar", 1.0}}, 5, into);
  }
  builder.endPath();
  Compilation compilation = tiled(builder.finish(), kProgramOrder);
  std::vector<TileOpId> all(compilation.tiles.tileOps().size());
  std::iota(all.begin(), all.end(), TileOpId{0});
  addSubgraph(compilation, all, CoreType::AIC);
  std::string errors;
  ASSERT_TRUE(runBackEnd(compilation, &errors)) << errors;
  const std::int64_t tile = 64 * 128 * 4;
  const std::int64_t peak = compilation.blocks.subgraphs[0].peakBytes[static_cast<std::size_t>(MemoryKind::UB)];
  EXPECT_EQ(peak, 3 * tile);
  int vectorOps = 0;
  for (const PtoInstruction& instruction : compilation.programs[0].instructions) {
    vectorOps += instruction.pipe == Pipe::VECTOR && !isSync(instruction.opcode);
    for (const auto* operands : {&instruction.dst, &instruction.srcs})
      for (const PtoOperand& operand : *operands)
        if (operand.memory == MemoryKind::UB) {
          EXPECT_LE(operand.offsetBytes + operand.bytes, peak) << "a UB operand outside the plan";
        }
  }
  EXPECT_EQ(vectorOps, 2 * steps) << listing(compilation);
}

// s = sum(x, dims) over x [4, 128] fp32 with vec tile [4, 64] (rows) or [2, 128] (columns).
TensorGraph reduction(std::int64_t dim) {
  TensorGraphBuilder builder("reduce", kernelLine(1));
  const TensorId x = builder.addArgument("x", kF32, dimsOf({4, 128}), kernelLine(1));
  const TensorId s = builder.addArgument("s", kF32, dim == 1 ? dimsOf({4, 1}) : dimsOf({1, 128}), kernelLine(1));
  builder.beginPath();
  builder.setVecTile(dim == 1 ? std::vector<std::int64_t>{4, 64} : std::vector<std::int64_t>{2, 128}, kernelLine(2));
  addOp(builder, TensorOpKind::Sum, {x}, {{"dims", std::vector<std::int64_t>{dim}}, {"keepdim", true}}, 3, {s});
  builder.endPath();
  return builder.finish();
}

TEST(LowerToPto, PartialRowSumsAccumulateIntoOneBuffer) {
  Compilation compilation = tiled(reduction(1), kProgramOrder);
  ASSERT_EQ(compilation.tiles.tileOps().size(), 2u);
  addSubgraph(compilation, {0, 1}, CoreType::AIV);
  std::string errors;
  ASSERT_TRUE(allocateAndLower(compilation, &errors)) << errors;
  const PtoProgram& program = compilation.programs[0];
  using P = PtoOpcode;
  ASSERT_EQ(opcodes(program), (std::vector<P>{P::TLOAD, P::TROWSUM, P::TLOAD, P::TROWSUM, P::TSTORE}));
  const PtoInstruction& first = program.instructions[1];
  const PtoInstruction& second = program.instructions[3];
  EXPECT_EQ(first.accumulate, TileAccumulate::None);
  EXPECT_EQ(second.accumulate, TileAccumulate::Add);
  EXPECT_EQ(first.dst[0].offsetBytes, second.dst[0].offsetBytes);
  EXPECT_EQ(first.dst[0].bytes, 128);  // [4, 1] fp32, rows padded to 32 bytes
  EXPECT_EQ(first.elements, 256);
  EXPECT_EQ(program.instructions[4].srcs[0].offsetBytes, first.dst[0].offsetBytes);
}

TEST(LowerToPto, AnAccumulationContinuedFromGlobalMemoryIsLoadedFirst) {
  Compilation compilation = tiled(reduction(1), kProgramOrder);
  addSubgraph(compilation, {0}, CoreType::AIV);
  addSubgraph(compilation, {1}, CoreType::AIV);
  std::string errors;
  ASSERT_TRUE(allocateAndLower(compilation, &errors)) << errors;
  const PtoProgram& second = compilation.programs[1];
  using P = PtoOpcode;
  ASSERT_EQ(opcodes(second), (std::vector<P>{P::TLOAD, P::TLOAD, P::TROWSUM, P::TSTORE}));
  // x's tile, then the partial sum s, which the accumulating TROWSUM combines into.
  EXPECT_EQ(second.instructions[1].dst[0].offsetBytes, second.instructions[2].dst[0].offsetBytes);
  EXPECT_EQ(second.instructions[2].accumulate, TileAccumulate::Add);
  // s is read (copy-in 1) and written (copy-out 0): one GM alias class.
  EXPECT_EQ(second.instructions[1].srcs[0].gmAlias, second.instructions[3].dst[0].gmAlias);
  EXPECT_NE(second.instructions[0].srcs[0].gmAlias, second.instructions[1].srcs[0].gmAlias);
}

TEST(LowerToPto, ReducingOuterAxesIsAColumnReduction) {
  Compilation compilation = tiled(reduction(0), kProgramOrder);
  ASSERT_EQ(compilation.tiles.tileOps().size(), 2u);
  addSubgraph(compilation, {0, 1}, CoreType::AIV);
  std::string errors;
  ASSERT_TRUE(allocateAndLower(compilation, &errors)) << errors;
  using P = PtoOpcode;
  EXPECT_EQ(opcodes(compilation.programs[0]), (std::vector<P>{P::TLOAD, P::TCOLSUM, P::TLOAD, P::TCOLSUM, P::TSTORE}));
}

TEST(LowerToPto, IsomorphicSubgraphsShareTheProgramOfTheFirst) {
  // Two row tiles of exp: same structure, one program lowered from subgraph 0.
  auto [builder, x, y] = beginXyKernel("exp_rows", {8, 64}, {8, 64}, {4, 64});
  addOp(builder, TensorOpKind::Exp, {x}, {}, 3, {y});
  builder.endPath();
  Compilation compilation = tiled(builder.finish(), kProgramOrder);
  ASSERT_EQ(compilation.tiles.tileOps().size(), 2u);
  addSubgraph(compilation, {0}, CoreType::AIV);
  addSubgraph(compilation, {1}, CoreType::AIV);
  compilation.blocks.subgraphs[1].programId = 0;
  compilation.blocks.programCount = 1;
  std::string errors;
  ASSERT_TRUE(runBackEnd(compilation, &errors)) << errors;
  ASSERT_EQ(compilation.programs.size(), 1u);
  EXPECT_EQ(compilation.programs[0].subgraph, 0);
  // GM operands name copy-list entries, not addresses: the same program serves y[4:8] too.
  EXPECT_EQ(listing(compilation),
            folded(R"(program 0: AIV, from subgraph 0 'exp', 7 instructions (MTE2 2, VECTOR 3, MTE3 2)
    0  MTE2    TLOAD       ub[0:1024] <- gm:x[0:4, 0:64] f32 [4, 64] ; exp @ kernel.py:3
    1  MTE2    SET_FLAG    MTE2->VECTOR e0
    2  VECTOR  WAIT_FLAG   MTE2->VECTOR e0
    3  VECTOR  TEXP        ub[1024:2048] <- ub[0:1024] f32 [4, 64] ; exp @ kernel.py:3
    4  VECTOR  SET_FLAG    VECTOR->MTE3 e0
    5  MTE3    WAIT_FLAG   VECTOR->MTE3 e0
    6  MTE3    TSTORE      gm:y[0:4, 0:64] <- ub[1024:2048] f32 [4, 64] ; exp @ kernel.py:3
)"));
}

TEST(LowerToPto, ABlockGraphWithoutBuffersIsAnInternalError) {
  Compilation compilation = tiled(expAdd(), kProgramOrder);
  addSubgraph(compilation, {0, 1}, CoreType::AIV);
  DiagnosticEngine diags;
  EXPECT_FALSE(lowerToPto(compilation, diags));  // AllocateBuffers did not run
  EXPECT_EQ(messages(diags),
            "internal error in LowerToPto (subgraph 0, program 0): copy-in 0 (x[0:4, 0:64]) has no UB buffer\n");
}

} // namespace
} // namespace pto::testing
