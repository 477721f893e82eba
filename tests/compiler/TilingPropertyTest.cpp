// Property tests of the tiling: random kernels, compiled with random tile shapes over random shapes that are
// mostly not multiples of the tile, must compute what the reference interpreter (the golden) computes when
// their tile graphs run on the tile interpreter — with the full pipeline and with RemoveRedundantOp
// disabled (the tile interpreter resolves views itself).
//
// Tolerances. Tile ops run the reference's own kernels on tile-sized pieces, so every elementwise result,
// amax/amin and argmax/argmin (whose axis the tile keeps whole) must match bit for bit. Only the order of
// accumulation differs:
//  - sum (fp32): a summation tree of depth d has error <= d * u * sum|x| (u = 2^-24; Higham, "Accuracy and
//    Stability of Numerical Algorithms", 4.2, to first order). The reference sums pairwise with sequential
//    leaves of 8: depth <= ceil(log2 n) + 8. A tiled sum sums each tile the same way and then accumulates T
//    partial sums sequentially, one rounding each: depth <= ceil(log2 n) + 8 + T. So
//    |tiled - reference| <= (2 * (ceil(log2 n) + 8) + T) * u * n * max|x|.
//  - prod (fp32): each multiplication rounds once, relative u: reference n - 1 roundings, tiled n - 1 + T;
//    rtol = (2n + T) * u (+1% for the second-order terms).
//  - matmul (fp32 accumulation): any order of summing K products has error <= gamma_(K+1) * sum_k |a||b|
//    (Higham 3.1, with the products' own rounding); both results meet it, so per element
//    atol = 2 * (K + 1) * u * sum_k |a_ik| |b_kj| (+1%), sum computed here in double. A narrower fp16 output
//    rounds both once more: + one fp16 ulp of the result (rtol 2^-9 covers the binade edge) + 2^-24 for
//    subnormals.
//  - fp16 sum: accumulated in fp32 (docs/ir.md) and rounded to fp16 once, on both sides: the fp32 bound plus
//    one fp16 ulp, as for matmul.
//  - the softmax rows of the loop kernel: e >= 0, so sum|e| is the row sum itself and the sum bound is
//    relative; the division (the same correctly rounded op on both sides) passes it on to the quotient.
//
// Cases are seeded one by one (seed = family * 1000000 + index; families: 1 elementwise, 2 reductions,
// 3 matmul, 4 loops, 5 fp16 sums). On failure the message names the case's seed, shapes, tiles and ops;
// PTO_TILING_SEED=<seed> with --gtest_filter on the failing test reruns just that case.
#include "CompilerTestSupport.h"
#include "compiler/passes/Pipeline.h"
#include "compiler/reference/ReferenceInterpreter.h"
#include "compiler/reference/TileInterpreter.h"
#include "tests/RandomCases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <sstream>

namespace pto::testing {
namespace {

constexpr double kU32 = 0x1p-24;  // unit roundoff of fp32

std::int64_t tileCount(const Dims& shape, const Dims& tile) {
  std::int64_t count = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) count *= ceilDiv(shape[d], tile[d]);
  return count;
}

// How one output argument is compared with the reference's.
struct OutputCheck {
  std::size_t argument = 0;
  bool exact = true;
  double rtol = 0, atol = 0;
  std::vector<double> atolPerElement;  // when not empty, replaces atol element by element
  std::string why;                     // the tolerance's justification, for the failure message
};

// Restrictions on the random kernels. Some variants steer away from one-wide tiles and fp16 sums, which
// once hid bugs; the unsteered variants below generate the full distribution and guard those fixes.
struct Steering {
  // Never make a tile one element wide (tile dim 1, or a tail of 1) in a dim where an operand broadcasts.
  bool avoidOneWideTilesInBroadcastDims = false;
  // Sum fp32 data only (a partial fp16 sum accumulates in fp16).
  bool avoidFp16Sums = false;
};
constexpr Steering kAroundKnownBugs{true, true};

// One random kernel with its arguments and how to compare its outputs.
class Case {
public:
  explicit Case(std::uint64_t seed) : random(seed), m_builder("property", kernelLine(1)) {
    std::ostringstream out;
    out << "case seed " << seed << " (rerun alone with PTO_TILING_SEED=" << seed << ")";
    m_description = out.str();
  }

  std::mt19937_64 random;

