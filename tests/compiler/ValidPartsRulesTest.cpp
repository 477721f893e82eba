// The valid-part rules with symbolic sizes (what the compiler tiles) against the same rules on values (what
// the reference interpreter applies): for every value of the run-time size, the expression evaluates to the
// box the value rule gives. The value rule is the independent side here; it has its own numpy tests
// (tests/python/test_valid_parts.py).
#include "compiler/ir/ValidParts.h"
#include "compiler/ir/ValidShapes.h"
#include "core/Shape.h"

#include <gtest/gtest.h>

namespace pto::testing {
namespace {

using validparts::Dims;

Dims evaluated(const SymbolicShape& shape, std::int64_t n) {
  Dims values;
  for (const SymbolicScalar& size : shape) values.push_back(*size.evaluate({{"n", n}}).value);
  return values;
}

TEST(ValidPartsRules, ASymbolicReshapeOfARowPrefixGivesTheValueRulesBoxForEverySize) {
  struct ReshapeCase {
    Dims shape, newShape;
    std::size_t partial;  // the dim of size n
  };
  // [n, 1024] of [16, 1024] read as [128, 128] is [8n, 128]; a [1, 1, n, 64] tail as [n*64]; rows of a
  // [4, 6] as [24]; a batch of one that is there or not as [16, 16].
  for (const ReshapeCase& c :
       {ReshapeCase{{16, 1024}, {128, 128}, 0}, ReshapeCase{{1, 1, 32, 64}, {2048}, 2}, ReshapeCase{{4, 6}, {24}, 0},
        ReshapeCase{{1, 8, 4}, {32}, 1}, ReshapeCase{{1, 32, 8}, {16, 16}, 0}}) {
    SymbolicShape valid(c.shape.begin(), c.shape.end());
    const std::size_t partial = c.partial;
    valid[partial] = SymbolicScalar::symbol("n");
    const std::optional<SymbolicShape> symbolic = validparts::reshapedValid(c.shape, valid, c.newShape);
    ASSERT_TRUE(symbolic) << "shape " << c.shape.size();
    for (std::int64_t n = 0; n <= c.shape[partial]; ++n) {
      Dims values = c.shape;
      values[partial] = n;
      const Dims got = evaluated(*symbolic, n), expected = validparts::reshapedValid(c.shape, values, c.newShape);
      if (n == 0)  // no valid element: any empty box ([0, 128] or [1, 0]) says so
        EXPECT_EQ(Shape(got).elementCount(), 0) << Shape(got).str();
      else
        EXPECT_EQ(got, expected) << "n = " << n;
    }
  }
  // Keys of 8 rows each, [8n, 128] of [128, 128], back as [16, 1024] (PyPTO's sparse attention): n rows.
  {
    const SymbolicShape eightRows{SymbolicScalar::symbol("n") * SymbolicScalar(8), SymbolicScalar(128)};
    const std::optional<SymbolicShape> symbolic = validparts::reshapedValid(Dims{128, 128}, eightRows, Dims{16, 1024});
    ASSERT_TRUE(symbolic);
    for (std::int64_t n = 1; n <= 16; ++n)
      EXPECT_EQ(evaluated(*symbolic, n), validparts::reshapedValid(Dims{128, 128}, Dims{8 * n, 128}, Dims{16, 1024}));
  }
  // A bitcast's [n, 4] of [16, 8]: no prefix for any n, so the reshape is whole, as the value rule says.
  {
    const SymbolicShape half{SymbolicScalar::symbol("n"), SymbolicScalar(4)};
    const std::optional<SymbolicShape> symbolic = validparts::reshapedValid(Dims{16, 8}, half, Dims{128, 1});
    ASSERT_TRUE(symbolic);
    for (std::int64_t n = 0; n < 16; ++n)
      EXPECT_EQ(evaluated(*symbolic, n), validparts::reshapedValid(Dims{16, 8}, Dims{n, 4}, Dims{128, 1}));
  }
  // Rows of 6 regrouped into rows of 12: 6n elements fill whole rows only for even n, so no one
  // expression gives the box; the compiler refuses rather than guess.
  SymbolicShape valid{SymbolicScalar::symbol("n"), SymbolicScalar(6)};
  EXPECT_FALSE(validparts::reshapedValid(Dims{4, 6}, valid, Dims{2, 12}));
}

TEST(ValidPartsRules, SymbolicCutsPairTheSameAxesAsTheValueRule) {
  // softmax's sub(x, rowmax): x [8, 64] valid [8, n], rowmax [8, 1] whole; and matmul's contraction.
  TensorOp sub;
  sub.kind = TensorOpKind::Sub;
  TensorOp matmul;
  matmul.kind = TensorOpKind::Matmul;
  matmul.attrs["a_trans"] = false;
  matmul.attrs["b_trans"] = false;
  const SymbolicScalar n = SymbolicScalar::symbol("n");
  struct CutCase {
    const TensorOp* op;
    std::vector<Dims> shapes;
    std::vector<SymbolicShape> valids;
  };
  for (const CutCase& c : {CutCase{&sub, {{8, 64}, {8, 1}}, {{8, n}, {8, 1}}},
                           CutCase{&matmul, {{4, 32}, {32, 16}}, {{4, n}, {32, 16}}},
                           CutCase{&matmul, {{4, 32}, {32, 16}}, {{4, 32}, {n, 16}}}}) {
    const std::optional<std::vector<SymbolicShape>> symbolic = validparts::cutInputs(*c.op, c.shapes, c.valids);
    ASSERT_TRUE(symbolic);
    for (std::int64_t value = 0; value <= 32; ++value) {
      std::vector<Dims> valids;
      for (const SymbolicShape& valid : c.valids) valids.push_back(evaluated(valid, value));
      const std::optional<std::vector<Dims>> boxes = validparts::cutInputs(*c.op, c.shapes, valids);
      std::vector<Dims> expected = boxes ? *boxes : c.shapes;
      std::vector<Dims> got;
      for (const SymbolicShape& box : *symbolic) got.push_back(evaluated(box, value));
      EXPECT_EQ(got, expected) << name(c.op->kind) << ", n = " << value;
    }
  }
}

TEST(ValidPartsRules, AClampedValidSizeStaysInsideItsTile) {
  const SymbolicScalar n = SymbolicScalar::symbol("n");
  const SymbolicScalar tail = clampedValid(n - 128, 64);  // the third tile of 64 along a valid length n
  for (std::int64_t value : {0, 100, 128, 150, 192, 500})
    EXPECT_EQ(*tail.evaluate({{"n", value}}).value, std::clamp<std::int64_t>(value - 128, 0, 64)) << value;
  EXPECT_EQ(clampedValid(SymbolicScalar(64), 64).constantValue(), 64);
  EXPECT_EQ(clampedValid(SymbolicScalar(90), 64).constantValue(), 64);
}

} // namespace
} // namespace pto::testing
