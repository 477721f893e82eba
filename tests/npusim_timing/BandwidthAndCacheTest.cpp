// The pieces under the timing model, against hand-worked numbers: max-min
// fair sharing (water-filling) of the GM cap, and the L2's line accounting.
#include "npusim/BandwidthSharing.h"
#include "npusim/L2CacheModel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace pto {
namespace {

std::vector<double> share(std::vector<double> limits, double cap) {
  std::vector<double> rates(limits.size());
  shareBandwidth(limits, cap, rates);
  return rates;
}

TEST(BandwidthSharing, UnderTheCapEveryoneRunsAtItsLimit) {
  EXPECT_EQ(share({10, 20, 30}, 100), (std::vector<double>{10, 20, 30}));
}

TEST(BandwidthSharing, SmallLimitsAreMetAndTheRestSplitsEqually) {
  // cap 100: 10 is below 100/3, takes 10; 90 left for two: 45 each (both limits above).
  EXPECT_EQ(share({60, 10, 50}, 100), (std::vector<double>{45, 10, 45}));
  // Equal limits above the fair share: equal split.
  EXPECT_EQ(share({58.5, 58.5, 58.5, 58.5}, 100), (std::vector<double>{25, 25, 25, 25}));
  // 30 < 100/3 takes 30; 35 = 70/2 takes 35; 40 > 35 gets 35.
  EXPECT_EQ(share({40, 30, 35}, 100), (std::vector<double>{35, 30, 35}));
}

TEST(BandwidthSharing, RandomMixesRespectLimitsCapAndMaxMinFairness) {
  std::mt19937 random(5);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<double> limits(1 + random() % 80);
    for (double& limit : limits) limit = 1.0 + static_cast<double>(random() % 2000) / 10.0;
    double cap = 50.0 + static_cast<double>(random() % 5000);
    std::vector<double> rates = share(limits, cap);
    double total = std::accumulate(rates.begin(), rates.end(), 0.0);
    double demand = std::accumulate(limits.begin(), limits.end(), 0.0);
    EXPECT_LE(total, cap * (1 + 1e-12));
    EXPECT_NEAR(total, std::min(cap, demand), 1e-9 * cap) << "work conserving";
    double level = 0.0;  // every transfer below its limit runs at the same, highest, rate
    for (std::size_t i = 0; i < limits.size(); ++i) {
      EXPECT_LE(rates[i], limits[i] * (1 + 1e-12));
      level = std::max(level, rates[i]);
    }
    for (std::size_t i = 0; i < limits.size(); ++i)
      if (rates[i] < limits[i] * (1 - 1e-12)) {
        EXPECT_NEAR(rates[i], level, 1e-9 * level);
      }
  }
}

ConcreteRegion region(TensorId tensor, std::vector<std::int64_t> offsets, std::vector<std::int64_t> shape) {
  return {tensor, std::move(offsets), std::move(shape)};
}

TEST(L2CacheModel, ReadingWhatWasJustWrittenHits) {
  // A [64, 256] fp32 tensor: rows of 1 KiB = two 512-byte lines.
  L2CacheModel cache(1 << 20, 512, {{{64, 256}, 4}});
  EXPECT_EQ(cache.access(region(0, {0, 0}, {8, 256})), 0.0);  // 16 lines, cold
  EXPECT_EQ(cache.misses(), 16);
  EXPECT_EQ(cache.access(region(0, {0, 0}, {8, 256})), 1.0);
  // Rows 4..11: half of them present.
  EXPECT_EQ(cache.access(region(0, {4, 0}, {8, 256})), 0.5);
  // Columns 0..63 of rows 0..3: the first line of each row, present.
  EXPECT_EQ(cache.access(region(0, {0, 0}, {4, 64})), 1.0);
  // Columns 128..191 of rows 20..23: second lines, absent.
  EXPECT_EQ(cache.access(region(0, {20, 128}, {4, 64})), 0.0);
  EXPECT_EQ(cache.hits(), 16 + 8 + 4);
}

