// LaneSummary: per-lane summaries that let the swimlane draw a dense lane at
// coarse zoom from per-pixel-column spans instead of walking its tasks (a
// 1 000 000-task trace at fit-all has ~10 tasks per pixel). Built once per
// trace (off the GUI thread, by TraceIndex), read-only afterwards.
//
// Two structures per lane:
// - Busy intervals: the union of the lane's tasks as sorted disjoint
//   intervals with a running total, so the busy time inside any [a, b) is
//   exact, found by binary (galloping) search: O(log n) per column.
// - A colour pyramid: level 0 cuts the lane's extent into bins of binNs(lane,
//   0) ns (a power of two, about four mean task spacings), each higher level
//   into bins twice as wide. Each bin holds its busy ns and, per colour mode,
//   a colour key: at level 0 the key with the most busy time in the bin
//   (exact); above, the key of the busier half (an approximation: a key
//   second in both halves but first overall loses).
//
// A column's colour is the key with most weight among the bins of the finest
// level no wider than the column, each weighted by its busy ns times the
// fraction of it inside the column.
//
// Units: ns. Colour keys: label StringId, subgraph + 1 (0 unknown) or
// BoundClass, as given by the caller per task.
#pragma once

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
  // must be finalized.
  LaneSummary(const trace::Trace& trace, const std::array<std::vector<std::uint32_t>, kColorModeCount>& keys);

  // Busy ns of `lane` inside [fromNs, toNs), exact (overlapping tasks count once).
  double busyNs(trace::LaneIndex lane, double fromNs, double toNs) const;

  // True when the pyramid's finest bins are no wider than `nsPerPx`, so
  // columns() can colour columns of that width.
  bool resolves(trace::LaneIndex lane, double nsPerPx) const;
  // Level-0 bin width of `lane` (ns); 0 for a lane without tasks.
  double binNs(trace::LaneIndex lane) const { return m_lanes[lane].binNs; }

  // out[c] for columns c in [0, count), column c spanning
  // [fromNs + c * nsPerPx, fromNs + (c + 1) * nsPerPx). Requires resolves().
  void columns(trace::LaneIndex lane, double fromNs, double nsPerPx, std::size_t count, SwimlaneColorMode mode,
               std::vector<ColumnSample>& out) const;

  std::size_t memoryBytes() const;

private:
  struct Bin {
    float busyNs = 0;
    std::array<std::uint32_t, kColorModeCount> key{kNoColorKey, kNoColorKey, kNoColorKey, kNoColorKey};
  };
  struct Lane {
    std::vector<std::int64_t> starts;      // disjoint busy intervals, sorted
    std::vector<std::int64_t> busyBefore;  // busy ns before interval i; size starts + 1
    double binNs = 0;                      // level-0 bin width
    std::int64_t originNs = 0;             // start of bin 0 (all levels)
    std::vector<std::vector<Bin>> levels;  // level k bin j: [origin + j·binNs·2^k, +binNs·2^k)
  };
  // Busy ns of the lane in (-inf, t), with a search hint that only moves forward.
  double busyBeforeNs(const Lane& lane, double t, std::size_t& hint) const;

  std::vector<Lane> m_lanes;
};

} // namespace pto::widgets
