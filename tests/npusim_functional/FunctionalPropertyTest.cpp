// Property tests of functional mode: random kernels (random shapes, mostly not multiples of their random
// tiles, and fp32 / fp16 / bf16) compiled by the whole pipeline and executed instruction by instruction on
// the simulated cores must compute what the reference interpreter computes, and exactly what the tile
// interpreter computes (FunctionalTestSupport.h says why).
//
// Tolerances against the reference (u = 2^-24, the fp32 unit roundoff):
//  - elementwise ops and amax/amin: the same kernels on the same values, so bit for bit.
//  - sum: a summation tree of depth d errs by at most d * u * sum|x| (Higham, "Accuracy and Stability of
//    Numerical Algorithms", 4.2, first order). The reference sums pairwise with sequential leaves of 8
//    (depth <= ceil(log2 n) + 8); the tiled sum sums each tile so and adds T partial sums one by one
//    (depth + T). So |functional - reference| <= (2 (ceil(log2 n) + 8) + T) u n max|x|. fp16/bf16 sums
//    accumulate in fp32 and round once at the end on both sides: plus one ulp of the output (rtol 2^-10
//    for fp16, 2^-7 for bf16, doubled for the binade edge).
//  - matmul (fp32 accumulation in L0C): any order of summing K products errs by at most
//    gamma_(K+1) sum_k |a_ik||b_kj| (Higham 3.1); both sides meet it, so per element
//    atol = 2 (K + 1) u sum_k |a_ik||b_kj| (+1 %); a narrower output rounds both once more (rtol as above).
//  - softmax rows: e = exp(x - max) is bit-exact, e >= 0 so the sum bound is relative to the row sum, and
//    each side's division adds one rounding: rtol = (2 (ceil(log2 n) + 8) + T) u + 2u (+1 %).
#include "FunctionalTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>

