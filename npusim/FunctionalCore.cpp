// Implementation of FunctionalCore: the instructions on real data.
#include "npusim/FunctionalCore.h"
#include "npusim/FunctionalDirectRows.h"

#include "compiler/reference/ElementAccess.h"
#include "compiler/reference/GatherRows.h"
#include "compiler/reference/ReferenceKernels.h"
#include "compiler/reference/ScatterRows.h"
#include "compiler/reference/Tf32.h"
#include "compiler/reference/ValidTileKernels.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <span>

namespace pto {
namespace {

using RowMajorMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using StridedMatrix = Eigen::Map<RowMajorMatrix, Eigen::Unaligned, Eigen::OuterStride<>>;
using ConstStridedMatrix = Eigen::Map<const RowMajorMatrix, Eigen::Unaligned, Eigen::OuterStride<>>;

// Calls row(first element offset, row index) for every innermost row of the
// layout, in C order; a rank-0 layout is one row of one element.
template <typename Row> void forEachRow(const OperandLayout& layout, Row&& row) {
  const std::size_t rank = layout.shape.size();
  if (layout.elementCount() == 0) return;
  if (rank <= 1) {
    row(std::int64_t{0}, std::int64_t{0});
    return;
  }
  std::vector<std::int64_t> at(rank - 1, 0);
  std::int64_t offset = 0;
  for (std::int64_t r = 0;; ++r) {
    row(offset, r);
    std::size_t d = rank - 1;  // one past the outer dim to advance
    for (; d > 0; --d) {
      std::size_t outer = d - 1;
      if (++at[outer] < layout.shape[outer]) {
        offset += layout.strides[outer];
        break;
      }
      offset -= (layout.shape[outer] - 1) * layout.strides[outer];
      at[outer] = 0;
    }
    if (d == 0) return;
  }
}

std::int64_t rowLength(const OperandLayout& layout) { return layout.shape.empty() ? 1 : layout.shape.back(); }

} // namespace

// Decided on a program's first run on a core, from its layout (its steps: FunctionalDirectRows.h).
struct ProgramPlan {
  const ProgramLayout* layout = nullptr;  // what it was planned from
  std::vector<direct::PlannedInstruction> instructions;
};

namespace {

using direct::PlacedBox;
using direct::boxOf;
using direct::copyBox;
using direct::disjoint;
using direct::forEachRowOf;
using direct::isFloatTile;
using direct::oneElementPerRow;
using direct::loadFloatRow;
using direct::sameElements;
using direct::storeFloatRow;
using direct::PlannedInstruction;
using direct::kDirectRank;
using direct::StridedBox;

// The address of `tensor`'s first logical element (any strides): a one-element view is contiguous.
std::byte* firstElement(const HostTensor& tensor) {
  const std::vector<std::int64_t> zeros(tensor.rank(), 0), ones(tensor.rank(), 1);
  return tensor.view(zeros, ones).data();
}

// Copies between a strided view and a packed C-order buffer of the same dtype, one innermost row at a
// time (HostTensor's own copies go element by element). toView: packed -> view, else view -> packed.
void copyRows(const HostTensor& view, std::byte* packed, bool toView) {
  if (view.elementCount() == 0) return;
  const std::size_t rank = view.rank();
  const std::int64_t item = static_cast<std::int64_t>(view.itemBytes());
  std::byte* base = firstElement(view);
  const std::vector<std::int64_t>& strides = view.strides();
  const std::int64_t inner = rank == 0 ? 1 : view.shape()[rank - 1];
  const bool rowsPacked = rank == 0 || strides[rank - 1] == 1 || inner == 1;
  const std::int64_t innerStride = rank == 0 ? 1 : strides[rank - 1];
  std::vector<std::int64_t> at(rank > 0 ? rank - 1 : 0, 0);
  const std::int64_t rows = view.elementCount() / inner;
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t offset = 0;
    for (std::size_t d = 0; d + 1 < rank; ++d) offset += at[d] * strides[d];
    std::byte* row = base + offset * item;
    std::byte* flat = packed + r * inner * item;
    if (rowsPacked) {
      if (toView) std::memcpy(row, flat, static_cast<std::size_t>(inner * item));
      else std::memcpy(flat, row, static_cast<std::size_t>(inner * item));
    } else {
      for (std::int64_t e = 0; e < inner; ++e) {
        if (toView) std::memcpy(row + e * innerStride * item, flat + e * item, static_cast<std::size_t>(item));
        else std::memcpy(flat + e * item, row + e * innerStride * item, static_cast<std::size_t>(item));
      }
    }
    for (std::size_t d = at.size(); d-- > 0;) {
      if (++at[d] < view.shape()[d]) break;
      at[d] = 0;
    }
  }
}

// A packed copy of `values` in `dtype` (rows copied directly when no conversion is needed).
HostTensor packedAs(const HostTensor& values, DataType dtype) {
  if (values.dtype() != dtype) return values.astype(dtype);
  if (values.isContiguous()) return values;
  HostTensor packed(dtype, values.shape());
  copyRows(values, packed.data(), false);
  return packed;
}

// fp16 -> float through a table of all 65536 patterns (the conversion is the hot loop of fp16 matmuls).
const float* halfTable() {
  static const std::vector<float> table = [] {
    std::vector<float> values(65536);
    for (std::uint32_t bits = 0; bits < 65536; ++bits) values[bits] = halfBitsToFloat(static_cast<std::uint16_t>(bits));
    return values;
  }();
  return table.data();
}

// `values` (contiguous) with another shape of the same element count, sharing nothing.
HostTensor reshaped(const HostTensor& values, const std::vector<std::int64_t>& shape) {
  HostTensor contiguous = packedAs(values, values.dtype());
  if (contiguous.shape().dims() == shape) return contiguous;
  HostTensor result(contiguous.dtype(), Shape(shape));
  if (result.byteCount() > 0) std::memcpy(result.data(), contiguous.data(), result.byteCount());
  return result;
}

// Whether `part` is a leading box of `shape` (same rank, no dim larger).
bool fitsIn(const std::vector<std::int64_t>& part, const std::vector<std::int64_t>& shape) {
  if (part.size() != shape.size()) return false;
  for (std::size_t d = 0; d < part.size(); ++d)
    if (part[d] > shape[d]) return false;
  return true;
}

// current combined with `values` by `mode`, in current's dtype (rounded once per element).
HostTensor combined(const HostTensor& current, const HostTensor& values, TileAccumulate mode) {
  HostTensor result = current.contiguous();
  reference::accumulateInto(result, values, mode);
  return result;
}

class InstructionRunner {
public:
  InstructionRunner(FunctionalCore& core, const Compilation& compilation, const PtoProgram& program, TaskMemory& task,
                    DiagnosticEngine& diags)
      : m_core(core), m_compilation(compilation), m_program(program), m_task(task), m_diags(diags) {}