  std::int64_t uniform(std::int64_t low, std::int64_t high) {
    return std::uniform_int_distribution<std::int64_t>(low, high)(random);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(random); }
  template <typename T> const T& pick(const std::vector<T>& items) {
    return items[static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(items.size()) - 1))];
  }

  void describe(const std::string& text) { m_description += "\n  " + text; }

  // An argument. When `dynamicDim0` is set its dim 0 is the symbol N, bound to shape[0] both through
  // graph.dynamicSymbols (the reference) and CompileSettings.bindings (the compiler).
  TensorId argument(const std::string& argName, DataType dtype, const Dims& shape, bool dynamicDim0 = false) {
    SymbolicShape symbolic;
    for (std::int64_t dim : shape) symbolic.emplace_back(dim);
    if (dynamicDim0) {
      symbolic[0] = SymbolicScalar::symbol("N");
      m_builder.addDynamicSymbol(SymbolSource{"N", static_cast<int>(m_arguments.size()), 0});
      bindings["N"] = shape[0];
    }
    const TensorId id = m_builder.addArgument(argName, dtype, symbolic, kernelLine(1));
    m_arguments.emplace_back(dtype, Shape(shape));
    describe("arg " + argName + " " + std::string(name(dtype)) + " " + shapeString(symbolic) +
             (dynamicDim0 ? " with N = " + std::to_string(shape[0]) : ""));
    return id;
  }
  TensorId input(const std::string& argName, DataType dtype, const Dims& shape, double low, double high,
                 bool dynamicDim0 = false) {
    const TensorId id = argument(argName, dtype, shape, dynamicDim0);
    m_arguments.back() = randomTensor(dtype, shape, low, high, random);
    return id;
  }
  std::size_t argumentIndex(TensorId id) const {
    return static_cast<std::size_t>(m_builder.graph().tensor(id).argumentIndex);
  }
  const HostTensor& argumentData(TensorId id) const { return m_arguments.at(argumentIndex(id)); }
  void check(OutputCheck output) { m_checks.push_back(std::move(output)); }
  void checkExact(TensorId id) { check(OutputCheck{argumentIndex(id), true, 0, 0, {}, "bitwise"}); }

  void beginKernel() { m_builder.beginPath(); }
  void vecTile(const Dims& tile) {
    m_builder.setVecTile(tile, kernelLine(m_line));
    describe("kernel.py:" + std::to_string(m_line++) + " set_vec_tile_shapes" + dimsText(tile));
  }
  void cubeTile(const CubeTileShape& cube) {
    m_builder.setCubeTile(cube, kernelLine(m_line));
    std::ostringstream out;
    out << "kernel.py:" << m_line++ << " set_cube_tile_shapes m=[" << cube.mL0 << ", " << cube.mL1 << "] k=["
        << cube.kL0 << ", " << cube.kAL1 << "] n=[" << cube.nL0 << ", " << cube.nL1 << "]";
    describe(out.str());
  }
  TensorId op(TensorOpKind kind, std::vector<TensorId> inputs, Attributes attrs = {}, std::vector<TensorId> into = {}) {
    std::string text = "kernel.py:" + std::to_string(m_line) + " " + std::string(name(kind)) + "(";
    for (std::size_t i = 0; i < inputs.size(); ++i) text += (i ? ", " : "") + m_builder.graph().tensor(inputs[i]).name;
    for (const auto& [key, value] : attrs) text += ", " + key + "=" + attributeText(value);
    text += ")";
    if (!into.empty()) text += " -> " + m_builder.graph().tensor(into[0]).name;
    TensorGraphBuilder::OpResult result =
        m_builder.addOp(kind, std::move(inputs), std::move(attrs), kernelLine(m_line++), into);
    if (!result.error.empty() && m_error.empty()) m_error = text + ": " + result.error;
    describe(text + (result.outputs.empty() ? "" : " = " + m_builder.graph().tensor(result.outputs[0]).name));
    return result.outputs.empty() ? kNoId : result.outputs[0];
  }
  LoopId beginLoop(const std::string& index, SymbolicScalar stop) {
    const LoopId loop = m_builder.beginLoop("", index, 0, stop, 1, false, kernelLine(m_line));
    describe("kernel.py:" + std::to_string(m_line++) + " for " + index + " in range(" + stop.str() + "):");
    m_builder.beginLoopBody(loop, 1);
    m_builder.beginPath();
    return loop;
  }
  SymbolicScalar indexOf(LoopId loop) const { return SymbolicScalar::symbol(m_builder.loop(loop).indexSymbol); }
  void endLoop(LoopId loop) {
    m_builder.endPath();
    m_builder.endLoop(loop);
    describe("end");
  }

  Bindings bindings;

  // Runs the reference on one copy of the arguments and the compiled tile graph on another, with the full
  // pipeline and with RemoveRedundantOp disabled when asked, and compares every checked output.
  void run(bool withoutRemoveRedundantOp) {
    SCOPED_TRACE(m_description);
    ASSERT_EQ(m_error, "") << "the generator made an invalid kernel";
    m_builder.endPath();
    const TensorGraph graph = m_builder.finish();

    std::vector<HostTensor> expected = copies();
    DiagnosticEngine diags;
    ASSERT_TRUE(runReference(graph, expected, diags)) << messages(diags);

    std::vector<std::pair<std::string, CompileOptions>> pipelines{{"full pipeline", {}}};
    if (withoutRemoveRedundantOp) {
      CompileOptions options;
      options.disabledPasses.insert("RemoveRedundantOp");
      pipelines.emplace_back("RemoveRedundantOp disabled", options);
    }
    CompileSettings settings;
    settings.bindings = bindings;
    // These cases test the numbers tiling produces, not capacity planning:
    // random tile shapes may not fit a real UB, so the target is unbounded.
    settings.target.capacityBytes.fill(std::int64_t{1} << 40);
    for (const auto& [pipeline, options] : pipelines) {
      auto compiled = compileKernel(graph, settings, diags, options);
      ASSERT_TRUE(compiled) << pipeline << ": " << messages(diags);
      std::vector<HostTensor> actual = copies();
      ASSERT_TRUE(runTiles(compiled->compilation.tiles, actual, diags)) << pipeline << ": " << messages(diags);
      for (const OutputCheck& output : m_checks) {
        const std::string& argName = graph.tensor(graph.arguments[output.argument]).name;
        const HostTensor& a = actual[output.argument];
        const HostTensor& b = expected[output.argument];
        if (output.exact) {
          EXPECT_TRUE(bitwiseEqual(a, b)) << "output " << argName << ", " << pipeline;
        } else if (output.atolPerElement.empty()) {
          EXPECT_TRUE(withinTolerance(a, b, output.rtol, output.atol))
              << "output " << argName << ", " << pipeline << "; tolerance: " << output.why;
        } else {
          for (std::int64_t e = 0; e < a.elementCount(); ++e) {
            const double atol = output.atolPerElement[static_cast<std::size_t>(e)];
            const double difference = std::abs(a.getAsDouble(e) - b.getAsDouble(e));
            if (!(difference <= atol + output.rtol * std::abs(b.getAsDouble(e)))) {
              ADD_FAILURE() << "output " << argName << ", " << pipeline << ": element " << e << " is "
                            << a.getAsDouble(e) << " but the reference gives " << b.getAsDouble(e) << "; |difference| "
                            << difference << " > atol " << atol << " + rtol " << output.rtol << " * |reference|"
                            << "; tolerance: " << output.why;
              break;
            }
          }
        }
      }
    }
  }

