// The region boxes, their overlap test and the grid index, against brute
// force: boxes are small enough to enumerate their elements, and symbolic
// parts are given every value of a small range.
#include "compiler/ir/Regions.h"

#include "tests/RandomCases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <random>
#include <set>

namespace pto {
namespace {

constexpr int kSymbolValues = 6;  // a symbolic part takes the values 0, 8, ..., 40

// Whether the element sets of `a` and `b` meet when `a`'s symbolic parts take
// the values `valueA` (indexed by symbol id) and `b`'s `valueB`.
bool elementsMeet(const RegionBox& a, const RegionBox& b, const std::vector<std::int64_t>& valueA,
                  const std::vector<std::int64_t>& valueB) {
  if (a.tensor != b.tensor) return false;
  for (std::size_t d = 0; d < std::min(a.rank, b.rank); ++d) {
    const std::int64_t loA = a.lo[d] + valueA[static_cast<std::size_t>(a.symbol[d])];
    const std::int64_t hiA = a.hi[d] + valueA[static_cast<std::size_t>(a.symbol[d])];
    const std::int64_t loB = b.lo[d] + valueB[static_cast<std::size_t>(b.symbol[d])];
    const std::int64_t hiB = b.hi[d] + valueB[static_cast<std::size_t>(b.symbol[d])];
    if (loA >= hiA || loB >= hiB || hiA <= loB || hiB <= loA) return false;
  }
  return true;
}

// Every assignment of values to the symbols 1..symbols (symbol 0 is the number 0).
std::vector<std::vector<std::int64_t>> assignments(int symbols) {
  std::vector<std::vector<std::int64_t>> all{{0}};
  for (int s = 1; s <= symbols; ++s) {
    std::vector<std::vector<std::int64_t>> next;
    for (const auto& partial : all)
      for (int v = 0; v < kSymbolValues; ++v) {
        next.push_back(partial);
        next.back().push_back(8 * v);
      }
    all = std::move(next);
  }
  return all;
}

// Could the two boxes share an element, by enumeration: in one iteration both
// boxes see the same symbol values, in any iterations each sees its own.
bool bruteMayOverlap(const RegionBox& a, const RegionBox& b, OverlapMode mode, int symbols) {
  const auto values = assignments(symbols);
  for (const auto& valueA : values) {
    if (mode == OverlapMode::SameIteration) {
      if (elementsMeet(a, b, valueA, valueA)) return true;
      continue;
    }
    for (const auto& valueB : values)
      if (elementsMeet(a, b, valueA, valueB)) return true;
  }
  return false;
}

class RandomBoxes {
public:
  RandomBoxes(unsigned seed, int symbols) : m_random(seed), m_symbols(symbols) {}

  RegionBox box(int tensors = 2) {
    RegionBox box;
    box.tensor = pick(0, tensors - 1);
    box.rank = static_cast<std::uint8_t>(2 + box.tensor);  // the boxes of a tensor have its rank
    for (std::size_t d = 0; d < box.rank; ++d) {
      box.symbol[d] = pick(0, 2) == 0 ? pick(0, m_symbols) : 0;
      box.lo[d] = pick(-4, 40);
      box.hi[d] = box.lo[d] + pick(0, 12);  // an empty box now and then
    }
    return box;
  }

