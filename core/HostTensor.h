// An owning, typed tensor in host memory: kernel arguments, golden outputs and simulator data.
#pragma once

#include "core/DataType.h"
#include "core/Diagnostics.h"
#include "core/Float16.h"
#include "core/Shape.h"
#include "core/SourceLocation.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

namespace pto {

// The C++ element type that stores each DataType (bool is one byte, as in numpy).
template <typename T> struct DataTypeOf;
template <> struct DataTypeOf<float> { static constexpr DataType value = DataType::Fp32; };
template <> struct DataTypeOf<Float16> { static constexpr DataType value = DataType::Fp16; };
template <> struct DataTypeOf<BFloat16> { static constexpr DataType value = DataType::Bf16; };
template <> struct DataTypeOf<std::int8_t> { static constexpr DataType value = DataType::Int8; };
template <> struct DataTypeOf<std::int16_t> { static constexpr DataType value = DataType::Int16; };
template <> struct DataTypeOf<std::int32_t> { static constexpr DataType value = DataType::Int32; };
template <> struct DataTypeOf<std::int64_t> { static constexpr DataType value = DataType::Int64; };
template <> struct DataTypeOf<std::uint8_t> { static constexpr DataType value = DataType::UInt8; };
template <> struct DataTypeOf<std::uint16_t> { static constexpr DataType value = DataType::UInt16; };
template <> struct DataTypeOf<std::uint32_t> { static constexpr DataType value = DataType::UInt32; };
template <> struct DataTypeOf<std::uint64_t> { static constexpr DataType value = DataType::UInt64; };
template <> struct DataTypeOf<bool> { static constexpr DataType value = DataType::Bool; };

// A HostTensor is a handle, like a numpy array: storage (one 64-byte aligned
// byte buffer, shared), a dtype, a shape, strides in elements and an element
// offset into the storage. Copying a HostTensor or taking a view() gives
// another handle onto the same storage, so writes through either are seen by
// both; contiguous() and astype() make independent copies. Constness is
// shallow, as with shared_ptr: a const handle still yields views that write.
// A tensor made by a constructor or factory is contiguous in C order.
//
// Value conversions (setFromDouble, setFromInt64, astype, copyFrom across
// dtypes) follow numpy's astype where numpy defines it:
//  - to float16/bfloat16: rounded once, to nearest-even, from the exact
//    source value, whatever the source (double, int64, ...). Going through
//    float would round twice, so the value is first narrowed to float with
//    round-to-odd, which makes the second rounding the correct one.
//  - to float32: rounded to nearest-even (int64 -> float32 directly).
//  - float to integer: truncated toward zero. Out of range numpy is undefined
//    (it returns whatever the CPU does); here it saturates to the integer
//    type's min/max, and NaN becomes 0.
//  - integer to integer: wraps modulo 2^bits, as numpy does.
//  - to bool: nonzero (and NaN) is true.
// Logical elements are numbered in C order over the shape ("linear index").
class HostTensor {
public:
  // Largest storage a tensor may have; bigger requests are user errors.
  static constexpr std::int64_t kMaxBytes = std::int64_t{1} << 32;
  static constexpr std::size_t kAlignmentBytes = 64;

  // A float32 tensor of shape [0]: no elements, no storage.
  HostTensor();
  // Zero-filled and contiguous. For shapes the program made itself: an
  // invalid or oversized shape is an internal error (aborts). Shapes that
  // come from users go through tryCreate.
  HostTensor(DataType dtype, Shape shape);

  // Zero-filled and contiguous, or an error at `where` when the shape has a
  // negative dimension, more than kMaxBytes of data, or cannot be allocated.
  static std::optional<HostTensor> tryCreate(DataType dtype, Shape shape, DiagnosticEngine& diags,
                                             const SourceLocation& where);

  // A contiguous tensor over `data`, memory it does not own (a Python
  // caller's array): no copy, so a kernel's outputs land in the caller's
  // buffer and its inputs cost nothing to bind. The caller keeps `data` alive
  // while any handle exists. `data` must be kAlignmentBytes-aligned, so reading
  // the last element's whole cache line (as allocated storage allows) stays
  // in a page the caller owns; nullopt when it is not, or the shape is invalid
  // or above kMaxBytes.
  static std::optional<HostTensor> borrowing(DataType dtype, Shape shape, std::byte* data);

  // A contiguous tensor holding `values` in C order; the dtype is T's.
  // values.size() must equal the shape's element count.
  template <typename T> static HostTensor fromValues(Shape shape, const std::vector<T>& values) {
    HostTensor tensor(DataTypeOf<T>::value, std::move(shape));
    tensor.checkCount(values.size());
    if constexpr (std::is_same_v<T, bool>) {
      // std::vector<bool> is packed bits, not bytes.
      for (std::size_t i = 0; i < values.size(); ++i)
        tensor.data()[i] = std::byte{values[i] ? std::uint8_t{1} : std::uint8_t{0}};
    } else if (!values.empty()) {
      std::memcpy(tensor.data(), values.data(), values.size() * sizeof(T));
    }
    return tensor;
  }
  // A contiguous tensor of `dtype` from doubles, each converted as setFromDouble does.
  static HostTensor fromDoubles(DataType dtype, Shape shape, const std::vector<double>& values);

