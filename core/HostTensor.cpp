// HostTensor storage, element conversion, views and comparison.
#include "core/HostTensor.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>

namespace pto {
namespace {

// Misuse by the program itself (wrong dtype in at<T>, a view outside the
// tensor): a bug, not a user error, so it stops here with a report.
[[noreturn]] void internalError(const std::string& what) {
  std::fprintf(stderr, "PTO Studio internal error in HostTensor: %s\n", what.c_str());
  std::abort();
}

std::shared_ptr<std::byte> allocateZeroed(std::size_t bytes) {
  constexpr std::size_t kAlign = HostTensor::kAlignmentBytes;
  // Whole cache lines, so kernels may read the last one without a bounds check.
  const std::size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
  // calloc, not new + memset: a large block comes straight from the kernel
  // as zero pages that cost nothing until written, so a tensor a run never
  // touches (a timing run's inputs) costs no time.
  void* raw = std::calloc(1, rounded + kAlign);
  if (!raw) throw std::bad_alloc();
  auto address = reinterpret_cast<std::uintptr_t>(raw);
  auto* aligned = reinterpret_cast<std::byte*>((address + kAlign - 1) / kAlign * kAlign);
  return std::shared_ptr<std::byte>(aligned, [raw](std::byte*) { std::free(raw); });
}

// Calls visit(offsetA, offsetB) for every logical element in C order, with
// the storage offsets (in elements) of that element in two layouts of one
// shape; stops early when visit returns false.
template <typename Visit> void forEachElementPair(const Shape& shape, const std::vector<std::int64_t>& stridesA,
                                                  std::int64_t baseA, const std::vector<std::int64_t>& stridesB,
                                                  std::int64_t baseB, Visit visit) {
  const std::size_t rank = shape.rank();
  for (std::int64_t dim : shape)
    if (dim == 0) return;
  std::vector<std::int64_t> index(rank, 0);
  std::int64_t offsetA = baseA;
  std::int64_t offsetB = baseB;
  while (true) {
    if (!visit(offsetA, offsetB)) return;
    // Odometer step: bump the innermost axis, carrying outwards.
    std::size_t axis = rank;
    while (axis > 0) {
      --axis;
      if (++index[axis] < shape[axis]) {
        offsetA += stridesA[axis];
        offsetB += stridesB[axis];
        break;
      }
      offsetA -= stridesA[axis] * (shape[axis] - 1);
      offsetB -= stridesB[axis] * (shape[axis] - 1);
      index[axis] = 0;
      if (axis == 0) return;
    }
    if (rank == 0) return;
  }
}

template <typename T> T load(const std::byte* p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
}
template <typename T> void store(std::byte* p, T value) { std::memcpy(p, &value, sizeof value); }

// One element held without loss: every float dtype fits a double exactly,
// every integer dtype fits one of the 64-bit integers.
struct ElementValue {
  enum class Kind { Float, Signed, Unsigned };
  Kind kind = Kind::Float;
  double real = 0.0;
  std::int64_t signedValue = 0;
  std::uint64_t unsignedValue = 0;

  static ElementValue ofFloat(double v) { return {Kind::Float, v, 0, 0}; }
  static ElementValue ofSigned(std::int64_t v) { return {Kind::Signed, 0.0, v, 0}; }
  static ElementValue ofUnsigned(std::uint64_t v) { return {Kind::Unsigned, 0.0, 0, v}; }

