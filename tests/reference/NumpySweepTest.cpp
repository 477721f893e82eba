// Every op kind, run by the reference interpreter and by numpy (numpy_reference.py), on odd shapes (3x37,
// 3x5x37), with broadcasting, keepdim, fp32, fp16 and integer dtypes.
//
// Tolerances, and why:
//  - fp32 elementwise (add/mul-type and transcendental alike): rtol 1e-5, atol 1e-6. Both sides compute in
//    float32; arithmetic is correctly rounded on both, and glibc's and numpy's float32 exp/log/sin/tanh/...
//    are within a few ulp (a few 1e-7 relative), so 1e-5 leaves a wide margin while still catching a wrong
//    formula; atol covers results near zero (sin near its roots, expm1/log1p near 0).
//  - fp16/bf16 results: at most 1 ulp of fp16. Both round a float32 value once; where the float32 values
//    differ by an ulp (transcendentals, summation order) the fp16 rounding may land one step apart.
//  - fp32 sums of positive values: rtol 1e-5 (pairwise summation errs by about log2(n) * 2^-24 relative).
//  - fp32 matmul, k <= 19 with entries in [-1, 1]: atol 1e-5 + rtol 1e-5; summation orders differ and the
//    error bound is k * 2^-24 * sum|a||b| <= 19 * 6e-8 * 19 ~ 2e-5 in the worst case, ~1e-6 typically.
//  - integers and bool: exact.
#include "ReferenceTestSupport.h"
#include "tests/TestDtypes.h"

#include <gtest/gtest.h>