  // `plan` is this program's on this core, made here on first use.
  bool run(const ProgramLayout& layout, ProgramPlan& plan) {
    if (layout.instructions.size() != m_program.instructions.size())
      return fail(-1) << "internal error: the operand layouts are for another program";
    if (plan.layout != &layout) {
      plan.instructions.clear();
      for (std::size_t i = 0; i < m_program.instructions.size(); ++i)
        plan.instructions.push_back(this->plan(m_program.instructions[i], layout.instructions[i]));
      plan.layout = &layout;
    }
    for (std::size_t i = 0; i < m_program.instructions.size(); ++i) {
      const PlannedInstruction& step = plan.instructions[i];
      if (step.path == direct::Path::Skip) continue;
      const PtoInstruction& instruction = m_program.instructions[i];
      m_index = static_cast<int>(i);
      if (step.path != direct::Path::General && runDirect(instruction, step)) continue;
      if (!checkRanges(instruction, layout.instructions[i])) return false;
      if (!runInstruction(instruction, layout.instructions[i])) return false;
    }
    return true;
  }

private:
  const TileOp* tileOf(const PtoInstruction& instruction) const {
    if (instruction.tileOp < 0 || static_cast<std::size_t>(instruction.tileOp) >= m_compilation.tiles.tileOps().size())
      return nullptr;
    return &m_compilation.tiles.tileOp(instruction.tileOp);
  }

  // An error at the kernel line of the failing instruction's tile op.
  DiagnosticBuilder fail(int index) {
    const TensorGraph& graph = m_compilation.tiles.graph;
    SourceLocation location = graph.kernelLocation;
    const PtoInstruction* instruction =
        index >= 0 ? &m_program.instructions[static_cast<std::size_t>(index)] : nullptr;
    const TileOp* tile = instruction ? tileOf(*instruction) : nullptr;
    if (tile) location = graph.op(tile->tensorOp).location;
    DiagnosticBuilder builder = m_diags.error(location);
    builder << "functional simulation: program " << m_program.programId;
    if (m_task.task != kNoId) builder << " (task " << m_task.task << ")";
    if (instruction) {
      builder << ", instruction " << index << " (" << name(instruction->opcode);
      if (tile) builder << ", tile op " << tile->id << ", " << name(tile->kind);
      builder << ")";
    }
    builder << ": ";
    return builder;
  }
  DiagnosticBuilder fail() { return fail(m_index); }

  bool inside(const OperandLayout& layout) const {
    return layout.offsetBytes >= 0 && layout.endBytes() <= m_core.capacityBytes(layout.memory);
  }

  bool checkRanges(const PtoInstruction& instruction, const InstructionLayout& layout) {
    auto check = [&](const OperandLayout& operand) -> bool {
      if (operand.memory == MemoryKind::GM || inside(operand)) return true;
      return fail() << "operand bytes [" << operand.offsetBytes << ", " << operand.endBytes() << ") lie outside "
                    << title(operand.memory) << " (" << m_core.capacityBytes(operand.memory) << " bytes)";
    };
    for (const OperandLayout& operand : layout.dst)
      if (!check(operand)) return false;
    for (const SourceLayout& source : layout.srcs)
      for (const SourcePiece& piece : source.pieces)
        if (!check(piece.layout)) return false;
    if (layout.dst.size() != instruction.dst.size() ||
        (layout.srcs.size() != instruction.srcs.size() && isTransfer(instruction.opcode) &&
         instruction.opcode != PtoOpcode::MSCATTER))  // its index and rows may come in pieces
      return fail() << "internal error: the operand layouts do not match the instruction";
    return true;
  }

  // A source tile assembled from its pieces.
  HostTensor source(const SourceLayout& layout) const {
    if (layout.pieces.size() == 1 && layout.pieces[0].layout.shape == layout.shape)
      return m_core.read(layout.pieces[0].layout);
    HostTensor whole(layout.dtype, Shape(layout.shape));
    for (const SourcePiece& piece : layout.pieces)
      whole.view(piece.origin, piece.layout.shape).copyFrom(m_core.read(piece.layout));
    return whole;
  }

  std::optional<HostTensor> gmRegion(bool read, int index) {
    const std::vector<GmRegion>& list = read ? m_task.reads : m_task.writes;
    if (index < 0 || static_cast<std::size_t>(index) >= list.size()) {
      fail() << "GM operand names " << (read ? "copy-in " : "copy-out ") << index << " but the task has "
             << list.size();
      return std::nullopt;
    }
    return list[static_cast<std::size_t>(index)].view();
  }

  // ---- the plan: direct paths for the common instructions, straight on the memories' bytes row by row,
  // taken only where the general path would copy or compute the same values (same shapes, no
  // accumulation, no valid parts, no dtype conversion it would make otherwise) ----

  // An on-chip operand as a direct path sees it; false for GM or a too deep one.
  static bool placed(const OperandLayout& layout, PlacedBox& out) {
    if (layout.memory == MemoryKind::GM || !boxOf(layout, out.box) || !out.box.rowsPacked()) return false;
    out.memory = layout.memory;
    out.offsetBytes = layout.offsetBytes;
    return true;
  }
  // A source held whole in one piece.
  static bool placed(const SourceLayout& layout, PlacedBox& out) {
    return layout.pieces.size() == 1 && layout.pieces[0].layout.shape == layout.shape &&
           layout.pieces[0].layout.dtype == layout.dtype && placed(layout.pieces[0].layout, out);
  }

  // Whether every on-chip operand lies inside its memory (checkRanges, without its diagnostic).
  bool insideMemories(const InstructionLayout& layout) const {
    for (const OperandLayout& operand : layout.dst)
      if (operand.memory != MemoryKind::GM && !inside(operand)) return false;
    for (const SourceLayout& source : layout.srcs)
      for (const SourcePiece& piece : source.pieces)
        if (piece.layout.memory != MemoryKind::GM && !inside(piece.layout)) return false;
    return true;
  }

