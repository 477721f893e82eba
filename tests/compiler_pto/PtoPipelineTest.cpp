// Whole kernels through the pipeline's own partition (GraphPartition, GenerateMoveOp, AllocateBuffers) and
// the PTO passes: every program synchronised soundly (syncIsSound), every copy-in loaded and every copy-out
// stored exactly once, the expected instruction kinds; and the JSON dump's fields.
#include "PtoTestSupport.h"
#include "tests/TestDtypes.h"

#include "compiler/ir/PtoProgramText.h"
#include "compiler/passes/AllocateBuffers.h"
#include "compiler/passes/InsertSync.h"
#include "compiler/passes/LowerToPto.h"
#include "compiler/passes/OoOSchedule.h"
#include "compiler/passes/Pipeline.h"

#include <gtest/gtest.h>

#include <set>

namespace pto::testing {
namespace {

using P = PtoOpcode;

bool pipelineHas(std::string_view pass) {
  for (const PassInfo& info : tilePipeline())
    if (info.name == pass) return true;
  return false;
}

// The pipeline, then (while the PTO passes are not in it yet) the back end by hand.
std::optional<Compilation> compiled(const TensorGraph& graph, const CompileOptions& options = {}) {
  DiagnosticEngine diags;
  std::optional<CompileResult> result = compileKernel(graph, CompileSettings{}, diags, options);
  EXPECT_TRUE(result) << messages(diags);
  if (!result) return std::nullopt;
  Compilation compilation = std::move(result->compilation);
  bool ok = (pipelineHas("AllocateBuffers") || allocateBuffers(compilation, diags)) &&
            (pipelineHas("LowerToPto") || lowerToPto(compilation, diags)) &&
            (pipelineHas("OoOSchedule") || oooSchedule(compilation, diags)) &&
            (pipelineHas("InsertSync") || insertSync(compilation, diags));
  EXPECT_TRUE(ok) << messages(diags);
  if (!ok) return std::nullopt;
  return compilation;
}

void checkPrograms(const Compilation& compilation) {
  ASSERT_EQ(compilation.programs.size(), static_cast<std::size_t>(compilation.blocks.programCount));
  for (const PtoProgram& program : compilation.programs) {
    std::vector<PtoInstruction> unsynced;
    for (const PtoInstruction& instruction : program.instructions)
      if (!isSync(instruction.opcode)) unsynced.push_back(instruction);
    EXPECT_TRUE(syncIsSound(program.instructions, unsynced, kEventIdsPerPipePair)) << "program " << program.programId;
    const Subgraph& subgraph = compilation.blocks.subgraph(program.subgraph);
    EXPECT_EQ(subgraph.programId, program.programId);
    EXPECT_EQ(program.coreType, subgraph.coreType);
    std::multiset<int> loaded, stored;
    for (const PtoInstruction& instruction : unsynced) {
      if (instruction.opcode == P::TLOAD) loaded.insert(instruction.srcs.at(0).gmRegion);
      if (instruction.opcode == P::TSTORE || instruction.opcode == P::TSTORE_ACC)
        stored.insert(instruction.dst.at(0).gmRegion);
    }
    std::multiset<int> ins, outs;
    for (std::size_t i = 0; i < subgraph.copyIns.size(); ++i) ins.insert(static_cast<int>(i));
    for (std::size_t j = 0; j < subgraph.copyOuts.size(); ++j) outs.insert(static_cast<int>(j));
    EXPECT_EQ(loaded, ins) << "program " << program.programId;
    EXPECT_EQ(stored, outs) << "program " << program.programId;
    int counted = 0;
    for (std::size_t p = 0; p < kPipeCount; ++p) counted += program.pipeCounts[p];
    EXPECT_EQ(counted, static_cast<int>(program.instructions.size()));
  }
}

std::set<PtoOpcode> opcodesOf(const Compilation& compilation) {
  std::set<PtoOpcode> all;
  for (const PtoProgram& program : compilation.programs)
    for (const PtoInstruction& instruction : program.instructions) all.insert(instruction.opcode);
  return all;
}

TEST(PtoPipeline, SoftmaxRowsLowerToSoundPrograms) {
  // y = exp(x - amax(x)) / sum(exp(x - amax(x))) over rows of x [8, 128], vec tile [4, 64]: partial
  // row maxima and sums.
  auto [builder, x, y] = beginXyKernel("softmax", {8, 128}, {8, 128}, {4, 64});
  const Attributes rows = {{"dims", std::vector<std::int64_t>{1}}, {"keepdim", true}};
  const TensorId m = addOp(builder, TensorOpKind::Amax, {x}, rows, 3);
  const TensorId d = addOp(builder, TensorOpKind::Sub, {x, m}, {}, 4);
  const TensorId e = addOp(builder, TensorOpKind::Exp, {d}, {}, 5);
  const TensorId s = addOp(builder, TensorOpKind::Sum, {e}, rows, 6);
  addOp(builder, TensorOpKind::Div, {e, s}, {}, 7, {y});
  builder.endPath();
  std::optional<Compilation> compilation = compiled(builder.finish());
  ASSERT_TRUE(compilation);
  checkPrograms(*compilation);
  std::set<PtoOpcode> all = opcodesOf(*compilation);
  for (PtoOpcode expected :
       {P::TLOAD, P::TROWMAX, P::TSUB, P::TEXP, P::TROWSUM, P::TDIV, P::TSTORE, P::SET_FLAG, P::WAIT_FLAG})
    EXPECT_TRUE(all.count(expected)) << name(expected);
}

TEST(PtoPipeline, AMatmulBlockLowersToKStepsAndAConvertingStore) {
  const CubeTileShape cube{.mL0 = 16, .mL1 = 32, .kL0 = 32, .kAL1 = 128, .kBL1 = 128, .nL0 = 32, .nL1 = 32};
  std::optional<Compilation> compilation = compiled(matmulKernel(32, 128, 32, cube, kF16));
  ASSERT_TRUE(compilation);
  checkPrograms(*compilation);
  // Every output block: 4 k-steps (one TMATMUL, three TMATMUL_ACC) and one converting TSTORE_ACC.
  int blocks = 0;
  for (const PtoProgram& program : compilation->programs) {
    EXPECT_EQ(program.coreType, CoreType::AIC);
    int first = 0, rest = 0, stores = 0;
    for (const PtoInstruction& instruction : program.instructions) {
      first += instruction.opcode == P::TMATMUL;
      rest += instruction.opcode == P::TMATMUL_ACC;
      if (instruction.opcode == P::TSTORE_ACC) {
        ++stores;
        EXPECT_EQ(instruction.srcs[0].dtype, kF32);
        EXPECT_EQ(instruction.dst[0].dtype, kF16);
      }
    }
    EXPECT_EQ(rest, 3 * first);
    EXPECT_EQ(stores, first);
    for (const Subgraph& subgraph : compilation->blocks.subgraphs)
      if (subgraph.programId == program.programId) blocks += first;
  }
  EXPECT_EQ(blocks, 2);
}

// The cube tile's L1 depth (kAL1, kBL1; MatmulL1Block.h): each output block's A comes in [16 x 128] blocks
// and its B in [64 x 32] blocks, one load each, and every 32-deep k-step moves its piece out of its block's
// L1 bytes into L0A/L0B. Worked out from the shapes: k = 256 is 2 A blocks, 4 B blocks and 8 k-steps.
TEST(PtoPipeline, AMatmulLoadsItsOperandsOneL1BlockAtATime) {
  const CubeTileShape cube{.mL0 = 16, .mL1 = 16, .kL0 = 32, .kAL1 = 128, .kBL1 = 64, .nL0 = 32, .nL1 = 32};
  std::optional<Compilation> compilation = compiled(matmulKernel(32, 256, 32, cube, kF16));
  ASSERT_TRUE(compilation);
  checkPrograms(*compilation);
  const TensorId a = 0, b = 1;
  for (const Subgraph& subgraph : compilation->blocks.subgraphs) {
    int aBlocks = 0, bBlocks = 0;
    for (const TileRegion& copy : subgraph.copyIns) {
      if (copy.tensor == a) {
        ++aBlocks;
        EXPECT_EQ(copy.shape, (std::vector<std::int64_t>{16, 128}));
      } else if (copy.tensor == b) {
        ++bBlocks;
        EXPECT_EQ(copy.shape, (std::vector<std::int64_t>{64, 32}));
      }
    }
    EXPECT_EQ(aBlocks, 2) << "subgraph " << subgraph.id;
    EXPECT_EQ(bBlocks, 4) << "subgraph " << subgraph.id;
  }
  for (const PtoProgram& program : compilation->programs) {
    int loads = 0, movesToL0A = 0, movesToL0B = 0, steps = 0;
    for (const PtoInstruction& instruction : program.instructions) {
      loads += instruction.opcode == P::TLOAD;
      steps += instruction.opcode == P::TMATMUL || instruction.opcode == P::TMATMUL_ACC;
      if (instruction.opcode != P::TMOV || instruction.dst.empty()) continue;
      const PtoOperand& piece = instruction.srcs.at(0);
      EXPECT_EQ(piece.memory, MemoryKind::L1);
      if (instruction.dst[0].memory == MemoryKind::L0A) {
        ++movesToL0A;
        EXPECT_EQ(piece.shape, (std::vector<std::int64_t>{16, 32}));
      } else if (instruction.dst[0].memory == MemoryKind::L0B) {
        ++movesToL0B;
        EXPECT_EQ(piece.shape, (std::vector<std::int64_t>{32, 32}));
      }
    }
    EXPECT_EQ(loads, 6) << "program " << program.programId;
    EXPECT_EQ(steps, 8) << "program " << program.programId;
    EXPECT_EQ(movesToL0A, 8) << "program " << program.programId;
    EXPECT_EQ(movesToL0B, 8) << "program " << program.programId;
  }
}

// Without an L1 depth beyond kL0 every k-step loads its own operands, as before.
TEST(PtoPipeline, AMatmulWhoseL1DepthIsItsL0DepthLoadsEachStep) {
  const CubeTileShape cube{.mL0 = 16, .mL1 = 16, .kL0 = 32, .kAL1 = 32, .kBL1 = 32, .nL0 = 32, .nL1 = 32};
  std::optional<Compilation> compilation = compiled(matmulKernel(32, 256, 32, cube, kF16));
  ASSERT_TRUE(compilation);
  checkPrograms(*compilation);
  for (const PtoProgram& program : compilation->programs) {
    int loads = 0;
    for (const PtoInstruction& instruction : program.instructions) loads += instruction.opcode == P::TLOAD;
    EXPECT_EQ(loads, 16) << "program " << program.programId;
  }
}


TEST(PtoPipeline, RegionsOnViewsAreMatchedOnTheirStorage) {
  for (bool removeViews : {true, false}) {
    CompileOptions options;
    if (!removeViews) options.disabledPasses.insert("RemoveRedundantOp");
    std::optional<Compilation> compilation = compiled(rowExpKernel(4), options);
    ASSERT_TRUE(compilation) << removeViews;
    checkPrograms(*compilation);
    std::set<PtoOpcode> all = opcodesOf(*compilation);
    EXPECT_TRUE(all.count(P::TEXP) && all.count(P::TSTORE)) << removeViews;
  }
}

TEST(PtoProgramText, JsonNamesPipesOperandsAndSourceLinks) {
  auto [builder, x, y] = beginXyKernel("exp", {4, 64}, {4, 64}, {4, 64});
  addOp(builder, TensorOpKind::Exp, {x}, {}, 3, {y});
  builder.endPath();
  Compilation compilation = tiled(builder.finish());
  addSubgraph(compilation, {0}, CoreType::AIV);
  std::string errors;
  ASSERT_TRUE(runBackEnd(compilation, &errors)) << errors;
  const nlohmann::ordered_json json = ptoProgramsToJson(compilation);
  EXPECT_EQ(json["stage"], "pto");
  EXPECT_EQ(json["kernel"], "exp");
  ASSERT_EQ(json["programs"].size(), 1u);
  const auto& program = json["programs"][0];
  EXPECT_EQ(program["core_type"], "AIV");
  EXPECT_EQ(program["pipe_counts"]["MTE2"], 2);
  EXPECT_EQ(program["pipe_counts"]["VECTOR"], 3);
  EXPECT_EQ(program["pipe_counts"]["MTE3"], 2);
  const auto& load = program["instructions"][0];
  EXPECT_EQ(load["opcode"], "TLOAD");
  EXPECT_EQ(load["pipe"], "MTE2");
  EXPECT_EQ(load["location"], "kernel.py:3");
  EXPECT_EQ(load["bytes"], 1024);
  EXPECT_EQ(load["dst"][0],
            (nlohmann::ordered_json{
                {"memory", "ub"}, {"offset", 0}, {"bytes", 1024}, {"shape", {4, 64}}, {"dtype", "float32"}}));
  EXPECT_EQ(load["srcs"][0]["list"], "copy_ins");
  EXPECT_EQ(load["srcs"][0]["tensor"], "x");
  const auto& set = program["instructions"][1];
  EXPECT_EQ(set, (nlohmann::ordered_json{{"index", 1},
                                         {"pipe", "MTE2"},
                                         {"opcode", "SET_FLAG"},
                                         {"src_pipe", "MTE2"},
                                         {"dst_pipe", "VECTOR"},
                                         {"event", 0}}));
  EXPECT_EQ(program["instructions"][6]["dst"][0]["list"], "copy_outs");
}

} // namespace
} // namespace pto::testing