namespace pto::testing {
namespace {

nlohmann::json attrsToJson(const Attributes& attrs) {
  nlohmann::json json = nlohmann::json::object();
  for (const auto& [key, value] : attrs) {
    std::visit(
        [&, key = key](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, DataType>) json[key] = std::string(name(v));
          else if constexpr (std::is_same_v<V, SymbolicScalar>) json[key] = *v.constantValue();
          else if constexpr (std::is_same_v<V, SymbolicShape>) {
            nlohmann::json dims = nlohmann::json::array();
            for (const SymbolicScalar& dim : v) dims.push_back(*dim.constantValue());
            json[key] = dims;
          } else json[key] = v;
        },
        value);
  }
  return json;
}

struct SweepCase {
  std::string name;
  TensorOpKind kind;
  std::vector<HostTensor> inputs;
  Attributes attrs;
  double rtol = 1e-5;
  double atol = 1e-6;
};

SymbolicShape symbolicShape(std::initializer_list<std::int64_t> dims) {
  SymbolicShape shape;
  for (std::int64_t dim : dims) shape.emplace_back(dim);
  return shape;
}

// Runs every case through the interpreter and numpy and compares.
void sweep(const std::string& testName, const std::vector<SweepCase>& cases) {
  NumpyReference numpy(testName);
  std::vector<std::vector<HostTensor>> results;
  for (const SweepCase& c : cases) {
    DiagnosticEngine diags;
    SingleOpRun run = runSingleOp(c.kind, c.inputs, c.attrs, diags);
    ASSERT_TRUE(run.ok) << c.name << ": " << messages(diags);
    std::vector<DataType> dtypes;
    for (const HostTensor& output : run.outputs) dtypes.push_back(output.dtype());
    numpy.add(c.name, std::string(name(c.kind)), attrsToJson(c.attrs), c.inputs, dtypes);
    results.push_back(std::move(run.outputs));
  }
  ASSERT_TRUE(numpy.run());
  for (std::size_t i = 0; i < cases.size(); ++i)
    for (std::size_t k = 0; k < results[i].size(); ++k)
      EXPECT_TRUE(closeTo(results[i][k], numpy.expected(cases[i].name, k), cases[i].rtol, cases[i].atol))
          << cases[i].name << " output " << k;
}

constexpr DataType kI32 = DataType::Int32;

// 3x37 values k/2 for k in -55..55: every tie of round/rint appears.
HostTensor halves(DataType dtype) {
  std::vector<double> values;
  for (int i = 0; i < 3 * 37; ++i) values.push_back((i - 55) * 0.5);
  return tensorOf(dtype, Shape{3, 37}, values);
}

struct UnaryDomain {
  TensorOpKind kind;
  double low, high;
};

const std::vector<UnaryDomain> kFloatUnaryOps = {
    {TensorOpKind::Neg, -5, 5},        {TensorOpKind::Abs, -5, 5},        {TensorOpKind::Reciprocal, 0.25, 4},
    {TensorOpKind::Sqrt, 0.1, 10},     {TensorOpKind::Rsqrt, 0.1, 10},    {TensorOpKind::Exp, -5, 5},
    {TensorOpKind::Exp2, -5, 5},       {TensorOpKind::Expm1, -2, 2},      {TensorOpKind::Log, 0.1, 10},
    {TensorOpKind::Log1p, -0.5, 5},    {TensorOpKind::Sin, -3, 3},        {TensorOpKind::Cos, -3, 3},
    {TensorOpKind::Tanh, -3, 3},       {TensorOpKind::Erf, -3, 3},        {TensorOpKind::Erfc, -3, 3},
    {TensorOpKind::Ceil, -5, 5},       {TensorOpKind::Floor, -5, 5},      {TensorOpKind::Trunc, -5, 5},
    {TensorOpKind::Sign, -5, 5},       {TensorOpKind::Relu, -5, 5},       {TensorOpKind::Sigmoid, -6, 6},
};

TEST(NumpySweep, UnaryOpsInFp32AndFp16) {
  std::vector<SweepCase> cases;
  std::uint32_t seed = 1;
  for (DataType dtype : {kF32, kF16}) {
    const std::string suffix = dtype == kF32 ? "_f32" : "_f16";
    for (const UnaryDomain& op : kFloatUnaryOps)
      cases.push_back({std::string(name(op.kind)) + suffix, op.kind,
                       {randomTensor(dtype, Shape{3, 37}, op.low, op.high, seed++)}, {}});
    cases.push_back({"round" + suffix, TensorOpKind::Round, {halves(dtype)}, {}});
    cases.push_back({"floor_halves" + suffix, TensorOpKind::Floor, {halves(dtype)}, {}});
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const HostTensor special = tensorOf(dtype, Shape{2, 3}, {0.0, -inf, inf, nan, -2.5, 1e4});
    cases.push_back({"isfinite" + suffix, TensorOpKind::IsFinite, {special}, {}});
    cases.push_back({"logical_not" + suffix, TensorOpKind::LogicalNot, {randomTensor(dtype, Shape{3, 37}, -1, 1, seed++).astype(kI32).astype(dtype)}, {}});
    cases.push_back({"clip" + suffix, TensorOpKind::Clip, {randomTensor(dtype, Shape{3, 37}, -5, 5, seed++)},
                     {{"min", -1.1}, {"max", 2.3}}});
    cases.push_back({"clip_min_only" + suffix, TensorOpKind::Clip, {randomTensor(dtype, Shape{3, 37}, -5, 5, seed++)},
                     {{"min", 0.7}}});
  }
  sweep("UnaryOpsInFp32AndFp16", cases);
}

TEST(NumpySweep, IntegerUnaryOps) {
  std::vector<SweepCase> cases;
  std::uint32_t seed = 100;
  for (TensorOpKind kind : {TensorOpKind::Neg, TensorOpKind::Abs, TensorOpKind::Sign, TensorOpKind::Relu,
                            TensorOpKind::Round, TensorOpKind::LogicalNot, TensorOpKind::IsFinite})
    cases.push_back({std::string(name(kind)) + "_i32", kind, {randomTensor(kI32, Shape{3, 37}, -50, 50, seed++)}, {}});
  cases.push_back({"sqrt_i32", TensorOpKind::Sqrt, {randomTensor(kI32, Shape{3, 37}, 0, 1000, seed++)}, {}});
  cases.push_back({"exp_i32", TensorOpKind::Exp, {randomTensor(kI32, Shape{3, 37}, -3, 12, seed++)}, {}});
  cases.push_back({"clip_i32", TensorOpKind::Clip, {randomTensor(kI32, Shape{3, 37}, -9, 9, seed++)},
                   {{"min", -2.5}, {"max", 3.5}}});
  cases.push_back({"neg_i8_wraps", TensorOpKind::Neg, {randomTensor(DataType::Int8, Shape{3, 37}, -128, 127, seed++)}, {}});
  sweep("IntegerUnaryOps", cases);
}

TEST(NumpySweep, BinaryOpsBroadcastInFp32Fp16AndInt) {
  std::vector<SweepCase> cases;
  std::uint32_t seed = 200;
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {Shape{3, 37}, Shape{3, 37}}, {Shape{3, 37}, Shape{37}}, {Shape{3, 1}, Shape{1, 37}}, {Shape{2, 3, 1}, Shape{5}}};
  for (DataType dtype : {kF32, kF16}) {
    const std::string suffix = dtype == kF32 ? "_f32" : "_f16";
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      const std::string tag = suffix + "_s" + std::to_string(s);
      for (TensorOpKind kind : {TensorOpKind::Add, TensorOpKind::Sub, TensorOpKind::Mul, TensorOpKind::Maximum,
                                TensorOpKind::Minimum})
        cases.push_back({std::string(name(kind)) + tag, kind,
                         {randomTensor(dtype, shapes[s].first, -4, 4, seed++),
                          randomTensor(dtype, shapes[s].second, -4, 4, seed++)},
                         {}});
      cases.push_back({"div" + tag, TensorOpKind::Div,
                       {randomTensor(dtype, shapes[s].first, -4, 4, seed++),
                        randomTensor(dtype, shapes[s].second, 0.5, 3, seed++)},
                       {}});
      cases.push_back({"pow" + tag, TensorOpKind::Pow,
                       {randomTensor(dtype, shapes[s].first, 0.5, 2, seed++),
                        randomTensor(dtype, shapes[s].second, -2, 2, seed++)},
                       {}});
    }
  }
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    const std::string tag = "_i32_s" + std::to_string(s);
    for (TensorOpKind kind : {TensorOpKind::Add, TensorOpKind::Sub, TensorOpKind::Mul, TensorOpKind::Div,
                              TensorOpKind::Maximum, TensorOpKind::Minimum})
      cases.push_back({std::string(name(kind)) + tag, kind,
                       {randomTensor(kI32, shapes[s].first, -40, 40, seed++),
                        randomTensor(kI32, shapes[s].second, -6, 6, seed++)},  // div: zero divisors included
                       {}});
    cases.push_back({"pow" + tag, TensorOpKind::Pow,
                     {randomTensor(kI32, shapes[s].first, -4, 4, seed++), randomTensor(kI32, shapes[s].second, 0, 5, seed++)},
                     {}});
  }
  cases.push_back({"add_i8_wraps", TensorOpKind::Add,
                   {randomTensor(DataType::Int8, Shape{3, 37}, -128, 127, seed++),
                    randomTensor(DataType::Int8, Shape{3, 37}, -128, 127, seed++)},
                   {}});
  cases.push_back({"mul_i16_wraps", TensorOpKind::Mul,
                   {randomTensor(DataType::Int16, Shape{3, 37}, -30000, 30000, seed++),
                    randomTensor(DataType::Int16, Shape{37}, -300, 300, seed++)},
                   {}});
  for (TensorOpKind kind : {TensorOpKind::LogicalAnd, TensorOpKind::LogicalOr})
    cases.push_back({std::string(name(kind)), kind,
                     {randomTensor(DataType::Bool, Shape{3, 37}, 0, 1, seed++),
                      randomTensor(DataType::Bool, Shape{3, 1}, 0, 1, seed++)},
                     {}});
  sweep("BinaryOpsBroadcastInFp32Fp16AndInt", cases);
}

