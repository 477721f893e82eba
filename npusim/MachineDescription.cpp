// The cost formulas of a machine description.
#include "npusim/MachineDescription.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pto {

namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

} // namespace

bool MachineDescription::hasPath(MemoryKind from, MemoryKind to) const {
  std::optional<DataPath> path = dataPathBetween(from, to);
  return path && hasPath(*path);
}

double MachineDescription::transferCycles(DataPath path, std::int64_t bytes) const {
  const std::optional<PathRate>& rate = paths[static_cast<std::size_t>(path)];
  if (!rate) return std::numeric_limits<double>::infinity();
  if (bytes <= 0) return 0.0;
  double peakBytesPerSecond = rate->peakGiBps * kBytesPerGiB;
  double seconds = (rate->saturationBytes + static_cast<double>(bytes)) / peakBytesPerSecond;
  return seconds * clockGHz * 1e9;
}

std::optional<std::int64_t> MachineDescription::cubeMatmulCycles(std::int64_t m, std::int64_t k, std::int64_t n,
                                                                 DataType dtype) const {
  const std::optional<CubeRate>& rate = cube[static_cast<std::size_t>(dtype)];
  if (!rate) return std::nullopt;
  std::int64_t fractals = ceilDiv(m, rate->m0) * ceilDiv(k, rate->k0) * ceilDiv(n, rate->n0);
  // Integer arithmetic keeps the common case (one fractal per cycle) exact.
  std::int64_t fractalMacs = rate->m0 * rate->k0 * rate->n0;
  return cubeOverheadCycles + ceilDiv(fractals * fractalMacs, rate->macsPerCycle);
}

std::int64_t MachineDescription::vectorCycles(VectorOpClass opClass, std::int64_t bytes) const {
  double factor = vector.costFactors[static_cast<std::size_t>(opClass)];
  double busy = factor * static_cast<double>(std::max<std::int64_t>(bytes, 0)) / vector.bytesPerCycle;
  return vector.startupCycles + static_cast<std::int64_t>(std::ceil(busy));
}

double MachineDescription::sustainedGmBytesPerCycle() const {
  return memory.bandwidthTBps * 1e12 * memory.efficiency / (clockGHz * 1e9);
}

double MachineDescription::l2BytesPerCycle() const {
  if (!(l2.bandwidthTBps > 0.0)) return std::numeric_limits<double>::infinity();
  return l2.bandwidthTBps * 1e12 / (clockGHz * 1e9);
}

std::int64_t L2Cache::effectiveBytes() const {
  return static_cast<std::int64_t>(static_cast<double>(bytes) * retainedShare);
}

TargetInfo MachineDescription::targetInfo() const {
  TargetInfo target;
  target.name = name;
  target.capacityBytes = capacities;
  target.allocationGranularityBytes = allocationGranularityBytes;
  target.hasL0cToUb = hasPath(MemoryKind::L0C, MemoryKind::UB);
  target.hasUbToL1 = hasPath(MemoryKind::UB, MemoryKind::L1);
  target.aicCores = aicCores;
  target.aivCores = aivCores;
  return target;
}

} // namespace pto
