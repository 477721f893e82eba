// BoundClass: what a task spent its time on, read from its per-pipe busy
// intervals (trace::PipeInterval). Pipes are grouped into classes:
//
//   memory-in   MTE2 (GM -> L1/UB) and MTE1 (L1 -> L0A/L0B): data moving
//               towards the compute units
//   cube        CUBE (matrix multiply)
//   vector      VECTOR
//   memory-out  MTE3 (UB -> GM) and FIXPIPE (L0C -> GM)
//   scalar      SCALAR (control, barriers, flag waits)
//
// A task's bound class is the class with the most busy time inside the task
// [startNs, endNs), counting time where several pipes of one class overlap
// once (the union of the class's intervals). Ties go to the class listed
// first above. Pipe names are matched ignoring case; PyPTO's short names
// (V, M, S, FIX) are accepted. A task with no interval on a known pipe is
// Unknown (e.g. a trace imported without pipe data).
#pragma once

#include "runtime/trace/Trace.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace pto::widgets {

enum class BoundClass : std::uint8_t { Unknown, MemoryIn, Cube, Vector, MemoryOut, Scalar };
inline constexpr int kBoundClassCount = 6;

// "memory-in", "cube", …, "unknown".
std::string_view name(BoundClass bound);
// The pipes of the class, for legends: "MTE2, MTE1".
std::string_view pipesOf(BoundClass bound);

// The class of one pipe name, or nullopt for a pipe not listed above.
std::optional<BoundClass> boundClassOfPipe(std::string_view pipe);

// Busy ns of each class inside the task (indexed by BoundClass; Unknown is 0).
std::array<std::int64_t, kBoundClassCount> boundBusyNs(const trace::Trace& trace, trace::TaskIndex task);
BoundClass boundClassOf(const trace::Trace& trace, trace::TaskIndex task);

} // namespace pto::widgets