TEST(NumpySweep, ComparisonsAndWhere) {
  std::vector<SweepCase> cases;
  std::uint32_t seed = 300;
  for (DataType dtype : {kF32, kF16, kI32}) {
    const std::string suffix = "_" + std::string(name(dtype));
    for (TensorOpKind kind : {TensorOpKind::Eq, TensorOpKind::Ne, TensorOpKind::Gt, TensorOpKind::Ge,
                              TensorOpKind::Lt, TensorOpKind::Le}) {
      // Small integers, so that equal values occur.
      cases.push_back({std::string(name(kind)) + suffix, kind,
                       {randomTensor(kI32, Shape{3, 37}, -2, 2, seed++).astype(dtype),
                        randomTensor(kI32, Shape{37}, -2, 2, seed++).astype(dtype)},
                       {}});
    }
    for (TensorOpKind kind : {TensorOpKind::EqS, TensorOpKind::NeS, TensorOpKind::GtS, TensorOpKind::GeS,
                              TensorOpKind::LtS, TensorOpKind::LeS}) {
      const HostTensor x = dtype == kI32 ? randomTensor(kI32, Shape{3, 37}, -3, 3, seed++) : halves(dtype);
      cases.push_back({std::string(name(kind)) + suffix, kind, {x}, {{"scalar", dtype == kI32 ? 1.0 : 0.5}}});
      cases.push_back({std::string(name(kind)) + suffix + "_fraction", kind, {x}, {{"scalar", 1.5}}});
    }
  }
  // 0.1 is not an fp16 value: the scalar is rounded to fp16 first, so fp16(0.1) compares equal.
  cases.push_back({"eqs_f16_rounded_scalar", TensorOpKind::EqS,
                   {tensorOf(kF16, Shape{3}, {0.1, 0.2, 0.099975586})}, {{"scalar", 0.1}}});
  const HostTensor cond = randomTensor(DataType::Bool, Shape{3, 37}, 0, 1, seed++);
  cases.push_back({"where_tensors", TensorOpKind::Where,
                   {cond, randomTensor(kF32, Shape{3, 37}, -1, 1, seed++), randomTensor(kF32, Shape{37}, -1, 1, seed++)},
                   {}});
  cases.push_back({"where_scalar_x", TensorOpKind::Where,
                   {cond, randomTensor(kF16, Shape{3, 1}, -1, 1, seed++)}, {{"x", 2.5}}});
  cases.push_back({"where_scalar_y_i32", TensorOpKind::Where,
                   {randomTensor(DataType::Bool, Shape{3, 1}, 0, 1, seed++), randomTensor(kI32, Shape{1, 37}, -9, 9, seed++)},
                   {{"y", -7.0}}});
  sweep("ComparisonsAndWhere", cases);
}

