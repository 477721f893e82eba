// Helpers for the tile compiler's tests: the compact one-line-per-tile-op dump that the golden files
// check, seeded random arguments, and element-by-element comparisons that name the first mismatch.
#pragma once

#include "tests/support/KernelBuilding.h"
#include "compiler/ir/TensorGraphBuilder.h"
#include "compiler/ir/TileGraph.h"
#include "core/Diagnostics.h"
#include "core/HostTensor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace pto::testing {

using Dims = std::vector<std::int64_t>;

// "[2, 64]"
std::string dimsText(const Dims& dims);
// The element count of a shape.
std::int64_t product(const Dims& dims);
std::int64_t ceilDiv(std::int64_t a, std::int64_t b);

// One tile op as the golden files spell it:
//   #3 exp x[0:4, 64:128] -> t2[0:4, 64:128] tile=[4, 64]
//   #7 sum x[0:2, 16:32] -> s[0:2, 0:1] acc=add tile=[2, 16]
// Regions print with regionString (TileGraph.h); " acc=<mode>" appears only when the op accumulates and
// " tile=[...]" only when the op has a hardware tile shape (views have none).
std::string tileOpLine(const TileGraph& graph, const TileOp& op);
// Every tile op in id order, one line each, each ending in a newline.
std::string dumpTiles(const TileGraph& graph);

// Uniform values in [low, high], converted to `dtype` as HostTensor::setFromDouble does.
HostTensor randomTensor(DataType dtype, const std::vector<std::int64_t>& shape, double low, double high,
                        std::mt19937_64& random);

// Same dtype, shape and bits in every element (NaN payloads included).
::testing::AssertionResult bitwiseEqual(const HostTensor& actual, const HostTensor& expected);
// |actual - expected| <= atol + rtol * |expected| for every element, compared in double; infinities and NaN
// must match exactly.
::testing::AssertionResult withinTolerance(const HostTensor& actual, const HostTensor& expected, double rtol,
                                           double atol);

} // namespace pto::testing
