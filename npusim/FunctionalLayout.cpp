// Implementation of the operand layouts of the functional simulator.
#include "npusim/FunctionalLayout.h"

#include "compiler/passes/RemoveRedundantOp.h"
#include "core/Shape.h"
#include "core/SymbolicSimplify.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>

namespace pto {

std::int64_t OperandLayout::elementCount() const {
  std::int64_t count = 1;
  for (std::int64_t extent : shape) count *= std::max<std::int64_t>(extent, 0);
  return count;
}

std::int64_t OperandLayout::endBytes() const {
  if (elementCount() == 0) return offsetBytes;
  std::int64_t last = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) last += (shape[d] - 1) * strides[d];
  return offsetBytes + (last + 1) * static_cast<std::int64_t>(sizeOf(dtype));
}

std::vector<std::int64_t> paddedStrides(const std::vector<std::int64_t>& shape, DataType dtype) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  if (shape.empty()) return strides;
  const std::int64_t perBlock = std::max<std::int64_t>(1, 32 / static_cast<std::int64_t>(sizeOf(dtype)));
  std::int64_t stride = (std::max<std::int64_t>(shape.back(), 1) + perBlock - 1) / perBlock * perBlock;
  for (std::size_t d = shape.size() - 1; d-- > 0;) {
    strides[d] = stride;
    stride *= std::max<std::int64_t>(shape[d], 1);
  }
  return strides;
}

namespace {

std::int64_t countOf(const std::vector<std::int64_t>& shape) {
  std::int64_t count = 1;
  for (std::int64_t extent : shape) count *= std::max<std::int64_t>(extent, 0);
  return count;
}


class LayoutResolver {
public:
  LayoutResolver(const Compilation& compilation, const PtoProgram& program)
      : m_tiles(compilation.tiles), m_subgraph(compilation.blocks.subgraph(program.subgraph)), m_program(program) {
    for (std::size_t p = 0; p < m_subgraph.ops.size(); ++p)
      m_position.emplace(m_subgraph.ops[p], static_cast<int>(p));
  }

  std::optional<ProgramLayout> run(std::string& error, int& failed) {
    ProgramLayout layout;
    layout.instructions.resize(m_program.instructions.size());
    for (std::size_t i = 0; i < m_program.instructions.size(); ++i) {
      m_error.clear();
      if (!resolveInstruction(m_program.instructions[i], layout.instructions[i])) {
        error = m_error;
        failed = static_cast<int>(i);
        return std::nullopt;
      }
    }
    return layout;
  }

private:
  int positionOf(TileOpId op) const {
    auto found = m_position.find(op);
    return found == m_position.end() ? -1 : found->second;
  }

  bool live(const BufferAllocation& buffer, int p) const { return p >= buffer.firstUse && p <= buffer.lastUse; }

  // The buffer layout of `operand` when it is a sub-tile (or all) of a placed buffer.
  std::optional<OperandLayout> inBuffer(const PtoOperand& operand, const BufferAllocation& buffer) const {
    const std::vector<std::int64_t>& bufferShape = buffer.region.shape;
    if (bufferShape.size() != operand.shape.size()) return std::nullopt;
    DataType bufferType = m_tiles.graph.tensor(buffer.region.tensor).dtype;
    const std::int64_t item = static_cast<std::int64_t>(sizeOf(operand.dtype));
    if (sizeOf(bufferType) != sizeOf(operand.dtype)) return std::nullopt;
    for (std::size_t d = 0; d < bufferShape.size(); ++d)
      if (operand.shape[d] > std::max<std::int64_t>(bufferShape[d], 1)) return std::nullopt;
    const std::int64_t relative = operand.offsetBytes - buffer.offsetBytes;
    if (relative % item != 0) return std::nullopt;
    OperandLayout layout;
    layout.memory = operand.memory;
    layout.dtype = operand.dtype;
    layout.offsetBytes = operand.offsetBytes;
    layout.shape = operand.shape;
    layout.strides = paddedStrides(bufferShape, bufferType);
    if (layout.endBytes() > buffer.offsetBytes + buffer.bytes) return std::nullopt;
    // A sub-tile spans exactly its bytes; the whole buffer may hold padding after its last element.
    bool whole = operand.offsetBytes == buffer.offsetBytes && operand.bytes == buffer.bytes;
    if (!whole && layout.endBytes() != operand.offsetBytes + operand.bytes) return std::nullopt;
    return layout;
  }