TEST(NumpySweep, TensorScalarOps) {
  std::vector<SweepCase> cases;
  std::uint32_t seed = 400;
  struct ScalarCase {
    TensorOpKind kind;
    double low, high, scalar;
  };
  const std::vector<ScalarCase> floatCases = {
      {TensorOpKind::AddS, -4, 4, 1.7},    {TensorOpKind::SubS, -4, 4, 0.1},    {TensorOpKind::RSubS, -4, 4, 2.3},
      {TensorOpKind::MulS, -4, 4, 0.3},    {TensorOpKind::DivS, -4, 4, -0.3},   {TensorOpKind::RDivS, 0.5, 3, 2.5},
      {TensorOpKind::MaximumS, -4, 4, 0.2}, {TensorOpKind::MinimumS, -4, 4, 0.2}, {TensorOpKind::PowS, 0.5, 2, 1.7},
      {TensorOpKind::RPowS, -2, 2, 1.7},
  };
  for (DataType dtype : {kF32, kF16})
    for (const ScalarCase& c : floatCases)
      cases.push_back({std::string(name(c.kind)) + "_" + std::string(name(dtype)), c.kind,
                       {randomTensor(dtype, Shape{3, 37}, c.low, c.high, seed++)}, {{"scalar", c.scalar}}});
  const std::vector<ScalarCase> intCases = {
      {TensorOpKind::AddS, -40, 40, 3},    {TensorOpKind::SubS, -40, 40, 5},     {TensorOpKind::RSubS, -40, 40, 7},
      {TensorOpKind::MulS, -40, 40, -3},   {TensorOpKind::DivS, -40, 40, 4},     {TensorOpKind::DivS, -40, 40, -3},
      {TensorOpKind::RDivS, 1, 9, 100},    {TensorOpKind::RDivS, -9, -1, 100},   {TensorOpKind::MaximumS, -40, 40, 0},
      {TensorOpKind::MinimumS, -40, 40, 2}, {TensorOpKind::PowS, -6, 6, 3},      {TensorOpKind::RPowS, 0, 10, 2},
      {TensorOpKind::MulS, -40, 40, 0.5},  {TensorOpKind::DivS, -40, 40, 2.5},   {TensorOpKind::AddS, -40, 40, -0.75},
  };
  int index = 0;
  for (const ScalarCase& c : intCases)
    cases.push_back({std::string(name(c.kind)) + "_i32_" + std::to_string(index++), c.kind,
                     {randomTensor(kI32, Shape{3, 37}, c.low, c.high, seed++)}, {{"scalar", c.scalar}}});
  sweep("TensorScalarOps", cases);
}