  double toDouble() const {
    switch (kind) {
    case Kind::Float: return real;
    case Kind::Signed: return static_cast<double>(signedValue);
    case Kind::Unsigned: return static_cast<double>(unsignedValue);
    }
    return real;
  }
};

ElementValue loadValue(const std::byte* p, DataType type) {
  switch (type) {
  case DataType::Fp32: return ElementValue::ofFloat(load<float>(p));
  case DataType::Fp16: return ElementValue::ofFloat(halfBitsToFloat(load<std::uint16_t>(p)));
  case DataType::Bf16: return ElementValue::ofFloat(bfloat16BitsToFloat(load<std::uint16_t>(p)));
  case DataType::Int8: return ElementValue::ofSigned(load<std::int8_t>(p));
  case DataType::Int16: return ElementValue::ofSigned(load<std::int16_t>(p));
  case DataType::Int32: return ElementValue::ofSigned(load<std::int32_t>(p));
  case DataType::Int64: return ElementValue::ofSigned(load<std::int64_t>(p));
  case DataType::UInt8: return ElementValue::ofUnsigned(load<std::uint8_t>(p));
  case DataType::UInt16: return ElementValue::ofUnsigned(load<std::uint16_t>(p));
  case DataType::UInt32: return ElementValue::ofUnsigned(load<std::uint32_t>(p));
  case DataType::UInt64: return ElementValue::ofUnsigned(load<std::uint64_t>(p));
  case DataType::Bool: return ElementValue::ofUnsigned(load<std::uint8_t>(p) != 0 ? 1 : 0);
  }
  internalError("unknown dtype");
}

// Round-to-odd narrowing to float: exact values stay, inexact ones become
// whichever neighbouring float has an odd last mantissa bit. Rounding that
// result again to nearest-even at 11 (fp16) or 8 (bf16) bits gives the same
// answer as rounding the original once, because float keeps more than two
// extra bits (the classic fix for double rounding).
float roundToOddFloat(double value) {
  const float nearest = static_cast<float>(value);
  if (std::isnan(value) || static_cast<double>(nearest) == value) return nearest;
  const float towardZero =
      std::fabs(static_cast<double>(nearest)) > std::fabs(value) ? std::nextafter(nearest, 0.0f) : nearest;
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(towardZero) | 1u);
}

// The same for an integer magnitude, which may not fit a double exactly.
float roundToOddFloat(std::uint64_t magnitude) {
  constexpr int kFloatBits = std::numeric_limits<float>::digits;  // 24
  const int width = std::bit_width(magnitude);
  if (width <= kFloatBits) return static_cast<float>(magnitude);
  const int shift = width - kFloatBits;
  const bool sticky = (magnitude & ((std::uint64_t{1} << shift) - 1)) != 0;
  const std::uint64_t kept = (magnitude >> shift) | (sticky ? 1u : 0u);
  return std::ldexp(static_cast<float>(kept), shift);
}

float roundToOddFloat(const ElementValue& value) {
  switch (value.kind) {
  case ElementValue::Kind::Float: return roundToOddFloat(value.real);
  case ElementValue::Kind::Signed: {
    const std::uint64_t magnitude = value.signedValue < 0
                                        ? std::uint64_t{0} - static_cast<std::uint64_t>(value.signedValue)
                                        : static_cast<std::uint64_t>(value.signedValue);
    const float rounded = roundToOddFloat(magnitude);
    return value.signedValue < 0 ? -rounded : rounded;
  }
  case ElementValue::Kind::Unsigned: return roundToOddFloat(value.unsignedValue);
  }
  return 0.0f;
}

float toFloat32(const ElementValue& value) {
  switch (value.kind) {
  case ElementValue::Kind::Float: return static_cast<float>(value.real);
  case ElementValue::Kind::Signed: return static_cast<float>(value.signedValue);
  case ElementValue::Kind::Unsigned: return static_cast<float>(value.unsignedValue);
  }
  return 0.0f;
}

// Float to integer: truncate toward zero, saturate out of range, NaN -> 0.
// Integer to integer: wrap modulo 2^bits (C++20 defines the conversion so).
template <typename I> I toInteger(const ElementValue& value) {
  switch (value.kind) {
  case ElementValue::Kind::Float: {
    if (std::isnan(value.real)) return 0;
    const double truncated = std::trunc(value.real);
    // min() is 0 or -2^(bits-1) and max()+1 is 2^bits or 2^(bits-1): all exact doubles.
    const double low = static_cast<double>(std::numeric_limits<I>::min());
    const double highExclusive = 2.0 * static_cast<double>(std::numeric_limits<I>::max() / 2 + 1);
    if (truncated <= low) return std::numeric_limits<I>::min();
    if (truncated >= highExclusive) return std::numeric_limits<I>::max();
    return static_cast<I>(truncated);
  }
  case ElementValue::Kind::Signed: return static_cast<I>(value.signedValue);
  case ElementValue::Kind::Unsigned: return static_cast<I>(value.unsignedValue);
  }
  return 0;
}

bool toBool(const ElementValue& value) {
  switch (value.kind) {
  case ElementValue::Kind::Float: return value.real != 0.0;  // NaN is true, as in numpy
  case ElementValue::Kind::Signed: return value.signedValue != 0;
  case ElementValue::Kind::Unsigned: return value.unsignedValue != 0;
  }
  return false;
}

void storeValue(std::byte* p, DataType type, const ElementValue& value) {
  switch (type) {
  case DataType::Fp32: return store(p, toFloat32(value));
  case DataType::Fp16: return store(p, floatToHalfBits(roundToOddFloat(value)));
  case DataType::Bf16: return store(p, floatToBfloat16Bits(roundToOddFloat(value)));
  case DataType::Int8: return store(p, toInteger<std::int8_t>(value));
  case DataType::Int16: return store(p, toInteger<std::int16_t>(value));
  case DataType::Int32: return store(p, toInteger<std::int32_t>(value));
  case DataType::Int64: return store(p, toInteger<std::int64_t>(value));
  case DataType::UInt8: return store(p, toInteger<std::uint8_t>(value));
  case DataType::UInt16: return store(p, toInteger<std::uint16_t>(value));
  case DataType::UInt32: return store(p, toInteger<std::uint32_t>(value));
  case DataType::UInt64: return store(p, toInteger<std::uint64_t>(value));
  case DataType::Bool: return store(p, std::uint8_t{toBool(value) ? std::uint8_t{1} : std::uint8_t{0}});
  }
  internalError("unknown dtype");
}

bool isClose(double a, double b, double rtol, double atol, bool equalNan) {
  if (std::isnan(a) || std::isnan(b)) return equalNan && std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(a - b) <= atol + rtol * std::fabs(b);
}

// Why a shape cannot back a tensor, or empty when it can.
std::string shapeProblem(DataType dtype, const Shape& shape) {
  for (std::int64_t dim : shape)
    if (dim < 0) return "shape " + shape.str() + " has a negative dimension";
  const std::optional<std::int64_t> count = shape.checkedElementCount();
  if (!count) return "shape " + shape.str() + " has more elements than a 64-bit count can hold";
  const auto itemBytes = static_cast<std::int64_t>(sizeOf(dtype));
  if (*count > HostTensor::kMaxBytes / itemBytes) {
    return "a " + std::string(name(dtype)) + " tensor of shape " + shape.str() + " needs " +
           (*count > std::numeric_limits<std::int64_t>::max() / itemBytes ? std::string("more than 2^63")
                                                                          : std::to_string(*count * itemBytes)) +
           " bytes, more than host tensors allow (" + std::to_string(HostTensor::kMaxBytes) + " bytes, 4 GiB)";
  }
  return {};
}

} // namespace