namespace pto::testing {
namespace {

constexpr double kU32 = 0x1p-24;

const std::vector<DataType> kFloatTypes = {DataType::Fp32, DataType::Fp16, DataType::Bf16};

DataType pickType(FunctionalCase& c) { return kFloatTypes[static_cast<std::size_t>(c.uniform(0, 2))]; }

std::int64_t alignOf(DataType dtype) { return 32 / static_cast<std::int64_t>(sizeOf(dtype)); }

// One output ulp, relative, doubled for the binade edge (0 for fp32: nothing rounds after accumulation).
double narrowRtol(DataType dtype) {
  if (dtype == DataType::Fp16) return 0x1p-9;
  if (dtype == DataType::Bf16) return 0x1p-6;
  return 0.0;
}

Dims randomShape(FunctionalCase& c, std::size_t rank, std::int64_t maxDim, std::int64_t maxElements) {
  Dims shape(rank);
  for (std::int64_t& dim : shape) dim = c.chance(0.1) ? 1 : c.uniform(1, maxDim);
  while (product(shape) > maxElements) {
    auto largest = std::max_element(shape.begin(), shape.end());
    *largest = std::max<std::int64_t>(1, *largest / 2);
  }
  return shape;
}

// Outer dims 1..shape (often small, for many tiles and tails); the innermost a multiple of 32 bytes.
Dims randomVecTile(FunctionalCase& c, const Dims& shape, DataType dtype) {
  Dims tile(shape.size());
  for (std::size_t d = 0; d + 1 < shape.size(); ++d)
    tile[d] = c.uniform(1, c.chance(0.5) ? std::min<std::int64_t>(shape[d], 3) : shape[d]);
  const std::int64_t align = alignOf(dtype);
  tile.back() = align * c.uniform(1, ceilDiv(shape.back(), align));
  return tile;
}

double log2Ceil(std::int64_t n) { return std::ceil(std::log2(static_cast<double>(std::max<std::int64_t>(n, 1)))); }

void elementwise(std::uint64_t seed) {
  FunctionalCase c(seed);
  const DataType dtype = pickType(c);
  const Dims shape = randomShape(c, static_cast<std::size_t>(c.uniform(1, 3)), 40, 3000);
  Dims yShape = shape;
  for (std::int64_t& dim : yShape)
    if (c.chance(0.3)) dim = 1;  // y broadcasts there
  const TensorId x = c.input("x", dtype, shape, -2.0, 2.0);
  const TensorId y = c.input("y", dtype, yShape, 0.5, 2.0);
  const TensorId z = c.output("z", dtype, shape);
  c.vecTile(randomVecTile(c, shape, dtype));
  using K = TensorOpKind;
  const std::vector<K> binaries = {K::Add, K::Sub, K::Mul, K::Div, K::Maximum, K::Minimum};
  const std::vector<K> scalars = {K::AddS, K::MulS, K::MaximumS, K::SubS};
  const std::vector<K> unaries = {K::Abs, K::Neg, K::Relu, K::Exp};
  const TensorId t1 = c.op(binaries[static_cast<std::size_t>(c.uniform(0, 5))], {x, y});
  const TensorId t2 = c.op(scalars[static_cast<std::size_t>(c.uniform(0, 3))], {t1}, {{"scalar", 0.75}});
  c.op(unaries[static_cast<std::size_t>(c.uniform(0, 3))], {t2}, {}, {z});
  c.check(OutputCheck{c.argumentIndex(z), true, 0.0, {}, "bitwise"});
  c.run();
}

void reduction(std::uint64_t seed) {
  FunctionalCase c(seed);
  const DataType dtype = pickType(c);
  const std::size_t rank = static_cast<std::size_t>(c.uniform(2, 3));
  const Dims shape = randomShape(c, rank, 60, 4000);
  const std::int64_t dim = c.chance(0.5) ? static_cast<std::int64_t>(rank) - 1 : c.uniform(0, static_cast<std::int64_t>(rank) - 2);
  Dims outShape = shape;
  outShape[static_cast<std::size_t>(dim)] = 1;
  const TensorId x = c.input("x", dtype, shape, -3.0, 3.0);
  const TensorId out = c.output("out", dtype, outShape);
  const Dims tile = randomVecTile(c, shape, dtype);
  c.vecTile(tile);
  using K = TensorOpKind;
  const K kind = std::vector<K>{K::Sum, K::Amax, K::Amin}[static_cast<std::size_t>(c.uniform(0, 2))];
  c.op(kind, {x}, {{"dims", std::vector<std::int64_t>{dim}}, {"keepdim", true}}, {out});
  if (kind != K::Sum) {
    c.check(OutputCheck{c.argumentIndex(out), true, 0.0, {}, "bitwise"});
  } else {
    const std::int64_t n = shape[static_cast<std::size_t>(dim)];
    const std::int64_t tiles = ceilDiv(n, tile[static_cast<std::size_t>(dim)]);
    const double bound = (2 * (log2Ceil(n) + 8) + static_cast<double>(tiles)) * kU32 * static_cast<double>(n) * 3.0;
    const std::int64_t outputs = product(outShape);
    c.check(OutputCheck{c.argumentIndex(out), false, narrowRtol(dtype),
                        std::vector<double>(static_cast<std::size_t>(outputs), bound * 1.01 + 0x1p-24),
                        "sum bound (2 (ceil(log2 n) + 8) + T) u n max|x| plus one output ulp"});
  }
  c.run();
}

// The absolute error bound of each element of a [m, k] @ b [k, n] accumulated in fp32: 2 (K + 1) u
// sum_k |a_ik||b_kj|, computed in double from the (rounded) inputs, with 1 % and 2^-24 to spare.
std::vector<double> matmulAbsoluteBounds(const HostTensor& a, const HostTensor& b, std::int64_t m, std::int64_t k,
                                         std::int64_t n) {
  std::vector<double> atol(static_cast<std::size_t>(m * n));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (std::int64_t p = 0; p < k; ++p)
        sum += std::abs(a.getAsDouble(i * k + p)) * std::abs(b.getAsDouble(p * n + j));
      atol[static_cast<std::size_t>(i * n + j)] = 2.0 * static_cast<double>(k + 1) * kU32 * sum * 1.01 + 0x1p-24;
    }
  return atol;
}

// Returns whether the compiled kernel loads an accumulator into L0C (split k).
bool matmul(std::uint64_t seed) {
  FunctionalCase c(seed);
  const DataType dtype = pickType(c);
  const DataType outType = c.chance(0.5) ? DataType::Fp32 : dtype;
  const std::int64_t m = c.uniform(1, 80), k = c.uniform(1, 120), n = c.uniform(1, 80);
  const TensorId a = c.input("a", dtype, {m, k}, -1.0, 1.0);
  const TensorId b = c.input("b", dtype, {k, n}, -1.0, 1.0);
  const TensorId out = c.output("c", outType, {m, n});
  CubeTileShape cube;
  cube.mL0 = 16 * c.uniform(1, 3);
  cube.mL1 = cube.mL0 * c.uniform(1, 2);
  cube.kL0 = 16 * c.uniform(1, 3);
  cube.kAL1 = cube.kBL1 = cube.kL0 * c.uniform(1, 3);
  cube.nL0 = 16 * c.uniform(1, 3);
  cube.nL1 = cube.nL0 * c.uniform(1, 2);
  cube.enableSplitK = c.chance(0.3);
  c.cubeTile(cube);
  // A copy-in bound below one tile keeps every tile op in its own subgraph: k-steps then continue an
  // accumulation held in GM (split k: TLOAD GM -> L0C, then TMATMUL_ACC).
  if (c.chance(0.4)) c.passOptions["mg_copyin_upper_bound"] = 1;
  c.op(TensorOpKind::Matmul, {a, b}, {{"out_dtype", outType}}, {out});
  std::vector<double> atol = matmulAbsoluteBounds(c.data(a), c.data(b), m, k, n);
  c.check(OutputCheck{c.argumentIndex(out), false, narrowRtol(outType), std::move(atol),
                      "2 (K + 1) u sum|a||b| (fp32 accumulation) plus one output ulp"});
  c.run();
  return c.loadsIntoL0C();
}

void softmaxRows(std::uint64_t seed) {
  FunctionalCase c(seed);
  const std::int64_t rows = c.uniform(1, 24), cols = c.uniform(1, 200);
  const TensorId x = c.input("x", DataType::Fp32, {rows, cols}, -4.0, 4.0);
  const TensorId y = c.output("y", DataType::Fp32, {rows, cols});
  const Dims tile{c.uniform(1, rows), 8 * c.uniform(1, ceilDiv(cols, 8))};
  c.vecTile(tile);
  using K = TensorOpKind;
  const Attributes lastDim = {{"dims", std::vector<std::int64_t>{-1}}, {"keepdim", true}};
  const TensorId max = c.op(K::Amax, {x}, lastDim);
  const TensorId shifted = c.op(K::Sub, {x, max});
  const TensorId e = c.op(K::Exp, {shifted});
  const TensorId sum = c.op(K::Sum, {e}, lastDim);
  c.op(K::Div, {e, sum}, {}, {y});
  const double depth = 2 * (log2Ceil(cols) + 8) + static_cast<double>(ceilDiv(cols, tile[1]));
  c.check(OutputCheck{c.argumentIndex(y), false, (depth * kU32 + 2 * kU32) * 1.01, {},
                      "relative sum bound (2 (ceil(log2 n) + 8) + T) u plus the division's rounding"});
  c.run();
}


// Two ops of a chain under different tile shapes: the second reads sub-tiles of the first's buffers (a
// smaller tile) or tiles spread over several of them (a larger one), and a row sum reads them too.
std::string mixedTiles(std::uint64_t seed, bool tolerateDefect = true) {
  FunctionalCase c(seed);
  c.tolerateUndersizedOperands = tolerateDefect;
  const DataType dtype = pickType(c);
  const Dims shape = randomShape(c, 2, 64, 3000);
  const TensorId x = c.input("x", dtype, shape, -2.0, 2.0);
  const TensorId z = c.output("z", dtype, shape);
  const TensorId r = c.output("r", DataType::Fp32, {shape[0], 1});
  const Dims first = randomVecTile(c, shape, dtype);
  c.vecTile(first);
  using K = TensorOpKind;
  const TensorId t = c.op(K::Exp, {x});
  const Dims second = randomVecTile(c, shape, dtype);
  c.vecTile(second);
  c.op(K::MulS, {t}, {{"scalar", 0.5}}, {z});
  const TensorId wide = c.op(K::Cast, {t}, {{"dtype", DataType::Fp32}});
  c.op(K::Sum, {wide}, {{"dims", std::vector<std::int64_t>{1}}, {"keepdim", true}}, {r});
  c.check(OutputCheck{c.argumentIndex(z), true, 0.0, {}, "bitwise"});
  const std::int64_t n = shape[1];
  const double depth = 2 * (log2Ceil(n) + 8) + static_cast<double>(ceilDiv(n, second[1]));
  // exp(x) > 0: the sum bound is relative to the row sum.
  c.check(OutputCheck{c.argumentIndex(r), false, depth * kU32 * 1.01, {}, "relative sum bound (exp > 0)"});
  c.run();
  return c.defect();
}


// On a machine with an L0C -> UB path: r = rowsum(a @ b + z); the add (and maybe the sum) joins the cube
// subgraph and reads the matmul result moved out of L0C by TMOV_ACC. Tolerance: the matmul bound of each
// element, then the fp32 add (one rounding, relative u) and the row sum's bound over |a @ b + z|.
void matmulThenVector(std::uint64_t seed) {
  FunctionalCase c(seed);
  c.passOptions["machine_has_l0c_to_ub"] = true;
  const DataType dtype = c.chance(0.5) ? DataType::Fp16 : DataType::Bf16;
  const std::int64_t m = c.uniform(1, 48), k = c.uniform(1, 96), n = c.uniform(1, 48);
  const TensorId a = c.input("a", dtype, {m, k}, -1.0, 1.0);
  const TensorId b = c.input("b", dtype, {k, n}, -1.0, 1.0);
  const TensorId z = c.input("z", DataType::Fp32, {m, n}, -1.0, 1.0);
  const TensorId y = c.output("y", DataType::Fp32, {m, n});
  CubeTileShape cube;
  cube.mL0 = cube.mL1 = 16 * c.uniform(1, 3);
  cube.kL0 = 16 * c.uniform(1, 3);
  cube.kAL1 = cube.kBL1 = cube.kL0;
  cube.nL0 = cube.nL1 = 16 * c.uniform(1, 3);
  c.cubeTile(cube);
  c.vecTile({cube.mL0, cube.nL0});
  const TensorId product = c.op(TensorOpKind::Matmul, {a, b}, {{"out_dtype", DataType::Fp32}});
  c.op(TensorOpKind::Add, {product, z}, {}, {y});
  std::vector<double> atol = matmulAbsoluteBounds(c.data(a), c.data(b), m, k, n);
  c.check(OutputCheck{c.argumentIndex(y), false, 2 * kU32, std::move(atol),
                      "2 (K + 1) u sum|a||b| for the product, then one fp32 rounding of the add"});
  c.run();
  const std::vector<PtoOpcode>& seen = c.opcodesSeen();
  EXPECT_NE(std::find(seen.begin(), seen.end(), PtoOpcode::TMOV_ACC), seen.end()) << "no L0C -> UB move";
}

// Cases are seeded one by one: seed = family * 1000000 + index (1 elementwise, 2 reductions, 3 matmul,
// 4 softmax, 5 mixed tiles, 6 matmul then vector on L0C -> UB machines); the failure message names the seed and the kernel.
TEST(FunctionalProperty, ElementwiseChainsAreBitExact) {
  for (std::uint64_t i = 0; i < 40; ++i) elementwise(1000000 + i);
}

TEST(FunctionalProperty, RowAndColumnReductionsMatchTheReference) {
  for (std::uint64_t i = 0; i < 40; ++i) reduction(2000000 + i);
}

TEST(FunctionalProperty, MatmulsWithKStepsMatchTheReference) {
  int splitK = 0;
  for (std::uint64_t i = 0; i < 30; ++i) splitK += matmul(3000000 + i);
  EXPECT_GT(splitK, 0) << "no case continued an accumulation from GM (TLOAD into L0C)";
}

// Producer and consumer tiles of different shapes in one subgraph: the consumer reads sub-tiles of one
// producer tile, or pieces of several (a [22, 16] read of [1, 48] row tiles: 22 pieces). Every case must run;
// a read covered by many pieces was once taken for a copy-in of the data the subgraph itself stores
// (GenerateMoveOp decided coverage only up to 16 pieces), which LowerToPto then loaded into an overlapping
// buffer before the stores that write it (seed 5000027 below).
TEST(FunctionalProperty, ChainsAcrossTileShapesReadSubTilesAndPieces) {
  for (std::uint64_t i = 0; i < 60; ++i) EXPECT_EQ(mixedTiles(5000000 + i, false), "") << "seed " << 5000000 + i;
}

TEST(FunctionalProperty, ACopyInTheSubgraphItselfStoresIsLoadedBeforeItIsWritten) {
  EXPECT_EQ(mixedTiles(5000027, false), "");
}

TEST(FunctionalProperty, VectorOpsInCubeSubgraphsReadL0CThroughUb) {
  for (std::uint64_t i = 0; i < 15; ++i) matmulThenVector(6000000 + i);
}

TEST(FunctionalProperty, SoftmaxRowsMatchTheReference) {
  for (std::uint64_t i = 0; i < 20; ++i) softmaxRows(4000000 + i);
}

} // namespace
} // namespace pto::testing
