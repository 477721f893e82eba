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
// 128 x 128 output block over 512 / 64 = 8 k-steps. Each k-step's A tile is 128 x 64 fp16 = 16 KiB (in L1 and
// L0A), its B tile 64 x 128 fp16 = 16 KiB (in L1 and L0B); the accumulator 128 x 128 fp32 = 64 KiB in L0C.
// Ping-pong keeps consecutive k-steps apart: their halves alternate 0, 1, 0, ...
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
  EXPECT_EQ(sizes(*l1), (std::map<std::int64_t, int>{{16384, 16}}));
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
    // Two k-steps' tiles reserved, one live at a time: half the footprint is what ping-pong costs.
    EXPECT_EQ(kStep->footprintBytes, 2 * 16384);
    EXPECT_EQ(kStep->peakLiveBytes, 16384);
  }
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