TEST(NumpySweep, ReductionsWithDimsAndKeepdim) {
  std::vector<SweepCase> cases;
  std::uint32_t seed = 500;
  auto dims = [](std::vector<std::int64_t> d, bool keep) { return Attributes{{"dims", d}, {"keepdim", keep}}; };
  const HostTensor positive = randomTensor(kF32, Shape{3, 5, 37}, 0, 1, seed++);
  const HostTensor mixed = randomTensor(kF32, Shape{3, 5, 37}, -1, 1, seed++);
  cases.push_back({"sum_last", TensorOpKind::Sum, {positive}, dims({2}, false)});
  cases.push_back({"sum_outer_keep", TensorOpKind::Sum, {positive}, dims({0, 2}, true)});
  cases.push_back({"sum_all", TensorOpKind::Sum, {positive}, {}});
  cases.push_back({"sum_negative_dim", TensorOpKind::Sum, {positive}, dims({-2}, true)});
  cases.push_back({"sum_f16", TensorOpKind::Sum, {positive.astype(kF16)}, dims({2}, false)});
  cases.push_back({"prod_mid", TensorOpKind::Prod, {randomTensor(kF32, Shape{3, 5, 37}, 0.5, 1.5, seed++)}, dims({1}, false)});
  cases.push_back({"amax_outer", TensorOpKind::Amax, {mixed}, dims({0, 1}, false)});
  cases.push_back({"amin_last_keep", TensorOpKind::Amin, {mixed}, dims({2}, true)});
  cases.push_back({"amax_f16", TensorOpKind::Amax, {mixed.astype(kF16)}, dims({1}, true)});
  cases.push_back({"argmax_last", TensorOpKind::Argmax, {mixed}, dims({2}, false)});
  cases.push_back({"argmin_first_keep", TensorOpKind::Argmin, {mixed}, dims({0}, true)});
  const HostTensor ties = randomTensor(kI32, Shape{3, 5, 37}, 0, 3, seed++);
  cases.push_back({"argmax_ties_i32", TensorOpKind::Argmax, {ties}, dims({2}, false)});
  cases.push_back({"argmin_ties_f32", TensorOpKind::Argmin, {ties.astype(kF32)}, dims({1}, true)});
  cases.push_back({"sum_i32", TensorOpKind::Sum, {randomTensor(kI32, Shape{3, 5, 37}, -100, 100, seed++)}, dims({1}, false)});
  cases.push_back({"prod_i32_wraps", TensorOpKind::Prod, {randomTensor(kI32, Shape{3, 37}, -9, 9, seed++)}, dims({1}, false)});
  cases.push_back({"amax_i32", TensorOpKind::Amax, {ties}, dims({0, 2}, true)});
  sweep("ReductionsWithDimsAndKeepdim", cases);
}

