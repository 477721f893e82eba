// dependencePredecessors against its definition written out plainly: per 32-byte block of each on-chip
// memory (per alias class in GM), a read follows the block's last writer and a write follows the last
// writer and every reader since. The library groups blocks that every operand covers together (tiles at
// tile-aligned offsets), so the programs here mix tile-aligned operands with ones that split a tile.
#include "PtoTestSupport.h"
#include "tests/RandomCases.h"

#include "compiler/ir/PtoProgram.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace pto::testing {
namespace {

std::vector<std::vector<int>> predecessorsByDefinition(const std::vector<PtoInstruction>& instructions) {
  constexpr std::int64_t kBlockBytes = 32;
  using Block = std::pair<int, std::int64_t>;  // memory, block (GM: alias class)
  std::map<Block, int> lastWriter;
  std::map<Block, std::set<int>> readersSince;
  auto blocksOf = [&](const PtoOperand& operand) {
    std::vector<Block> blocks;
    const int memory = static_cast<int>(operand.memory);
    if (operand.memory == MemoryKind::GM) {
      blocks.push_back({memory, std::max(operand.gmAlias, 0)});
    } else if (operand.bytes > 0) {
      const std::int64_t first = std::max<std::int64_t>(operand.offsetBytes, 0) / kBlockBytes;
      const std::int64_t last = std::max<std::int64_t>(operand.offsetBytes + operand.bytes - 1, 0) / kBlockBytes;
      for (std::int64_t b = first; b <= last; ++b) blocks.push_back({memory, b});
    }
    return blocks;
  };
  std::vector<std::vector<int>> predecessors(instructions.size());
  for (std::size_t j = 0; j < instructions.size(); ++j) {
    const PtoInstruction& instruction = instructions[j];
    if (isSync(instruction.opcode)) continue;
    const int index = static_cast<int>(j);
    std::vector<std::pair<const PtoOperand*, bool>> accesses;  // operand, writes
    for (const PtoOperand& operand : instruction.dst) {
      accesses.push_back({&operand, true});
      if (instruction.accumulate != TileAccumulate::None) accesses.push_back({&operand, false});
    }
    for (const PtoOperand& operand : instruction.srcs) accesses.push_back({&operand, false});
    std::set<int> found;
    for (const auto& [operand, writes] : accesses)
      for (const Block& block : blocksOf(*operand)) {
        if (auto writer = lastWriter.find(block); writer != lastWriter.end()) found.insert(writer->second);
        if (writes) found.insert(readersSince[block].begin(), readersSince[block].end());
      }
    found.erase(index);
    predecessors[j].assign(found.begin(), found.end());
    for (const auto& [operand, writes] : accesses)
      if (writes)
        for (const Block& block : blocksOf(*operand)) {
          lastWriter[block] = index;
          readersSince[block].clear();
        }
    for (const auto& [operand, writes] : accesses)
      if (!writes)
        for (const Block& block : blocksOf(*operand))
          if (lastWriter.count(block) == 0 || lastWriter[block] != index) readersSince[block].insert(index);
  }
  return predecessors;
}

// Operands on UB and L1 mostly whole tiles of `tileBytes` at tile offsets; one in `oddOneIn` is not
// (it starts inside a tile, or ends there), which leaves the library fewer blocks to group.
std::vector<PtoInstruction> tiledInstructions(std::mt19937& random, int count, std::int64_t tileBytes, int oddOneIn) {
  std::vector<PtoInstruction> instructions = randomInstructions(random, count);
  auto uniform = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(random); };
  for (PtoInstruction& instruction : instructions)
    for (auto* operands : {&instruction.dst, &instruction.srcs})
      for (PtoOperand& operand : *operands) {
        if (operand.memory == MemoryKind::GM) continue;
        operand.offsetBytes = tileBytes * uniform(0, 7);
        operand.bytes = tileBytes * uniform(1, 3);
        if (oddOneIn > 0 && uniform(1, oddOneIn) == 1) {
          if (uniform(0, 1) == 0) operand.offsetBytes += uniform(1, tileBytes - 1);
          else operand.bytes -= uniform(1, tileBytes - 1);
        }
      }
  return instructions;
}

TEST(DependencePredecessors, TiledProgramsHaveTheDependencesOfTheirBlocks) {
  std::mt19937 random(20261203);
  const int cases = pto::test::randomCaseCount(300);
  for (int trial = 0; trial < cases; ++trial) {
    const std::int64_t tileBytes = std::int64_t{32} << (trial % 8);  // 32 B to 4 KiB
    const int oddOneIn = trial % 3 == 0 ? 0 : 4 + trial % 50;
    const std::vector<PtoInstruction> program = tiledInstructions(random, 1 + trial % 60, tileBytes, oddOneIn);
    ASSERT_EQ(dependencePredecessors(program), predecessorsByDefinition(program))
        << "trial " << trial << ", tiles of " << tileBytes << " bytes";
  }
}

TEST(DependencePredecessors, RandomBlockProgramsHaveTheDependencesOfTheirBlocks) {
  std::mt19937 random(7);
  const int cases = pto::test::randomCaseCount(300);
  for (int trial = 0; trial < cases; ++trial) {
    const std::vector<PtoInstruction> program = randomInstructions(random, 1 + trial % 80);
    ASSERT_EQ(dependencePredecessors(program), predecessorsByDefinition(program)) << "trial " << trial;
  }
}

} // namespace
} // namespace pto::testing