  PlannedInstruction plan(const PtoInstruction& instruction, const InstructionLayout& layout) const {
    PlannedInstruction step;
    if (isSync(instruction.opcode)) {
      step.path = direct::Path::Skip;
      return step;
    }
    step.path = direct::Path::General;
    if (!insideMemories(layout) || layout.dst.size() != instruction.dst.size() ||
        (isTransfer(instruction.opcode) && layout.srcs.size() != instruction.srcs.size()))
      return step;
    switch (instruction.opcode) {
    case PtoOpcode::TLOAD:
      if (instruction.accumulate == TileAccumulate::None && instruction.srcs.size() == 1 && layout.dst.size() == 1 &&
          instruction.srcs[0].memory == MemoryKind::GM && placed(layout.dst[0], step.dst))
        step.path = direct::Path::Load;
      return step;
    case PtoOpcode::TSTORE:
    case PtoOpcode::TSTORE_ACC:
      if (instruction.accumulate == TileAccumulate::None && layout.srcs.size() == 1 && instruction.dst.size() == 1 &&
          instruction.dst[0].memory == MemoryKind::GM && placed(layout.srcs[0], step.dst))
        step.path = direct::Path::Store;
      return step;
    case PtoOpcode::TMOV:
    case PtoOpcode::TMOV_ACC: planMove(layout, instruction.accumulate, step); return step;
    case PtoOpcode::MGATHER:
    case PtoOpcode::MSCATTER:
    case PtoOpcode::TMATMUL:
    case PtoOpcode::TMATMUL_ACC: return step;
    default: break;
    }
    const TileOp* tile = tileOf(instruction);
    if (!tile) return step;
    if (tile->kind == TensorOpKind::Copy || tile->kind == TensorOpKind::Assemble) planMove(layout, instruction.accumulate, step);
    else planElementwise(*tile, layout, instruction.accumulate, step);
    return step;
  }

  // An on-chip copy (TMOV, a copy or assemble tile op) of one whole source of the destination's shape and
  // dtype, disjoint from it (or the same elements: nothing to do).
  static void planMove(const InstructionLayout& layout, TileAccumulate accumulate, PlannedInstruction& step) {
    if (accumulate != TileAccumulate::None || layout.srcs.size() != 1 || layout.dst.size() != 1 ||
        !placed(layout.dst[0], step.dst) || !placed(layout.srcs[0], step.srcs[0]) ||
        !step.dst.box.sameShape(step.srcs[0].box) || step.dst.box.dtype != step.srcs[0].box.dtype)
      return;
    if (sameElements(step.dst, step.srcs[0])) step.path = direct::Path::Skip;
    else if (disjoint(step.dst, step.srcs[0])) step.path = direct::Path::Move;
  }

  // A float elementwise tile op (applyFloatUnary, applyFloatArithmetic, applyFloatScalarArithmetic of
  // ReferenceKernels.h) on float tiles of one shape, each source disjoint from the destination or the
  // same elements (computed in place row by row); a binary op's second source may instead hold one
  // element per row (broadcast along it). Or a float row reduction (reduceFloatLine) of the innermost
  // dim into a destination of one element per row (softmax's row max and sum: the reference kernels
  // cost more in tensors and copies than in the sums, 2.5x the whole softmax kernel).
  static void planElementwise(const TileOp& tile, const InstructionLayout& layout, TileAccumulate accumulate,
                              PlannedInstruction& step) {
    direct::Path path = direct::Path::General;
    const TensorOpKind kind = tile.kind;
    switch (category(kind)) {
    case OpCategory::Unary:
      if (kind != TensorOpKind::Cast && reference::applyFloatUnary(kind, {})) path = direct::Path::Unary;
      break;
    case OpCategory::Binary:
      if (reference::applyFloatArithmetic(kind, {}, {})) path = direct::Path::Binary;
      break;
    case OpCategory::Reduce:
      if (reference::reduceFloatLine(kind, {}) && reducesInnermostKept(tile, layout)) path = direct::Path::Reduce;
      break;
    case OpCategory::BinaryScalar: {
      auto found = tile.attrs.find("scalar");
      const double* value = found == tile.attrs.end() ? nullptr : std::get_if<double>(&found->second);
      // A run-time scalar (a SymbolicScalar) is bound per task by the general path.
      if (value && !layout.srcs.empty() && reference::applyFloatScalarArithmetic(kind, {}, 0.0f)) {
        path = direct::Path::Scalar;
        step.scalar = static_cast<float>(reference::roundToDtype(*value, layout.srcs[0].dtype));
      }
      break;
    }
    default: break;
    }
    const std::size_t sources = path == direct::Path::Binary ? 2 : 1;
    if (path == direct::Path::General || accumulate != TileAccumulate::None || hasValidParts(&tile) ||
        layout.srcs.size() != sources || layout.dst.size() != 1 || !placed(layout.dst[0], step.dst) ||
        !isFloatTile(step.dst.box.dtype))
      return;
    for (std::size_t i = 0; i < sources; ++i) {
      PlacedBox& source = step.srcs[i];
      if (!placed(layout.srcs[i], source) || !isFloatTile(source.box.dtype)) return;
      const bool inPlaceOrApart = disjoint(step.dst, source) || sameElements(step.dst, source);
      if (path == direct::Path::Reduce) {
        // A row is read whole before its one result is written: in place only as the same elements.
        if (!oneElementPerRow(step.dst.box, source.box) || !inPlaceOrApart) return;
      } else if (source.box.sameShape(step.dst.box)) {
        if (!inPlaceOrApart) return;
      } else if (i == 1 && oneElementPerRow(source.box, step.dst.box) && disjoint(step.dst, source)) {
        step.broadcastRows = true;
      } else {
        return;
      }
    }
    if (sources == 2 && step.srcs[0].box.dtype != step.srcs[1].box.dtype) return;
    step.kind = kind;
    step.path = path;
  }

  // A reduction of the innermost dim alone, kept as a dim of 1 (what a row max or sum is; other dims
  // take the general path).
  static bool reducesInnermostKept(const TileOp& tile, const InstructionLayout& layout) {
    if (layout.srcs.size() != 1 || layout.srcs[0].shape.empty()) return false;
    const auto innermost = static_cast<std::int64_t>(layout.srcs[0].shape.size()) - 1;
    auto dims = tile.attrs.find("dims");
    auto keepdim = tile.attrs.find("keepdim");
    const auto* dimList = dims == tile.attrs.end() ? nullptr : std::get_if<std::vector<std::int64_t>>(&dims->second);
    const bool* kept = keepdim == tile.attrs.end() ? nullptr : std::get_if<bool>(&keepdim->second);
    return dimList && dimList->size() == 1 && dimList->front() == innermost && kept && *kept;
  }