TEST(L2CacheModel, TheLeastRecentlyUsedLinesAreEvicted) {
  // 4 lines of 512 bytes; a [1, 1024] fp32 tensor is 8 lines.
  L2CacheModel cache(4 * 512, 512, {{{1, 1024}, 4}});
  cache.access(region(0, {0, 0}, {1, 512}));  // lines 0..3
  cache.access(region(0, {0, 0}, {1, 128}));  // line 0 becomes the most recent
  cache.access(region(0, {0, 512}, {1, 128}));  // line 4 evicts line 1
  EXPECT_EQ(cache.access(region(0, {0, 0}, {1, 128})), 1.0);
  EXPECT_EQ(cache.access(region(0, {0, 128}, {1, 128})), 0.0) << "line 1 was the least recent";
}

// The timing simulator's look-ahead works on a copy: the copy answers as the
// original would, and touching it leaves the original as it was (both
// replacement policies: the random one's draws are part of the state).
TEST(L2CacheModel, ACopyAnswersAsTheOriginalAndTouchingItLeavesTheOriginalAlone) {
  for (L2Replacement replacement : {L2Replacement::Lru, L2Replacement::Random}) {
    L2CacheModel cache(8 * 512, 512, {{{4, 1024}, 4}}, replacement);  // 8 lines; the tensor is 32
    auto lines = [](std::int64_t row, std::int64_t first, std::int64_t count) {
      return region(0, {row, 128 * first}, {1, 128 * count});
    };
    cache.access(lines(0, 0, 6));
    cache.access(lines(1, 0, 4));  // evicts two of row 0's lines
    L2CacheModel copy = cache;
    for (const ConcreteRegion& probe : {lines(0, 0, 8), lines(1, 2, 4), lines(2, 0, 3), lines(0, 4, 4)})
      EXPECT_EQ(copy.access(probe), cache.access(probe));
    EXPECT_EQ(copy.hits(), cache.hits());
    const std::int64_t hits = cache.hits(), misses = cache.misses();
    L2CacheModel other = cache;
    other.access(lines(3, 0, 8));  // flushes the copy
    EXPECT_EQ(cache.hits(), hits);
    EXPECT_EQ(cache.misses(), misses);
    EXPECT_EQ(cache.access(lines(0, 4, 4)), 1.0) << "the original still holds the lines it read last";
  }
}

TEST(L2CacheModel, AnEvictedLineMissesWhenReadAgain) {
  // Room for one line: each new line evicts the other, whichever the policy
  // (the only line present is the least recent and the only random choice).
  // An evicted line's index entry is left behind; it must not read as present.
  for (L2Replacement replacement : {L2Replacement::Lru, L2Replacement::Random}) {
    L2CacheModel cache(512, 512, {{{1, 1024}, 4}}, replacement);  // 8 lines of 128 fp32
    auto line = [](std::int64_t k) { return region(0, {0, 128 * k}, {1, 128}); };
    EXPECT_EQ(cache.access(line(0)), 0.0);
    EXPECT_EQ(cache.access(line(0)), 1.0);
    EXPECT_EQ(cache.access(line(1)), 0.0);  // evicts line 0
    EXPECT_EQ(cache.access(line(0)), 0.0) << "line 0 was evicted";
    EXPECT_EQ(cache.access(line(1)), 0.0) << "line 1 was evicted by line 0";
    EXPECT_EQ(cache.access(line(1)), 1.0);
    EXPECT_EQ(cache.hits(), 2);
    EXPECT_EQ(cache.misses(), 4);
  }
}

