// Flat typed copies of host tensors for the reference kernels: loading any dtype as a compute type, storing
// a compute type into any dtype with the interpreter's rounding rules, and walking strided index spaces.
//
// Kernels work on contiguous std::vectors in C order rather than element by element through HostTensor,
// so that their inner loops are plain typed loops. The compute types are float (float dtypes), int64 (signed
// and small unsigned integers, bool), uint64 (uint64) and double (float maths on integer tensors).
#pragma once

#include "core/DataType.h"
#include "core/Float16.h"
#include "core/HostTensor.h"
#include "core/Shape.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace pto::reference {

enum class ComputeClass : unsigned char { Float, Signed, Unsigned };
ComputeClass computeClass(DataType dtype);

// Calls visit(C{}) with the compute type of `dtype`: float, std::int64_t or std::uint64_t.
template <typename Visit> decltype(auto) visitComputeType(DataType dtype, Visit&& visit) {
  switch (computeClass(dtype)) {
  case ComputeClass::Float: return visit(float{});
  case ComputeClass::Unsigned: return visit(std::uint64_t{});
  case ComputeClass::Signed: break;
  }
  return visit(std::int64_t{});
}

// Float -> integer as the interpreter converts: truncate toward zero, saturate to I's range, NaN -> 0.
template <typename I, typename F> I saturatingCast(F value) {
  const double v = static_cast<double>(value);
  if (std::isnan(v)) return 0;
  const double truncated = std::trunc(v);
  // min() is 0 or -2^(bits-1) and max()+1 is 2^bits or 2^(bits-1): all exact doubles.
  const double low = static_cast<double>(std::numeric_limits<I>::min());
  const double highExclusive = 2.0 * static_cast<double>(std::numeric_limits<I>::max() / 2 + 1);
  if (truncated <= low) return std::numeric_limits<I>::min();
  if (truncated >= highExclusive) return std::numeric_limits<I>::max();
  return static_cast<I>(truncated);
}

namespace detail {

template <typename C, typename S> C convertElement(S value) {
  if constexpr (std::is_same_v<S, Float16> || std::is_same_v<S, BFloat16>) {
    return convertElement<C>(static_cast<float>(value));
  } else if constexpr (std::is_floating_point_v<S>) {
    if constexpr (std::is_floating_point_v<C>) return static_cast<C>(value);
    else return saturatingCast<C>(value);
  } else {
    return static_cast<C>(value);  // integers: exact, or wrapping between int64 and uint64
  }
}

template <typename S, typename C> void loadTyped(const std::byte* data, std::int64_t count, C* out) {
  const S* typed = reinterpret_cast<const S*>(data);
  for (std::int64_t i = 0; i < count; ++i) out[i] = convertElement<C>(typed[i]);
}

// Bool bytes are 0/1 by contract, but any nonzero byte reads as true.
template <typename C> void loadBool(const std::byte* data, std::int64_t count, C* out) {
  const auto* typed = reinterpret_cast<const std::uint8_t*>(data);
  for (std::int64_t i = 0; i < count; ++i) out[i] = typed[i] != 0 ? C{1} : C{0};
}

template <typename D, typename C> D storeElement(C value) {
  if constexpr (std::is_same_v<D, float>) {
    return static_cast<float>(value);
  } else if constexpr (std::is_same_v<D, Float16> || std::is_same_v<D, BFloat16>) {
    return D(static_cast<float>(value));  // only reached from float: one rounding
  } else if constexpr (std::is_floating_point_v<C>) {
    return saturatingCast<D>(value);
  } else {
    return static_cast<D>(value);
  }
}

template <typename D, typename C> void storeTyped(std::byte* data, std::int64_t count, const C* values) {
  D* typed = reinterpret_cast<D*>(data);
  for (std::int64_t i = 0; i < count; ++i) typed[i] = storeElement<D>(values[i]);
}

// Calls visit(S{}) with the C++ type S that stores the elements of `dtype` as they are (fp32 and the
// integers) and returns true; false for fp16, bf16 and bool, which loads and stores convert apart.
template <typename Visit> bool visitPlainStorageType(DataType dtype, Visit&& visit) {
  switch (dtype) {
  case DataType::Fp32: visit(float{}); return true;
  case DataType::Int8: visit(std::int8_t{}); return true;
  case DataType::Int16: visit(std::int16_t{}); return true;
  case DataType::Int32: visit(std::int32_t{}); return true;
  case DataType::Int64: visit(std::int64_t{}); return true;
  case DataType::UInt8: visit(std::uint8_t{}); return true;
  case DataType::UInt16: visit(std::uint16_t{}); return true;
  case DataType::UInt32: visit(std::uint32_t{}); return true;
  case DataType::UInt64: visit(std::uint64_t{}); return true;
  case DataType::Fp16:
  case DataType::Bf16:
  case DataType::Bool: return false;
  }
  return false;
}

} // namespace detail

// All elements of `tensor` in C order as C (float, double, std::int64_t or std::uint64_t). Float dtypes
// convert exactly to float/double; integers exactly to int64/uint64 (wrapping between the two) and to
// float/double nearest-even; float -> integer saturates (saturatingCast); bool reads as 0/1.
template <typename C> void loadInto(const HostTensor& tensor, C* out) {
  const HostTensor packed = tensor.isContiguous() ? tensor : tensor.contiguous();
  const std::int64_t count = packed.elementCount();
  if (count == 0) return;
  const std::byte* data = packed.data();
  if (detail::visitPlainStorageType(packed.dtype(), [&](auto stored) {
        detail::loadTyped<decltype(stored)>(data, count, out);
      }))
    return;
  if (packed.dtype() == DataType::Fp16) detail::loadTyped<Float16>(data, count, out);
  else if (packed.dtype() == DataType::Bf16) detail::loadTyped<BFloat16>(data, count, out);
  else detail::loadBool(data, count, out);
}

