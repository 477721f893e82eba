// Combining a partial result into an accumulator: the one rule the tile
// interpreter and the functional simulator share for accumulating tile ops
// (partial reductions, k-steps).
#include "compiler/reference/ReferenceKernels.h"

#include <algorithm>
#include <cmath>

namespace pto::reference {
namespace {

double combineFloat(TileAccumulate mode, double current, double value) {
  switch (mode) {
  case TileAccumulate::Add: return current + value;
  case TileAccumulate::Max: return std::isnan(current) || std::isnan(value) ? NAN : std::max(current, value);
  case TileAccumulate::Min: return std::isnan(current) || std::isnan(value) ? NAN : std::min(current, value);
  case TileAccumulate::Mul: return current * value;
  case TileAccumulate::None: return value;
  }
  return value;
}

// Integers combine exactly, wrapping on overflow as the hardware does (the
// unsigned arithmetic wraps; storing back wraps to the dtype's width).
// uint64 values above 2^63 arrive as negative int64s: they compare unsigned.
std::int64_t combineInteger(TileAccumulate mode, std::int64_t current, std::int64_t value, bool unsigned64) {
  const auto a = static_cast<std::uint64_t>(current), b = static_cast<std::uint64_t>(value);
  const bool valueGreater = unsigned64 ? b > a : value > current;
  switch (mode) {
  case TileAccumulate::Add: return static_cast<std::int64_t>(a + b);
  case TileAccumulate::Max: return valueGreater ? value : current;
  case TileAccumulate::Min: return valueGreater || value == current ? current : value;
  case TileAccumulate::Mul: return static_cast<std::int64_t>(a * b);
  case TileAccumulate::None: return value;
  }
  return value;
}

} // namespace

void accumulateInto(HostTensor& target, const HostTensor& values, TileAccumulate mode) {
  if (mode == TileAccumulate::None) {
    target.copyFrom(values);
    return;
  }
  const bool floating = isFloatingPoint(target.dtype());
  const bool unsigned64 = target.dtype() == DataType::UInt64;
  for (std::int64_t e = 0; e < values.elementCount(); ++e) {
    if (floating)
      target.setFromDouble(e, combineFloat(mode, target.getAsDouble(e), values.getAsDouble(e)));
    else
      target.setFromInt64(e, combineInteger(mode, target.getAsInt64(e), values.getAsInt64(e), unsigned64));
  }
}

} // namespace pto::reference
