// The functional simulator's direct paths (FunctionalCore): the instructions
// that need no tensor (whole-tile loads, stores, moves and float elementwise
// maths) run row by row on the memories' bytes. Their plan types (a program's
// plan, FunctionalCore::m_plans, holds them) and the row access they share.
// Header-only: these run once per row of every such instruction, so they stay
// inlinable into the core's loop.
#pragma once

#include "core/Float16.h"
#include "core/HostTensor.h"
#include "npusim/FunctionalCore.h"
#include "npusim/FunctionalLayout.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pto {
namespace direct {

// Rank limit of the direct paths; deeper operands take the general path.
constexpr std::size_t kDirectRank = 6;

// The shape of a box of elements and its strides in bytes (where it starts is kept apart: an on-chip box is
// planned once per program and placed in each core's memory).
struct StridedBox {
  DataType dtype = DataType::Fp32;
  std::size_t rank = 0;
  std::array<std::int64_t, kDirectRank> shape{};  // the first `rank` entries
  std::array<std::int64_t, kDirectRank> strideBytes{};

  std::int64_t rowLength() const { return rank == 0 ? 1 : shape[rank - 1]; }
  std::size_t rowBytes() const { return static_cast<std::size_t>(rowLength()) * sizeOf(dtype); }
  bool sameShape(const StridedBox& other) const {
    return rank == other.rank && std::equal(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(rank),
                                            other.shape.begin());
  }
  // Non-empty, with each innermost row packed (the direct paths copy rows whole).
  bool rowsPacked() const {
    for (std::size_t d = 0; d < rank; ++d)
      if (shape[d] <= 0) return false;
    return rank == 0 || shape[rank - 1] == 1 || strideBytes[rank - 1] == static_cast<std::int64_t>(sizeOf(dtype));
  }
  // One past the last byte touched, from the first element.
  std::int64_t spanBytes() const {
    std::int64_t end = static_cast<std::int64_t>(sizeOf(dtype));
    for (std::size_t d = 0; d < rank; ++d) end += (shape[d] - 1) * strideBytes[d];
    return end;
  }
};

// An on-chip operand of a planned instruction: its box and where it starts in its memory.
struct PlacedBox {
  StridedBox box;
  MemoryKind memory = MemoryKind::UB;
  std::int64_t offsetBytes = 0;
};

// How one instruction runs: skipped (a flag or barrier), by the general path (operands as tensors, the
// reference kernels), or by one of the direct paths on the memories' bytes. Reduce: a sum, product,
// maximum or minimum of each innermost row into the one element of the destination's row.
enum class Path : unsigned char { Skip, General, Load, Store, Move, Unary, Binary, Scalar, Reduce };

struct PlannedInstruction {
  Path path = Path::General;
  TensorOpKind kind = TensorOpKind::Add;  // Unary, Binary, Scalar, Reduce
  float scalar = 0.0f;                    // Scalar: in the source's dtype, as runBinaryScalar holds it
  // Binary: the second source has one element per row (its innermost dim 1), which every element of
  // the row meets (a row max or sum subtracted or divided out, as the reference kernel broadcasts it).
  bool broadcastRows = false;
  PlacedBox dst;                          // the on-chip destination (Store: the source)
  std::array<PlacedBox, 2> srcs;          // Move, Unary, Scalar, Reduce: one; Binary: two
};


// ---- row access ----

// An on-chip operand's box; false when its rank is too deep.
inline bool boxOf(const OperandLayout& layout, StridedBox& box) {
  if (layout.shape.size() > kDirectRank || layout.strides.size() != layout.shape.size()) return false;
  const auto item = static_cast<std::int64_t>(sizeOf(layout.dtype));
  box.dtype = layout.dtype;
  box.rank = layout.shape.size();
  for (std::size_t d = 0; d < box.rank; ++d) {
    box.shape[d] = layout.shape[d];
    box.strideBytes[d] = layout.strides[d] * item;
  }
  return true;
}

// A task's GM region inside its (contiguous) tensor, and its first element; false for a strided tensor,
// an empty one or a too deep one.
inline bool boxOf(const GmRegion& gm, StridedBox& box, std::byte*& first) {
  const HostTensor& storage = *gm.storage;
  const ConcreteRegion& region = *gm.region;
  if (region.shape.size() > kDirectRank || region.shape.size() != storage.rank() || storage.elementCount() == 0 ||
      !storage.isContiguous())
    return false;
  const auto item = static_cast<std::int64_t>(storage.itemBytes());
  const std::vector<std::int64_t>& strides = storage.strides();
  std::int64_t offset = 0;
  box.dtype = storage.dtype();
  box.rank = region.shape.size();
  for (std::size_t d = 0; d < box.rank; ++d) {
    offset += region.offsets[d] * strides[d];
    box.shape[d] = region.shape[d];
    box.strideBytes[d] = strides[d] * item;
  }
  first = const_cast<std::byte*>(storage.data()) + offset * item;  // shallow constness, as HostTensor's views
  return true;
}

// Calls row(starts) for every innermost row of `lead`'s shape in C order, starts[k] the row's first element
// in the box boxes[k] (of that shape) that starts at firsts[k].
template <std::size_t N, typename Row>
void forEachRowOf(const std::array<const StridedBox*, N>& boxes, std::array<std::byte*, N> starts, Row&& row) {
  const StridedBox& lead = *boxes[0];
  if (lead.rank <= 1) {
    row(starts);
    return;
  }
  std::array<std::int64_t, kDirectRank> at{};
  for (;;) {
    row(starts);
    std::size_t d = lead.rank - 1;  // one past the outer dim to advance
    for (; d > 0; --d) {
      const std::size_t outer = d - 1;
      if (++at[outer] < lead.shape[outer]) {
        for (std::size_t k = 0; k < N; ++k) starts[k] += boxes[k]->strideBytes[outer];
        break;
      }
      for (std::size_t k = 0; k < N; ++k) starts[k] -= (lead.shape[outer] - 1) * boxes[k]->strideBytes[outer];
      at[outer] = 0;
    }
    if (d == 0) return;
  }
}

// Copies the rows of `from` (starting at fromFirst) into `to` (same shape and dtype, rows packed, no overlap).
inline void copyBox(const StridedBox& to, std::byte* toFirst, const StridedBox& from, std::byte* fromFirst) {
  const std::size_t rowBytes = to.rowBytes();
  forEachRowOf<2>({&to, &from}, {toFirst, fromFirst},
                  [&](const std::array<std::byte*, 2>& starts) { std::memcpy(starts[0], starts[1], rowBytes); });
}

// Whether `narrow` has the shape of `wide` but one element per innermost row (a row reduction's
// result, a row-broadcast operand).
inline bool oneElementPerRow(const StridedBox& narrow, const StridedBox& wide) {
  return narrow.rank == wide.rank && narrow.rank >= 1 && narrow.shape[narrow.rank - 1] == 1 &&
         std::equal(narrow.shape.begin(), narrow.shape.begin() + static_cast<std::ptrdiff_t>(narrow.rank - 1),
                    wide.shape.begin());
}

// Whether two on-chip operands are the same elements.
inline bool sameElements(const PlacedBox& a, const PlacedBox& b) {
  return a.memory == b.memory && a.offsetBytes == b.offsetBytes && a.box.dtype == b.box.dtype &&
         a.box.sameShape(b.box) &&
         std::equal(a.box.strideBytes.begin(), a.box.strideBytes.begin() + static_cast<std::ptrdiff_t>(a.box.rank),
                    b.box.strideBytes.begin());
}

// Whether two on-chip operands share no byte.
inline bool disjoint(const PlacedBox& a, const PlacedBox& b) {
  return a.memory != b.memory || a.offsetBytes + a.box.spanBytes() <= b.offsetBytes ||
         b.offsetBytes + b.box.spanBytes() <= a.offsetBytes;
}

inline bool isFloatTile(DataType dtype) {
  return dtype == DataType::Fp32 || dtype == DataType::Fp16 || dtype == DataType::Bf16;
}

// One row of a float tile (fp32, fp16 or bf16) as fp32 values, and back with the reference kernels'
// rounding (ElementAccess.h: exact widening, one rounding to nearest-even when narrowing).
inline void loadFloatRow(const std::byte* from, DataType dtype, std::int64_t count, float* to) {
  if (dtype == DataType::Fp32) {
    std::memcpy(to, from, static_cast<std::size_t>(count) * sizeof(float));
  } else if (dtype == DataType::Fp16) {
    const auto* typed = reinterpret_cast<const Float16*>(from);
    for (std::int64_t i = 0; i < count; ++i) to[i] = static_cast<float>(typed[i]);
  } else {
    const auto* typed = reinterpret_cast<const BFloat16*>(from);
    for (std::int64_t i = 0; i < count; ++i) to[i] = static_cast<float>(typed[i]);
  }
}

inline void storeFloatRow(const float* from, DataType dtype, std::int64_t count, std::byte* to) {
  if (dtype == DataType::Fp32) {
    std::memcpy(to, from, static_cast<std::size_t>(count) * sizeof(float));
  } else if (dtype == DataType::Fp16) {
    auto* typed = reinterpret_cast<Float16*>(to);
    for (std::int64_t i = 0; i < count; ++i) typed[i] = Float16(from[i]);
  } else {
    auto* typed = reinterpret_cast<BFloat16*>(to);
    for (std::int64_t i = 0; i < count; ++i) typed[i] = BFloat16(from[i]);
  }
}

} // namespace direct
} // namespace pto
