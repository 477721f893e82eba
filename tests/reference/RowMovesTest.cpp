// gatherRows and scatterRows (compiler/reference/GatherRows.h, ScatterRows.h)
// on a paged cache of hand-computed rows: which rows move where, and what
// they say about indices and tiles that do not fit.
#include "compiler/reference/GatherRows.h"
#include "compiler/reference/ScatterRows.h"

#include <gtest/gtest.h>

#include <vector>

namespace pto {
namespace {

// A cache [2, 3, 1, 2]: 6 rows of 2, row r holding {10 r, 10 r + 1}.
HostTensor pagedCache() {
  std::vector<float> values;
  for (int row = 0; row < 6; ++row) values.insert(values.end(), {10.0f * row, 10.0f * row + 1});
  return HostTensor::fromValues(Shape({2, 3, 1, 2}), values);
}

std::vector<double> elements(const HostTensor& tensor) {
  std::vector<double> out;
  for (std::int64_t i = 0; i < tensor.elementCount(); ++i) out.push_back(tensor.getAsDouble(i));
  return out;
}

TEST(RowMoves, GatherPicksRowsAcrossTheLeadingDims) {
  HostTensor target(DataType::Fp32, Shape({3, 2}));
  const HostTensor index = HostTensor::fromValues(Shape({3}), std::vector<std::int32_t>{4, 0, 5});
  EXPECT_EQ(gatherRows(pagedCache(), index, target), "");
  EXPECT_EQ(elements(target), (std::vector<double>{40, 41, 0, 1, 50, 51}));
}

TEST(RowMoves, ScatterWritesOnlyTheNamedRowsLastWriteWinning) {
  HostTensor cache = pagedCache();
  const HostTensor rows = HostTensor::fromValues(Shape({3, 1, 2}), std::vector<float>{-1, -2, -3, -4, -5, -6});
  const HostTensor index = HostTensor::fromValues(Shape({3}), std::vector<std::int32_t>{2, 5, 2});
  EXPECT_EQ(scatterRows(cache, index, rows), "");
  EXPECT_EQ(elements(cache), (std::vector<double>{0, 1, 10, 11, -5, -6, 30, 31, 40, 41, -3, -4}));
}

TEST(RowMoves, AnIndexPastTheRowsIsNamedWithItsEntry) {
  HostTensor target(DataType::Fp32, Shape({2, 2}));
  const HostTensor index = HostTensor::fromValues(Shape({2}), std::vector<std::int32_t>{1, 6});
  EXPECT_EQ(gatherRows(pagedCache(), index, target), "index 6 (entry 1) lies outside the 6 rows it picks from");
  HostTensor cache = pagedCache();
  EXPECT_EQ(scatterRows(cache, index, target), "index 6 (entry 1) lies outside the 6 rows it writes");
  EXPECT_EQ(elements(cache), elements(pagedCache()));  // checked before any row moved
}

TEST(RowMoves, ATileThatDoesNotFitTheRowsIsRefused) {
  HostTensor wide(DataType::Fp32, Shape({2, 3}));
  const HostTensor two = HostTensor::fromValues(Shape({2}), std::vector<std::int32_t>{0, 1});
  EXPECT_EQ(gatherRows(pagedCache(), two, wide), "gathers rows of 2 elements into a [2, 3] tile");
  HostTensor cache = pagedCache();
  EXPECT_EQ(scatterRows(cache, two, wide), "scatters rows of 2 elements from a [2, 3] tile");
  HostTensor three(DataType::Fp32, Shape({3, 2}));
  EXPECT_EQ(gatherRows(pagedCache(), two, three), "gathers 3 rows with 2 indices");
}

} // namespace
} // namespace pto
