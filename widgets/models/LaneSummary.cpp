// Per-lane busy intervals and colour pyramids.
#include "widgets/models/LaneSummary.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

namespace pto::widgets {
namespace {

// floor(a / b) for b > 0, also for negative a.
std::int64_t floorDiv(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && (a < 0)); }

// Accumulated busy ns per (mode, key) of one level-0 bin while it is open.
struct KeyTime {
  int mode;
  std::uint32_t key;
  std::int64_t ns;
};

} // namespace

LaneSummary::LaneSummary(const trace::Trace& trace, const std::array<std::vector<std::uint32_t>, kColorModeCount>& keys)
    : m_trace(&trace) {
  m_lanes.resize(trace.lanes().size());
  std::vector<std::int64_t> starts, ends, runStarts, runEnds, busyOfBin;
  for (trace::LaneIndex l = 0; l < trace.lanes().size(); ++l) {
    const auto& order = trace.lanes()[l].tasksByStart;
    Lane& lane = m_lanes[l];
    if (order.empty()) continue;
    // The lane's times unpacked once: every step below reads them.
    starts.resize(order.size());
    ends.resize(order.size());
    for (std::size_t pos = 0; pos < order.size(); ++pos) {
      starts[pos] = trace.taskStartNs(order[pos]);
      ends[pos] = trace.taskEndNs(order[pos]);
      lane.laneMaxDurNs = std::max(lane.laneMaxDurNs, ends[pos] - starts[pos]);
      lane.startNs.push_back(starts[pos]);
      lane.durNs.push_back(ends[pos] - starts[pos]);
      for (std::size_t mode = 0; mode < kColorModeCount; ++mode) lane.keys[mode].push_back(keys[mode][order[pos]]);
    }

    // The union of the tasks as disjoint runs (only while building).
    runStarts.clear();
    runEnds.clear();
    for (std::size_t pos = 0; pos < order.size(); ++pos) {
      if (!runEnds.empty() && starts[pos] <= runEnds.back()) {
        runEnds.back() = std::max(runEnds.back(), ends[pos]);
        continue;
      }
      runStarts.push_back(starts[pos]);
      runEnds.push_back(ends[pos]);
    }
    std::int64_t laneStart = runStarts.front();
    std::int64_t laneEnd = runEnds.back();

    // Level 0: bins of about four mean task spacings, a power of two.
    double spacing = static_cast<double>(laneEnd - laneStart) / static_cast<double>(order.size());
    std::int64_t binNs = 1;
    while (static_cast<double>(binNs) < 4 * spacing) binNs *= 2;
    lane.binNs = binNs;
    lane.originNs = floorDiv(laneStart, binNs) * binNs;
    std::size_t binCount = static_cast<std::size_t>(floorDiv(std::max(laneEnd - 1, laneStart) - lane.originNs, binNs)) + 1;
    std::vector<Bin> level0(binCount);
    auto binOf = [&](std::int64_t ns) {
      return static_cast<std::size_t>(std::clamp<std::int64_t>(floorDiv(ns - lane.originNs, binNs), 0,
                                                               static_cast<std::int64_t>(binCount) - 1));
    };
    auto binStart = [&](std::size_t bin) { return lane.originNs + static_cast<std::int64_t>(bin) * binNs; };
    // Busy per bin from the union (overlapping tasks once), exact in int64.
    busyOfBin.assign(binCount, 0);
    for (std::size_t i = 0; i < runStarts.size(); ++i) {
      std::int64_t from = runStarts[i];
      for (std::size_t bin = binOf(from); from < runEnds[i]; ++bin) {
        std::int64_t piece = std::min(runEnds[i], binStart(bin + 1)) - from;
        busyOfBin[bin] += piece;
        from += piece;
      }
    }
    // The exact-busy index: prefix busy, first task position, carried coverage.
    std::int64_t busy = 0;
    // The latest end of the tasks before the bin; none yet carries into bin 0
    // (the lane's origin, not INT64_MIN: reach - binStart must not overflow).
    std::int64_t reach = lane.originNs;
    std::size_t pos = 0;
    for (std::size_t bin = 0; bin <= binCount; ++bin) {
      lane.busyBefore.push_back(busy);
      if (bin < binCount) {
        busy += busyOfBin[bin];
        level0[bin].busyNs = static_cast<float>(busyOfBin[bin]);
      }
      lane.firstPos.push_back(static_cast<std::int64_t>(pos));
      if (bin == binCount) break;
      lane.carriedNs.push_back(std::max<std::int64_t>(0, reach - binStart(bin)));
      for (; pos < order.size() && binOf(starts[pos]) == bin; ++pos) {
        reach = std::max(reach, ends[pos]);
        float dur = static_cast<float>(ends[pos] - starts[pos]);
        // Rounded up, so a comparison with a real duration never misses one.
        level0[bin].maxDurNs = std::max(level0[bin].maxDurNs, std::nextafter(dur, std::numeric_limits<float>::max()));
      }
    }
    // Dominant keys per bin: tasks arrive by start, so a bin is final once a
    // task starts in a later bin; only the open bins keep accumulators.
    std::deque<std::vector<KeyTime>> open;
    std::size_t openFirst = 0;
    auto closeBin = [&] {
      std::vector<KeyTime>& acc = open.front();
      std::array<std::int64_t, kColorModeCount> best{};
      for (const KeyTime& kt : acc)
        if (kt.ns > best[static_cast<std::size_t>(kt.mode)] ||
            (kt.ns == best[static_cast<std::size_t>(kt.mode)] && kt.key < level0[openFirst].key[static_cast<std::size_t>(kt.mode)])) {
          best[static_cast<std::size_t>(kt.mode)] = kt.ns;
          level0[openFirst].key[static_cast<std::size_t>(kt.mode)] = kt.key;
        }
      open.pop_front();
      ++openFirst;
    };
    for (std::size_t p = 0; p < order.size(); ++p) {
      trace::TaskIndex task = order[p];
      std::size_t first = binOf(starts[p]);
      while (!open.empty() && openFirst < first) closeBin();
      if (open.empty()) openFirst = first;
      std::int64_t from = starts[p];
      for (std::size_t bin = first; from < ends[p]; ++bin) {
        std::int64_t piece = std::min(ends[p], binStart(bin + 1)) - from;
        while (open.size() <= bin - openFirst) open.emplace_back();
        std::vector<KeyTime>& acc = open[bin - openFirst];
        for (int mode = 0; mode < kColorModeCount; ++mode) {
          std::uint32_t key = keys[static_cast<std::size_t>(mode)][task];
          auto it = std::find_if(acc.begin(), acc.end(), [&](const KeyTime& kt) { return kt.mode == mode && kt.key == key; });
          if (it == acc.end()) acc.push_back({mode, key, piece});
          else it->ns += piece;
        }
        from += piece;
      }
    }
    while (!open.empty()) closeBin();

    // Coarser levels until one bin covers the lane.
    lane.levels.push_back(std::move(level0));
    while (lane.levels.back().size() > 1) {
      const std::vector<Bin>& finer = lane.levels.back();
      std::vector<Bin> coarser((finer.size() + 1) / 2);
      for (std::size_t j = 0; j < coarser.size(); ++j) {
        const Bin& a = finer[2 * j];
        const Bin* b = 2 * j + 1 < finer.size() ? &finer[2 * j + 1] : nullptr;
        coarser[j].busyNs = a.busyNs + (b ? b->busyNs : 0.0f);
        coarser[j].maxDurNs = std::max(a.maxDurNs, b ? b->maxDurNs : 0.0f);
        for (std::size_t mode = 0; mode < kColorModeCount; ++mode) {
          bool takeB = b && (a.key[mode] == kNoColorKey || (b->key[mode] != kNoColorKey && b->busyNs > a.busyNs));
          coarser[j].key[mode] = takeB ? b->key[mode] : a.key[mode];
        }
      }
      lane.levels.push_back(std::move(coarser));
    }
    for (trace::PackedColumn* column : {&lane.firstPos, &lane.busyBefore, &lane.carriedNs, &lane.startNs, &lane.durNs})
      column->shrink_to_fit();
    for (trace::PackedColumn& column : lane.keys) column.shrink_to_fit();
  }
}

