// Tables behind Pipe and PtoOpcode, and the dependence relation on instructions.
#include "compiler/ir/PtoProgram.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <utility>

namespace pto {
namespace {

struct PipeInfo {
  std::string_view name;
  std::string_view summary;
};

constexpr std::array<PipeInfo, kPipeCount> kPipes = {{
#define PTO_PIPE_INFO(id, summary) {#id, summary},
    PTO_FOR_EACH_PIPE(PTO_PIPE_INFO)
#undef PTO_PIPE_INFO
}};

struct OpcodeInfo {
  std::string_view name;
  Pipe pipe;
  std::string_view summary;
};

constexpr std::array<OpcodeInfo, kPtoOpcodeCount> kOpcodes = {{
#define PTO_OPCODE_INFO(id, pipe, summary) {#id, Pipe::pipe, summary},
    PTO_FOR_EACH_PTO_OPCODE(PTO_OPCODE_INFO)
#undef PTO_OPCODE_INFO
}};

bool overlaps(const PtoOperand& a, const PtoOperand& b) {
  if (a.memory != b.memory) return false;
  if (a.memory == MemoryKind::GM) return a.gmAlias == b.gmAlias;
  return a.offsetBytes < b.offsetBytes + b.bytes && b.offsetBytes < a.offsetBytes + a.bytes;
}

// Calls f(operand, writes) for every access of `instruction`.
template <typename F> void forEachAccess(const PtoInstruction& instruction, F&& f) {
  for (const PtoOperand& operand : instruction.dst) {
    f(operand, true);
    if (instruction.accumulate != TileAccumulate::None) f(operand, false);
  }
  for (const PtoOperand& operand : instruction.srcs) f(operand, false);
}

} // namespace

std::string_view name(Pipe pipe) { return enumRow(kPipes, pipe).name; }
std::string_view summary(Pipe pipe) { return enumRow(kPipes, pipe).summary; }

std::optional<Pipe> parsePipe(std::string_view text) { return findByName<Pipe>(kPipes, text); }

std::string_view name(PtoOpcode opcode) { return enumRow(kOpcodes, opcode).name; }
std::string_view summary(PtoOpcode opcode) { return enumRow(kOpcodes, opcode).summary; }
Pipe pipeOf(PtoOpcode opcode) { return enumRow(kOpcodes, opcode).pipe; }

std::optional<PtoOpcode> parsePtoOpcode(std::string_view text) { return findByName<PtoOpcode>(kOpcodes, text); }

bool isSync(PtoOpcode opcode) {
  return opcode == PtoOpcode::SET_FLAG || opcode == PtoOpcode::WAIT_FLAG || opcode == PtoOpcode::BARRIER;
}

bool isTransfer(PtoOpcode opcode) {
  return opcode == PtoOpcode::TLOAD || opcode == PtoOpcode::MGATHER || opcode == PtoOpcode::TSTORE ||
         opcode == PtoOpcode::MSCATTER || opcode == PtoOpcode::TMOV ||
         opcode == PtoOpcode::TSTORE_ACC || opcode == PtoOpcode::TMOV_ACC;
}

void PtoProgram::recountPipes() {
  pipeCounts.fill(0);
  for (const PtoInstruction& instruction : instructions) ++pipeCounts[static_cast<std::size_t>(instruction.pipe)];
}

bool instructionsConflict(const PtoInstruction& a, const PtoInstruction& b) {
  bool conflict = false;
  forEachAccess(a, [&](const PtoOperand& x, bool xWrites) {
    if (conflict) return;
    forEachAccess(b, [&](const PtoOperand& y, bool yWrites) {
      if (!conflict && (xWrites || yWrites) && overlaps(x, y)) conflict = true;
    });
  });
  return conflict;
}

std::vector<std::vector<int>> dependencePredecessors(const std::vector<PtoInstruction>& instructions) {
  // Per 32-byte block of each memory (per alias class for GM): its last
  // writer and the readers since. A read follows the last writer; a write
  // follows the last writer and the readers since; earlier accesses are
  // ordered before those through the chains already recorded.
  //
  // The passes ask this of every program twice (OoOSchedule, InsertSync),
  // and a vector of readers per block made it a tenth of a compile's heap
  // allocations (445k in DIA's). So the tables are the thread's own, kept
  // from call to call: a block belongs to this call only when its stamp is
  // this call's (nothing is cleared), and its readers are a list, newest
  // first, through one shared array of links.
  struct Block {
    std::uint64_t call = 0;  // the call that last touched it; another call's block is empty
    int writer = -1;
    int newestReader = -1;   // index into links; -1: no readers since the writer
  };
  struct ReaderLink {
    int reader;
    int next;  // the reader before it, -1: none
  };
  constexpr std::int64_t kBlockBytes = 32;
  thread_local std::array<std::vector<Block>, kMemoryKindCount> blocks;
  thread_local std::vector<ReaderLink> links;
  thread_local std::vector<int> seenBy;
  thread_local std::uint64_t calls = 0;
  const std::uint64_t call = ++calls;
  links.clear();
  seenBy.assign(instructions.size(), -1);
  // An on-chip operand covers the 32-byte blocks [first, last]. Where every
  // operand on a memory starts and ends on a multiple of k blocks (tiles of
  // 16 KB at 16 KB offsets: k = 512), the k-block groups are the blocks: each
  // operand covers whole groups, so two share a group exactly when they share
  // a block, and the dependences are the same. Visiting a tile's hundreds of
  // blocks one by one was a quarter of a compile.
  auto blockSpan = [](const PtoOperand& operand) {
    return std::pair{std::max<std::int64_t>(operand.offsetBytes, 0) / kBlockBytes,
                     std::max<std::int64_t>(operand.offsetBytes + operand.bytes - 1, 0) / kBlockBytes};
  };
  std::array<std::int64_t, kMemoryKindCount> blocksPerGroup{};
  for (const PtoInstruction& instruction : instructions) {
    if (isSync(instruction.opcode)) continue;
    forEachAccess(instruction, [&](const PtoOperand& operand, bool) {
      if (operand.memory == MemoryKind::GM || operand.bytes <= 0) return;
      const auto [first, last] = blockSpan(operand);
      std::int64_t& k = blocksPerGroup[static_cast<std::size_t>(operand.memory)];
      k = std::gcd(k, std::gcd(first, last + 1));
    });
  }
  std::vector<std::vector<int>> predecessors(instructions.size());
  for (std::size_t j = 0; j < instructions.size(); ++j) {
    const PtoInstruction& later = instructions[j];
    if (isSync(later.opcode)) continue;
    const int index = static_cast<int>(j);
    std::vector<int>& preds = predecessors[j];
    auto follow = [&](int earlier) {
      if (earlier < 0 || earlier == index || seenBy[static_cast<std::size_t>(earlier)] == index) return;
      seenBy[static_cast<std::size_t>(earlier)] = index;
      preds.push_back(earlier);
    };
    // Visits the blocks of an access, growing the memory's table as needed.
    auto forEachBlock = [&](const PtoOperand& operand, auto&& visit) {
      std::vector<Block>& table = blocks[static_cast<std::size_t>(operand.memory)];
      std::int64_t first = 0, last = 0;
      if (operand.memory == MemoryKind::GM) {
        first = last = std::max(operand.gmAlias, 0);
      } else {
        if (operand.bytes <= 0) return;
        const std::int64_t k = blocksPerGroup[static_cast<std::size_t>(operand.memory)];
        const auto [firstBlock, lastBlock] = blockSpan(operand);
        first = firstBlock / k;
        last = (lastBlock + 1) / k - 1;
      }
      if (table.size() <= static_cast<std::size_t>(last)) table.resize(static_cast<std::size_t>(last) + 1);
      for (std::int64_t b = first; b <= last; ++b) {
        Block& block = table[static_cast<std::size_t>(b)];
        if (block.call != call) block = Block{call};
        visit(block);
      }
    };
    // First every dependence, then the blocks' new state.
    forEachAccess(later, [&](const PtoOperand& operand, bool writes) {
      forEachBlock(operand, [&](Block& block) {
        follow(block.writer);
        if (writes)
          for (int link = block.newestReader; link >= 0; link = links[static_cast<std::size_t>(link)].next)
            follow(links[static_cast<std::size_t>(link)].reader);
      });
    });
    forEachAccess(later, [&](const PtoOperand& operand, bool writes) {
      forEachBlock(operand, [&](Block& block) {
        if (writes) {
          block.writer = index;
          block.newestReader = -1;
        }
      });
    });
    forEachAccess(later, [&](const PtoOperand& operand, bool writes) {
      if (writes) return;
      forEachBlock(operand, [&](Block& block) {
        if (block.writer != index &&
            (block.newestReader < 0 || links[static_cast<std::size_t>(block.newestReader)].reader != index)) {
          links.push_back({index, block.newestReader});
          block.newestReader = static_cast<int>(links.size()) - 1;
        }
      });
    });
    std::sort(preds.begin(), preds.end());
  }
  return predecessors;
}

} // namespace pto