TEST(NumpySweep, LayoutCastAndCreation) {
  std::vector<SweepCase> cases;
  std::uint32_t seed = 600;
  const HostTensor x3 = randomTensor(kF32, Shape{3, 5, 37}, -1, 1, seed++);
  cases.push_back({"reshape", TensorOpKind::Reshape, {randomTensor(kF16, Shape{3, 37}, -1, 1, seed++)},
                   {{"shape", symbolicShape({37, 1, 3})}}});
  cases.push_back({"transpose", TensorOpKind::Transpose, {x3}, {{"dims", std::vector<std::int64_t>{0, 2}}}});
  cases.push_back({"permute", TensorOpKind::Permute, {x3}, {{"dims", std::vector<std::int64_t>{2, 0, 1}}}});
  cases.push_back({"unsqueeze", TensorOpKind::Unsqueeze, {x3}, {{"dim", std::int64_t{1}}}});
  cases.push_back({"concat_dim1", TensorOpKind::Concat,
                   {randomTensor(kI32, Shape{3, 37}, -9, 9, seed++), randomTensor(kI32, Shape{3, 5}, -9, 9, seed++),
                    randomTensor(kI32, Shape{3, 1}, -9, 9, seed++)},
                   {{"dim", std::int64_t{1}}}});
  cases.push_back({"concat_dim0", TensorOpKind::Concat,
                   {randomTensor(kF32, Shape{2, 37}, -9, 9, seed++), randomTensor(kF32, Shape{3, 37}, -9, 9, seed++)},
                   {{"dim", std::int64_t{0}}}});
  // Bitcasts: inputs whose bytes read as finite values in the new dtype (the comparison is numeric).
  cases.push_back({"bitcast_f32_to_i32", TensorOpKind::Bitcast, {randomTensor(kF32, Shape{3, 37}, -9, 9, seed++)},
                   {{"dtype", kI32}}});
  cases.push_back({"bitcast_f16_to_i8_doubles_last_dim", TensorOpKind::Bitcast,
                   {randomTensor(kF16, Shape{3, 5, 37}, -9, 9, seed++)}, {{"dtype", DataType::Int8}}});
  cases.push_back({"bitcast_i8_to_f32_quarters_last_dim", TensorOpKind::Bitcast,
                   {randomTensor(DataType::Int8, Shape{3, 36}, 0, 63, seed++)}, {{"dtype", kF32}}});
  cases.push_back({"bitcast_i32_to_f16", TensorOpKind::Bitcast, {randomTensor(kI32, Shape{3, 37}, 0, 30000, seed++)},
                   {{"dtype", kF16}}});
  for (const char* mode : {"rint", "round", "floor", "ceil", "trunc"})
    cases.push_back({std::string("cast_f32_to_i32_") + mode, TensorOpKind::Cast, {halves(kF32)},
                     {{"dtype", kI32}, {"mode", std::string(mode)}}});
  cases.push_back({"cast_f16_to_i8_saturates", TensorOpKind::Cast,
                   {randomTensor(kF16, Shape{3, 37}, -300, 300, seed++)}, {{"dtype", DataType::Int8}}});
  cases.push_back({"cast_f32_to_f16", TensorOpKind::Cast, {randomTensor(kF32, Shape{3, 37}, -70000, 70000, seed++)},
                   {{"dtype", kF16}}});
  cases.push_back({"cast_i32_to_f32", TensorOpKind::Cast, {randomTensor(kI32, Shape{3, 37}, -1e9, 1e9, seed++)},
                   {{"dtype", kF32}}});
  cases.push_back({"cast_i32_to_i8_wraps", TensorOpKind::Cast, {randomTensor(kI32, Shape{3, 37}, -1000, 1000, seed++)},
                   {{"dtype", DataType::Int8}}});
  cases.push_back({"cast_f32_to_bool", TensorOpKind::Cast, {randomTensor(kI32, Shape{3, 37}, -1, 1, seed++).astype(kF32)},
                   {{"dtype", DataType::Bool}}});
  cases.push_back({"full_f16", TensorOpKind::Full, {},
                   {{"shape", symbolicShape({3, 37})}, {"value", 1.1}, {"dtype", kF16}}});
  cases.push_back({"full_i32", TensorOpKind::Full, {},
                   {{"shape", symbolicShape({5})}, {"value", -3.0}, {"dtype", kI32}}});
  cases.push_back({"arange_f32", TensorOpKind::Arange, {},
                   {{"start", 0.5}, {"step", 0.1}, {"size", std::int64_t{37}}, {"dtype", kF32}}});
  cases.push_back({"arange_i32", TensorOpKind::Arange, {},
                   {{"start", -5.0}, {"step", 3.0}, {"size", std::int64_t{11}}, {"dtype", kI32}}});
  sweep("LayoutCastAndCreation", cases);
}