HostTensor::HostTensor() = default;

HostTensor::HostTensor(DataType dtype, Shape shape)
    : m_dtype(dtype), m_shape(std::move(shape)), m_strides(m_shape.contiguousStrides()) {
  if (std::string problem = shapeProblem(m_dtype, m_shape); !problem.empty()) internalError(problem);
  if (m_shape.elementCount() > 0) m_storage = allocateZeroed(byteCount());
}

std::optional<HostTensor> HostTensor::tryCreate(DataType dtype, Shape shape, DiagnosticEngine& diags,
                                                const SourceLocation& where) {
  if (std::string problem = shapeProblem(dtype, shape); !problem.empty()) return diags.error(where) << problem;
  try {
    return HostTensor(dtype, shape);
  } catch (const std::bad_alloc&) {
    return diags.error(where) << "out of memory allocating "
                              << static_cast<std::size_t>(shape.elementCount()) * sizeOf(dtype) << " bytes for a "
                              << name(dtype) << " tensor of shape " << shape.str();
  }
}

std::optional<HostTensor> HostTensor::borrowing(DataType dtype, Shape shape, std::byte* data) {
  if (!shapeProblem(dtype, shape).empty() || reinterpret_cast<std::uintptr_t>(data) % kAlignmentBytes != 0)
    return std::nullopt;
  HostTensor tensor;
  tensor.m_dtype = dtype;
  tensor.m_shape = std::move(shape);
  tensor.m_strides = tensor.m_shape.contiguousStrides();
  // An owner-less handle (shared_ptr's aliasing constructor): copies of it
  // compare equal as one storage and nothing frees the caller's memory.
  if (tensor.m_shape.elementCount() > 0) tensor.m_storage = std::shared_ptr<std::byte>(std::shared_ptr<void>(), data);
  return tensor;
}