  DataType dtype() const { return m_dtype; }
  const Shape& shape() const { return m_shape; }
  std::size_t rank() const { return m_shape.rank(); }
  const std::vector<std::int64_t>& strides() const { return m_strides; }
  std::int64_t offsetElements() const { return m_offsetElements; }
  std::int64_t elementCount() const { return m_shape.elementCount(); }
  std::size_t itemBytes() const { return sizeOf(m_dtype); }
  // Bytes of the logical elements (what contiguous() would hold).
  std::size_t byteCount() const { return static_cast<std::size_t>(elementCount()) * itemBytes(); }
  // True when both handles use the same storage buffer.
  bool sharesStorageWith(const HostTensor& other) const { return m_storage && m_storage == other.m_storage; }

  // C order with no gaps (strides of size-1 dimensions do not matter, and an
  // empty tensor is contiguous), as numpy's C_CONTIGUOUS flag.
  bool isContiguous() const;
  // The first logical element's bytes; only for contiguous tensors, where
  // byteCount() bytes follow in C order. Null when the tensor is empty.
  std::byte* data();
  const std::byte* data() const;
  std::span<std::byte> bytes() { return {data(), byteCount()}; }
  std::span<const std::byte> bytes() const { return {data(), byteCount()}; }

  // Typed access by multi-index; T must be the dtype's storage type and the
  // indices in range (checked; a mismatch is an internal error).
  template <typename T> T& at(std::span<const std::int64_t> indices) {
    return *reinterpret_cast<T*>(elementAt(DataTypeOf<T>::value, indices));
  }
  template <typename T> const T& at(std::span<const std::int64_t> indices) const {
    return *reinterpret_cast<const T*>(elementAt(DataTypeOf<T>::value, indices));
  }
  template <typename T> T& at(std::initializer_list<std::int64_t> indices) {
    return at<T>(std::span<const std::int64_t>(indices.begin(), indices.size()));
  }
  template <typename T> const T& at(std::initializer_list<std::int64_t> indices) const {
    return at<T>(std::span<const std::int64_t>(indices.begin(), indices.size()));
  }

  // Element `linearIndex` (C order) as a double. Exact for every dtype
  // except int64/uint64 beyond 2^53, which round to nearest.
  double getAsDouble(std::int64_t linearIndex) const;
  // Element `linearIndex` of an integer or bool dtype as int64, exactly
  // (uint64 above 2^63 wraps); a float element is truncated toward zero.
  std::int64_t getAsInt64(std::int64_t linearIndex) const;
  // Stores `value` converted to the dtype by the rules above.
  void setFromDouble(std::int64_t linearIndex, double value);
  // Stores an integer: wraps for integer dtypes, rounds once for float ones.
  void setFromInt64(std::int64_t linearIndex, std::int64_t value);

  // The box [offsets, offsets + sizes) of this tensor, sharing its storage.
  // Same rank; the box must lie inside the shape (internal error otherwise).
  HostTensor view(const std::vector<std::int64_t>& offsets, const std::vector<std::int64_t>& sizes) const;
  // A packed C-order copy with its own storage (always a copy).
  HostTensor contiguous() const;
  // This view's elements, placed as they are in `base`'s storage, in `other` instead: `base` and `other` are
  // contiguous tensors of one dtype and shape, and this view shares `base`'s storage (internal error
  // otherwise). It mirrors a region written into one tensor onto a copy of it.
  HostTensor mirroredIn(const HostTensor& base, const HostTensor& other) const;
  // The same elements in `shape` (same count), C order: sharing the storage
  // when this tensor is contiguous, else a contiguous copy reshaped.
  HostTensor reshapedView(const Shape& shape) const;
  // The same bytes in C order read as `dtype` elements of `shape` (the same
  // byte count): sharing the storage when this tensor is contiguous, else a
  // contiguous copy reinterpreted. reshapedView when `dtype` is this dtype.
  HostTensor reinterpretedView(DataType dtype, const Shape& shape) const;
  // Writes `source`'s elements into this tensor's (shared) storage, converting
  // dtypes as astype does. Shapes must be equal; overlapping storage is fine.
  void copyFrom(const HostTensor& source);
  // A contiguous copy converted to `dtype`.
  HostTensor astype(DataType dtype) const;

  // Same dtype, same shape and the same bits in every logical element.
  bool equals(const HostTensor& other) const;
  // numpy.allclose with equal shapes: |a - b| <= atol + rtol * |b| for every
  // element (b is `other`); infinities must match exactly; NaN is close only
  // to NaN and only when equalNan. Different shapes are never close.
  bool allClose(const HostTensor& other, double rtol, double atol, bool equalNan = false) const;

private:
  std::byte* elementAt(DataType expected, std::span<const std::int64_t> indices) const;
  std::byte* linearElement(std::int64_t linearIndex) const;
  void checkCount(std::size_t valueCount) const;

  std::shared_ptr<std::byte> m_storage;
  DataType m_dtype = DataType::Fp32;
  Shape m_shape{0};
  std::vector<std::int64_t> m_strides{1};
  std::int64_t m_offsetElements = 0;
};

} // namespace pto