TEST(L2CacheModel, RegionsOfWholeRowsTouchTheLinesTheirRowsTouchInAddressOrder) {
  // A [4, 8, 48] fp32 tensor: rows of 192 bytes, planes of 1536 = three
  // 512-byte lines, so rows straddle lines. Worked by hand from the byte
  // ranges; a region covering its inner dims whole is walked as one run.
  L2CacheModel cache(6 * 512, 512, {{{4, 8, 48}, 4}});
  // Planes 1..2: bytes 1536..4607, lines 3..8, all cold.
  L2CacheModel::Lines planes = cache.accessLines(region(0, {1, 0, 0}, {2, 8, 48}));
  EXPECT_EQ(planes.hitFraction, 0.0);
  EXPECT_EQ(planes.missedBytes, 6 * 512);
  EXPECT_EQ(cache.access(region(0, {1, 0, 0}, {2, 8, 48})), 1.0);
  // Row 0 of plane 3 (bytes 4608..4799, line 9) evicts the least recent
  // line: line 3, touched first, if the lines were touched in address order.
  EXPECT_EQ(cache.access(region(0, {3, 0, 0}, {1, 1, 48})), 0.0);
  EXPECT_EQ(cache.access(region(0, {1, 3, 0}, {1, 1, 48})), 1.0) << "row 3 of plane 1 lies in line 4";
  EXPECT_EQ(cache.access(region(0, {1, 0, 0}, {1, 1, 48})), 0.0) << "line 3 was the least recent";
  // Rows 2..4 of planes 0 and 1 (whole rows, not whole planes): runs of 576
  // bytes at 384..959 (lines 0..1) and 1920..2495 (lines 3..4).
  L2CacheModel fresh(1 << 20, 512, {{{4, 8, 48}, 4}});
  EXPECT_EQ(fresh.accessLines(region(0, {0, 2, 0}, {2, 3, 48})).missedBytes, 4 * 512);
  EXPECT_EQ(fresh.access(region(0, {0, 0, 0}, {1, 8, 48})), 2.0 / 3.0) << "lines 0..1 of plane 0's 0..2";
}

// The cache by its definition, with none of the model's indexes: a region's
// lines row by row (each row's byte range, less the lines an earlier row
// already gave), each line present or not by a search of the lines held.
// Lru evicts the line used least recently; Random replaces the line in slot
// xorshift64^k(seed) mod capacity at the k-th eviction (slots filled in
// order of first touch), the sequence L2CacheModel.h documents as seeded.
class ReferenceL2 {
public:
  ReferenceL2(std::int64_t capacityBytes, std::int64_t lineBytes, std::vector<GmTensorLayout> layouts,
              L2Replacement replacement)
      : m_capacity(static_cast<std::size_t>(capacityBytes / lineBytes)), m_lineBytes(lineBytes),
        m_layouts(std::move(layouts)), m_replacement(replacement) {}

  L2CacheModel::Lines accessLines(const ConcreteRegion& region) {
    const GmTensorLayout& layout = m_layouts[static_cast<std::size_t>(region.tensor)];
    const std::size_t rank = layout.shape.size();
    std::vector<std::int64_t> stride(rank, layout.elementBytes);
    for (std::size_t d = rank - 1; d > 0; --d) stride[d - 1] = stride[d] * layout.shape[d];
    std::vector<std::int64_t> lines;
    std::int64_t lastLine = -1;
    std::vector<std::int64_t> index(rank, 0);  // the row's position; the last dim stays 0
    while (true) {
      std::int64_t start = 0;
      for (std::size_t d = 0; d < rank; ++d) start += (region.offsets[d] + index[d]) * stride[d];
      const std::int64_t end = start + region.shape[rank - 1] * layout.elementBytes - 1;
      for (std::int64_t line = std::max(start / m_lineBytes, lastLine + 1); line <= end / m_lineBytes; ++line)
        lines.push_back(line);
      lastLine = std::max(lastLine, end / m_lineBytes);
      std::size_t d = rank - 1;
      while (d > 0 && ++index[d - 1] == region.shape[d - 1]) index[--d] = 0;
      if (d == 0) break;
    }
    std::int64_t hits = 0;
    for (std::int64_t line : lines) hits += touch({region.tensor, line});
    const auto total = static_cast<std::int64_t>(lines.size());
    return {static_cast<double>(hits) / static_cast<double>(total), (total - hits) * m_lineBytes};
  }

private:
  using Line = std::pair<TensorId, std::int64_t>;
  bool touch(const Line& line) {
    auto held = std::find(m_slots.begin(), m_slots.end(), line);
    if (held != m_slots.end()) {
      const auto slot = static_cast<std::size_t>(held - m_slots.begin());
      m_lastUse[slot] = ++m_clock;
      return true;
    }
    std::size_t slot = m_slots.size();
    if (m_slots.size() < m_capacity) {
      m_slots.push_back(line);
      m_lastUse.push_back(0);
    } else if (m_replacement == L2Replacement::Lru) {
      slot = static_cast<std::size_t>(std::min_element(m_lastUse.begin(), m_lastUse.end()) - m_lastUse.begin());
    } else {
      m_random ^= m_random << 13;
      m_random ^= m_random >> 7;
      m_random ^= m_random << 17;
      slot = static_cast<std::size_t>(m_random % m_slots.size());
    }
    m_slots[slot] = line;
    m_lastUse[slot] = ++m_clock;
    return false;
  }