private:
  static std::string attributeText(const AttributeValue& value) {
    return std::visit(
        [](const auto& v) -> std::string {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
          else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, double>) {
            std::ostringstream out;
            out << v;
            return out.str();
          } else if constexpr (std::is_same_v<T, std::string>) return v;
          else if constexpr (std::is_same_v<T, DataType>) return std::string(name(v));
          else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) return dimsText(v);
          else if constexpr (std::is_same_v<T, SymbolicScalar>) return v.str();
          else return shapeString(v);
        },
        value);
  }

  std::vector<HostTensor> copies() const {
    std::vector<HostTensor> result;
    for (const HostTensor& tensor : m_arguments) result.push_back(tensor.contiguous());
    return result;
  }

  TensorGraphBuilder m_builder;
  std::vector<HostTensor> m_arguments;
  std::vector<OutputCheck> m_checks;
  std::string m_description;
  std::string m_error;
  int m_line = 2;
};

// ---- random shapes and tiles ----

// A dim size, mostly not a multiple of any tile; now and then 1.
std::int64_t randomDim(Case& c, std::int64_t max = 70) { return c.chance(0.1) ? 1 : c.uniform(1, max); }

// A shape of `rank` dims with at most `maxElements` elements.
Dims randomShape(Case& c, std::size_t rank, std::int64_t maxElements) {
  Dims shape(rank);
  for (std::int64_t& dim : shape) dim = randomDim(c);
  while (product(shape) > maxElements) {
    auto largest = std::max_element(shape.begin(), shape.end());
    *largest = c.uniform(1, std::max<std::int64_t>(1, *largest / 2));
  }
  return shape;
}