double LaneSummary::busyBeforeNs(trace::LaneIndex laneIndex, double t) const {
  const Lane& lane = m_lanes[laneIndex];
  if (lane.binNs == 0) return 0;
  double inBins = (t - static_cast<double>(lane.originNs)) / static_cast<double>(lane.binNs);
  if (!(inBins > 0)) return 0;
  std::size_t binCount = lane.levels.front().size();
  if (inBins >= static_cast<double>(binCount)) return static_cast<double>(lane.busyBefore[binCount]);
  auto bin = static_cast<std::size_t>(inBins);
  double binStart = static_cast<double>(lane.originNs + static_cast<std::int64_t>(bin) * lane.binNs);
  if (binStart > t) {  // the division rounded up onto the next bin's start
    if (bin == 0) return 0;
    --bin;
    binStart = static_cast<double>(lane.originNs + static_cast<std::int64_t>(bin) * lane.binNs);
  }
  // The union inside [binStart, t): what earlier tasks still cover, then the
  // bin's own tasks in start order, each adding what lies past the frontier.
  double frontier = binStart + static_cast<double>(lane.carriedNs[bin]);
  double busy = std::min(frontier, t) - binStart;
  auto last = static_cast<std::size_t>(lane.firstPos[bin + 1]);
  for (auto pos = static_cast<std::size_t>(lane.firstPos[bin]); pos < last; ++pos) {
    auto startNs = static_cast<double>(lane.startNs[pos]);
    if (startNs >= t) break;
    double endNs = std::min(t, startNs + static_cast<double>(lane.durNs[pos]));
    if (endNs > frontier) {
      busy += endNs - std::max(startNs, frontier);
      frontier = endNs;
    }
  }
  return static_cast<double>(lane.busyBefore[bin]) + busy;
}

