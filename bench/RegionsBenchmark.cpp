// The region index (compiler/ir/Regions.h) from a thousand to a million
// regions: every region inserted, then each queried once, as a pass asks
// "which earlier tiles does this one touch". Counters: regions, overlaps
// found, and time per region, which stays about flat while the index is
// linear.
//
// regionIndexTiles: 64 x 64 tiles of one tensor, each query finding its own
// tile (the common case of the passes: boxes of one tile size per tensor).
// regionIndexWithRows: the same tiles plus one whole-row band per 64 tiles,
// the mix of sizes a task-level dependency index sees (a row read beside
// tile writes). The bands span more than 64 cells of the tile-sized grid,
// so they sit in the list every query scans: the cost per region grows with
// the number of bands, which is why BuildExecuteGraph keeps size classes of
// its own (Regions.h).
#include "compiler/ir/Regions.h"

#include <benchmark/benchmark.h>

#include <cmath>

namespace pto {
namespace {

constexpr std::int64_t kTile = 64;

RegionBox tileBox(std::int64_t row, std::int64_t column) {
  RegionBox box;
  box.tensor = 0;
  box.rank = 2;
  box.lo = {row * kTile, column * kTile};
  box.hi = {(row + 1) * kTile, (column + 1) * kTile};
  return box;
}

void queryAll(benchmark::State& state, bool withRows) {
  const auto regions = static_cast<std::int64_t>(state.range(0));
  const auto side = static_cast<std::int64_t>(std::ceil(std::sqrt(static_cast<double>(regions))));
  std::vector<RegionBox> boxes;
  boxes.reserve(static_cast<std::size_t>(regions + regions / 64 + 1));
  for (std::int64_t i = 0; i < regions; ++i) {
    boxes.push_back(tileBox(i / side, i % side));
    if (withRows && i % 64 == 63) {  // a band of whole rows: every column of this tile row
      RegionBox band = tileBox(i / side, 0);
      band.hi[1] = side * kTile;
      boxes.push_back(band);
    }
  }
  std::int64_t found = 0;
  for (auto _ : state) {
    RegionIndex index;
    for (std::size_t i = 0; i < boxes.size(); ++i) index.insert(boxes[i], static_cast<std::int32_t>(i));
    found = 0;
    for (const RegionBox& box : boxes) index.forEachOverlapping(box, [&](std::int32_t) { ++found; });
    benchmark::DoNotOptimize(found);
  }
  state.counters["regions"] = static_cast<double>(boxes.size());
  state.counters["overlaps"] = static_cast<double>(found);
  state.counters["per_region"] = benchmark::Counter(static_cast<double>(boxes.size()) * static_cast<double>(state.iterations()),
                                                    benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void regionIndexTiles(benchmark::State& state) { queryAll(state, false); }
void regionIndexWithRows(benchmark::State& state) { queryAll(state, true); }

BENCHMARK(regionIndexTiles)->RangeMultiplier(10)->Range(1000, 100000)->Unit(benchmark::kMillisecond);
BENCHMARK(regionIndexTiles)->Arg(1000000)->Iterations(2)->Unit(benchmark::kMillisecond);
// Not at a million: the bands make it quadratic (that is what it shows).
BENCHMARK(regionIndexWithRows)->RangeMultiplier(10)->Range(1000, 100000)->Unit(benchmark::kMillisecond);

} // namespace
} // namespace pto