// A vec tile for `shape`: outer dims 1..shape, the innermost a multiple of `align` elements (32 bytes), at
// most one multiple past the shape; coarsened until the op has at most `maxTiles` tiles. `broadcastDims` are
// dims where some operand broadcasts (only used with limits.avoidOneWideTilesInBroadcastDims).
Dims randomVecTile(Case& c, const Dims& shape, std::int64_t align, std::int64_t maxTiles,
                   const std::vector<bool>& broadcastDims = {}, Steering limits = {}) {
  const std::size_t rank = shape.size();
  Dims tile(rank);
  // Half the dims get small tiles, for many tiles and tails.
  for (std::size_t d = 0; d + 1 < rank; ++d)
    tile[d] = c.uniform(1, c.chance(0.5) ? std::min<std::int64_t>(shape[d], 3) : shape[d]);
  tile[rank - 1] = align * (c.chance(0.5) ? c.uniform(1, 2)
                                          : c.uniform(1, ceilDiv(shape[rank - 1], align) + (c.chance(0.2) ? 1 : 0)));
  auto oneWide = [&](std::size_t d) {
    return limits.avoidOneWideTilesInBroadcastDims && d < broadcastDims.size() && broadcastDims[d] &&
           (tile[d] == 1 || shape[d] % tile[d] == 1);
  };
  for (int attempt = 0; attempt < 200; ++attempt) {
    bool fine = tileCount(shape, tile) <= maxTiles;
    for (std::size_t d = 0; d < rank; ++d) fine = fine && !oneWide(d);
    if (fine) break;
    std::size_t d = static_cast<std::size_t>(c.uniform(0, static_cast<std::int64_t>(rank) - 1));
    for (std::size_t k = 0; k < rank; ++k)
      if (oneWide(k)) d = k;
    if (d + 1 == rank) tile[d] += align;
    else tile[d] = std::min(shape[d], tile[d] + std::max<std::int64_t>(1, tile[d]));
    if (oneWide(d) && d + 1 != rank) tile[d] = shape[d];
  }
  return tile;
}

std::int64_t alignOf(DataType dtype) { return 32 / static_cast<std::int64_t>(sizeOf(dtype)); }

// ---- elementwise chains ----