HostTensor HostTensor::fromDoubles(DataType dtype, Shape shape, const std::vector<double>& values) {
  HostTensor tensor(dtype, std::move(shape));
  tensor.checkCount(values.size());
  std::byte* out = tensor.data();
  const std::size_t itemBytes = tensor.itemBytes();
  for (std::size_t i = 0; i < values.size(); ++i)
    storeValue(out + i * itemBytes, dtype, ElementValue::ofFloat(values[i]));
  return tensor;
}

void HostTensor::checkCount(std::size_t valueCount) const {
  if (valueCount != static_cast<std::size_t>(elementCount()))
    internalError(std::to_string(valueCount) + " values for shape " + m_shape.str());
}

bool HostTensor::isContiguous() const {
  for (std::int64_t dim : m_shape)
    if (dim == 0) return true;
  std::int64_t expected = 1;
  for (std::size_t axis = m_shape.rank(); axis-- > 0;) {
    if (m_shape[axis] != 1 && m_strides[axis] != expected) return false;
    expected *= m_shape[axis];
  }
  return true;
}

std::byte* HostTensor::data() {
  if (!isContiguous()) internalError("data() of a non-contiguous tensor; call contiguous() first");
  if (!m_storage || elementCount() == 0) return nullptr;
  return m_storage.get() + m_offsetElements * static_cast<std::int64_t>(itemBytes());
}

const std::byte* HostTensor::data() const { return const_cast<HostTensor*>(this)->data(); }

std::byte* HostTensor::elementAt(DataType expected, std::span<const std::int64_t> indices) const {
  if (expected != m_dtype)
    internalError("at<" + std::string(name(expected)) + "> on a " + std::string(name(m_dtype)) + " tensor");
  if (indices.size() != m_shape.rank())
    internalError(std::to_string(indices.size()) + " indices for a rank-" + std::to_string(m_shape.rank()) + " tensor");
  std::int64_t offset = m_offsetElements;
  for (std::size_t axis = 0; axis < indices.size(); ++axis) {
    if (indices[axis] < 0 || indices[axis] >= m_shape[axis])
      internalError("index " + std::to_string(indices[axis]) + " out of range for axis " + std::to_string(axis) +
                    " of shape " + m_shape.str());
    offset += indices[axis] * m_strides[axis];
  }
  return m_storage.get() + offset * static_cast<std::int64_t>(itemBytes());
}

std::byte* HostTensor::linearElement(std::int64_t linearIndex) const {
  if (linearIndex < 0 || linearIndex >= elementCount())
    internalError("linear index " + std::to_string(linearIndex) + " out of range for shape " + m_shape.str());
  std::int64_t offset = m_offsetElements;
  if (isContiguous()) {
    offset += linearIndex;
  } else {
    for (std::size_t axis = m_shape.rank(); axis-- > 0;) {
      offset += (linearIndex % m_shape[axis]) * m_strides[axis];
      linearIndex /= m_shape[axis];
    }
  }
  return m_storage.get() + offset * static_cast<std::int64_t>(itemBytes());
}

double HostTensor::getAsDouble(std::int64_t linearIndex) const {
  return loadValue(linearElement(linearIndex), m_dtype).toDouble();
}