  std::byte* start(const PlacedBox& operand) { return m_core.bytes(operand.memory) + operand.offsetBytes; }

  // A planned instruction on the direct path; false when the task's GM region does not suit it (the
  // general path then runs the instruction).
  bool runDirect(const PtoInstruction& instruction, const PlannedInstruction& step) {
    switch (step.path) {
    case direct::Path::Load:
    case direct::Path::Store: {
      const bool load = step.path == direct::Path::Load;
      const int index = load ? instruction.srcs[0].gmRegion : instruction.dst[0].gmRegion;
      const std::vector<GmRegion>& list = load ? m_task.reads : m_task.writes;
      StridedBox gm;
      std::byte* gmFirst = nullptr;
      if (index < 0 || static_cast<std::size_t>(index) >= list.size() ||
          !boxOf(list[static_cast<std::size_t>(index)], gm, gmFirst) || !gm.sameShape(step.dst.box) ||
          gm.dtype != step.dst.box.dtype || !gm.rowsPacked())
        return false;
      if (load) copyBox(step.dst.box, start(step.dst), gm, gmFirst);
      else copyBox(gm, gmFirst, step.dst.box, start(step.dst));
      return true;
    }
    case direct::Path::Move: copyBox(step.dst.box, start(step.dst), step.srcs[0].box, start(step.srcs[0])); return true;
    case direct::Path::Unary:
    case direct::Path::Binary:
    case direct::Path::Scalar: elementwise(step); return true;
    case direct::Path::Reduce: reduceRows(step); return true;
    default: return false;
    }
  }

  // Each row loaded as fp32, computed, rounded into the destination's dtype, as the reference kernel
  // computes the whole tile.
  void elementwise(const PlannedInstruction& step) {
    const StridedBox& to = step.dst.box;
    const StridedBox& a = step.srcs[0].box;
    const bool binary = step.path == direct::Path::Binary;
    const StridedBox& b = binary ? step.srcs[1].box : a;
    const std::int64_t length = to.rowLength();
    float* x = m_core.rowBuffer(0, length).data();
    float* y = binary ? m_core.rowBuffer(1, length).data() : nullptr;
    const std::span<float> row(x, static_cast<std::size_t>(length));
    forEachRowOf<3>({&to, &a, &b}, {start(step.dst), start(step.srcs[0]), start(step.srcs[binary ? 1 : 0])},
                    [&](const std::array<std::byte*, 3>& starts) {
                      loadFloatRow(starts[1], a.dtype, length, x);
                      if (step.path == direct::Path::Unary) {
                        reference::applyFloatUnary(step.kind, row);
                      } else if (step.path == direct::Path::Scalar) {
                        reference::applyFloatScalarArithmetic(step.kind, row, step.scalar);
                      } else {
                        if (step.broadcastRows) {
                          loadFloatRow(starts[2], b.dtype, 1, y);
                          std::fill(y + 1, y + length, y[0]);
                        } else {
                          loadFloatRow(starts[2], b.dtype, length, y);
                        }
                        reference::applyFloatArithmetic(step.kind, row, std::span<const float>(y, row.size()));
                      }
                      storeFloatRow(x, to.dtype, length, starts[0]);
                    });
  }

  // Each source row loaded as fp32 and reduced as the reference kernel reduces a line, its one result
  // rounded into the destination's dtype.
  void reduceRows(const PlannedInstruction& step) {
    const StridedBox& from = step.srcs[0].box;
    const StridedBox& to = step.dst.box;
    const std::int64_t length = from.rowLength();
    const std::span<float> row(m_core.rowBuffer(0, length).data(), static_cast<std::size_t>(length));
    forEachRowOf<2>({&from, &to}, {start(step.srcs[0]), start(step.dst)}, [&](const std::array<std::byte*, 2>& starts) {
      loadFloatRow(starts[0], from.dtype, length, row.data());
      const float result = *reference::reduceFloatLine(step.kind, row);
      storeFloatRow(&result, to.dtype, 1, starts[1]);
    });
  }

  // dst = combine(dst, values) or dst = values, into on-chip memory.
  bool store(const OperandLayout& dst, const HostTensor& values, TileAccumulate accumulate) {
    if (values.elementCount() != dst.elementCount())
      return fail() << "a result of " << values.elementCount() << " elements meets a destination of "
                    << dst.elementCount();
    if (accumulate == TileAccumulate::None) {
      m_core.write(dst, values);
      return true;
    }
    m_core.write(dst, combined(m_core.read(dst), reshaped(values, dst.shape), accumulate));
    return true;
  }

  bool runInstruction(const PtoInstruction& instruction, const InstructionLayout& layout) {
    switch (instruction.opcode) {
    case PtoOpcode::TLOAD: return load(instruction, layout);
    case PtoOpcode::MGATHER: return gatherRows(instruction, layout);
    case PtoOpcode::MSCATTER: return scatterRows(instruction, layout);
    case PtoOpcode::TSTORE:
    case PtoOpcode::TSTORE_ACC: return storeToGm(instruction, layout);
    case PtoOpcode::TMOV:
    case PtoOpcode::TMOV_ACC: return move(instruction, layout);
    case PtoOpcode::TMATMUL:
    case PtoOpcode::TMATMUL_ACC: return matmul(instruction, layout);
    default: return compute(instruction, layout);
    }
  }

  bool load(const PtoInstruction& instruction, const InstructionLayout& layout) {
    if (instruction.srcs.size() != 1 || layout.dst.size() != 1 || instruction.srcs[0].memory != MemoryKind::GM)
      return fail() << "a load needs one GM source and one on-chip destination";
    std::optional<HostTensor> region = gmRegion(true, instruction.srcs[0].gmRegion);
    if (!region) return false;
    // A tile of a partly valid tensor brings its valid part (the task's region); the rest of the tile is zero.
    const std::vector<std::int64_t>& tile = instruction.srcs[0].shape;
    if (region->shape().dims() != tile && region->elementCount() != layout.dst[0].elementCount()) {
      if (!fitsIn(region->shape().dims(), tile))
        return fail() << "loads a region " << region->shape().str() << " into a tile " << Shape(tile).str();
      return store(layout.dst[0], reference::inLeadingBox(*region, region->dtype(), tile), instruction.accumulate);
    }
    return store(layout.dst[0], *region, instruction.accumulate);
  }

