// The chip the simulator models, as read from one machine file
// (resources/machines/<name>.json), and the cost formulas that follow from it.
#pragma once

#include "core/DataType.h"
#include "npusim/DataPath.h"
#include "compiler/ir/MemoryKind.h"
#include "compiler/ir/TargetInfo.h"
#include "npusim/VectorOpClass.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pto {

// Units, everywhere below: cycles are cycles of the core clock (`clockGHz`);
// per-core path rates are GiB/s (2^30 bytes per second), the chip-wide HBM
// bandwidth is TB/s (10^12 bytes per second) as data sheets quote it.

// Costs of the AICPU threads that run the MPMD scheduler, per task.
struct SchedulerCosts {
  int aicpuCount = 0;                      // threads scheduling in parallel
  std::int64_t dispatchCycles = 0;         // hand a ready task to an idle core
  std::int64_t resolveCycles = 0;          // decrement the consumers' counters of a finished task
  std::int64_t completionCycles = 0;       // notice that a core finished its task
  std::int64_t deviceTaskSubmitCycles = 0; // submit one device task (a batch of tasks)
  std::int64_t stitchCycles = 0;           // stitch one device task's graph onto the running one
  int coreTaskSlots = 1;                   // tasks a core holds: 1 = the running one; 2 = a pending one
                                           // beside it, started the moment the running one ends
  bool threadsOwnCores = false;            // each thread dispatches to, and notices completions of, only its own
                                           // contiguous section of each core type (false: any thread serves any core)
};

// One copy engine. A transfer of `bytes` runs at
//   bw(bytes) = peak * bytes / (K + bytes)
// so it takes (K + bytes) / peak: K bytes' worth of start-up latency, then the
// peak rate. A K-byte transfer reaches half the peak, a 100K-byte one 99 %.
inline constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

struct PathRate {
  double peakGiBps = 0.0;
  double saturationBytes = 0.0;  // K
  // Loads from GM (`run_ns`, optional; 0: none): the least time one core's
  // MTE2 spends per contiguous run of the source (a row of a tile narrower
  // than its tensor), so a load of runs of r bytes moves at most r bytes per
  // runNs whatever the path's peak. Short rows cost a DMA request each.
  double runNs = 0.0;
};

// The cube unit for one input dtype: one fractal (m0 x k0 x n0 MACs) takes
// m0*k0*n0 / macsPerCycle cycles (1 on every known chip).
struct CubeRate {
  std::int64_t macsPerCycle = 0;
  std::int64_t m0 = 0;
  std::int64_t k0 = 0;
  std::int64_t n0 = 0;
};

struct VectorUnit {
  double bytesPerCycle = 0.0;      // of an add-class instruction, per AIV
  std::int64_t startupCycles = 0;  // paid once per instruction
  std::array<double, kVectorOpClassCount> costFactors{};  // cycles per byte relative to add
};

// Global memory: one bandwidth cap shared by every core's in-flight
// transfers (the per-core path peaks summed over all cores are far above it).
struct GlobalMemory {
  double bandwidthTBps = 0.0;
  double efficiency = 0.0;  // sustained fraction of the bandwidth, in (0, 1]
};

struct L2Cache {
  std::int64_t bytes = 0;
  std::int64_t lineBytes = 0;
  std::int64_t hitLatencyCycles = 0;
  std::int64_t missPenaltyCycles = 0;  // added to the hit latency on a miss
  // Chip-wide rate of the L2's ports, shared by every GM transfer (hits and
  // misses both pass through the cache; stores are written into it). 0: not
  // modelled (unlimited).
  double bandwidthTBps = 0.0;
  // The share of `bytes` that keeps one kernel's data from one use to the
  // next, in (0, 1]: the rest holds other data (the runtime's, the other
  // die's, lines lost to placement conflicts). The model caches in
  // bytes x retainedShare.
  double retainedShare = 1.0;
  std::int64_t effectiveBytes() const;
};

// Where one machine-file figure comes from (the file's "sources" object,
// keyed by the figure's key path, e.g. "global_memory.efficiency").
struct ParameterSource {
  std::string kind;    // "spec", "microbenchmark", "vendor model", "fit"
  std::string source;  // document, repository and path, or the fit's description
  std::vector<std::string> fittedOn;  // kind "fit": the validation cases it was fitted on
};

struct MachineDescription {
  std::string name;             // the file's stem: "a2"
  std::filesystem::path file;   // where it was read from
  int schemaVersion = 0;
  std::string description;
  std::vector<std::string> notes;  // sources and the alternatives not chosen
  std::vector<std::pair<std::string, ParameterSource>> sources;  // in file order

  int aicCores = 0;  // cube cores
  int aivCores = 0;  // vector cores
  double clockGHz = 0.0;
  SchedulerCosts scheduler;

  // Per core, in bytes; the GM entry is the HBM size of the chip.
  std::array<std::int64_t, kMemoryKindCount> capacities{};
  std::int64_t allocationGranularityBytes = 0;  // on-chip buffers are allocated in multiples of this
  std::array<std::optional<PathRate>, kDataPathCount> paths{};  // nullopt: the chip has no such path

  std::int64_t cubeOverheadCycles = 0;  // per matmul instruction
  std::array<std::optional<CubeRate>, kDataTypeCount> cube{};  // nullopt: the cube does not take this dtype
  VectorUnit vector;
  GlobalMemory memory;
  L2Cache l2;

  bool hasPath(DataPath path) const { return paths[static_cast<std::size_t>(path)].has_value(); }
  bool hasPath(MemoryKind from, MemoryKind to) const;
  std::int64_t capacityBytes(MemoryKind kind) const { return capacities[static_cast<std::size_t>(kind)]; }
  // The part of this description the compiler plans with.
  TargetInfo targetInfo() const;

  // Cycles one core's copy engine needs to move `bytes` over `path`
  // ((K + bytes) / peak, in clock cycles; 0 for nothing to move). Fractional:
  // the timing model decides how to round. Infinite when !hasPath(path) —
  // the compiler must not route data over a path the chip lacks.
  double transferCycles(DataPath path, std::int64_t bytes) const;

  // One matmul instruction on an M x K x N block:
  //   overhead + ceil(M/m0) * ceil(K/k0) * ceil(N/n0) * (m0*k0*n0 / macsPerCycle)
  // rounded up; nullopt when the cube does not take `dtype`.
  std::optional<std::int64_t> cubeMatmulCycles(std::int64_t m, std::int64_t k, std::int64_t n, DataType dtype) const;

  // One vector instruction of `opClass` over `bytes` (the larger of its
  // operands): startup + ceil(factor * bytes / bytesPerCycle).
  std::int64_t vectorCycles(VectorOpClass opClass, std::int64_t bytes) const;

  // The chip-wide GM bandwidth actually sustained, in bytes per cycle.
  double sustainedGmBytesPerCycle() const;
  // The L2's chip-wide rate in bytes per cycle; infinite when not modelled.
  double l2BytesPerCycle() const;
};

} // namespace pto
