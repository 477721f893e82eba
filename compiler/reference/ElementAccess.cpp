// Compute-type selection, broadcasting strides and strided walks for the reference kernels.
#include "compiler/reference/ElementAccess.h"

#include <algorithm>

namespace pto::reference {

ComputeClass computeClass(DataType dtype) {
  if (isFloatingPoint(dtype)) return ComputeClass::Float;
  if (dtype == DataType::UInt64) return ComputeClass::Unsigned;
  return ComputeClass::Signed;
}

double roundToDtype(double value, DataType dtype) {
  HostTensor cell(dtype, Shape{});
  cell.setFromDouble(0, value);
  return cell.getAsDouble(0);
}

std::string indexString(const Shape& shape, std::int64_t linear) {
  std::vector<std::int64_t> index(shape.rank(), 0);
  for (std::size_t axis = shape.rank(); axis-- > 0;) {
    if (shape[axis] > 0) {
      index[axis] = linear % shape[axis];
      linear /= shape[axis];
    }
  }
  return Shape(index).str();
}

std::vector<std::int64_t> broadcastStrides(const Shape& shape, const Shape& outShape) {
  const std::vector<std::int64_t> own = shape.contiguousStrides();
  std::vector<std::int64_t> strides(outShape.rank(), 0);
  const std::size_t lead = outShape.rank() - shape.rank();
  for (std::size_t axis = 0; axis < shape.rank(); ++axis)
    strides[lead + axis] = shape[axis] == 1 ? 0 : own[axis];
  return strides;
}

std::optional<Shape> broadcastShape(const Shape& a, const Shape& b) {
  const std::size_t rank = std::max(a.rank(), b.rank());
  std::vector<std::int64_t> dims(rank, 1);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t da = i < a.rank() ? a[a.rank() - 1 - i] : 1;
    const std::int64_t db = i < b.rank() ? b[b.rank() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) return std::nullopt;
    dims[rank - 1 - i] = da == 1 ? db : da;
  }
  return Shape(std::move(dims));
}

bool broadcastsTo(const Shape& shape, const Shape& outShape) {
  if (shape.rank() > outShape.rank()) return false;
  const std::size_t lead = outShape.rank() - shape.rank();
  for (std::size_t axis = 0; axis < shape.rank(); ++axis)
    if (shape[axis] != 1 && shape[axis] != outShape[lead + axis]) return false;
  return true;
}

StridedWalker::StridedWalker(std::vector<std::int64_t> shape, std::vector<std::int64_t> strides)
    : m_shape(std::move(shape)), m_strides(std::move(strides)), m_index(m_shape.size(), 0) {}

void StridedWalker::next() {
  for (std::size_t axis = m_shape.size(); axis-- > 0;) {
    if (++m_index[axis] < m_shape[axis]) {
      m_offset += m_strides[axis];
      return;
    }
    m_offset -= m_strides[axis] * (m_shape[axis] - 1);
    m_index[axis] = 0;
  }
}

namespace {

template <std::size_t Bytes>
void gatherFixed(std::byte* to, const std::byte* from, const std::vector<std::int64_t>& offsets) {
  for (std::size_t i = 0; i < offsets.size(); ++i)
    std::memcpy(to + i * Bytes, from + offsets[i] * static_cast<std::int64_t>(Bytes), Bytes);
}

} // namespace

void gatherElements(std::byte* to, const std::byte* from, const std::vector<std::int64_t>& offsets,
                    std::size_t itemBytes) {
  switch (itemBytes) {
  case 1: return gatherFixed<1>(to, from, offsets);
  case 2: return gatherFixed<2>(to, from, offsets);
  case 4: return gatherFixed<4>(to, from, offsets);
  case 8: return gatherFixed<8>(to, from, offsets);
  default:
    for (std::size_t i = 0; i < offsets.size(); ++i)
      std::memcpy(to + i * itemBytes, from + offsets[i] * static_cast<std::int64_t>(itemBytes), itemBytes);
  }
}

} // namespace pto::reference