double LaneSummary::busyNs(trace::LaneIndex lane, double fromNs, double toNs) const {
  if (lane >= m_lanes.size() || !(toNs > fromNs)) return 0;
  return busyBeforeNs(lane, toNs) - busyBeforeNs(lane, fromNs);
}

bool LaneSummary::resolves(trace::LaneIndex lane, double nsPerPx) const {
  return lane < m_lanes.size() && m_lanes[lane].binNs > 0 && static_cast<double>(m_lanes[lane].binNs) <= nsPerPx;
}

bool LaneSummary::longTasks(trace::LaneIndex lane, double fromNs, double toNs, double minDurNs, std::size_t limit,
                            std::vector<trace::TaskIndex>& out) const {
  out.clear();
  if (lane >= m_lanes.size() || m_lanes[lane].levels.empty()) return true;
  const Lane& l = m_lanes[lane];
  collectLongTasks(lane, l.levels.size() - 1, 0, fromNs - static_cast<double>(l.laneMaxDurNs), toNs, minDurNs, limit, out);
  return out.size() <= limit;
}

void LaneSummary::collectLongTasks(trace::LaneIndex laneIndex, std::size_t level, std::size_t bin, double lowestStart,
                                   double toNs, double minDurNs, std::size_t limit, std::vector<trace::TaskIndex>& out) const {
  if (out.size() > limit) return;
  const Lane& lane = m_lanes[laneIndex];
  const Bin& b = lane.levels[level][bin];
  if (static_cast<double>(b.maxDurNs) < minDurNs) return;
  // The start times this bin's tasks can have (the last bin also takes later starts).
  double width = static_cast<double>(lane.binNs) * std::exp2(static_cast<double>(level));
  double binFrom = static_cast<double>(lane.originNs) + static_cast<double>(bin) * width;
  bool lastBin = bin + 1 == lane.levels[level].size();
  if (binFrom > toNs || (!lastBin && binFrom + width <= lowestStart)) return;
  if (level > 0) {
    for (std::size_t child = 2 * bin; child < std::min(2 * bin + 2, lane.levels[level - 1].size()); ++child)
      collectLongTasks(laneIndex, level - 1, child, lowestStart, toNs, minDurNs, limit, out);
    return;
  }
  const auto& order = m_trace->lanes()[laneIndex].tasksByStart;
  double fromNs = lowestStart + static_cast<double>(lane.laneMaxDurNs);
  auto last = static_cast<std::size_t>(lane.firstPos[bin + 1]);
  for (auto pos = static_cast<std::size_t>(lane.firstPos[bin]); pos < last; ++pos) {
    auto durNs = static_cast<double>(lane.durNs[pos]);
    if (durNs < minDurNs) continue;
    auto startNs = static_cast<double>(lane.startNs[pos]);
    if (startNs > toNs || startNs + durNs < fromNs) continue;
    out.push_back(order[pos]);
    if (out.size() > limit) return;
  }
}