  // A tile of its own shape at the operand's offset (tiles no placed buffer holds).
  static OperandLayout ownTile(const PtoOperand& operand) {
    OperandLayout layout;
    layout.memory = operand.memory;
    layout.dtype = operand.dtype;
    layout.offsetBytes = operand.offsetBytes;
    layout.shape = operand.shape;
    layout.strides = paddedStrides(operand.shape, operand.dtype);
    return layout;
  }

  bool holds(const BufferAllocation& buffer, const PtoOperand& operand) const {
    return buffer.memory == operand.memory && buffer.offsetBytes <= operand.offsetBytes &&
           operand.offsetBytes + operand.bytes <= buffer.offsetBytes + buffer.bytes;
  }

  // The layout of an on-chip operand read or written whole at op position p.
  std::optional<OperandLayout> placed(const PtoOperand& operand, int p) {
    std::optional<OperandLayout> best;
    int bestRank = 4;
    bool anyHolder = false;
    for (const BufferAllocation& buffer : m_subgraph.buffers) {
      if (!holds(buffer, operand)) continue;
      anyHolder = true;
      std::optional<OperandLayout> layout = inBuffer(operand, buffer);
      if (!layout) continue;
      bool exact = buffer.region.shape == operand.shape;
      int rank = (live(buffer, p) ? 0 : 2) + (exact ? 0 : 1);
      if (rank < bestRank) best = std::move(layout), bestRank = rank;
    }
    if (best) return best;
    if (!anyHolder) return ownTile(operand);
    // Held by buffers none of whose layouts fits it: the operand's own tile
    // if that stays inside its bytes (a whole-buffer operand), else an error.
    OperandLayout own = ownTile(operand);
    if (own.endBytes() <= operand.offsetBytes + operand.bytes) return own;
    m_error = std::string(name(operand.memory)) + " operand " + dimsString(operand.shape) + " " +
              std::string(name(operand.dtype)) + " at byte " + std::to_string(operand.offsetBytes) + " (+" +
              std::to_string(operand.bytes) + ") fits the layout of no buffer holding it (";
    int listed = 0, more = 0;  // the first few holders; a buffer reused by many tiles lists each
    for (const BufferAllocation& buffer : m_subgraph.buffers) {
      if (!holds(buffer, operand)) continue;
      if (listed == 4) {
        ++more;
        continue;
      }
      m_error += (listed++ ? "; " : "") + regionString(m_tiles, buffer.region) + " " +
                 std::string(name(m_tiles.graph.tensor(buffer.region.tensor).dtype)) + " at byte " +
                 std::to_string(buffer.offsetBytes) + " (+" + std::to_string(buffer.bytes) + ")";
    }
    if (more) m_error += "; and " + std::to_string(more) + " more";
    m_error += ")";
    return std::nullopt;
  }

