#include "runtime/Executor.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace pto {
namespace {

TEST(PipeName, EqualTextIsOneIndexAndTheTextComesBack) {
  const PipeName mte2("MTE2"), again(std::string("MTE") + "2"), vector("VECTOR");
  EXPECT_EQ(mte2.index(), again.index());
  EXPECT_NE(mte2.index(), vector.index());
  EXPECT_EQ(mte2.text(), "MTE2");
  EXPECT_EQ(vector.text(), "VECTOR");
  EXPECT_EQ(PipeName::atIndex(vector.index()).text(), "VECTOR");
  EXPECT_EQ(PipeName().text(), "");  // the default names no pipe
}

TEST(PipeName, ThreadsMakingTheSameNamesAgreeOnTheirIndices) {
  // Sweeps simulate on several threads; each executor makes its names once.
  std::vector<std::uint8_t> seen(8);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < seen.size(); ++t)
    threads.emplace_back([&seen, t] { seen[t] = PipeName("threaded pipe " + std::to_string(t % 2)).index(); });
  for (std::thread& thread : threads) thread.join();
  for (std::size_t t = 2; t < seen.size(); ++t) EXPECT_EQ(seen[t], seen[t % 2]) << t;
  EXPECT_NE(seen[0], seen[1]);
}

// (Its 16 bytes are a static_assert beside it.)
TEST(PipeInterval, HoldsItsPipeAndCycles) {
  const PipeInterval interval{"CUBE", -5, 1'000'000'000'000};
  EXPECT_EQ(interval.pipe(), "CUBE");
  EXPECT_EQ(interval.startCycle, -5);
  EXPECT_EQ(interval.endCycle, 1'000'000'000'000);
  // The end's 56 bits: the latest end holds, a later one is held there, not wrapped.
  EXPECT_EQ((PipeInterval{"CUBE", 0, PipeInterval::kLatestEnd}.endCycle), PipeInterval::kLatestEnd);
  EXPECT_EQ((PipeInterval{"CUBE", 0, std::int64_t{1} << 62}.endCycle), PipeInterval::kLatestEnd);
  EXPECT_EQ((PipeInterval{"CUBE", 0, std::int64_t{1} << 62}.pipe()), "CUBE");
}

} // namespace
} // namespace pto