  // Row i of the destination is row index[i] of the GM region (its leading
  // dims flattened), as an MGATHER copies them. An index outside the region
  // is the kernel's error (the device would read another tensor's bytes).
  bool gatherRows(const PtoInstruction& instruction, const InstructionLayout& layout) {
    if (instruction.srcs.size() != 2 || layout.srcs.size() != 2 || layout.dst.size() != 1 ||
        instruction.srcs[0].memory != MemoryKind::GM)
      return fail() << "a gather needs a GM source, an index tile and one on-chip destination";
    std::optional<HostTensor> table = gmRegion(true, instruction.srcs[0].gmRegion);
    if (!table) return false;
    const OperandLayout& dst = layout.dst[0];
    std::optional<HostTensor> index;
    if (instruction.srcs[1].memory == MemoryKind::GM) {
      index = gmRegion(true, instruction.srcs[1].gmRegion);  // the task's region: the valid part already
    } else {
      index = source(layout.srcs[1]);
      if (!cutToValid(*index, 1)) return false;
    }
    if (!index) return false;
    HostTensor picked(table->dtype(), Shape(dst.shape));
    const std::int64_t rowLength = table->rank() == 0 ? 1 : table->shape().dims().back();
    // A tile wholly past the source's valid part (its rows have no valid element) holds no data.
    if (rowLength == 0) return store(dst, picked, TileAccumulate::None);
    if (rowLength > 0 && index->elementCount() * rowLength < picked.elementCount()) {
      // Only the valid indices name rows, and a source valid in part of its rows (a block past the end of
      // the row dim) gives shorter rows: they fill the tile's leading box, the rest holds no data.
      HostTensor rows(table->dtype(), Shape({index->elementCount(), rowLength}));
      if (std::string problem = pto::gatherRows(*table, *index, rows); !problem.empty()) return fail() << problem;
      const std::int64_t tileRow = dst.shape.empty() ? 1 : dst.shape.back();
      const std::int64_t width = rowLength < tileRow && picked.elementCount() % tileRow == 0 ? tileRow : rowLength;
      HostTensor all(table->dtype(), Shape({picked.elementCount() / width, width}));
      if (rows.elementCount() > 0) all.view({0, 0}, rows.shape().dims()).copyFrom(rows);
      return store(dst, all, TileAccumulate::None);
    }
    if (std::string problem = pto::gatherRows(*table, *index, picked); !problem.empty())
      return fail() << problem;
    return store(dst, picked, TileAccumulate::None);
  }

  // Row index[i] of the GM region (its leading dims flattened) takes row i
  // of the rows tile, as an MSCATTER writes them; the region's other rows
  // keep their bytes. An index outside the region is the kernel's error (the
  // device would overwrite another tensor's bytes).
  bool scatterRows(const PtoInstruction& instruction, const InstructionLayout& layout) {
    if (instruction.dst.size() != 1 || instruction.dst[0].memory != MemoryKind::GM || layout.srcs.size() != 2)
      return fail() << "a scatter needs a rows tile, an index tile and one GM destination";
    std::optional<HostTensor> region = gmRegion(false, instruction.dst[0].gmRegion);
    if (!region) return false;
    HostTensor index = source(layout.srcs[0]);
    if (!cutToValid(index, 0)) return false;
    HostTensor rows = packedAs(source(layout.srcs[1]), region->dtype());
    if (index.elementCount() < (rows.rank() == 0 ? 1 : rows.shape()[0]))  // the valid rows only
      rows = rows.view(std::vector<std::int64_t>(rows.rank(), 0), [&] {
        std::vector<std::int64_t> part = rows.shape().dims();
        part[0] = index.elementCount();
        return part;
      }());
    if (std::string problem = pto::scatterRows(*region, index, rows); !problem.empty()) return fail() << problem;
    return true;
  }

  bool storeToGm(const PtoInstruction& instruction, const InstructionLayout& layout) {
    if (layout.srcs.size() != 1 || instruction.dst.size() != 1 || instruction.dst[0].memory != MemoryKind::GM)
      return fail() << "a store needs one on-chip source and one GM destination";
    std::optional<HostTensor> region = gmRegion(false, instruction.dst[0].gmRegion);
    if (!region) return false;
    HostTensor values = source(layout.srcs[0]);
    // A tile of a partly valid tensor stores its valid part only (the task's region is that part).
    const std::vector<std::int64_t>& tile = instruction.dst[0].shape;
    if (values.elementCount() != region->elementCount() && fitsIn(region->shape().dims(), tile) &&
        values.elementCount() == Shape(tile).elementCount())
      values = reshaped(values, tile).view(std::vector<std::int64_t>(tile.size(), 0), region->shape().dims());
    if (values.elementCount() != region->elementCount())
      return fail() << "stores " << values.elementCount() << " elements into a region of " << region->elementCount()
                    << " (" << region->shape().str() << ")";
    values = reshaped(values, region->shape().dims());
    if (instruction.accumulate != TileAccumulate::None) values = combined(*region, values, instruction.accumulate);
    HostTensor converted = packedAs(values, region->dtype());
    copyRows(*region, converted.data(), true);
    return true;
  }

  bool move(const PtoInstruction& instruction, const InstructionLayout& layout) {
    if (layout.srcs.size() != 1 || layout.dst.size() != 1) return fail() << "a move needs one source and one destination";
    return store(layout.dst[0], source(layout.srcs[0]), instruction.accumulate);
  }

  bool attribute(const TileOp* tile, const char* key) const {
    if (!tile) return false;
    auto found = tile->attrs.find(key);
    const bool* value = found == tile->attrs.end() ? nullptr : std::get_if<bool>(&found->second);
    return value && *value;
  }

  // The TF32 rounding a matmul tile asks of its fp32 operands (its "tf32" attribute; none without it).
  static reference::Tf32Rounding tf32RoundingOf(const TileOp* tile) {
    if (!tile) return reference::Tf32Rounding::None;
    auto found = tile->attrs.find("tf32");
    const std::string* mode = found == tile->attrs.end() ? nullptr : std::get_if<std::string>(&found->second);
    return mode ? reference::tf32RoundingNamed(*mode) : reference::Tf32Rounding::None;
  }