TEST(NumpySweep, IndexingAndSorting) {
  std::vector<SweepCase> cases;
  std::uint32_t seed = 700;
  const HostTensor x = randomTensor(kF32, Shape{3, 37}, -1, 1, seed++);
  cases.push_back({"gather_dim1", TensorOpKind::Gather, {x, randomTensor(kI32, Shape{3, 5}, 0, 36, seed++)},
                   {{"dim", std::int64_t{1}}}});
  cases.push_back({"gather_dim0_smaller_index", TensorOpKind::Gather,
                   {randomTensor(kF16, Shape{5, 7}, -1, 1, seed++), randomTensor(DataType::Int64, Shape{3, 4}, 0, 4, seed++)},
                   {{"dim", std::int64_t{0}}}});
  cases.push_back({"index_select_dim1", TensorOpKind::IndexSelect,
                   {x, randomTensor(DataType::Int64, Shape{10}, 0, 36, seed++)}, {{"dim", std::int64_t{1}}}});
  cases.push_back({"index_select_dim0", TensorOpKind::IndexSelect,
                   {x, randomTensor(kI32, Shape{5}, 0, 2, seed++)}, {{"dim", std::int64_t{0}}}});
  cases.push_back({"scatter_dim1_duplicates", TensorOpKind::Scatter,
                   {x, randomTensor(kI32, Shape{3, 4}, 0, 36, seed++), randomTensor(kF32, Shape{3, 5}, 5, 9, seed++)},
                   {{"dim", std::int64_t{1}}}});
  cases.push_back({"scatter_dim0", TensorOpKind::Scatter,
                   {x, randomTensor(kI32, Shape{2, 37}, 0, 2, seed++), randomTensor(kF32, Shape{2, 37}, 5, 9, seed++)},
                   {{"dim", std::int64_t{0}}}});
  // reduce: duplicate targets (12 indices into the first 5 columns of each row) accumulate in C order.
  cases.push_back({"scatter_add_duplicates", TensorOpKind::Scatter,
                   {x, randomTensor(kI32, Shape{3, 4}, 0, 4, seed++), randomTensor(kF32, Shape{3, 5}, -2, 2, seed++)},
                   {{"dim", std::int64_t{1}}, {"reduce", std::string("add")}}});
  cases.push_back({"scatter_multiply_f16", TensorOpKind::Scatter,
                   {randomTensor(kF16, Shape{4, 9}, -2, 2, seed++), randomTensor(kI32, Shape{3, 9}, 0, 3, seed++),
                    randomTensor(kF16, Shape{3, 9}, -2, 2, seed++)},
                   {{"dim", std::int64_t{0}}, {"reduce", std::string("multiply")}}});
  cases.push_back({"scatter_add_i8_wraps", TensorOpKind::Scatter,
                   {randomTensor(DataType::Int8, Shape{3, 6}, -128, 127, seed++), randomTensor(kI32, Shape{3, 6}, 0, 2, seed++),
                    randomTensor(DataType::Int8, Shape{3, 6}, -128, 127, seed++)},
                   {{"dim", std::int64_t{1}}, {"reduce", std::string("add")}}});
  cases.push_back({"scatter_update_dim0", TensorOpKind::ScatterUpdate,
                   {randomTensor(kF32, Shape{6, 37}, -1, 1, seed++), tensorOf(kI32, Shape{3}, {4, 0, 2}),
                    randomTensor(kF32, Shape{3, 37}, 5, 9, seed++)},
                   {{"dim", std::int64_t{0}}}});
  cases.push_back({"scatter_update_dim1", TensorOpKind::ScatterUpdate,
                   {randomTensor(kI32, Shape{3, 37}, -9, 9, seed++), tensorOf(kI32, Shape{2}, {36, 1}),
                    randomTensor(kI32, Shape{3, 2}, 50, 60, seed++)},
                   {{"dim", std::int64_t{1}}}});
  const HostTensor ties = randomTensor(kI32, Shape{3, 37}, 0, 5, seed++);
  for (bool largest : {true, false}) {
    const std::string tag = largest ? "_largest" : "_smallest";
    cases.push_back({"topk" + tag, TensorOpKind::TopK, {x},
                     {{"k", std::int64_t{5}}, {"dim", std::int64_t{1}}, {"largest", largest}}});
    cases.push_back({"topk_ties" + tag, TensorOpKind::TopK, {ties.astype(kF16)},
                     {{"k", std::int64_t{7}}, {"dim", std::int64_t{1}}, {"largest", largest}}});
    cases.push_back({"topk_dim0" + tag, TensorOpKind::TopK, {ties},
                     {{"k", std::int64_t{2}}, {"dim", std::int64_t{0}}, {"largest", largest}}});
    cases.push_back({"argsort_ties" + tag, TensorOpKind::ArgSort, {ties.astype(kF32)},
                     {{"dim", std::int64_t{1}}, {"descending", largest}}});
  }
  cases.push_back({"argsort_dim0", TensorOpKind::ArgSort, {x}, {{"dim", std::int64_t{0}}, {"descending", false}}});
  sweep("IndexingAndSorting", cases);
}