  // The buffer holding source `operand` of an input on `tensor` read at op position p: preferring one
  // made earlier here and live at p, then one live at p (bytes reused over the subgraph hold several
  // buffers of one size at one offset, one at a time). It is a whole buffer, or else (an input inside a
  // larger tile made earlier) the span of the buffer on the input's tensor holding it.
  const BufferAllocation* holderOf(const PtoOperand& operand, TensorId tensor, int p) const {
    const auto holderWhere = [&](auto accept) {
      const auto rank = [&](const BufferAllocation& buffer) {
        const bool live = buffer.firstUse <= p && buffer.lastUse >= p;
        return buffer.producer != kNoId && buffer.firstUse < p && live ? 2 : live ? 1 : 0;
      };
      const BufferAllocation* holder = nullptr;
      for (const BufferAllocation& buffer : m_subgraph.buffers)
        if (accept(buffer) && (!holder || rank(buffer) > rank(*holder))) holder = &buffer;
      return holder;
    };
    const BufferAllocation* holder = holderWhere([&](const BufferAllocation& buffer) {
      return buffer.memory == operand.memory && buffer.offsetBytes == operand.offsetBytes &&
             buffer.bytes == operand.bytes;
    });
    if (!holder)
      holder = holderWhere([&](const BufferAllocation& buffer) {
        return holds(buffer, operand) && resolveViews(m_tiles.graph, buffer.region).tensor == tensor;
      });
    return holder;
  }

  // Whether `holder`, made earlier here, holds part of `input` (constant offsets apart).
  bool madeOverPart(const BufferAllocation& holder, const TileRegion& input, int p) const {
    if (holder.producer == kNoId || holder.firstUse >= p) return false;
    TileRegion region = resolveViews(m_tiles.graph, holder.region);
    if (region.tensor != input.tensor || region.shape.size() != input.shape.size()) return false;
    for (std::size_t d = 0; d < input.shape.size(); ++d) {
      std::optional<std::int64_t> delta = simplify(region.offsets[d] - input.offsets[d]).constantValue();
      if (!delta || *delta >= input.shape[d] || *delta + region.shape[d] <= 0) return false;
    }
    return true;
  }

  // The pieces of tile-op input `input` that the sources from srcs[next] on hold, in order (a later piece
  // overlays an earlier one: a tile written over part of the region after it was made). The last input
  // takes every source left, overlays included; the others take sources until they are covered, and
  // then, when the first was loaded from GM, the tiles made here over part of it (LowerToPto's ubPieces).
  bool pieces(const PtoInstruction& instruction, const TileRegion& given, std::size_t& next, int p,
              SourceLayout& source, bool lastInput) {
    TileRegion input = resolveViews(m_tiles.graph, given);
    const std::int64_t needed = countOf(input.shape);
    std::int64_t covered = 0;
    bool loadedBase = false;
    std::vector<const BufferAllocation*> taken;
    while (next < instruction.srcs.size()) {
      const PtoOperand& operand = instruction.srcs[next];
      const BufferAllocation* holder = holderOf(operand, input.tensor, p);
      if (covered >= needed && !lastInput &&
          !(loadedBase && holder && std::find(taken.begin(), taken.end(), holder) == taken.end() &&
            madeOverPart(*holder, input, p)))
        break;
      ++next;
      if (!holder) {
        m_error = "a piece of input " + regionString(m_tiles, given) + " is in no placed buffer";
        return false;
      }
      TileRegion region = resolveViews(m_tiles.graph, holder->region);
      if (region.tensor != input.tensor || region.shape.size() != input.shape.size()) {
        m_error = "piece " + regionString(m_tiles, region) + " is not on the tensor of input " +
                  regionString(m_tiles, input);
        return false;
      }
      if (taken.empty()) loadedBase = holder->producer == kNoId;
      taken.push_back(holder);
      SourcePiece piece;
      std::vector<std::int64_t> skip;
      for (std::size_t d = 0; d < input.shape.size(); ++d) {
        std::optional<std::int64_t> delta = simplify(region.offsets[d] - input.offsets[d]).constantValue();
        if (!delta) {
          m_error = "the offset of piece " + regionString(m_tiles, region) + " relative to input " +
                    regionString(m_tiles, input) + " is not a constant";
          return false;
        }
        std::int64_t lo = std::max<std::int64_t>(0, *delta);
        std::int64_t hi = std::min(input.shape[d], *delta + region.shape[d]);
        piece.origin.push_back(lo);
        piece.layout.shape.push_back(std::max<std::int64_t>(hi - lo, 0));
        skip.push_back(lo - *delta);
      }
      DataType dtype = m_tiles.graph.tensor(region.tensor).dtype;
      piece.layout.memory = operand.memory;
      piece.layout.dtype = dtype;
      piece.layout.strides = paddedStrides(region.shape, dtype);
      std::int64_t first = 0;
      for (std::size_t d = 0; d < skip.size(); ++d) first += skip[d] * piece.layout.strides[d];
      piece.layout.offsetBytes = holder->offsetBytes + first * static_cast<std::int64_t>(sizeOf(dtype));
      covered += piece.layout.elementCount();
      if (piece.layout.elementCount() > 0) source.pieces.push_back(std::move(piece));
    }
    if (covered < needed) {
      m_error = "the pieces listed for input " + regionString(m_tiles, input) + " cover " + std::to_string(covered) +
                " of its " + std::to_string(needed) + " elements";
      return false;
    }
    return true;
  }