// out = where(cmp(u(ts(bin(x, y))), z), ..., ...), cast to the other float type, and a copy; x, y and z
// broadcast against each other (dims of 1, lower rank). All outputs must match bit for bit.
void elementwiseChain(Case& c, Steering limits) {
  const DataType dtype = c.chance(0.5) ? DataType::Fp32 : DataType::Fp16;
  const DataType other = dtype == DataType::Fp32 ? DataType::Fp16 : DataType::Fp32;
  const std::size_t rank = static_cast<std::size_t>(c.uniform(1, 4));
  const Dims shape = randomShape(c, rank, 6000);
  // x and y split the broadcast dims between them (an outer-product pattern); z has its own and may have a
  // lower rank.
  Dims xShape = shape, yShape = shape, zShape = shape;
  for (std::size_t d = 0; d < rank; ++d) {
    const int who = static_cast<int>(c.uniform(0, 3));
    if (who == 0) xShape[d] = 1;
    if (who == 1) yShape[d] = 1;
    if (c.chance(0.3)) zShape[d] = 1;
  }
  const std::size_t drop = static_cast<std::size_t>(c.uniform(0, static_cast<std::int64_t>(rank) - 1));
  zShape.erase(zShape.begin(), zShape.begin() + static_cast<std::ptrdiff_t>(drop));
  std::vector<bool> broadcastDims(rank, false);
  for (std::size_t d = 0; d < rank; ++d) {
    const std::size_t zd = d >= drop ? d - drop : rank;
    broadcastDims[d] = shape[d] > 1 && (xShape[d] == 1 || yShape[d] == 1 || (zd < zShape.size() && zShape[zd] == 1));
  }
  const bool dynamic = shape[0] > 1 && c.chance(0.3);

  const TensorId x = c.input("x", dtype, xShape, -3, 3, dynamic && xShape[0] == shape[0]);
  const TensorId y = c.input("y", dtype, yShape, -3, 3, dynamic && yShape[0] == shape[0]);
  const TensorId z = c.input("z", dtype, zShape, -3, 3, dynamic && drop == 0 && zShape[0] == shape[0]);
  const TensorId out = c.argument("out", dtype, shape, dynamic);
  const TensorId converted = c.argument("converted", other, shape, dynamic);
  const TensorId copied = c.argument("copied", dtype, shape, dynamic);
  c.beginKernel();

  auto tile = [&](std::int64_t align) { c.vecTile(randomVecTile(c, shape, align, 120, broadcastDims, limits)); };
  tile(alignOf(dtype));
  const TensorId t1 = c.op(c.pick(std::vector<TensorOpKind>{TensorOpKind::Add, TensorOpKind::Sub, TensorOpKind::Mul,
                                                            TensorOpKind::Div, TensorOpKind::Maximum,
                                                            TensorOpKind::Minimum}),
                           {x, y});
  if (c.chance(0.5)) tile(alignOf(dtype));
  const TensorId t2 = c.op(c.pick(std::vector<TensorOpKind>{TensorOpKind::AddS, TensorOpKind::SubS, TensorOpKind::RSubS,
                                                            TensorOpKind::MulS, TensorOpKind::MaximumS,
                                                            TensorOpKind::MinimumS}),
                           {t1}, {{"scalar", std::uniform_real_distribution<double>(-2, 2)(c.random)}});
  if (c.chance(0.5)) tile(alignOf(dtype));
  const TensorId t3 = c.op(c.pick(std::vector<TensorOpKind>{TensorOpKind::Neg, TensorOpKind::Abs, TensorOpKind::Relu,
                                                            TensorOpKind::Sigmoid, TensorOpKind::Tanh,
                                                            TensorOpKind::Sin}),
                           {t2});
  const TensorId condition =
      c.op(c.pick(std::vector<TensorOpKind>{TensorOpKind::Gt, TensorOpKind::Lt, TensorOpKind::Ge}), {t3, z});
  // where's operands include the bool condition, one byte per element: its innermost tile dim must be a
  // multiple of 32 elements.
  tile(32);
  if (c.chance(0.5)) c.op(TensorOpKind::Where, {condition, t3, t2}, {}, {out});
  else c.op(TensorOpKind::Where, {condition, t3}, {{"y", 0.5}}, {out});
  tile(alignOf(dtype));
  c.op(TensorOpKind::Cast, {out}, {{"dtype", other}}, {converted});
  if (c.chance(0.5)) tile(alignOf(dtype));
  c.op(TensorOpKind::Copy, {t2}, {}, {copied});
  c.checkExact(out);
  c.checkExact(converted);
  c.checkExact(copied);
}

// ---- reductions ----

