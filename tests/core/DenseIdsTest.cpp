// DenseIds against its definition: a key's id is the position of its first
// sight among the distinct keys, as a linear search of the keys seen says.
#include "core/DenseIds.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace pto {
namespace {

// Keys are strings; `spread` chooses how many distinct places and tags they
// get, so that the probes meet taken slots (1: every key in one chain, tags
// all equal) or mostly free ones.
template <int spread> struct StringTraits {
  static DenseIdPlace place(const std::string& key) {
    const std::size_t hash = std::hash<std::string>{}(key) % spread;
    return DenseIdPlace{hash, static_cast<std::uint32_t>(hash * 7)};
  }
  static bool same(const std::string& a, const std::string& b) { return a == b; }
};

template <typename Ids> void checkAgainstLinearSearch(Ids& ids, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> pick(0, 400);
  for (int round = 0; round < 3; ++round) {
    ids.clear();
    if (round == 2) ids.reserve(1000);  // reserved up front: no growth at all
    std::vector<std::string> seen;
    for (int i = 0; i < 1500; ++i) {
      const std::string key = "k" + std::to_string(pick(random));
      const auto known = std::find(seen.begin(), seen.end(), key);
      const auto expected = static_cast<std::uint32_t>(known - seen.begin());
      if (i % 2 == 0) {
        const auto [id, added] = ids.intern(key);
        ASSERT_EQ(added, known == seen.end()) << "key " << i << " round " << round;
        ASSERT_EQ(id, expected) << "key " << i << " round " << round;
      } else {
        // find, then add only when missing: the buffer planner's way.
        const DenseIdPlace place = Ids::Traits::place(key);
        const std::uint32_t found = ids.find(key, place);
        if (known == seen.end()) {
          ASSERT_EQ(found, Ids::kAbsent) << "key " << i << " round " << round;
          ASSERT_EQ(ids.add(key, place), expected) << "key " << i << " round " << round;
        } else {
          ASSERT_EQ(found, expected) << "key " << i << " round " << round;
        }
      }
      if (known == seen.end()) seen.push_back(key);
      ASSERT_EQ(ids.size(), seen.size());
    }
    for (std::size_t id = 0; id < seen.size(); ++id) {
      EXPECT_EQ(ids.key(static_cast<std::uint32_t>(id)), seen[id]);
      EXPECT_EQ(ids.find(seen[id]), id);
    }
    EXPECT_EQ(ids.find("never seen"), Ids::kAbsent);
  }
}

template <int spread> struct Numbered : DenseIds<std::string, StringTraits<spread>> {
  using Traits = StringTraits<spread>;
};

TEST(DenseIds, IdsAreTheFirstSightOfEachDistinctKeyWithFewPlaces) {
  Numbered<1> oneChain;  // every probe walks past every key of the table
  checkAgainstLinearSearch(oneChain, 1);
  Numbered<5> fewPlaces;
  checkAgainstLinearSearch(fewPlaces, 2);
}

TEST(DenseIds, IdsAreTheFirstSightOfEachDistinctKeyWithSpreadPlaces) {
  Numbered<1 << 20> spreadOut;
  checkAgainstLinearSearch(spreadOut, 3);
}

TEST(DenseIds, AnEmptyTableFindsNothing) {
  const Numbered<16> ids;
  EXPECT_EQ(ids.find("a"), Numbered<16>::kAbsent);
  EXPECT_EQ(ids.size(), 0U);
}

} // namespace
} // namespace pto