  // Reads a 2-D float matrix (fp32, fp16 or bf16) at `base` elements into `out`.
  void loadMatrix(const OperandLayout& layout, std::int64_t base, std::int64_t rows, std::int64_t cols,
                  RowMajorMatrix& out) const {
    out.resize(rows, cols);
    const std::int64_t pitch = layout.shape.size() >= 2 ? layout.strides[layout.shape.size() - 2] : cols;
    const std::byte* memory = m_core.bytes(layout.memory) + layout.offsetBytes;
    for (std::int64_t r = 0; r < rows; ++r) {
      float* to = out.data() + r * cols;
      const std::int64_t at = base + r * pitch;
      switch (layout.dtype) {
      case DataType::Fp32: std::memcpy(to, memory + at * 4, static_cast<std::size_t>(cols) * 4); break;
      case DataType::Fp16: {
        const auto* from = reinterpret_cast<const std::uint16_t*>(memory) + at;
        const float* table = halfTable();
        for (std::int64_t c = 0; c < cols; ++c) to[c] = table[from[c]];
        break;
      }
      default: {
        // bfloat16 is the upper half of a float: widening is exact.
        const auto* from = reinterpret_cast<const std::uint16_t*>(memory) + at;
        for (std::int64_t c = 0; c < cols; ++c) {
          const std::uint32_t bits = static_cast<std::uint32_t>(from[c]) << 16;
          std::memcpy(&to[c], &bits, 4);
        }
        break;
      }
      }
    }
  }

  // Small-integer matrices (int8, uint8, int16, uint16) without batch dims whose every partial sum stays
  // below 2^24 in magnitude (k * max|a| * max|b| < 2^24): an fp32 product is then exact in any order, so
  // Eigen's float GEMM gives the reference kernel's integer result, which is stored as compute() stores it.
  // nullopt where that does not hold (the reference kernel runs).
  std::optional<bool> exactIntegerMatmul(const TileOp* tile, const OperandLayout& a, const OperandLayout& b,
                                         const OperandLayout& c, bool aTrans, bool bTrans, TileAccumulate accumulate) {
    auto smallInteger = [](DataType dtype) {
      return dtype == DataType::Int8 || dtype == DataType::UInt8 || dtype == DataType::Int16 ||
             dtype == DataType::UInt16;
    };
    if (!smallInteger(a.dtype) || a.dtype != b.dtype || isFloatTile(c.dtype) || c.dtype == DataType::Bool ||
        a.shape.size() != 2 || b.shape.size() != 2 || c.shape.size() != 2 || hasValidParts(tile))
      return std::nullopt;
    const std::int64_t m = aTrans ? a.shape[1] : a.shape[0], k = aTrans ? a.shape[0] : a.shape[1];
    const std::int64_t kb = bTrans ? b.shape[1] : b.shape[0], n = bTrans ? b.shape[0] : b.shape[1];
    if (k != kb || c.shape[0] != m || c.shape[1] != n) return std::nullopt;
    const double largestA = loadIntegerMatrix(a, m_a), largestB = loadIntegerMatrix(b, m_b);
    if (largestA * largestB * static_cast<double>(k) >= 0x1p24) return std::nullopt;
    m_c.resize(m, n);
    if (!aTrans && !bTrans) m_c.noalias() = m_a * m_b;
    else if (aTrans && !bTrans) m_c.noalias() = m_a.transpose() * m_b;
    else if (!aTrans && bTrans) m_c.noalias() = m_a * m_b.transpose();
    else m_c.noalias() = m_a.transpose() * m_b.transpose();
    HostTensor product(c.dtype, Shape(c.shape));
    for (std::int64_t i = 0; i < m * n; ++i) product.setFromInt64(i, static_cast<std::int64_t>(m_c.data()[i]));
    return store(c, product, accumulate);
  }

  // A 2-D small-integer operand as fp32 values (exact) in `out`; returns the largest magnitude.
  double loadIntegerMatrix(const OperandLayout& layout, RowMajorMatrix& out) const {
    const std::int64_t rows = layout.shape[0], cols = layout.shape[1], pitch = layout.strides[0];
    out.resize(rows, cols);
    const std::byte* memory = m_core.bytes(layout.memory) + layout.offsetBytes;
    float largest = 0.0f;
    auto load = [&](auto element) {
      using T = decltype(element);
      const auto* from = reinterpret_cast<const T*>(memory);
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t col = 0; col < cols; ++col) {
          const auto value = static_cast<float>(from[r * pitch + col]);
          out(r, col) = value;
          largest = std::max(largest, std::fabs(value));
        }
    };
    switch (layout.dtype) {
    case DataType::Int8: load(std::int8_t{}); break;
    case DataType::UInt8: load(std::uint8_t{}); break;
    case DataType::Int16: load(std::int16_t{}); break;
    default: load(std::uint16_t{}); break;
    }
    return static_cast<double>(largest);
  }