// sum/amax/amin/prod/argmax/argmin over random dims with keepdim true or false, written into an output
// argument. Sums and products are fp32 unless `fp16Sums`, which makes every case an fp16 sum.
void reduction(Case& c, bool fp16Sums = false) {
  const TensorOpKind kind =
      fp16Sums ? TensorOpKind::Sum
               : c.pick(std::vector<TensorOpKind>{TensorOpKind::Sum, TensorOpKind::Amax, TensorOpKind::Amin,
                                                  TensorOpKind::Prod, TensorOpKind::Argmax, TensorOpKind::Argmin});
  const bool accumulating = kind == TensorOpKind::Sum || kind == TensorOpKind::Prod;
  const bool isArg = kind == TensorOpKind::Argmax || kind == TensorOpKind::Argmin;
  const DataType dtype = fp16Sums ? DataType::Fp16 : accumulating || c.chance(0.5) ? DataType::Fp32 : DataType::Fp16;
  const std::size_t rank = static_cast<std::size_t>(c.uniform(1, 4));
  const Dims shape = randomShape(c, rank, kind == TensorOpKind::Prod ? 4096 : 12000);
  Dims dims;
  if (isArg) {
    dims.push_back(c.uniform(0, static_cast<std::int64_t>(rank) - 1));
  } else {
    for (std::size_t d = 0; d < rank; ++d)
      if (c.chance(0.5)) dims.push_back(static_cast<std::int64_t>(d));
    if (dims.empty()) dims.push_back(c.uniform(0, static_cast<std::int64_t>(rank) - 1));
  }
  const bool keepdim = c.chance(0.5);
  Dims outShape;
  std::int64_t reducedCount = 1;
  for (std::size_t d = 0; d < rank; ++d) {
    const bool reduced = std::find(dims.begin(), dims.end(), static_cast<std::int64_t>(d)) != dims.end();
    if (reduced) reducedCount *= shape[d];
    if (!reduced) outShape.push_back(shape[d]);
    else if (keepdim) outShape.push_back(1);
  }
  const bool dynamic = shape[0] > 1 && c.chance(0.3);
  const bool dim0Kept = std::find(dims.begin(), dims.end(), 0) == dims.end();

  // prod: magnitudes in [0.9, 1.1] keep products of thousands of terms in range.
  const TensorId x = kind == TensorOpKind::Prod ? c.input("x", dtype, shape, 0.9, 1.1, dynamic)
                                                : c.input("x", dtype, shape, -1, 1, dynamic);
  if (kind == TensorOpKind::Prod) {
    HostTensor data = c.argumentData(x);
    for (std::int64_t e = 0; e < data.elementCount(); ++e)
      if (c.chance(0.5)) data.setFromDouble(e, -data.getAsDouble(e));
  }
  const TensorId out = c.argument("out", isArg ? DataType::Int32 : dtype, outShape, dynamic && dim0Kept);
  c.beginKernel();
  const Dims tile = randomVecTile(c, shape, alignOf(dtype), 150);
  c.vecTile(tile);
  c.op(kind, {x}, {{"dims", dims}, {"keepdim", keepdim}}, {out});

  std::int64_t tilesAlongReduced = 1;
  for (std::int64_t d : dims) {
    const auto axis = static_cast<std::size_t>(d);
    tilesAlongReduced *= ceilDiv(shape[axis], tile[axis]);
  }
  const double n = static_cast<double>(reducedCount), t = static_cast<double>(tilesAlongReduced);
  if (kind == TensorOpKind::Sum) {
    const double depth = 2 * (std::ceil(std::log2(n)) + 8) + t;
    const double bound = depth * kU32 * n * 1.0;  // max|x| = 1
    const std::string why = "summation-tree depth bound (2 * (ceil(log2 n) + 8) + T) * u * n * max|x| with n = " +
                            std::to_string(reducedCount) + ", T = " + std::to_string(tilesAlongReduced);
    // fp16: the sum accumulates in fp32 (docs/ir.md) and is rounded to fp16 once, on both sides.
    if (dtype == DataType::Fp16)
      c.check(OutputCheck{c.argumentIndex(out), false, 0x1p-9, bound * (1 + 0x1p-9) + 0x1p-24, {},
                          why + ", plus one fp16 ulp for the final rounding"});
    else
      c.check(OutputCheck{c.argumentIndex(out), false, 0, bound, {}, why});
  } else if (kind == TensorOpKind::Prod) {
    c.check(OutputCheck{c.argumentIndex(out), false, (2 * n + t) * kU32 * 1.01, 0, {},
                        "(2n + T) * u relative with n = " + std::to_string(reducedCount) +
                            ", T = " + std::to_string(tilesAlongReduced)});
  } else {
    c.checkExact(out);
  }
}

// ---- matmul ----

void matmul(Case& c) {
  struct Types {
    DataType in, out;
  };
  const Types types = c.pick(std::vector<Types>{{DataType::Fp16, DataType::Fp32},
                                                {DataType::Fp32, DataType::Fp32},
                                                {DataType::Fp16, DataType::Fp16},
                                                {DataType::Fp32, DataType::Fp16}});
  const std::int64_t m = c.uniform(1, 200), k = c.uniform(1, 200), n = c.uniform(1, 200);
  const bool aTrans = c.chance(0.5), bTrans = c.chance(0.5);
  const std::int64_t batch = c.chance(0.25) ? c.uniform(1, 3) : 0;
  const bool broadcastB = batch > 1 && c.chance(0.5);
  Dims aShape = aTrans ? Dims{k, m} : Dims{m, k};
  Dims bShape = bTrans ? Dims{n, k} : Dims{k, n};
  Dims outShape{m, n};
  if (batch > 0) {
    aShape.insert(aShape.begin(), batch);
    bShape.insert(bShape.begin(), broadcastB ? 1 : batch);
    outShape.insert(outShape.begin(), batch);
  }
  const TensorId a = c.input("a", types.in, aShape, -1, 1);
  const TensorId b = c.input("b", types.in, bShape, -1, 1);
  const TensorId out = c.argument("c", types.out, outShape);
  c.beginKernel();
  auto level = [&]() {
    const std::int64_t l0 = c.pick(std::vector<std::int64_t>{16, 32, 64, 128});
    return std::pair{l0, c.chance(0.5) ? l0 : 2 * l0};
  };
  const auto [mL0, mL1] = level();
  const auto [kL0, kL1] = level();
  const auto [nL0, nL1] = level();
  c.cubeTile(CubeTileShape{mL0, mL1, kL0, kL1, kL1, nL0, nL1, false});
  c.op(TensorOpKind::Matmul, {a, b}, {{"out_dtype", types.out}, {"a_trans", aTrans}, {"b_trans", bTrans}}, {out});

  // Per element: 2 * (K + 1) * u * sum_k |a_ik| |b_kj|, in double from the inputs.
  const HostTensor& aData = c.argumentData(a);
  const HostTensor& bData = c.argumentData(b);
  std::vector<double> atol(static_cast<std::size_t>(product(outShape)));
  const bool narrow = types.out == DataType::Fp16;
  for (std::int64_t p = 0; p < std::max<std::int64_t>(batch, 1); ++p)
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double bound = 0;
        for (std::int64_t q = 0; q < k; ++q) {
          const std::int64_t aIndex = p * m * k + (aTrans ? q * m + i : i * k + q);
          const std::int64_t bIndex = (broadcastB ? 0 : p) * k * n + (bTrans ? j * k + q : q * n + j);
          bound += std::abs(aData.getAsDouble(aIndex)) * std::abs(bData.getAsDouble(bIndex));
        }
        double tolerance = 2 * static_cast<double>(k + 1) * kU32 * bound * 1.01;
        if (narrow) tolerance = tolerance * (1 + 0x1p-9) + 0x1p-24;
        atol[static_cast<std::size_t>((p * m + i) * n + j)] = tolerance;
      }
  c.check(OutputCheck{c.argumentIndex(out), false, narrow ? 0x1p-9 : 0.0, 0, std::move(atol),
                      std::string("2 * (K + 1) * u * sum_k |a||b| per element, K = ") + std::to_string(k) +
                          (narrow ? ", plus one fp16 ulp for the final rounding" : "")});
}

