// LaneSummary: per-lane summaries that let the swimlane draw a dense lane at
// coarse zoom from per-pixel-column spans instead of walking its tasks (a
// 10 000 000-task trace at fit-all has ~100 tasks per pixel per lane). Built
// once per trace (off the GUI thread, by TraceIndex), read-only afterwards;
// it refers to the trace it was built from, which must outlive it.
//
// Per lane, level 0 cuts the lane's extent into bins of binNs(lane) ns (a
// power of two, about four mean task spacings), each higher level into bins
// twice as wide (a pyramid).
// - Exact busy time: per level-0 bin, the union busy ns before it, the
//   position of its first task in the lane's start order, and how far tasks
//   that started earlier still cover it. The busy time before any t is that
//   prefix plus the union of the few tasks starting in t's bin before t: O(1)
//   arithmetic to find the bin and a walk of about four tasks, independent
//   of the lane's length.
// - Colours: each bin holds its busy ns and, per colour mode, a colour key:
//   at level 0 the key with the most busy time in the bin (exact); above,
//   the key of the busier half (an approximation: a key second in both
//   halves but first overall loses).
// - Long tasks: each bin holds the longest duration of the tasks starting in
//   it, so the tasks long enough to draw on their own at a zoom are found by
//   descending the pyramid (longTasks), without a per-task index.
// - The lane's tasks in start order: start, duration and colour keys as
//   PackedColumns by position in tasksByStart. The trace stores tasks by
//   TaskIndex, where one lane's neighbours lie a lane count apart; a walk
//   along a lane reading them there misses the cache on every task (10M
//   tasks: 70 ms per frame instead of 5).
//
// A column's colour is the key with most weight among the bins of the finest
// level no wider than the column, each weighted by its busy ns times the
// fraction of it inside the column.
//
// Units: ns. Colour keys: label StringId, subgraph + 1 (0 unknown) or
// BoundClass, as given by the caller per task.
#pragma once

#include "runtime/trace/PackedColumn.h"
#include "runtime/trace/Trace.h"
#include "widgets/models/SwimlaneColorMode.h"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace pto::widgets {

inline constexpr int kColorModeCount = 4;
inline constexpr std::uint32_t kNoColorKey = ~std::uint32_t{0};

// One pixel column of a lane.
struct ColumnSample {
  double busyNs = 0;                 // exact union busy time in the column
  std::uint32_t key = kNoColorKey;   // dominant colour key (kNoColorKey when idle)
};

class LaneSummary {
public:
  LaneSummary() = default;
  // `keys[mode][task]` is the colour key of each task in each mode. The trace
  // must be finalized and outlive the summary.
  LaneSummary(const trace::Trace& trace, const std::array<std::vector<std::uint32_t>, kColorModeCount>& keys);

  // Busy ns of `lane` inside [fromNs, toNs), exact (overlapping tasks count once).
  double busyNs(trace::LaneIndex lane, double fromNs, double toNs) const;

  // True when the pyramid's finest bins are no wider than `nsPerPx`, so
  // columns() can colour columns of that width.
  bool resolves(trace::LaneIndex lane, double nsPerPx) const;
  // Level-0 bin width of `lane` (ns); 0 for a lane without tasks.
  double binNs(trace::LaneIndex lane) const { return static_cast<double>(m_lanes[lane].binNs); }

  // out[c] for columns c in [0, count), column c spanning
  // [fromNs + c * nsPerPx, fromNs + (c + 1) * nsPerPx). Requires resolves().
  // A column's busyNs is the busy fraction of the span between its edges
  // rounded to the nearest level-0 bin edges (each moves by at most binNs /
  // 2), times nsPerPx: exact for bin-aligned columns, and never a column
  // shaded darker or lighter because it happened to round to more bins.
  void columns(trace::LaneIndex lane, double fromNs, double nsPerPx, std::size_t count, SwimlaneColorMode mode,
               std::vector<ColumnSample>& out) const;

  // The task at position `pos` of `lane`'s tasksByStart: start, duration and
  // colour key in `mode`, read from the lane's own columns.
  std::int64_t startNs(trace::LaneIndex lane, std::size_t pos) const { return m_lanes[lane].startNs[pos]; }
  std::int64_t durNs(trace::LaneIndex lane, std::size_t pos) const { return m_lanes[lane].durNs[pos]; }
  std::uint32_t key(trace::LaneIndex lane, std::size_t pos, SwimlaneColorMode mode) const {
    return static_cast<std::uint32_t>(m_lanes[lane].keys[static_cast<std::size_t>(mode)][pos]);
  }

  // Appends to `out` (cleared first) the tasks of `lane` at least `minDurNs`
  // long that overlap [fromNs, toNs], in no particular order; false (and
  // `out` incomplete) once there would be more than `limit` of them.
  bool longTasks(trace::LaneIndex lane, double fromNs, double toNs, double minDurNs, std::size_t limit,
                 std::vector<trace::TaskIndex>& out) const;

  std::size_t memoryBytes() const;

private:
  struct Bin {
    float busyNs = 0;
    float maxDurNs = 0;  // of the tasks starting in the bin, rounded up
    std::array<std::uint32_t, kColorModeCount> key{kNoColorKey, kNoColorKey, kNoColorKey, kNoColorKey};
  };
  struct Lane {
    std::int64_t binNs = 0;                // level-0 bin width, 0 for a lane without tasks
    std::int64_t originNs = 0;             // start of bin 0 (all levels)
    std::int64_t laneMaxDurNs = 0;
    // Per level-0 bin j (binCount + 1 entries for the first two): the
    // position in tasksByStart of the first task starting in bin j or later,
    // the union busy ns before bin j's start, and how many ns past bin j's
    // start the tasks starting before it still cover.
    trace::PackedColumn firstPos, busyBefore, carriedNs;
    // By position in tasksByStart.
    trace::PackedColumn startNs, durNs;
    std::array<trace::PackedColumn, kColorModeCount> keys;
    std::vector<std::vector<Bin>> levels;  // level k bin j: [origin + j·binNs·2^k, +binNs·2^k)
  };
  // Busy ns of the lane in (-inf, t), exact.
  double busyBeforeNs(trace::LaneIndex lane, double t) const;
  void collectLongTasks(trace::LaneIndex lane, std::size_t level, std::size_t bin, double lowestStart, double toNs,
                        double minDurNs, std::size_t limit, std::vector<trace::TaskIndex>& out) const;

  const trace::Trace* m_trace = nullptr;
  std::vector<Lane> m_lanes;
};

} // namespace pto::widgets