template <typename C> std::vector<C> loadAs(const HostTensor& tensor) {
  std::vector<C> values(static_cast<std::size_t>(tensor.elementCount()));
  loadInto(tensor, values.data());
  return values;
}

// Stores out.elementCount() values (C order) into `out`, converting to its dtype: float results round to
// nearest-even into fp32/fp16/bf16 and saturate into integers (NaN -> 0); integer results wrap into
// integers and round to nearest-even into floats; bool stores nonzero (and NaN) as 1.
template <typename C> void storeFrom(HostTensor& out, const C* values) {
  const std::int64_t count = out.elementCount();
  if (count == 0) return;
  if (!out.isContiguous()) {
    HostTensor packed(out.dtype(), out.shape());
    storeFrom(packed, values);
    out.copyFrom(packed);
    return;
  }
  std::byte* data = out.data();
  if (detail::visitPlainStorageType(out.dtype(), [&](auto stored) {
        detail::storeTyped<decltype(stored)>(data, count, values);
      }))
    return;
  if (out.dtype() == DataType::Bool) {
    auto* typed = reinterpret_cast<std::uint8_t*>(data);
    for (std::int64_t i = 0; i < count; ++i) typed[i] = values[i] != C{0} ? 1 : 0;
  } else if constexpr (std::is_same_v<C, float>) {
    if (out.dtype() == DataType::Fp16) detail::storeTyped<Float16>(data, count, values);
    else detail::storeTyped<BFloat16>(data, count, values);
  } else {
    // From double or an integer, going through float could round twice; HostTensor rounds once.
    for (std::int64_t i = 0; i < count; ++i) {
      if constexpr (std::is_floating_point_v<C>) out.setFromDouble(i, static_cast<double>(values[i]));
      else out.setFromInt64(i, static_cast<std::int64_t>(values[i]));
    }
  }
}

template <typename C> void storeFrom(HostTensor& out, const std::vector<C>& values) { storeFrom(out, values.data()); }

// `value` rounded to `dtype` and read back as a double, as a HostTensor element of that dtype would hold it.
double roundToDtype(double value, DataType dtype);

// The multi-index of C-order element `linear` of `shape`, as "[1, 2]" (for messages).
std::string indexString(const Shape& shape, std::int64_t linear);

// Strides (in elements of a C-order contiguous tensor of `shape`) that read it broadcast to `outShape`
// (numpy rules, trailing dims aligned; broadcast dims get stride 0). The shapes must broadcast.
std::vector<std::int64_t> broadcastStrides(const Shape& shape, const Shape& outShape);
// numpy broadcasting of two shapes; nullopt when they do not broadcast.
std::optional<Shape> broadcastShape(const Shape& a, const Shape& b);
// Whether `shape` broadcasts to exactly `outShape`.
bool broadcastsTo(const Shape& shape, const Shape& outShape);

// Calls visit(outIndex, offsets) for every element of `outShape` in C order, where offsets[k] is the
// element's offset under strides[k]. The innermost dim is a plain loop, so the visitor inlines.
template <std::size_t N, typename Visit>
void forEachBroadcast(const Shape& outShape, const std::array<const std::vector<std::int64_t>*, N>& strides,
                      Visit&& visit) {
  const std::size_t rank = outShape.rank();
  std::array<std::int64_t, N> offsets{};
  if (rank == 0) {
    visit(std::int64_t{0}, offsets);
    return;
  }
  for (std::int64_t dim : outShape)
    if (dim == 0) return;
  std::array<std::int64_t, N> base{};
  std::array<std::int64_t, N> inner{};
  for (std::size_t k = 0; k < N; ++k) inner[k] = (*strides[k])[rank - 1];
  const std::int64_t innerCount = outShape[rank - 1];
  std::vector<std::int64_t> index(rank, 0);
  std::int64_t out = 0;
  while (true) {
    for (std::int64_t j = 0; j < innerCount; ++j) {
      for (std::size_t k = 0; k < N; ++k) offsets[k] = base[k] + j * inner[k];
      visit(out++, offsets);
    }
    // Odometer step over the outer dims.
    std::size_t axis = rank - 1;
    while (true) {
      if (axis == 0) return;
      --axis;
      if (++index[axis] < outShape[axis]) {
        for (std::size_t k = 0; k < N; ++k) base[k] += (*strides[k])[axis];
        break;
      }
      for (std::size_t k = 0; k < N; ++k) base[k] -= (*strides[k])[axis] * (outShape[axis] - 1);
      index[axis] = 0;
    }
  }
}

// Offsets of the elements of a strided index space in C order of its shape: offset() is the current one,
// next() moves on (and wraps to the start after the last element).
class StridedWalker {
public:
  StridedWalker(std::vector<std::int64_t> shape, std::vector<std::int64_t> strides);
  std::int64_t offset() const { return m_offset; }
  void next();

private:
  std::vector<std::int64_t> m_shape;
  std::vector<std::int64_t> m_strides;
  std::vector<std::int64_t> m_index;
  std::int64_t m_offset = 0;
};

// Copies element bytes: to[i] = from[offsets[i]] for i in [0, count), for any item size.
void gatherElements(std::byte* to, const std::byte* from, const std::vector<std::int64_t>& offsets,
                    std::size_t itemBytes);

} // namespace pto::reference