TEST(NumpySweep, MatmulAndQuantisation) {
  std::vector<SweepCase> cases;
  std::uint32_t seed = 800;
  const double atol = 1e-5;
  cases.push_back({"matmul_2d", TensorOpKind::Matmul,
                   {randomTensor(kF32, Shape{37, 19}, -1, 1, seed++), randomTensor(kF32, Shape{19, 23}, -1, 1, seed++)},
                   {}, 1e-5, atol});
  cases.push_back({"matmul_a_trans", TensorOpKind::Matmul,
                   {randomTensor(kF32, Shape{19, 37}, -1, 1, seed++), randomTensor(kF32, Shape{19, 23}, -1, 1, seed++)},
                   {{"a_trans", true}}, 1e-5, atol});
  cases.push_back({"matmul_b_trans", TensorOpKind::Matmul,
                   {randomTensor(kF32, Shape{37, 19}, -1, 1, seed++), randomTensor(kF32, Shape{23, 19}, -1, 1, seed++)},
                   {{"b_trans", true}}, 1e-5, atol});
  cases.push_back({"matmul_both_trans", TensorOpKind::Matmul,
                   {randomTensor(kF32, Shape{19, 37}, -1, 1, seed++), randomTensor(kF32, Shape{23, 19}, -1, 1, seed++)},
                   {{"a_trans", true}, {"b_trans", true}}, 1e-5, atol});
  cases.push_back({"matmul_batched_broadcast", TensorOpKind::Matmul,
                   {randomTensor(kF32, Shape{2, 3, 7, 5}, -1, 1, seed++), randomTensor(kF32, Shape{3, 5, 4}, -1, 1, seed++)},
                   {}, 1e-5, atol});
  cases.push_back({"matmul_f16_out_f16", TensorOpKind::Matmul,
                   {randomTensor(kF16, Shape{33, 65}, -1, 1, seed++), randomTensor(kF16, Shape{65, 17}, -1, 1, seed++)},
                   {{"out_dtype", kF16}}});
  // fp16 operands, fp32 result: k = 65 terms of magnitude <= 1, so atol 1e-4 (65 * 65 * 2^-24 ~ 2.5e-4 worst case).
  cases.push_back({"matmul_f16_out_f32", TensorOpKind::Matmul,
                   {randomTensor(kF16, Shape{33, 65}, -1, 1, seed++), randomTensor(kF16, Shape{65, 17}, -1, 1, seed++)},
                   {}, 1e-5, 1e-4});
  cases.push_back({"matmul_i8", TensorOpKind::Matmul,
                   {randomTensor(DataType::Int8, Shape{13, 29}, -128, 127, seed++),
                    randomTensor(DataType::Int8, Shape{2, 29, 11}, -128, 127, seed++)},
                   {}});
  // quantize: a scale per column (axis -2) and per row (axis -1); uint8 saturates at 0 and 255.
  cases.push_back({"quantize", TensorOpKind::Quantize,
                   {randomTensor(kF32, Shape{3, 37}, -400, 400, seed++), randomTensor(kF32, Shape{1, 37}, 0.1, 0.5, seed++)},
                   {{"axis", std::int64_t{-2}}}});
  cases.push_back({"quantize_f16", TensorOpKind::Quantize,
                   {randomTensor(kF16, Shape{3, 37}, -400, 400, seed++), randomTensor(kF16, Shape{3, 1}, 0.1, 0.5, seed++)}, {}});
  cases.push_back({"quantize_u8", TensorOpKind::Quantize,
                   {randomTensor(kF32, Shape{2, 3, 37}, -100, 700, seed++), randomTensor(kF32, Shape{2, 3, 1}, 0.2, 0.6, seed++)},
                   {{"otype", DataType::UInt8}}});
  cases.push_back({"dequantize", TensorOpKind::Dequantize,
                   {randomTensor(DataType::Int8, Shape{3, 37}, -128, 127, seed++), randomTensor(kF32, Shape{3, 1}, 0.01, 0.1, seed++)},
                   {}});
  cases.push_back({"dequantize_i32_to_f16", TensorOpKind::Dequantize,
                   {randomTensor(kI32, Shape{3, 37}, -5000, 5000, seed++), randomTensor(kF32, Shape{1, 37}, 0.001, 0.01, seed++)},
                   {{"otype", kF16}, {"axis", std::int64_t{-2}}}});
  sweep("MatmulAndQuantisation", cases);
}

} // namespace
} // namespace pto::testing
