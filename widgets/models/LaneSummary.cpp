// Per-lane busy intervals and colour pyramids.
#include "widgets/models/LaneSummary.h"

#include <algorithm>
#include <cmath>
#include <deque>

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

LaneSummary::LaneSummary(const trace::Trace& trace, const std::array<std::vector<std::uint32_t>, kColorModeCount>& keys) {
  const auto& tasks = trace.tasks();
  m_lanes.resize(trace.lanes().size());
  for (trace::LaneIndex l = 0; l < trace.lanes().size(); ++l) {
    const auto& order = trace.lanes()[l].tasksByStart;
    Lane& lane = m_lanes[l];
    if (order.empty()) continue;

    // The union of the tasks as disjoint intervals with a running total.
    std::int64_t runStart = tasks[order.front()].startNs;
    std::int64_t runEnd = tasks[order.front()].endNs;
    std::int64_t total = 0;
    lane.busyBefore.push_back(0);
    for (std::size_t pos = 1; pos <= order.size(); ++pos) {
      if (pos < order.size()) {
        const trace::Task& t = tasks[order[pos]];
        if (t.startNs <= runEnd) {
          runEnd = std::max(runEnd, t.endNs);
          continue;
        }
      }
      lane.starts.push_back(runStart);
      total += runEnd - runStart;
      lane.busyBefore.push_back(total);
      if (pos < order.size()) {
        runStart = tasks[order[pos]].startNs;
        runEnd = tasks[order[pos]].endNs;
      }
    }
    std::int64_t laneStart = lane.starts.front();
    std::int64_t laneEnd = lane.starts.back() + (lane.busyBefore.back() - lane.busyBefore[lane.busyBefore.size() - 2]);

    // Level 0: bins of about four mean task spacings, a power of two.
    double spacing = static_cast<double>(laneEnd - laneStart) / static_cast<double>(order.size());
    std::int64_t binNs = 1;
    while (static_cast<double>(binNs) < 4 * spacing) binNs *= 2;
    lane.binNs = static_cast<double>(binNs);
    lane.originNs = floorDiv(laneStart, binNs) * binNs;
    std::size_t binCount = static_cast<std::size_t>(floorDiv(std::max(laneEnd - 1, laneStart) - lane.originNs, binNs)) + 1;
    std::vector<Bin> level0(binCount);
    auto binOf = [&](std::int64_t ns) {
      return static_cast<std::size_t>(std::clamp<std::int64_t>(floorDiv(ns - lane.originNs, binNs), 0,
                                                               static_cast<std::int64_t>(binCount) - 1));
    };
    // Busy per bin from the union (overlapping tasks once).
    for (std::size_t i = 0; i < lane.starts.size(); ++i) {
      std::int64_t from = lane.starts[i];
      std::int64_t to = from + (lane.busyBefore[i + 1] - lane.busyBefore[i]);
      for (std::size_t bin = binOf(from); from < to; ++bin) {
        std::int64_t binEnd = lane.originNs + static_cast<std::int64_t>(bin + 1) * binNs;
        std::int64_t piece = std::min(to, binEnd) - from;
        level0[bin].busyNs += static_cast<float>(piece);
        from += piece;
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
    for (trace::TaskIndex task : order) {
      const trace::Task& t = tasks[task];
      std::size_t first = binOf(t.startNs);
      while (!open.empty() && openFirst < first) closeBin();
      if (open.empty()) openFirst = first;
      std::int64_t from = t.startNs;
      for (std::size_t bin = first; from < t.endNs; ++bin) {
        std::int64_t binEnd = lane.originNs + static_cast<std::int64_t>(bin + 1) * binNs;
        std::int64_t piece = std::min(t.endNs, binEnd) - from;
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
        for (std::size_t mode = 0; mode < kColorModeCount; ++mode) {
          bool takeB = b && (a.key[mode] == kNoColorKey || (b->key[mode] != kNoColorKey && b->busyNs > a.busyNs));
          coarser[j].key[mode] = takeB ? b->key[mode] : a.key[mode];
        }
      }
      lane.levels.push_back(std::move(coarser));
    }
  }
}

double LaneSummary::busyBeforeNs(const Lane& lane, double t, std::size_t& hint) const {
  const auto& starts = lane.starts;
  std::size_t n = starts.size();
  if (n == 0 || static_cast<double>(starts.front()) > t) {
    hint = 0;
    return 0;
  }
  // Gallop forward from the hint (columns come left to right), else search all.
  std::size_t lo = hint < n && static_cast<double>(starts[hint]) <= t ? hint : 0;
  std::size_t step = 1;
  while (lo + step < n && static_cast<double>(starts[lo + step]) <= t) {
    lo += step;
    step *= 2;
  }
  auto end = starts.begin() + static_cast<std::ptrdiff_t>(std::min(lo + step, n));
  auto next = std::upper_bound(starts.begin() + static_cast<std::ptrdiff_t>(lo) + 1, end, t,
                               [](double value, std::int64_t start) { return value < static_cast<double>(start); });
  std::size_t i = static_cast<std::size_t>(next - starts.begin()) - 1;
  hint = i;
  double length = static_cast<double>(lane.busyBefore[i + 1] - lane.busyBefore[i]);
  return static_cast<double>(lane.busyBefore[i]) + std::clamp(t - static_cast<double>(starts[i]), 0.0, length);
}

double LaneSummary::busyNs(trace::LaneIndex lane, double fromNs, double toNs) const {
  if (lane >= m_lanes.size() || !(toNs > fromNs)) return 0;
  std::size_t hint = 0;
  double before = busyBeforeNs(m_lanes[lane], fromNs, hint);
  return busyBeforeNs(m_lanes[lane], toNs, hint) - before;
}

bool LaneSummary::resolves(trace::LaneIndex lane, double nsPerPx) const {
  return lane < m_lanes.size() && m_lanes[lane].binNs > 0 && m_lanes[lane].binNs <= nsPerPx;
}

void LaneSummary::columns(trace::LaneIndex lane, double fromNs, double nsPerPx, std::size_t count, SwimlaneColorMode mode,
                          std::vector<ColumnSample>& out) const {
  out.assign(count, ColumnSample{});
  if (!resolves(lane, nsPerPx) || count == 0) return;
  const Lane& l = m_lanes[lane];
  // The finest level whose bins are no wider than a column: 1 to 3 bins each.
  std::size_t level = 0;
  double binNs = l.binNs;
  while (level + 1 < l.levels.size() && binNs * 2 <= nsPerPx) {
    binNs *= 2;
    ++level;
  }
  const std::vector<Bin>& bins = l.levels[level];
  const auto binCount = static_cast<std::ptrdiff_t>(bins.size());
  auto modeIndex = static_cast<std::size_t>(mode);
  double origin = static_cast<double>(l.originNs);
  double binsPerColumn = nsPerPx / binNs;

  // Busy time before t, walking the intervals left to right with the
  // columns: a few steps each at coarse zoom; a long jump is a binary search.
  const std::int64_t* starts = l.starts.data();
  const std::int64_t* before = l.busyBefore.data();
  const auto n = static_cast<std::ptrdiff_t>(l.starts.size());
  std::ptrdiff_t i = -1;  // last interval starting at or before t
  auto busyBefore = [&](double t) {
    int steps = 0;
    while (i + 1 < n && static_cast<double>(starts[i + 1]) <= t) {
      if (++steps > 64) {
        auto next = std::upper_bound(starts + i + 1, starts + n, t,
                                     [](double value, std::int64_t start) { return value < static_cast<double>(start); });
        i = (next - starts) - 1;
        break;
      }
      ++i;
    }
    if (i < 0) return 0.0;
    double length = static_cast<double>(before[i + 1] - before[i]);
    return static_cast<double>(before[i]) + std::clamp(t - static_cast<double>(starts[i]), 0.0, length);
  };

  double previous = busyBefore(fromNs);
  for (std::size_t c = 0; c < count; ++c) {
    double a = fromNs + static_cast<double>(c) * nsPerPx;
    double after = busyBefore(a + nsPerPx);
    double busy = after - previous;
    previous = after;
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
    bytes += lane.starts.capacity() * sizeof(std::int64_t) + lane.busyBefore.capacity() * sizeof(std::int64_t);
    bytes += lane.levels.capacity() * sizeof(std::vector<Bin>);
    for (const auto& level : lane.levels) bytes += level.capacity() * sizeof(Bin);
  }
  return bytes;
}

} // namespace pto::widgets