// ---- views and assemble in a loop ----

// for i in range(R // s): xv = x[i*s : i*s+s, :]; y[i*s:...] = softmax(xv) over the last dim;
// w[i*s:...] = the row sums; z[i*s:..., c0:] = xv[:, c0:] + 1 written through a view of z.
// R may be the dynamic dim N.
void viewsInALoop(Case& c, Steering limits) {
  const DataType dtype = limits.avoidFp16Sums || c.chance(0.7) ? DataType::Fp32 : DataType::Fp16;
  const std::int64_t rowsPerStep = c.uniform(1, 4), steps = c.uniform(1, 6);
  const std::int64_t rows = rowsPerStep * steps, cols = randomDim(c);
  const std::int64_t c0 = c.uniform(0, cols - 1);
  const bool dynamic = c.chance(0.5);
  const TensorId x = c.input("x", dtype, {rows, cols}, -3, 3, dynamic);
  const TensorId y = c.argument("y", dtype, {rows, cols}, dynamic);
  const TensorId w = c.argument("w", dtype, {rows, 1}, dynamic);
  const TensorId z = c.argument("z", dtype, {rows, cols}, dynamic);
  c.beginKernel();
  // The row max and row sum ([s, 1]) broadcast along dim 1 of the rows.
  const Dims view{rowsPerStep, cols};
  const std::vector<bool> broadcastDims{false, cols > 1};
  c.vecTile(randomVecTile(c, view, alignOf(dtype), 60, broadcastDims, limits));
  const SymbolicScalar stepCount = dynamic ? floorDiv(SymbolicScalar::symbol("N"), rowsPerStep) : SymbolicScalar(steps);
  const LoopId loop = c.beginLoop("i", stepCount);
  const SymbolicScalar row = c.indexOf(loop) * rowsPerStep;
  const SymbolicShape at{row, 0};
  const TensorId xv = c.op(TensorOpKind::View, {x}, {{"offsets", at}, {"shape", SymbolicShape{rowsPerStep, cols}}});
  const TensorId rowMax = c.op(TensorOpKind::Amax, {xv}, {{"dims", Dims{1}}, {"keepdim", true}});
  const TensorId shifted = c.op(TensorOpKind::Sub, {xv, rowMax});
  const TensorId e = c.op(TensorOpKind::Exp, {shifted});
  const TensorId rowSum = c.op(TensorOpKind::Sum, {e}, {{"dims", Dims{1}}, {"keepdim", true}});
  const TensorId softmax = c.op(TensorOpKind::Div, {e, rowSum});
  if (c.chance(0.5)) c.vecTile(randomVecTile(c, view, alignOf(dtype), 60, broadcastDims, limits));
  c.op(TensorOpKind::Assemble, {softmax}, {{"offsets", at}}, {y});
  c.vecTile(randomVecTile(c, {rowsPerStep, 1}, alignOf(dtype), 60));
  c.op(TensorOpKind::Assemble, {rowSum}, {{"offsets", at}}, {w});
  const Dims right{rowsPerStep, cols - c0};
  c.vecTile(randomVecTile(c, right, alignOf(dtype), 60));
  const SymbolicShape rightShape{rowsPerStep, cols - c0};
  const TensorId xRight = c.op(TensorOpKind::View, {xv}, {{"offsets", SymbolicShape{0, c0}}, {"shape", rightShape}});
  const TensorId zRight = c.op(TensorOpKind::View, {z}, {{"offsets", SymbolicShape{row, c0}}, {"shape", rightShape}});
  c.op(TensorOpKind::AddS, {xRight}, {{"scalar", 1.0}}, {zRight});
  c.endLoop(loop);

  // The row sums differ only in summation order; the softmax divides by them, so both inherit the sum's
  // relative bound (e >= 0 makes sum|e| the sum itself), the quotient plus its own rounding on each side
  // (2u). fp16: the results are rounded to fp16, which the fp32 bound does not cover: the row sum rounds
  // once (an fp16 ulp, 2^-10 relative), and the quotient may then round differently (one more).
  const double n = static_cast<double>(cols);
  const double depth = 2 * (std::ceil(std::log2(n)) + 8) + static_cast<double>(cols);  // T <= cols tiles per row
  double rtol = (depth + 2) * kU32 * 1.01;
  if (dtype == DataType::Fp16) rtol += 2 * 0x1p-10;
  const std::string why = "relative summation-tree depth bound over " + std::to_string(cols) + " columns" +
                          (dtype == DataType::Fp16 ? " plus two fp16 ulps" : "");
  c.check(OutputCheck{c.argumentIndex(y), false, rtol, 0, {}, why});
  c.check(OutputCheck{c.argumentIndex(w), false, rtol, 0, {}, why});
  c.checkExact(z);
}

