// Shape arithmetic and printing.
#include "core/Shape.h"

#include <algorithm>
#include <limits>

namespace pto {

std::int64_t elementCountOf(const std::vector<std::int64_t>& extents) {
  std::int64_t count = 1;
  for (std::int64_t extent : extents) count *= std::max<std::int64_t>(extent, 0);
  return count;
}

std::optional<std::int64_t> Shape::checkedElementCount() const {
  std::int64_t count = 1;
  for (std::int64_t dim : m_dims) {
    if (dim < 0) return std::nullopt;
    if (dim != 0 && count > std::numeric_limits<std::int64_t>::max() / dim) return std::nullopt;
    count *= dim;
  }
  return count;
}

std::int64_t Shape::elementCount() const {
  std::int64_t count = 1;
  for (std::int64_t dim : m_dims) count *= dim;
  return count;
}

std::vector<std::int64_t> Shape::contiguousStrides() const {
  std::vector<std::int64_t> strides(m_dims.size(), 1);
  for (std::size_t axis = m_dims.size(); axis-- > 1;) strides[axis - 1] = strides[axis] * m_dims[axis];
  return strides;
}

std::string dimsString(const std::vector<std::int64_t>& dims) {
  std::string text = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(dims[i]);
  }
  return text + "]";
}

std::string Shape::str() const {
  return dimsString(m_dims);
}

std::string Shape::compactStr() const {
  if (m_dims.empty()) return "scalar";
  std::string text;
  for (std::size_t i = 0; i < m_dims.size(); ++i) {
    if (i) text += "x";
    text += std::to_string(m_dims[i]);
  }
  return text;
}

} // namespace pto