  // TMATMUL / TMATMUL_ACC: L0C (=|+=) L0A x L0B per batch, in fp32 for float
  // tiles; integer tiles go through the reference kernel.
  bool matmul(const PtoInstruction& instruction, const InstructionLayout& layout) {
    if (layout.srcs.size() != 2 || layout.dst.size() != 1 || layout.srcs[0].pieces.size() != 1 ||
        layout.srcs[1].pieces.size() != 1)
      return fail() << "a matmul needs two whole sources (L0A, L0B) and one destination (L0C)";
    const OperandLayout& a = layout.srcs[0].pieces[0].layout;
    const OperandLayout& b = layout.srcs[1].pieces[0].layout;
    const OperandLayout& c = layout.dst[0];
    const TileOp* tile = tileOf(instruction);
    const bool aTrans = attribute(tile, "a_trans"), bTrans = attribute(tile, "b_trans");
    const TileAccumulate accumulate =
        instruction.opcode == PtoOpcode::TMATMUL_ACC && instruction.accumulate == TileAccumulate::None
            ? TileAccumulate::Add
            : instruction.accumulate;
    if (a.shape.size() < 2 || b.shape.size() < 2 || c.shape.size() < 2)
      return fail() << "matmul tiles must be matrices, got " << Shape(a.shape).str() << " x " << Shape(b.shape).str();
    const bool fast = isFloatTile(a.dtype) && a.dtype == b.dtype && c.dtype == DataType::Fp32 &&
                      (accumulate == TileAccumulate::None || accumulate == TileAccumulate::Add) && !hasValidParts(tile);
    if (!fast) {
      if (std::optional<bool> done = exactIntegerMatmul(tile, a, b, c, aTrans, bTrans, accumulate)) return *done;
      return compute(instruction, layout, accumulate);
    }
    const std::size_t ra = a.shape.size(), rb = b.shape.size(), rc = c.shape.size();
    const std::int64_t m = aTrans ? a.shape[ra - 1] : a.shape[ra - 2];
    const std::int64_t k = aTrans ? a.shape[ra - 2] : a.shape[ra - 1];
    const std::int64_t kb = bTrans ? b.shape[rb - 1] : b.shape[rb - 2];
    const std::int64_t n = bTrans ? b.shape[rb - 2] : b.shape[rb - 1];
    // Batch dims: A's and B's must equal C's or be all ones (broadcast).
    std::int64_t batches = 1, aBatches = 1, bBatches = 1;
    for (std::size_t d = 0; d + 2 < rc; ++d) batches *= c.shape[d];
    for (std::size_t d = 0; d + 2 < ra; ++d) aBatches *= a.shape[d];
    for (std::size_t d = 0; d + 2 < rb; ++d) bBatches *= b.shape[d];
    if (k != kb || c.shape[rc - 2] != m || c.shape[rc - 1] != n || (aBatches != 1 && aBatches != batches) ||
        (bBatches != 1 && bBatches != batches) || (rc > 2 && (ra != rc && aBatches != 1)))
      return fail() << "matmul tile shapes do not agree: " << Shape(a.shape).str() << (aTrans ? "^T" : "") << " x "
                    << Shape(b.shape).str() << (bTrans ? "^T" : "") << " -> " << Shape(c.shape).str();
    // The element offset of batch `index` (C order over the batch dims) of a layout.
    auto batchBase = [](const OperandLayout& operand, std::int64_t index) {
      std::int64_t base = 0;
      for (std::size_t d = operand.shape.size() - 2; d-- > 0;) {
        base += index % operand.shape[d] * operand.strides[d];
        index /= operand.shape[d];
      }
      return base;
    };
    float* cMemory = reinterpret_cast<float*>(m_core.bytes(c.memory) + c.offsetBytes);
    const std::int64_t cPitch = c.strides[rc - 2];
    const reference::Tf32Rounding tf32 = tf32RoundingOf(tile);
    for (std::int64_t batch = 0; batch < batches; ++batch) {
      loadMatrix(a, aBatches == 1 ? 0 : batchBase(a, batch), a.shape[ra - 2], a.shape[ra - 1], m_a);
      loadMatrix(b, bBatches == 1 ? 0 : batchBase(b, batch), b.shape[rb - 2], b.shape[rb - 1], m_b);
      reference::roundToTf32(m_a.data(), static_cast<std::size_t>(m_a.size()), tf32);
      reference::roundToTf32(m_b.data(), static_cast<std::size_t>(m_b.size()), tf32);
      StridedMatrix out(cMemory + batchBase(c, batch), m, n, Eigen::OuterStride<>(cPitch));
      m_c.resize(m, n);
      if (!aTrans && !bTrans) m_c.noalias() = m_a * m_b;
      else if (aTrans && !bTrans) m_c.noalias() = m_a.transpose() * m_b;
      else if (!aTrans && bTrans) m_c.noalias() = m_a * m_b.transpose();
      else m_c.noalias() = m_a.transpose() * m_b.transpose();
      if (accumulate == TileAccumulate::Add) out += m_c;
      else out = m_c;
    }
    return true;
  }

  // A vector instruction (or anything else with a tile op): the reference
  // kernel of the tile op's kind on the assembled sources.
  bool compute(const PtoInstruction& instruction, const InstructionLayout& layout) {
    return compute(instruction, layout, instruction.accumulate);
  }
  bool compute(const PtoInstruction& instruction, const InstructionLayout& layout, TileAccumulate accumulate) {
    const TileOp* tile = tileOf(instruction);
    if (!tile) return fail() << "the instruction names no tile op, so what it computes is unknown";
    std::vector<HostTensor> inputs;
    for (const SourceLayout& src : layout.srcs) {
      if (src.pieces.empty()) return fail() << "a compute instruction reads global memory directly";
      inputs.push_back(source(src));
    }
    if (layout.dst.empty()) return fail() << "the instruction has no destination";
    const TensorOpKind kind = tile->kind;
    if (kind == TensorOpKind::Copy || kind == TensorOpKind::Assemble) {
      if (inputs.size() != 1 || layout.dst.size() != 1) return fail() << "a copy needs one source and one destination";
      return store(layout.dst[0], inputs[0], accumulate);
    }
    TensorOp tileAsOp = m_compilation.tiles.graph.op(tile->tensorOp);
    tileAsOp.kind = kind;
    tileAsOp.attrs = tile->attrs;
    if (reference::hasRunTimeScalars(tileAsOp)) {
      std::optional<TensorOp> bound = reference::bindRunTimeScalars(tileAsOp, m_task.bindings(), m_diags);
      if (!bound) return fail() << "a scalar operand cannot be evaluated for this task";
      tileAsOp = std::move(*bound);
    }
    if (hasValidParts(tile)) return computeOnValidParts(*tile, tileAsOp, std::move(inputs), layout, accumulate);
    std::vector<HostTensor> results;
    for (const OperandLayout& dst : layout.dst) results.emplace_back(dst.dtype, Shape(dst.shape));
    reference::KernelCall call{tileAsOp, std::move(inputs), std::move(results), m_diags};
    if (!reference::runKernel(call)) return fail() << "the " << name(kind) << " kernel failed on this tile (see above)";
    for (std::size_t i = 0; i < layout.dst.size(); ++i)
      if (!store(layout.dst[i], call.outputs[i], accumulate)) return false;
    return true;
  }

  // ---- valid parts (TileRegion::valid, compiler/ir/ValidParts.h) ----

  static bool hasValidParts(const TileOp* tile) {
    if (!tile) return false;
    for (const TileRegion& region : tile->inputs)
      if (!region.valid.empty()) return true;
    return false;
  }

  // The valid part of input `input` of the instruction's tile op for this task (its whole shape when the
  // tensor is whole). The program's tile op stands for its subgraph class, whose members share these
  // expressions (GraphPartition's canonical form), so the task's bindings give its own sizes.
  std::optional<std::vector<std::int64_t>> validOf(const TileRegion& region) {
    std::string problem;
    std::optional<std::vector<std::int64_t>> valid = reference::evaluateValidPart(region, m_task.bindings(), problem);
    if (!valid) fail() << problem << " (this tile's valid part)";
    return valid;
  }