// ---- the tests ----

// The seed of every case, or just PTO_TILING_SEED when it is set.
std::vector<std::uint64_t> seeds(std::uint64_t family, int count) {
  if (const char* only = std::getenv("PTO_TILING_SEED")) return {std::stoull(only)};
  std::vector<std::uint64_t> result;
  const int cases = pto::test::randomCaseCount(count);
  for (int i = 0; i < cases; ++i) result.push_back(family * 1000000 + static_cast<std::uint64_t>(i));
  return result;
}

// Failures recorded so far in the running test.
int failureCount() { return ::testing::UnitTest::GetInstance()->current_test_info()->result()->total_part_count(); }

// Runs the cases; stops after a few failing ones so a broken tiling reports readably.
template <typename Generate>
void runCases(std::uint64_t family, int count, bool withoutRemoveRedundantOp, Generate generate) {
  int failingCases = 0;
  for (std::uint64_t seed : seeds(family, count)) {
    const int before = failureCount();
    Case c(seed);
    generate(c);
    c.run(withoutRemoveRedundantOp);
    if (failureCount() > before && ++failingCases >= 3) {
      ADD_FAILURE() << "stopping after 3 failing cases";
      return;
    }
  }
}

TEST(TilingProperty, ElementwiseChainsWithBroadcasting) {
  runCases(1, 300, true, [](Case& c) { elementwiseChain(c, kAroundKnownBugs); });
}

TEST(TilingProperty, ElementwiseChainsWithBroadcastingUnderOneWideTiles) {
  runCases(1, 300, true, [](Case& c) { elementwiseChain(c, Steering{}); });
}

TEST(TilingProperty, ReductionsOverRandomDims) {
  runCases(2, 400, true, [](Case& c) { reduction(c); });
}

TEST(TilingProperty, Fp16SumsAccumulateInFp32) {
  runCases(5, 100, true, [](Case& c) { reduction(c, true); });
}

TEST(TilingProperty, MatmulWithRandomCubeTiles) {
  runCases(3, 80, true, [](Case& c) { matmul(c); });
}

TEST(TilingProperty, ViewsAndAssembleInALoop) {
  runCases(4, 300, true, [](Case& c) { viewsInALoop(c, kAroundKnownBugs); });
}

TEST(TilingProperty, ViewsAndAssembleInALoopUnsteered) {
  runCases(4, 300, true, [](Case& c) { viewsInALoop(c, Steering{}); });
}

} // namespace
} // namespace pto::testing