  bool resolveInstruction(const PtoInstruction& instruction, InstructionLayout& layout) {
    if (isSync(instruction.opcode)) return true;
    const int p = positionOf(instruction.tileOp);
    for (const PtoOperand& operand : instruction.dst) {
      if (operand.memory == MemoryKind::GM) {
        OperandLayout gm;
        gm.memory = MemoryKind::GM;
        gm.dtype = operand.dtype;
        gm.shape = operand.shape;
        layout.dst.push_back(std::move(gm));
        continue;
      }
      std::optional<OperandLayout> resolved = placed(operand, p);
      if (!resolved) return false;
      layout.dst.push_back(std::move(*resolved));
    }
    const TileOp* tile = instruction.tileOp == kNoId ? nullptr : &m_tiles.tileOp(instruction.tileOp);
    // An MSCATTER reads its index and rows like a compute op reads its inputs (in pieces).
    bool grouped = (!isTransfer(instruction.opcode) || instruction.opcode == PtoOpcode::MSCATTER) && tile &&
                   instruction.srcs.size() != tile->inputs.size();
    if (grouped) {
      std::size_t next = 0;
      for (std::size_t i = 0; i < tile->inputs.size(); ++i) {
        const TileRegion& input = tile->inputs[i];
        SourceLayout source;
        source.shape = input.shape;
        source.dtype = m_tiles.graph.tensor(resolveViews(m_tiles.graph, input).tensor).dtype;
        if (!pieces(instruction, input, next, p, source, i + 1 == tile->inputs.size())) return false;
        layout.srcs.push_back(std::move(source));
      }
      if (next != instruction.srcs.size()) {
        m_error = std::to_string(instruction.srcs.size() - next) + " sources left over after the tile op's " +
                  std::to_string(tile->inputs.size()) + " inputs";
        return false;
      }
      return true;
    }
    for (const PtoOperand& operand : instruction.srcs) {
      SourceLayout source;
      source.shape = operand.shape;
      source.dtype = operand.dtype;
      if (operand.memory != MemoryKind::GM) {
        std::optional<OperandLayout> resolved = placed(operand, p);
        if (!resolved) return false;
        source.pieces.push_back(SourcePiece{std::move(*resolved), std::vector<std::int64_t>(operand.shape.size(), 0)});
      }
      layout.srcs.push_back(std::move(source));
    }
    return true;
  }

  const TileGraph& m_tiles;
  const Subgraph& m_subgraph;
  const PtoProgram& m_program;
  std::unordered_map<TileOpId, int> m_position;
  std::string m_error;
};

} // namespace

std::optional<ProgramLayout> resolveProgramLayout(const Compilation& compilation, const PtoProgram& program,
                                                  std::string& error, int& failedInstruction) {
  if (program.subgraph < 0 || static_cast<std::size_t>(program.subgraph) >= compilation.blocks.subgraphs.size()) {
    error = "the program names subgraph " + std::to_string(program.subgraph) + ", which does not exist";
    failedInstruction = -1;
    return std::nullopt;
  }
  return LayoutResolver(compilation, program).run(error, failedInstruction);
}

} // namespace pto