  std::size_t m_capacity;
  std::int64_t m_lineBytes;
  std::vector<GmTensorLayout> m_layouts;
  L2Replacement m_replacement;
  std::vector<Line> m_slots;
  std::vector<std::uint64_t> m_lastUse;
  std::uint64_t m_clock = 0;
  std::uint64_t m_random = 0x2545F4914F6CDD1Dull;
};

TEST(L2CacheModel, RandomRegionsHitAsTheCacheByDefinition) {
  // Three tensors: two small enough for the model's direct index (rows of
  // 96 bytes that straddle lines, and of whole lines) and one of 2^38 bytes,
  // past its budget, whose lines go to the hash table. Regions of random
  // corners and sizes, some of whole rows or planes; a cache of 40 lines,
  // which the sweeps overflow many times over.
  const std::vector<GmTensorLayout> layouts = {
      {{6, 16, 24}, 4}, {{64, 256}, 2}, {{std::int64_t{1} << 22, std::int64_t{1} << 14}, 4}};
  for (L2Replacement replacement : {L2Replacement::Lru, L2Replacement::Random}) {
    std::mt19937 random(replacement == L2Replacement::Lru ? 1 : 2);
    L2CacheModel cache(40 * 512, 512, layouts, replacement);
    ReferenceL2 reference(40 * 512, 512, layouts, replacement);
    for (int access = 0; access < 3000; ++access) {
      const auto tensor = static_cast<TensorId>(random() % layouts.size());
      const std::vector<std::int64_t>& extent = layouts[static_cast<std::size_t>(tensor)].shape;
      ConcreteRegion read{tensor, {}, {}};
      for (std::size_t d = 0; d < extent.size(); ++d) {
        // The huge tensor is read near its start and near its end.
        const std::int64_t span = std::min<std::int64_t>(extent[d], 48);
        std::int64_t size = 1 + static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(span));
        if (d > 0 && random() % 3 == 0) size = extent[d];  // whole rows (or planes)
        std::int64_t offset = static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(span - std::min(size, span) + 1));
        if (extent[d] > 4096 && random() % 2 == 0) offset = extent[d] - size - offset;
        read.offsets.push_back(offset);
        read.shape.push_back(size);
      }
      const L2CacheModel::Lines got = cache.accessLines(read);
      const L2CacheModel::Lines want = reference.accessLines(read);
      ASSERT_EQ(got.hitFraction, want.hitFraction) << "access " << access << " of tensor " << tensor;
      ASSERT_EQ(got.missedBytes, want.missedBytes) << "access " << access << " of tensor " << tensor;
    }
  }
}

TEST(L2CacheModel, TensorsWithoutALayoutAlwaysMiss) {
  L2CacheModel cache(1 << 20, 512, {});
  cache.access(region(3, {0}, {100}));
  EXPECT_EQ(cache.access(region(3, {0}, {100})), 0.0);
}

} // namespace
} // namespace pto
