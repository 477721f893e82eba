// Concrete tensor shapes (row-major, outermost dimension first).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace pto {

// Elements of a box with these extents; a negative extent counts as empty.
std::int64_t elementCountOf(const std::vector<std::int64_t>& extents);
// "[32, 32, 1, 256]", the way messages and dumps write dims.
std::string dimsString(const std::vector<std::int64_t>& dims);

class Shape {
public:
  Shape() = default;  // rank 0: a scalar with one element
  Shape(std::initializer_list<std::int64_t> dims) : m_dims(dims) {}
  explicit Shape(std::vector<std::int64_t> dims) : m_dims(std::move(dims)) {}

  std::size_t rank() const { return m_dims.size(); }
  std::int64_t operator[](std::size_t axis) const { return m_dims[axis]; }
  std::int64_t& operator[](std::size_t axis) { return m_dims[axis]; }
  const std::vector<std::int64_t>& dims() const { return m_dims; }
  auto begin() const { return m_dims.begin(); }
  auto end() const { return m_dims.end(); }

  // Product of the dims; nullopt if it overflows int64 or a dim is negative.
  std::optional<std::int64_t> checkedElementCount() const;
  // Product of the dims; only call on shapes known to be valid.
  std::int64_t elementCount() const;
  // Row-major (C order) strides in elements.
  std::vector<std::int64_t> contiguousStrides() const;

  // "[32, 32, 1, 256]"
  std::string str() const;
  // "32x32x1x256" (scalar: "scalar")
  std::string compactStr() const;

  friend bool operator==(const Shape&, const Shape&) = default;

private:
  std::vector<std::int64_t> m_dims;
};

} // namespace pto