void LaneSummary::columns(trace::LaneIndex lane, double fromNs, double nsPerPx, std::size_t count, SwimlaneColorMode mode,
                          std::vector<ColumnSample>& out) const {
  out.assign(count, ColumnSample{});
  if (!resolves(lane, nsPerPx) || count == 0) return;
  const Lane& l = m_lanes[lane];
  // The finest level whose bins are no wider than a column: 1 to 3 bins each.
  std::size_t level = 0;
  auto binNs = static_cast<double>(l.binNs);
  while (level + 1 < l.levels.size() && binNs * 2 <= nsPerPx) {
    binNs *= 2;
    ++level;
  }
  const std::vector<Bin>& bins = l.levels[level];
  const auto binCount = static_cast<std::ptrdiff_t>(bins.size());
  auto modeIndex = static_cast<std::size_t>(mode);
  double origin = static_cast<double>(l.originNs);
  double binsPerColumn = nsPerPx / binNs;

  // Busy time from the exact prefix at level-0 bin edges: each column's
  // edges rounded to the nearest one, the busy fraction of that span scaled
  // to the column. One read per column instead of a walk over the tasks at
  // each edge (which cost most of a fit-all frame).
  auto levelZeroNs = static_cast<double>(l.binNs);
  auto levelZeroCount = static_cast<double>(l.levels.front().size());
  auto edgeOf = [&](double t) { return std::clamp(std::round((t - origin) / levelZeroNs), 0.0, levelZeroCount); };
  auto busyBefore = [&](double edge) { return static_cast<double>(l.busyBefore[static_cast<std::size_t>(edge)]); };
  double previousEdge = edgeOf(fromNs);
  double previous = busyBefore(previousEdge);
  for (std::size_t c = 0; c < count; ++c) {
    double a = fromNs + static_cast<double>(c) * nsPerPx;
    double edge = edgeOf(a + nsPerPx);
    double after = busyBefore(edge);
    double busy = edge > previousEdge ? (after - previous) / ((edge - previousEdge) * levelZeroNs) * nsPerPx : 0;
    previous = after;
    previousEdge = edge;
    out[c].busyNs = busy;
    if (busy <= 0) continue;
    // The column in bin units, and the bins it touches.
    double fa = (a - origin) / binNs;
    double fb = fa + binsPerColumn;
    auto j0 = static_cast<std::ptrdiff_t>(std::floor(fa));
    auto j1 = static_cast<std::ptrdiff_t>(std::floor(fb));
    j0 = std::max<std::ptrdiff_t>(j0, 0);
    j1 = std::min(j1, binCount - 1);
    std::uint32_t keys[4];
    double weights[4];
    int used = 0;
    for (std::ptrdiff_t j = j0; j <= j1 && used < 4; ++j) {
      const Bin& bin = bins[static_cast<std::size_t>(j)];
      std::uint32_t key = bin.key[modeIndex];
      if (key == kNoColorKey || bin.busyNs <= 0) continue;
      double inside = std::min(fb, static_cast<double>(j + 1)) - std::max(fa, static_cast<double>(j));
      double weight = inside * bin.busyNs;
      int slot = 0;
      while (slot < used && keys[slot] != key) ++slot;
      if (slot == used) {
        keys[used] = key;
        weights[used++] = weight;
      } else {
        weights[slot] += weight;
      }
    }
    if (used == 0) continue;
    int best = 0;
    for (int slot = 1; slot < used; ++slot)
      if (weights[slot] > weights[best]) best = slot;
    out[c].key = keys[best];
  }
}

std::size_t LaneSummary::memoryBytes() const {
  std::size_t bytes = m_lanes.capacity() * sizeof(Lane);
  for (const Lane& lane : m_lanes) {
    // The column objects themselves are inside sizeof(Lane).
    for (const trace::PackedColumn* column : {&lane.firstPos, &lane.busyBefore, &lane.carriedNs, &lane.startNs, &lane.durNs})
      bytes += column->memoryBytes() - sizeof(trace::PackedColumn);
    for (const trace::PackedColumn& column : lane.keys) bytes += column.memoryBytes() - sizeof(trace::PackedColumn);
    bytes += lane.levels.capacity() * sizeof(std::vector<Bin>);
    for (const auto& level : lane.levels) bytes += level.capacity() * sizeof(Bin);
  }
  return bytes;
}

} // namespace pto::widgets