std::int64_t HostTensor::getAsInt64(std::int64_t linearIndex) const {
  ElementValue value = loadValue(linearElement(linearIndex), m_dtype);
  switch (value.kind) {
  case ElementValue::Kind::Signed: return value.signedValue;
  case ElementValue::Kind::Unsigned: return static_cast<std::int64_t>(value.unsignedValue);
  case ElementValue::Kind::Float: break;
  }
  return static_cast<std::int64_t>(value.real);
}

void HostTensor::setFromDouble(std::int64_t linearIndex, double value) {
  storeValue(linearElement(linearIndex), m_dtype, ElementValue::ofFloat(value));
}

void HostTensor::setFromInt64(std::int64_t linearIndex, std::int64_t value) {
  storeValue(linearElement(linearIndex), m_dtype, ElementValue::ofSigned(value));
}

HostTensor HostTensor::view(const std::vector<std::int64_t>& offsets, const std::vector<std::int64_t>& sizes) const {
  if (offsets.size() != m_shape.rank() || sizes.size() != m_shape.rank())
    internalError("view of rank " + std::to_string(offsets.size()) + "/" + std::to_string(sizes.size()) +
                  " into a rank-" + std::to_string(m_shape.rank()) + " tensor");
  HostTensor result = *this;
  for (std::size_t axis = 0; axis < offsets.size(); ++axis) {
    if (offsets[axis] < 0 || sizes[axis] < 0 || offsets[axis] > m_shape[axis] - sizes[axis])
      internalError("view [" + std::to_string(offsets[axis]) + ", +" + std::to_string(sizes[axis]) + ") outside axis " +
                    std::to_string(axis) + " of shape " + m_shape.str());
    result.m_offsetElements += offsets[axis] * m_strides[axis];
    result.m_shape[axis] = sizes[axis];
  }
  return result;
}

HostTensor HostTensor::mirroredIn(const HostTensor& base, const HostTensor& other) const {
  if (!sharesStorageWith(base) || !base.isContiguous() || !other.isContiguous() || base.m_dtype != m_dtype ||
      other.m_dtype != m_dtype || !(base.m_shape == other.m_shape))
    internalError("mirroredIn: the view is not of `base`, or `base` and `other` differ in layout");
  // The view reaches storage elements [start, start + span] relative to base's first element.
  const std::int64_t start = m_offsetElements - base.m_offsetElements;
  std::int64_t span = 0;
  for (std::size_t axis = 0; axis < m_shape.rank(); ++axis)
    if (m_shape[axis] > 0) span += (m_shape[axis] - 1) * m_strides[axis];
  if (start < 0 || (elementCount() > 0 && start + span >= base.elementCount()))
    internalError("mirroredIn: the view reaches outside `base`");
  HostTensor result = *this;
  result.m_storage = other.m_storage;
  result.m_offsetElements = other.m_offsetElements + start;
  return result;
}

HostTensor HostTensor::reshapedView(const Shape& shape) const {
  if (shape.elementCount() != elementCount())
    throw std::logic_error("HostTensor::reshapedView: " + shape.str() + " does not hold the " +
                           std::to_string(elementCount()) + " elements of " + m_shape.str());
  HostTensor result = isContiguous() ? *this : contiguous();
  result.m_shape = shape;
  result.m_strides.assign(shape.rank(), 1);
  for (std::size_t d = shape.rank(); d > 1; --d) result.m_strides[d - 2] = result.m_strides[d - 1] * shape[d - 1];
  return result;
}

HostTensor HostTensor::reinterpretedView(DataType dtype, const Shape& shape) const {
  const auto item = static_cast<std::int64_t>(sizeOf(dtype));
  if (shape.elementCount() * item != static_cast<std::int64_t>(byteCount()))
    throw std::logic_error("HostTensor::reinterpretedView: " + std::string(name(dtype)) + " " + shape.str() +
                           " does not hold the " + std::to_string(byteCount()) + " bytes of " +
                           std::string(name(m_dtype)) + " " + m_shape.str());
  // The first byte must start a whole element of the new dtype to share the storage.
  const bool shareable = isContiguous() && m_offsetElements * static_cast<std::int64_t>(itemBytes()) % item == 0;
  HostTensor result = shareable ? *this : contiguous();
  result.m_offsetElements = result.m_offsetElements * static_cast<std::int64_t>(itemBytes()) / item;
  result.m_dtype = dtype;
  result.m_shape = shape;
  result.m_strides = shape.contiguousStrides();
  return result;
}