  // `values` (input `input` of the current tile op, any shape of its element count) cut to its valid part.
  bool cutToValid(HostTensor& values, std::size_t input) {
    const TileOp* tile = tileOf(m_program.instructions[static_cast<std::size_t>(m_index)]);
    if (!tile || input >= tile->inputs.size() || tile->inputs[input].valid.empty()) return true;
    const TileRegion& region = tile->inputs[input];
    std::optional<std::vector<std::int64_t>> valid = validOf(region);
    if (!valid) return false;
    if (values.elementCount() != Shape(region.shape).elementCount())
      return fail() << "internal error: operand " << input << " holds " << values.elementCount()
                    << " elements for a tile of " << Shape(region.shape).str();
    values = reshaped(values, region.shape).view(std::vector<std::int64_t>(valid->size(), 0), *valid);
    return true;
  }

  // The tile op's kernel on its inputs cut to their valid parts, as the reference interpreter runs the
  // tensor op (ValidParts.h); each result fills the leading box of its zeroed destination tile. An empty
  // cut contributes nothing to an accumulation and zeros otherwise.
  bool computeOnValidParts(const TileOp& tile, TensorOp tileAsOp, std::vector<HostTensor> inputs,
                           const InstructionLayout& layout, TileAccumulate accumulate) {
    if (inputs.size() != tile.inputs.size() || layout.dst.size() != tile.outputs.size())
      return fail() << "internal error: " << inputs.size() << " sources and " << layout.dst.size()
                    << " destinations for a tile op of " << tile.inputs.size() << " inputs and " << tile.outputs.size()
                    << " outputs";
    std::vector<std::vector<std::int64_t>> valids;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const TileRegion& region = tile.inputs[i];
      if (inputs[i].elementCount() != Shape(region.shape).elementCount())
        return fail() << "internal error: source " << i << " holds " << inputs[i].elementCount()
                      << " elements for a tile of " << Shape(region.shape).str();
      inputs[i] = reshaped(inputs[i], region.shape);
      std::optional<std::vector<std::int64_t>> valid = validOf(region);
      if (!valid) return false;
      valids.push_back(std::move(*valid));
    }
    std::vector<DataType> dtypes;
    for (const OperandLayout& dst : layout.dst) dtypes.push_back(dst.dtype);
    std::vector<HostTensor> results;
    if (!reference::runOnValidParts(tileAsOp, std::move(inputs), valids, dtypes, results, m_diags))
      return fail() << "the " << name(tileAsOp.kind) << " kernel failed on the valid part of this tile (see above)";
    const bool empty = results.empty();
    if (empty && accumulate != TileAccumulate::None) return true;
    for (std::size_t i = 0; i < layout.dst.size(); ++i) {
      const std::vector<std::int64_t>& tileShape = tile.outputs[i].shape;
      if (Shape(tileShape).elementCount() != layout.dst[i].elementCount())
        return fail() << "internal error: destination " << i << " holds " << layout.dst[i].elementCount()
                      << " elements for a tile of " << Shape(tileShape).str();
      HostTensor part = empty ? HostTensor(layout.dst[i].dtype, Shape(std::vector<std::int64_t>(tileShape.size(), 0)))
                              : results[i];
      if (!fitsIn(part.shape().dims(), tileShape))
        return fail() << "the valid part's result " << part.shape().str() << " does not fit its tile "
                      << Shape(tileShape).str();
      if (!store(layout.dst[i], reference::inLeadingBox(part, layout.dst[i].dtype, tileShape), accumulate)) return false;
    }
    return true;
  }

  FunctionalCore& m_core;
  const Compilation& m_compilation;
  const PtoProgram& m_program;
  TaskMemory& m_task;
  DiagnosticEngine& m_diags;
  int m_index = -1;
  RowMajorMatrix m_a, m_b, m_c;
};

} // namespace

const Bindings& TaskMemory::bindings() {
  if (!m_bindings) {
    m_bindings.emplace(kernelBindings ? *kernelBindings : Bindings{});
    if (loopIndices)
      for (const auto& [symbol, value] : *loopIndices) (*m_bindings)[symbol] = value;
  }
  return *m_bindings;
}

std::vector<float>& FunctionalCore::rowBuffer(std::size_t which, std::int64_t length) {
  std::vector<float>& buffer = m_rowBuffers[which];
  if (buffer.size() < static_cast<std::size_t>(length)) buffer.resize(static_cast<std::size_t>(length));
  return buffer;
}

FunctionalCore::FunctionalCore(const std::array<std::int64_t, kMemoryKindCount>& capacityBytes)
    : m_capacity(capacityBytes) {
  m_capacity[static_cast<std::size_t>(MemoryKind::GM)] = 0;  // global memory is the run's tensors
  for (std::size_t kind = 0; kind < kMemoryKindCount; ++kind)
    m_memory[kind].assign(static_cast<std::size_t>(std::max<std::int64_t>(m_capacity[kind], 0)), std::byte{0});
}

HostTensor FunctionalCore::read(const OperandLayout& layout) const {
  HostTensor values(layout.dtype, Shape(layout.shape));
  const std::size_t item = sizeOf(layout.dtype);
  const std::size_t rowBytes = static_cast<std::size_t>(rowLength(layout)) * item;
  const std::byte* memory = bytes(layout.memory) + layout.offsetBytes;
  std::byte* to = values.data();
  forEachRow(layout, [&](std::int64_t offset, std::int64_t row) {
    std::memcpy(to + static_cast<std::size_t>(row) * rowBytes, memory + static_cast<std::size_t>(offset) * item,
                rowBytes);
  });
  return values;
}

void FunctionalCore::write(const OperandLayout& layout, const HostTensor& values) {
  HostTensor converted = packedAs(values, layout.dtype);
  const std::size_t item = sizeOf(layout.dtype);
  const std::size_t rowBytes = static_cast<std::size_t>(rowLength(layout)) * item;
  std::byte* memory = bytes(layout.memory) + layout.offsetBytes;
  const std::byte* from = converted.data();
  forEachRow(layout, [&](std::int64_t offset, std::int64_t row) {
    std::memcpy(memory + static_cast<std::size_t>(offset) * item, from + static_cast<std::size_t>(row) * rowBytes,
                rowBytes);
  });
}

FunctionalCore::~FunctionalCore() = default;

bool FunctionalCore::execute(const Compilation& compilation, const PtoProgram& program, const ProgramLayout& layout,
                             TaskMemory& task, DiagnosticEngine& diags) {
  const auto id = static_cast<std::size_t>(std::max(program.programId, 0));
  if (m_plans.size() <= id) m_plans.resize(id + 1);
  if (!m_plans[id]) m_plans[id] = std::make_unique<ProgramPlan>();
  return InstructionRunner(*this, compilation, program, task, diags).run(layout, *m_plans[id]);
}

} // namespace pto