  int pick(int low, int high) { return std::uniform_int_distribution<int>(low, high)(m_random); }

private:
  std::mt19937 m_random;
  int m_symbols;
};

TEST(Regions, OverlapIsExactOnNumbersAndSoundOnSymbols) {
  constexpr int kSymbols = 2;
  RandomBoxes random(7, kSymbols);
  const int cases = test::randomCaseCount(3000);
  for (int i = 0; i < cases; ++i) {
    const RegionBox a = random.box(), b = random.box();
    for (OverlapMode mode : {OverlapMode::SameIteration, OverlapMode::AnyIteration}) {
      const bool brute = bruteMayOverlap(a, b, mode, kSymbols);
      const bool said = mayOverlap(a, b, mode);
      // Sound: a pair that can share an element is never called apart.
      if (brute) {
        ASSERT_TRUE(said) << "case " << i;
      }
      // Exact where it can be: with numbers only, "may" means "does".
      bool numbers = true;
      for (std::size_t d = 0; d < a.rank; ++d) numbers = numbers && a.symbol[d] == 0;
      for (std::size_t d = 0; d < b.rank; ++d) numbers = numbers && b.symbol[d] == 0;
      if (numbers) {
        ASSERT_EQ(said, brute) << "case " << i;
      }
      // Symmetric.
      ASSERT_EQ(said, mayOverlap(b, a, mode)) << "case " << i;
    }
  }
}

TEST(Regions, ContainmentHoldsForEveryValueOfTheSymbols) {
  constexpr int kSymbols = 2;
  RandomBoxes random(11, kSymbols);
  const auto values = assignments(kSymbols);
  const int cases = test::randomCaseCount(3000);
  int contained = 0;
  for (int i = 0; i < cases; ++i) {
    RegionBox outer = random.box(1), inner = random.box(1);
    if (i % 3 == 0) {  // make containment likely: shrink a copy of `outer`
      inner = outer;
      for (std::size_t d = 0; d < inner.rank; ++d) {
        inner.lo[d] += random.pick(0, 2);
        inner.hi[d] = std::max(inner.lo[d], inner.hi[d] - random.pick(0, 2));
      }
    }
    if (!containsBox(outer, inner)) continue;
    ++contained;
    // Every element of `inner` lies in `outer` under the same symbol values.
    for (const auto& value : values)
      for (std::size_t d = 0; d < inner.rank; ++d) {
        const std::int64_t shift = value[static_cast<std::size_t>(inner.symbol[d])];
        if (inner.lo[d] >= inner.hi[d]) continue;
        ASSERT_LE(outer.lo[d] + value[static_cast<std::size_t>(outer.symbol[d])], inner.lo[d] + shift) << i;
        ASSERT_GE(outer.hi[d] + value[static_cast<std::size_t>(outer.symbol[d])], inner.hi[d] + shift) << i;
      }
  }
  EXPECT_GT(contained, cases / 5);  // the property was exercised
}

// The index returns exactly the live boxes the overlap test accepts, each once,
// whatever the cell size (wide boxes included) and the order of inserts: while
// it scans its first boxes, when it files them in its grid (boxes dropped
// before included), and after.
TEST(Regions, IndexFindsWhatBruteForceFinds) {
  for (OverlapMode mode : {OverlapMode::SameIteration, OverlapMode::AnyIteration}) {
    for (unsigned seed = 1; seed <= 4; ++seed) {
      RandomBoxes random(seed, 2);
      RegionIndex index(mode);
      if (seed % 2 == 0) index.setCellSize(0, {1, 2, 3});  // small cells: many boxes are wide
      std::vector<RegionBox> boxes;
      std::vector<bool> alive;
      const int inserts = std::max(test::randomCaseCount(400), 300);  // past the 128 an index scans
      for (int i = 0; i < inserts; ++i) {
        boxes.push_back(random.box());
        alive.push_back(!boxes.back().empty());
        index.insert(boxes.back(), i);
        if (i % 10 != 9) continue;
        // Query, and drop every third box found.
        const RegionBox query = random.box();
        std::multiset<std::int32_t> found;
        index.visitOverlapping(query, [&](std::int32_t payload, const RegionBox& box) {
          EXPECT_EQ(box, boxes[static_cast<std::size_t>(payload)]);
          found.insert(payload);
          return payload % 3 == 0 ? RegionIndex::Visit::Drop : RegionIndex::Visit::Keep;
        });
        std::multiset<std::int32_t> expected;
        for (std::size_t b = 0; b < boxes.size(); ++b)
          if (alive[b] && mayOverlap(query, boxes[b], mode)) expected.insert(static_cast<std::int32_t>(b));
        ASSERT_EQ(found, expected) << "seed " << seed << " after " << i + 1 << " inserts";
        for (std::int32_t payload : found)
          if (payload % 3 == 0) alive[static_cast<std::size_t>(payload)] = false;
      }
    }
  }
}

// RegionBoxIds numbers boxes as a linear search of the boxes seen would:
// equal boxes get one id, new ones the next, through its growth and a clear.
TEST(Regions, BoxIdsAreTheFirstSightOfEachDistinctBox) {
  RandomBoxes random(7, 2);
  RegionBoxIds ids;
  for (int round = 0; round < 2; ++round) {
    ids.clear();
    std::deque<RegionBox> kept;  // where the ids point: never moved
    std::vector<RegionBox> seen;
    const int boxes = test::randomCaseCount(3000);
    for (int i = 0; i < boxes; ++i) {
      // Every third box is one seen before, so that both answers come often.
      const RegionBox box = (i % 3 == 2 && !seen.empty()) ? seen[static_cast<std::size_t>(i * 7919) % seen.size()]
                                                          : random.box();
      const auto known = std::find(seen.begin(), seen.end(), box);
      const auto [id, added] = ids.intern(&kept.emplace_back(box));
      ASSERT_EQ(added, known == seen.end()) << "box " << i;
      ASSERT_EQ(id, static_cast<std::uint32_t>(known - seen.begin())) << "box " << i;
      if (added) seen.push_back(box);
    }
    EXPECT_EQ(ids.size(), seen.size());
  }
}

// Tiles of a long row-major grid, the layout the index and the box ids keep
// in neighbouring slots (runs of cells along the innermost dim): every
// tile's id is its first sight, and a query straddling tiles finds the
// tiles it meets, against brute force, with negative offsets too.
TEST(Regions, RowsOfTilesAreFoundAndNumberedAsBruteForceDoes) {
  const std::int64_t rows = 24, columns = 300, width = 4;
  std::vector<RegionBox> tiles;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < columns; ++c) {
      RegionBox tile;
      tile.tensor = 0;
      tile.rank = 2;
      tile.lo = {r - 3, c * width - 40};
      tile.hi = {r - 2, c * width - 40 + width};
      tiles.push_back(tile);
    }
  RegionIndex index;
  RegionBoxIds ids;
  for (std::size_t t = 0; t < tiles.size(); ++t) {
    index.insert(tiles[t], static_cast<std::int32_t>(t));
    ASSERT_EQ(ids.intern(&tiles[t]), std::make_pair(static_cast<std::uint32_t>(t), true)) << "tile " << t;
  }
  for (std::size_t t = 0; t < tiles.size(); t += 97) {
    const RegionBox copy = tiles[t];  // equal, elsewhere
    ASSERT_EQ(ids.intern(&copy), std::make_pair(static_cast<std::uint32_t>(t), false)) << "tile " << t;
  }
  for (std::int64_t r = -4; r < rows - 2; r += 5)
    for (std::int64_t x = -45; x < columns * width - 40; x += 37) {
      RegionBox query;
      query.tensor = 0;
      query.rank = 2;
      query.lo = {r, x};
      query.hi = {r + 2, x + 6};  // two rows, two or three tiles of each
      std::set<std::int32_t> found, expected;
      index.forEachOverlapping(query, [&](std::int32_t payload) { found.insert(payload); });
      for (std::size_t t = 0; t < tiles.size(); ++t)
        if (mayOverlap(query, tiles[t], OverlapMode::SameIteration)) expected.insert(static_cast<std::int32_t>(t));
      ASSERT_EQ(found, expected) << "query at row " << r << ", column " << x;
    }
}

TEST(Regions, StopEndsTheSearch) {
  RegionIndex index;
  RegionBox box;
  box.tensor = 0;
  box.rank = 1;
  box.hi[0] = 16;
  for (int i = 0; i < 5; ++i) index.insert(box, i);
  int visits = 0;
  index.visitOverlapping(box, [&](std::int32_t, const RegionBox&) {
    ++visits;
    return RegionIndex::Visit::Stop;
  });
  EXPECT_EQ(visits, 1);
}

TEST(Regions, BoxesSplitOffsetsIntoASymbolicPartAndNumbers) {
  const SymbolicScalar i = SymbolicScalar::symbol("i");
  const SymbolicScalar j = SymbolicScalar::symbol("j");
  RegionBoxes boxes;
  auto region = [](SymbolicScalar row, SymbolicScalar column) {
    TileRegion tile;
    tile.tensor = 3;
    tile.offsets = {std::move(row), std::move(column)};
    tile.shape = {64, 32};
    return tile;
  };
  const RegionBox first = boxes.box(region(i * 64, SymbolicScalar(0)));
  const RegionBox second = boxes.box(region(i * 64 + 32, SymbolicScalar(32)));
  const RegionBox other = boxes.box(region(j * 64, SymbolicScalar(0)));
  EXPECT_EQ(first.tensor, 3);
  EXPECT_EQ(first.rank, 2);
  EXPECT_NE(first.symbol[0], 0);
  EXPECT_EQ(first.symbol[0], second.symbol[0]);  // i * 64 and i * 64 + 32 share their symbolic part
  EXPECT_NE(first.symbol[0], other.symbol[0]);
  EXPECT_EQ(second.lo[0], 32);
  EXPECT_EQ(second.hi[0], 96);
  EXPECT_EQ(first.symbol[1], 0);
  EXPECT_EQ(second.lo[1], 32);
  // In one iteration the first two overlap in rows but not in columns; across
  // iterations, or under another loop's index, the rows may be anything.
  EXPECT_FALSE(mayOverlap(first, second, OverlapMode::SameIteration));
  EXPECT_FALSE(mayOverlap(first, second, OverlapMode::AnyIteration));  // the columns are numbers
  EXPECT_TRUE(mayOverlap(first, other, OverlapMode::SameIteration));
}

} // namespace
} // namespace pto