HostTensor HostTensor::contiguous() const {
  HostTensor result(m_dtype, m_shape);
  if (result.elementCount() == 0) return result;
  const std::size_t item = itemBytes();
  if (isContiguous()) {
    std::memcpy(result.data(), data(), byteCount());
    return result;
  }
  const std::byte* from = m_storage.get();
  std::byte* to = result.m_storage.get();
  forEachElementPair(
      m_shape, result.m_strides, 0, m_strides, m_offsetElements, [&](std::int64_t dst, std::int64_t src) {
        std::memcpy(to + dst * static_cast<std::int64_t>(item), from + src * static_cast<std::int64_t>(item), item);
        return true;
      });
  return result;
}

void HostTensor::copyFrom(const HostTensor& source) {
  if (source.m_shape != m_shape)
    internalError("copyFrom a tensor of shape " + source.m_shape.str() + " into one of shape " + m_shape.str());
  if (elementCount() == 0) return;
  // A packed copy first makes overlapping source and destination harmless.
  const HostTensor from = sharesStorageWith(source) ? source.contiguous() : source;
  const auto fromItem = static_cast<std::int64_t>(from.itemBytes());
  const auto toItem = static_cast<std::int64_t>(itemBytes());
  const std::byte* fromBase = from.m_storage.get();
  std::byte* toBase = m_storage.get();
  const DataType fromType = from.m_dtype;
  const DataType toType = m_dtype;
  forEachElementPair(m_shape, m_strides, m_offsetElements, from.m_strides, from.m_offsetElements,
                     [&](std::int64_t dst, std::int64_t src) {
                       if (fromType == toType)
                         std::memcpy(toBase + dst * toItem, fromBase + src * fromItem,
                                     static_cast<std::size_t>(toItem));
                       else
                         storeValue(toBase + dst * toItem, toType, loadValue(fromBase + src * fromItem, fromType));
                       return true;
                     });
}

HostTensor HostTensor::astype(DataType dtype) const {
  if (dtype == m_dtype) return contiguous();
  HostTensor result(dtype, m_shape);
  result.copyFrom(*this);
  return result;
}

bool HostTensor::equals(const HostTensor& other) const {
  if (m_dtype != other.m_dtype || m_shape != other.m_shape) return false;
  const auto item = static_cast<std::int64_t>(itemBytes());
  const std::byte* a = m_storage.get();
  const std::byte* b = other.m_storage.get();
  bool same = true;
  forEachElementPair(m_shape, m_strides, m_offsetElements, other.m_strides, other.m_offsetElements,
                     [&](std::int64_t offsetA, std::int64_t offsetB) {
                       same = std::memcmp(a + offsetA * item, b + offsetB * item, static_cast<std::size_t>(item)) == 0;
                       return same;
                     });
  return same;
}

bool HostTensor::allClose(const HostTensor& other, double rtol, double atol, bool equalNan) const {
  if (m_shape != other.m_shape) return false;
  const auto itemA = static_cast<std::int64_t>(itemBytes());
  const auto itemB = static_cast<std::int64_t>(other.itemBytes());
  const std::byte* a = m_storage.get();
  const std::byte* b = other.m_storage.get();
  bool close = true;
  forEachElementPair(m_shape, m_strides, m_offsetElements, other.m_strides, other.m_offsetElements,
                     [&](std::int64_t offsetA, std::int64_t offsetB) {
                       close = isClose(loadValue(a + offsetA * itemA, m_dtype).toDouble(),
                                       loadValue(b + offsetB * itemB, other.m_dtype).toDouble(), rtol, atol, equalNan);
                       return close;
                     });
  return close;
}

} // namespace pto
