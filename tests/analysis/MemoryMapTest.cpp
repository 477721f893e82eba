// The on-chip memory map on real compiled kernels (the softmax and matmul examples), checked against
// references that do not use its code: buffer sizes worked out by hand from the kernels' tile shapes and
// dtypes, a brute-force check that no two buffers live at one instruction share a byte, the peak as the
// largest sum of live sizes over every instruction, and the fragmentation from a byte map of the memory at
// the peak. All comparisons are exact (integers; the fragmentation is a ratio of integers, 1e-12).
#include "analysis/report/MemoryMap.h"
#include "analysis/run/ProjectRun.h"
#include "core/project/ProjectFile.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

namespace pto::testing {
namespace {

std::shared_ptr<const ProjectRunResult> runExample(const std::string& example) {
  static std::map<std::string, std::shared_ptr<const ProjectRunResult>> runs;  // each example compiled once
  if (auto found = runs.find(example); found != runs.end()) return found->second;
  DiagnosticEngine diags;
  auto project = loadProject(std::string(PTO_SOURCE_DIR) + "/resources/examples/" + example, diags);
  EXPECT_TRUE(project);
  if (!project) return nullptr;
  ProjectRunOptions options;
  options.check = PrecisionCheck::Never;
  auto run = runProject(*project, diags, options);
  std::ostringstream printed;
  diags.print(printed);
  EXPECT_TRUE(run && run->compiled && run->simulation) << printed.str();
  if (!run || !run->compiled) return nullptr;
  return runs[example] = std::make_shared<const ProjectRunResult>(std::move(*run));
}

const MemorySpaceMap* space(const MemoryMap& map, MemoryKind memory) {
  for (const MemorySpaceMap& candidate : map.spaces)
    if (candidate.memory == memory) return &candidate;
  return nullptr;
}

bool liveAt(const MemoryMapBuffer& buffer, int instruction) {
  return buffer.firstInstruction <= instruction && instruction <= buffer.lastInstruction;
}

// The checks that hold for every memory of every map, by brute force.
void checkByBruteForce(const MemoryMap& map) {
  for (const MemorySpaceMap& space : map.spaces) {
    SCOPED_TRACE(std::string(name(space.memory)));
    for (const MemoryMapBuffer& buffer : space.buffers) {
      EXPECT_LE(0, buffer.firstInstruction);
      EXPECT_LE(buffer.firstInstruction, buffer.lastInstruction);
      EXPECT_LT(buffer.lastInstruction, map.instructionCount);
      EXPECT_LE(buffer.offsetBytes + buffer.bytes, space.capacityBytes);
      EXPECT_EQ(buffer.inPlaceOf, -1);  // these kernels fit without results written in place
    }
    // No two buffers share a byte at one instruction.
    for (std::size_t a = 0; a < space.buffers.size(); ++a)
      for (std::size_t b = a + 1; b < space.buffers.size(); ++b) {
        const MemoryMapBuffer& x = space.buffers[a];
        const MemoryMapBuffer& y = space.buffers[b];
        const bool bytesMeet = x.offsetBytes < y.offsetBytes + y.bytes && y.offsetBytes < x.offsetBytes + x.bytes;
        const bool timesMeet = x.firstInstruction <= y.lastInstruction && y.firstInstruction <= x.lastInstruction;
        EXPECT_FALSE(bytesMeet && timesMeet) << x.name() << " and " << y.name() << " overlap";
      }
    // The peak is the largest sum of live sizes over the instructions (the first instruction reaching it).
    std::int64_t peak = 0;
    int peakAt = -1;
    for (int i = 0; i < map.instructionCount; ++i) {
      std::int64_t live = 0;
      for (const MemoryMapBuffer& buffer : space.buffers) live += liveAt(buffer, i) ? buffer.bytes : 0;
      if (live > peak) {
        peak = live;
        peakAt = i;
      }
    }
    EXPECT_EQ(space.peakLiveBytes, peak);
    EXPECT_EQ(space.peakInstruction, peakAt);
    EXPECT_DOUBLE_EQ(space.utilization, static_cast<double>(peak) / static_cast<double>(space.capacityBytes));
    // Fragmentation from a map of the memory's 32-byte blocks at the peak (every offset and size is a
    // multiple of 32): runs of free blocks are the free blocks.
    std::vector<char> used(static_cast<std::size_t>(space.capacityBytes / 32), 0);
    std::int64_t footprint = 0;
    for (const MemoryMapBuffer& buffer : space.buffers) {
      ASSERT_EQ(buffer.offsetBytes % 32, 0);
      ASSERT_EQ(buffer.bytes % 32, 0);
      footprint = std::max(footprint, buffer.offsetBytes + buffer.bytes);
      if (!liveAt(buffer, peakAt)) continue;
      for (std::int64_t block = buffer.offsetBytes / 32; block < (buffer.offsetBytes + buffer.bytes) / 32; ++block)
        used[static_cast<std::size_t>(block)] = 1;
    }
    EXPECT_EQ(space.footprintBytes, footprint);
    std::int64_t freeBlocks = 0, largestRun = 0, run = 0, holes = 0;
    for (std::size_t block = 0; block < used.size(); ++block) {
      run = used[block] ? 0 : run + 1;
      freeBlocks += used[block] ? 0 : 1;
      holes += !used[block] && static_cast<std::int64_t>(block) * 32 < footprint ? 1 : 0;
      largestRun = std::max(largestRun, run);
    }
    EXPECT_EQ(space.largestFreeBytesAtPeak, largestRun * 32);
    EXPECT_EQ(space.holeBytesAtPeak, holes * 32);
    EXPECT_NEAR(space.fragmentation, 1.0 - static_cast<double>(largestRun) / static_cast<double>(freeBlocks), 1e-12);
  }
}

std::map<std::int64_t, int> sizes(const MemorySpaceMap& space) {
  std::map<std::int64_t, int> count;
  for (const MemoryMapBuffer& buffer : space.buffers) ++count[buffer.bytes];
  return count;
}

// softmax: x is (b, 32, 1, 256) fp32 with vec tiles (1, 4, 1, 64); a task is one row b and 4 column tiles.
// Per tile: x loaded, x - max, exp, and the quotient: 1 x 4 x 1 x 64 x 4 B = 1024 B each, 4 x 4 = 16 of
// them; the row max and the row sum are (1, 4, 1, 1) fp32, the innermost 1 padded to a 32-byte block of 8:
// 4 x 8 x 4 B = 128 B, one each (the 4 tiles accumulate into one).
TEST(MemoryMap, SoftmaxUbHoldsTheTilesItsShapesSay) {
  auto run = runExample("softmax");
  ASSERT_TRUE(run);
  const Compilation& compilation = run->compiled->compilation;
  const MemoryMap map = memoryMapOfTask(compilation, &run->simulation->schedule, 0);
  EXPECT_EQ(map.coreType, "AIV");
  ASSERT_TRUE(map.task);
  EXPECT_EQ(map.task->startCycle, run->simulation->schedule.tasks[0].startCycle);
  ASSERT_EQ(map.spaces.size(), 1u);
  const MemorySpaceMap* ub = space(map, MemoryKind::UB);
  ASSERT_TRUE(ub);
  EXPECT_EQ(ub->capacityBytes, 192 * 1024);
  EXPECT_EQ(sizes(*ub), (std::map<std::int64_t, int>{{128, 2}, {1024, 16}}));
  int loads = 0;
  for (const MemoryMapBuffer& buffer : ub->buffers) {
    loads += buffer.loaded ? 1 : 0;
    if (buffer.loaded) {
      EXPECT_EQ(buffer.tensor, "x");
      EXPECT_EQ(buffer.sourceLine, 14);  // the first op that reads x: amax, kernel.py line 14
    }
    EXPECT_EQ(buffer.source().rfind("kernel.py:", 0), 0u) << buffer.name();
  }
  EXPECT_EQ(loads, 4);
  // The highest byte the compiler placed is the subgraph's own peak.
  EXPECT_EQ(ub->footprintBytes, compilation.blocks.subgraph(map.subgraph).peakBytes[static_cast<std::size_t>(MemoryKind::UB)]);
  checkByBruteForce(map);
}

// matmul: 512 x 512 x 512, fp16 in, fp32 out, cube tiles m 128, k 64 (L0) / 256 (L1), n 128: per task, one
// 128 x 128 output block over 512 / 64 = 8 k-steps. A and B go into L1 one kL1 block at a time: 2 blocks each of
// 128 x 256 / 256 x 128 fp16 = 64 KiB. Each k-step's A piece is 128 x 64 fp16 = 16 KiB in L0A, its B piece
// 64 x 128 fp16 = 16 KiB in L0B; the accumulator 128 x 128 fp32 = 64 KiB in L0C. Ping-pong keeps consecutive
// k-steps apart: their halves alternate 0, 1, 0, ...
TEST(MemoryMap, MatmulUsesEveryCubeMemoryAndAlternatesItsKSteps) {
  auto run = runExample("matmul");
  ASSERT_TRUE(run);
  const Compilation& compilation = run->compiled->compilation;
  const MemoryMap map = memoryMap(compilation, compilation.tasks.tasks.at(0).subgraph);
  EXPECT_EQ(map.coreType, "AIC");
  ASSERT_EQ(map.spaces.size(), 4u);
  const MemorySpaceMap* l1 = space(map, MemoryKind::L1);
  const MemorySpaceMap* l0a = space(map, MemoryKind::L0A);
  const MemorySpaceMap* l0b = space(map, MemoryKind::L0B);
  const MemorySpaceMap* l0c = space(map, MemoryKind::L0C);
  ASSERT_TRUE(l1 && l0a && l0b && l0c);
  EXPECT_EQ(sizes(*l1), (std::map<std::int64_t, int>{{65536, 4}}));
  EXPECT_EQ(sizes(*l0a), (std::map<std::int64_t, int>{{16384, 8}}));
  EXPECT_EQ(sizes(*l0b), (std::map<std::int64_t, int>{{16384, 8}}));
  ASSERT_FALSE(l0c->buffers.empty());
  for (const MemoryMapBuffer& buffer : l0c->buffers) EXPECT_EQ(buffer.bytes, 65536);
  EXPECT_EQ(l0a->capacityBytes, 64 * 1024);
  for (const MemorySpaceMap* kStep : {l0a, l0b}) {
    for (std::size_t k = 0; k < kStep->buffers.size(); ++k) {
      EXPECT_EQ(kStep->buffers[k].pingPongHalf, static_cast<int>(k % 2)) << k;
      EXPECT_EQ(kStep->buffers[k].firstOp, static_cast<int>(k));  // one k-step per op
    }
    // Two k-steps' pieces reserved: half the footprint is what ping-pong costs.
    EXPECT_EQ(kStep->footprintBytes, 2 * 16384);
  }
  // At L0A's peak both are live: the next step's A piece is moved out of the L1 block already there while this
  // step's matmul waits for its B piece, which is moved after it.
  EXPECT_EQ(l0a->peakLiveBytes, 2 * 16384);
  EXPECT_EQ(l0b->peakLiveBytes, 16384);
  checkByBruteForce(map);
}

TEST(MemoryMap, TheFullestSubgraphHasTheHighestFootprintShare) {
  auto run = runExample("matmul");
  ASSERT_TRUE(run);
  const Compilation& compilation = run->compiled->compilation;
  const SubgraphId fullest = fullestSubgraph(compilation);
  ASSERT_NE(fullest, kNoId);
  auto share = [&](const Subgraph& subgraph) {
    double most = 0.0;
    for (MemoryKind memory : {MemoryKind::L1, MemoryKind::L0A, MemoryKind::L0B, MemoryKind::L0C, MemoryKind::UB})
      most = std::max(most, static_cast<double>(subgraph.peakBytes[static_cast<std::size_t>(memory)]) /
                                static_cast<double>(compilation.settings.target.capacity(memory)));
    return most;
  };
  for (const Subgraph& subgraph : compilation.blocks.subgraphs)
    EXPECT_LE(share(subgraph), share(compilation.blocks.subgraph(fullest)));
  // L0C's 64 KiB accumulator of 128 KiB is the fullest memory of a matmul task: a half.
  EXPECT_DOUBLE_EQ(share(compilation.blocks.subgraph(fullest)), 0.5);
}

// A merged vector subgraph placed by hand: two members (tiles), each loading a (256 B), computing b = exp(a)
// and c = exp(b); member 0 writes c over b in place (the compiler does so when a plan would overflow), member 1
// gives b 512 B. UB of 2048 B. Instructions (issue order), with the op position each implements:
//   0 TLOAD a0 [0,256)      (op 0)     5 TLOAD a1 [512,768)        (op 2)
//   1 TEXP a0 -> b0 [256,512) (op 0)   6 TEXP a1 -> b1 [768,1280)  (op 2)
//   2 TEXP b0 -> c0 [256,512) (op 1)   7 TEXP b1 -> c1 [1280,1536) (op 3)
//   3 TSTORE c0             (op 1)     8 TSTORE c1                 (op 3)
//   4 SET_FLAG (no op)
// By hand: lifetimes a0 0-1, b0 1-2, c0 2-3 (in place of b0), a1 5-6, b1 6-7, c1 7-8. Live bytes: 512 at 1,
// 256 at 2 (b0 and c0 share their bytes), 256 at 3, 768 at 6 (a1 + b1) and at 7 (b1 + c1): the peak is 768 at
// instruction 6, where [512,1280) is taken: free [0,512) and [1280,2048), 1280 B in two blocks, the largest
// 768 B: fragmentation 1 - 768 / 1280 = 0.4; below the footprint (1536 B) 512 + 256 = 768 B are holes.
// Members 0 and 1 are the ping-pong halves 0 and 1.
TEST(MemoryMap, HandPlacedMergedSubgraphWithAResultWrittenInPlace) {
  Compilation compilation;
  compilation.settings.target.capacityBytes[static_cast<std::size_t>(MemoryKind::UB)] = 2048;
  TensorGraph& graph = compilation.tiles.graph;
  TensorOp exp;
  exp.kind = TensorOpKind::Exp;
  exp.location = SourceLocation{"/somewhere/k.py", 7, 5};
  const OpId expOp = graph.addOp(exp);
  auto tensor = [&](const std::string& name) {
    TensorValue value;
    value.name = name;
    value.dtype = DataType::Fp32;
    return graph.addTensor(value);
  };
  const TensorId a = tensor("a"), b = tensor("b"), c = tensor("c");
  auto region = [](TensorId id, std::int64_t column, std::int64_t columns) {
    return TileRegion{id, {SymbolicScalar(0), SymbolicScalar(column)}, {8, columns}, {}};
  };
  // Ops 0 and 2 make b from a; 1 and 3 make c from b (member k works on columns 64k..).
  for (int op = 0; op < 4; ++op) {
    TileOp tile;
    tile.tensorOp = expOp;
    tile.kind = TensorOpKind::Exp;
    const std::int64_t column = 64 * (op / 2);
    tile.inputs = {op % 2 == 0 ? region(a, column, 8) : region(b, column, op == 1 ? 8 : 16)};
    tile.outputs = {op % 2 == 0 ? region(b, column, op == 0 ? 8 : 16) : region(c, column, 8)};
    compilation.tiles.addTileOp(tile);
  }
  Subgraph subgraph;
  subgraph.id = 0;
  subgraph.programId = 0;
  subgraph.ops = {0, 1, 2, 3};
  subgraph.memberStarts = {0, 2};
  auto buffer = [](TileRegion held, std::int64_t offset, std::int64_t bytes, TileOpId producer, int first, int last) {
    BufferAllocation allocation;
    allocation.memory = MemoryKind::UB;
    allocation.offsetBytes = offset;
    allocation.bytes = bytes;
    allocation.region = std::move(held);
    allocation.producer = producer;
    allocation.firstUse = first;
    allocation.lastUse = last;
    return allocation;
  };
  subgraph.buffers = {buffer(region(a, 0, 8), 0, 256, kNoId, 0, 0),      buffer(region(b, 0, 8), 256, 256, 0, 0, 1),
                      buffer(region(c, 0, 8), 256, 256, 1, 1, 1),        buffer(region(a, 64, 8), 512, 256, kNoId, 2, 2),
                      buffer(region(b, 64, 16), 768, 512, 2, 2, 3),      buffer(region(c, 64, 8), 1280, 256, 3, 3, 3)};
  compilation.blocks.subgraphs.push_back(subgraph);

  PtoProgram program;
  program.programId = 0;
  program.subgraph = 0;
  auto ub = [](std::int64_t offset, std::int64_t bytes) {
    PtoOperand operand;
    operand.memory = MemoryKind::UB;
    operand.offsetBytes = offset;
    operand.bytes = bytes;
    return operand;
  };
  PtoOperand gm;
  gm.memory = MemoryKind::GM;
  auto instruction = [&](PtoOpcode opcode, TileOpId op, std::vector<PtoOperand> dst, std::vector<PtoOperand> srcs) {
    PtoInstruction made;
    made.opcode = opcode;
    made.tileOp = op;
    made.dst = std::move(dst);
    made.srcs = std::move(srcs);
    program.instructions.push_back(made);
  };
  instruction(PtoOpcode::TLOAD, 0, {ub(0, 256)}, {gm});
  instruction(PtoOpcode::TEXP, 0, {ub(256, 256)}, {ub(0, 256)});
  instruction(PtoOpcode::TEXP, 1, {ub(256, 256)}, {ub(256, 256)});
  instruction(PtoOpcode::TSTORE, 1, {gm}, {ub(256, 256)});
  instruction(PtoOpcode::SET_FLAG, kNoId, {}, {});
  instruction(PtoOpcode::TLOAD, 2, {ub(512, 256)}, {gm});
  instruction(PtoOpcode::TEXP, 2, {ub(768, 512)}, {ub(512, 256)});
  instruction(PtoOpcode::TEXP, 3, {ub(1280, 256)}, {ub(768, 512)});
  instruction(PtoOpcode::TSTORE, 3, {gm}, {ub(1280, 256)});
  compilation.programs.push_back(program);

  const MemoryMap map = memoryMap(compilation, 0);
  EXPECT_EQ(map.members, 2);
  EXPECT_EQ(map.instructionCount, 9);
  ASSERT_EQ(map.spaces.size(), 1u);
  const MemorySpaceMap& space = map.spaces[0];
  ASSERT_EQ(space.buffers.size(), 6u);
  const std::vector<std::pair<int, int>> lifetimes{{0, 1}, {1, 2}, {2, 3}, {5, 6}, {6, 7}, {7, 8}};
  for (std::size_t i = 0; i < 6; ++i) {
    const MemoryMapBuffer& held = space.buffers[i];  // by first instruction: the order above
    EXPECT_EQ(held.index, static_cast<int>(i));
    EXPECT_EQ(std::make_pair(held.firstInstruction, held.lastInstruction), lifetimes[i]) << i;
    EXPECT_EQ(held.member, i < 3 ? 0 : 1);
    EXPECT_EQ(held.pingPongHalf, i < 3 ? 0 : 1);
    EXPECT_EQ(held.inPlaceOf, i == 2 ? 1 : -1) << i;
    EXPECT_EQ(held.source(), "k.py:7");
  }
  EXPECT_EQ(space.buffers[0].name(), "load a[8x8]");
  EXPECT_EQ(space.buffers[4].name(), "exp b[8x16]");
  EXPECT_EQ(space.peakLiveBytes, 768);
  EXPECT_EQ(space.peakInstruction, 6);
  EXPECT_EQ(space.footprintBytes, 1536);
  EXPECT_DOUBLE_EQ(space.utilization, 768.0 / 2048.0);
  EXPECT_EQ(space.largestFreeBytesAtPeak, 768);
  EXPECT_EQ(space.holeBytesAtPeak, 768);
  EXPECT_NEAR(space.fragmentation, 0.4, 1e-12);
}

TEST(MemoryMap, JsonNamesEveryBufferWithItsPlaceAndLifetime) {
  auto run = runExample("softmax");
  ASSERT_TRUE(run);
  const MemoryMap map = memoryMap(run->compiled->compilation, 0);
  const nlohmann::ordered_json json = memoryMapJson(map);
  EXPECT_EQ(json.at("time_axis"), "instruction");
  const auto& ub = json.at("spaces").at(0);
  EXPECT_EQ(ub.at("memory"), "ub");
  ASSERT_EQ(ub.at("buffers").size(), map.spaces[0].buffers.size());
  const auto& first = ub.at("buffers").at(0);
  EXPECT_EQ(first.at("name"), "load x[1x4x1x64]");
  EXPECT_EQ(first.at("offset_bytes"), 0);
  EXPECT_EQ(first.at("bytes"), 1024);
  EXPECT_EQ(first.at("first_instruction"), map.spaces[0].buffers[0].firstInstruction);
}

} // namespace
} // namespace pto::testing
