#include "core/SymbolicRange.h"

#include "core/FloorDivision.h"

#include <algorithm>
#include <array>

namespace pto {
namespace {

std::optional<std::int64_t> checkedRangeMul(std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

std::optional<IntRange> addRanges(IntRange a, IntRange b, bool subtract) {
  IntRange result;
  if (subtract) {
    if (__builtin_sub_overflow(a.lo, b.hi, &result.lo) || __builtin_sub_overflow(a.hi, b.lo, &result.hi))
      return std::nullopt;
  } else if (__builtin_add_overflow(a.lo, b.lo, &result.lo) || __builtin_add_overflow(a.hi, b.hi, &result.hi)) {
    return std::nullopt;
  }
  return result;
}

std::optional<IntRange> multiplyRanges(IntRange a, IntRange b) {
  std::array<std::int64_t, 4> corners{};
  const std::array<std::pair<std::int64_t, std::int64_t>, 4> pairs{{{a.lo, b.lo}, {a.lo, b.hi}, {a.hi, b.lo}, {a.hi, b.hi}}};
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    std::optional<std::int64_t> product = checkedRangeMul(pairs[i].first, pairs[i].second);
    if (!product) return std::nullopt;
    corners[i] = *product;
  }
  return IntRange{*std::min_element(corners.begin(), corners.end()), *std::max_element(corners.begin(), corners.end())};
}

} // namespace

std::optional<IntRange> rangeOf(const SymbolicScalar& value, const SymbolRanges& ranges) {
  switch (value.kind()) {
  case SymbolicKind::Constant: {
    const std::int64_t constant = *value.constantValue();
    return IntRange{constant, constant};
  }
  case SymbolicKind::Symbol: {
    auto found = ranges.find(value.symbolName());
    if (found == ranges.end()) return std::nullopt;
    return found->second;
  }
  case SymbolicKind::Add:
  case SymbolicKind::Sub:
  case SymbolicKind::Mul:
  case SymbolicKind::Min:
  case SymbolicKind::Max:
  case SymbolicKind::FloorDiv:
  case SymbolicKind::Mod: break;
  default: return std::nullopt;
  }
  const std::optional<IntRange> a = rangeOf(value.lhs(), ranges);
  const std::optional<IntRange> b = rangeOf(value.rhs(), ranges);
  if (!a || !b) return std::nullopt;
  switch (value.kind()) {
  case SymbolicKind::Add: return addRanges(*a, *b, false);
  case SymbolicKind::Sub: return addRanges(*a, *b, true);
  case SymbolicKind::Mul: return multiplyRanges(*a, *b);
  case SymbolicKind::Min: return IntRange{std::min(a->lo, b->lo), std::min(a->hi, b->hi)};
  case SymbolicKind::Max: return IntRange{std::max(a->lo, b->lo), std::max(a->hi, b->hi)};
  case SymbolicKind::FloorDiv:
    // Floor division by a positive constant is monotonic in the dividend.
    if (!b->single() || b->lo <= 0) return std::nullopt;
    return IntRange{floorDivide(a->lo, b->lo), floorDivide(a->hi, b->lo)};
  case SymbolicKind::Mod:
    if (!b->single() || b->lo <= 0) return std::nullopt;
    // Within one period the remainder follows the dividend; across periods it can be anything in [0, c).
    if (floorDivide(a->lo, b->lo) == floorDivide(a->hi, b->lo))
      return IntRange{floorModulo(a->lo, b->lo), floorModulo(a->hi, b->lo)};
    return IntRange{0, b->lo - 1};
  default: return std::nullopt;
  }
}

} // namespace pto
