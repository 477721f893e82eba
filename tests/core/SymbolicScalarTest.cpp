// SymbolicScalar: folding, printing, evaluation against an independent oracle.
#include "core/SymbolicScalar.h"
#include "core/SymbolicSimplify.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include <unistd.h>

namespace pto {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

const SymbolicScalar a = SymbolicScalar::symbol("a");
const SymbolicScalar b = SymbolicScalar::symbol("b");
const SymbolicScalar c = SymbolicScalar::symbol("c");
const SymbolicScalar x = SymbolicScalar::symbol("x");

TEST(SymbolicScalar, KindNamesComeFromTheTable) {
  EXPECT_EQ(kSymbolicKindCount, 19u);
  EXPECT_EQ(name(SymbolicKind::Constant), "constant");
  EXPECT_EQ(name(SymbolicKind::Symbol), "symbol");
  EXPECT_EQ(name(SymbolicKind::Element), "element");
  EXPECT_FALSE(isUnary(SymbolicKind::Element));
  EXPECT_FALSE(isBinary(SymbolicKind::Element));
  EXPECT_EQ(name(SymbolicKind::FloorDiv), "floordiv");
  EXPECT_EQ(name(SymbolicKind::Max), "max");
  EXPECT_EQ(name(SymbolicKind::Le), "le");
  EXPECT_EQ(name(SymbolicKind::Or), "or");
  EXPECT_EQ(name(SymbolicKind::Not), "not");
  EXPECT_FALSE(isBinary(SymbolicKind::Symbol));
  EXPECT_TRUE(isBinary(SymbolicKind::Mod));
  EXPECT_TRUE(isBinary(SymbolicKind::And));
  EXPECT_FALSE(isBinary(SymbolicKind::Not));
  EXPECT_TRUE(isUnary(SymbolicKind::Not));
  EXPECT_FALSE(isUnary(SymbolicKind::Constant));
  EXPECT_FALSE(isUnary(SymbolicKind::Ge));
}

// Element reads (act_seq[b], block_table[b*512 + i]) evaluate through the
// binding of the element their index selects; the oracle is the bound array.
TEST(SymbolicScalar, ElementReadsEvaluateThroughTheirIndex) {
  const std::vector<std::int64_t> lengths = {65536, 971, 32869, 16383};
  Bindings bindings{{"b", 0}};
  for (std::size_t i = 0; i < lengths.size(); ++i)
    bindings[SymbolicScalar::elementKey("act_seq", static_cast<std::int64_t>(i))] = lengths[i];
  EXPECT_EQ(SymbolicScalar::elementKey("act_seq", 3), "act_seq[3]");

  const SymbolicScalar length = SymbolicScalar::element("act_seq", b);
  const SymbolicScalar blocks = floorDiv(length + 127, 128);
  EXPECT_EQ(length.kind(), SymbolicKind::Element);
  EXPECT_EQ(length.symbolName(), "act_seq");
  EXPECT_EQ(length.lhs(), b);
  EXPECT_EQ(blocks.str(), "(act_seq[b] + 127)//128");
  EXPECT_EQ(pyptoStr(min(length, 2048)), "RUNTIME_Min(act_seq[b], 2048)");
  for (std::int64_t batch = 0; batch < 4; ++batch) {
    bindings["b"] = batch;
    const std::int64_t expected = lengths[static_cast<std::size_t>(batch)];
    EXPECT_EQ(length.evaluate(bindings).value, expected);
    EXPECT_EQ(blocks.evaluate(bindings).value, (expected + 127) / 128);
    // A read inside a read's index (a block table row chosen by a read).
    EXPECT_EQ(SymbolicScalar::element("act_seq", gt(SymbolicScalar::element("act_seq", b), 20000) * 3).evaluate(bindings).value,
              expected > 20000 ? lengths[3] : lengths[0]);
  }

  // Structure: same tensor and index are equal (and hash alike); another
  // tensor or index is not. Reads are leaves to folding: x - x still folds.
  EXPECT_EQ(SymbolicScalar::element("act_seq", b + 0), length);
  EXPECT_EQ(SymbolicScalar::element("act_seq", b).hash(), length.hash());
  EXPECT_FALSE(SymbolicScalar::element("table", b) == length);
  EXPECT_FALSE(SymbolicScalar::element("act_seq", c) == length);
  EXPECT_EQ(length - length, SymbolicScalar(0));
  EXPECT_EQ(simplify(length + 1 - length), SymbolicScalar(1));
  EXPECT_EQ(length.symbols(), std::vector<std::string>{"b"});

  // Substituting binds the index, then the element when it is known.
  EXPECT_EQ(length.substitute({{"b", 2}}).str(), "act_seq[2]");
  EXPECT_EQ(length.substitute(bindings).constantValue(), lengths[3]);
  EXPECT_EQ(blocks.substitute({{"c", 1}}), blocks);
}

TEST(SymbolicScalar, AnUnknownElementSaysWhy) {
  Bindings bindings{{"i", 7}, {SymbolicScalar::elementKey("table", 0), 3}};
  SymbolicEvaluation outside = SymbolicScalar::element("table", SymbolicScalar::symbol("i")).evaluate(bindings);
  EXPECT_FALSE(outside.ok());
  EXPECT_EQ(outside.error, "element 7 of 'table' (read as 'table[i]') is not known: the position lies outside the tensor");
  SymbolicEvaluation unbound = SymbolicScalar::element("lengths", 0).evaluate(bindings);
  EXPECT_EQ(unbound.error,
            "element 0 of 'lengths' (read as 'lengths[0]') is not known: the tensor's values are not bound (a kernel "
            "reads elements only of its input arguments)");
  EXPECT_EQ(SymbolicScalar::element("table", SymbolicScalar::symbol("j")).evaluate(bindings).error, "unbound symbol 'j'");
}

TEST(SymbolicScalar, ConstantsFoldWithPythonSemantics) {
  EXPECT_EQ((SymbolicScalar(3) + 4).constantValue(), 7);
  EXPECT_EQ((SymbolicScalar(3) - 10).constantValue(), -7);
  EXPECT_EQ((SymbolicScalar(6) * -7).constantValue(), -42);
  EXPECT_EQ(floorDiv(-7, 2).constantValue(), -4);
  EXPECT_EQ(floorDiv(7, -2).constantValue(), -4);
  EXPECT_EQ(floorDiv(-7, -2).constantValue(), 3);
  EXPECT_EQ(floorDiv(7, 2).constantValue(), 3);
  EXPECT_EQ(mod(-7, 2).constantValue(), 1);
  EXPECT_EQ(mod(7, -2).constantValue(), -1);
  EXPECT_EQ(mod(-7, -2).constantValue(), -1);
  EXPECT_EQ(mod(-8, 2).constantValue(), 0);
  EXPECT_EQ(mod(kMin, -1).constantValue(), 0);
  EXPECT_EQ(min(3, -4).constantValue(), -4);
  EXPECT_EQ(max(3, -4).constantValue(), 3);
  EXPECT_TRUE(SymbolicScalar().isConstant());
  EXPECT_EQ(SymbolicScalar().constantValue(), 0);
  EXPECT_FALSE(x.isConstant());
  EXPECT_EQ(x.constantValue(), std::nullopt);
}

TEST(SymbolicScalar, FailingConstantOperationsStayUnfolded) {
  const SymbolicScalar byZero = floorDiv(1, 0);
  EXPECT_FALSE(byZero.isConstant());
  EXPECT_EQ(byZero.str(), "1//0");
  EXPECT_FALSE((SymbolicScalar(kMax) + 1).isConstant());
  EXPECT_FALSE(floorDiv(kMin, -1).isConstant());
  EXPECT_FALSE(mod(5, 0).isConstant());
}

TEST(SymbolicScalar, IdentitiesFold) {
  EXPECT_EQ(x + 0, x);
  EXPECT_EQ(0 + x, x);
  EXPECT_EQ(x - 0, x);
  EXPECT_EQ(x * 1, x);
  EXPECT_EQ(1 * x, x);
  EXPECT_EQ((x * 0).constantValue(), 0);
  EXPECT_EQ((0 * x).constantValue(), 0);
  EXPECT_EQ(floorDiv(x, 1), x);
  EXPECT_EQ(mod(x, 1).constantValue(), 0);
  EXPECT_EQ(mod(x, -1).constantValue(), 0);
  EXPECT_EQ((x - x).constantValue(), 0);
  // Structurally equal, separately built operands.
  EXPECT_EQ(min(a * b + 1, a * b + 1), a * b + 1);
  EXPECT_EQ(max(x, x), x);
}

TEST(SymbolicScalar, NestedConstantsFold) {
  EXPECT_EQ(((x + 2) + 3).str(), "x + 5");
  EXPECT_EQ(((x - 2) - 3).str(), "x - 5");
  EXPECT_EQ(((x + 2) - 2), x);
  EXPECT_EQ((3 + (2 + x)).str(), "x + 5");
  EXPECT_EQ(((x * 2) * 3).str(), "x*6");
  EXPECT_EQ((2 * x).str(), "x*2");
  EXPECT_EQ(floorDiv(floorDiv(x, 2), 3).str(), "x//6");
  EXPECT_EQ(floorDiv(floorDiv(x, -2), 3).str(), "x//(-2)//3");  // only positive divisors combine
  EXPECT_EQ(min(min(x, 5), 3).str(), "min(x, 3)");
  EXPECT_EQ(max(3, max(x, 5)).str(), "max(x, 5)");
  // A constant sum that overflows is not combined.
  EXPECT_EQ(((x + kMax) + 1).str(), "x + 9223372036854775807 + 1");
}

TEST(SymbolicScalar, PrintsPythonWithMinimalParentheses) {
  const SymbolicScalar B = SymbolicScalar::symbol("B");
  const SymbolicScalar N = SymbolicScalar::symbol("N");
  EXPECT_EQ((B * 32 + 1).str(), "B*32 + 1");
  EXPECT_EQ(floorDiv(N + 15, 16).str(), "(N + 15)//16");
  EXPECT_EQ((a + b * c).str(), "a + b*c");
  EXPECT_EQ(((a + b) * c).str(), "(a + b)*c");
  EXPECT_EQ((a - (b - c)).str(), "a - (b - c)");
  EXPECT_EQ(((a - b) - c).str(), "a - b - c");
  EXPECT_EQ((a + (b + c)).str(), "a + (b + c)");
  EXPECT_EQ((a - (b + 1)).str(), "a - (b + 1)");
  EXPECT_EQ(floorDiv(a, b).str(), "a//b");
  EXPECT_EQ(mod(a, b).str(), "a%b");
  EXPECT_EQ((floorDiv(a, b) * c).str(), "a//b*c");
  EXPECT_EQ((a * floorDiv(b, c)).str(), "a*(b//c)");
  EXPECT_EQ(mod(a * b, c).str(), "a*b%c");
  EXPECT_EQ(min(a, b).str(), "min(a, b)");
  EXPECT_EQ(max(a + 1, b * 2).str(), "max(a + 1, b*2)");
  EXPECT_EQ((min(a, b) * 2).str(), "min(a, b)*2");
  EXPECT_EQ((x * -3).str(), "x*(-3)");
  EXPECT_EQ(floorDiv(-7, x).str(), "-7//x");
  EXPECT_EQ((x - kMin).str(), "x - (-9223372036854775808)");
  EXPECT_EQ(SymbolicScalar(-5).str(), "-5");
}

TEST(SymbolicScalar, EvaluationErrorsNameTheProblem) {
  const SymbolicScalar N = SymbolicScalar::symbol("N");
  const SymbolicScalar y = SymbolicScalar::symbol("y");

  SymbolicEvaluation unbound = (N + x).evaluate({{"x", 1}});
  EXPECT_FALSE(unbound.ok());
  EXPECT_EQ(unbound.error, "unbound symbol 'N'");

  SymbolicEvaluation byZero = floorDiv(x, N - 4).evaluate({{"x", 1}, {"N", 4}});
  EXPECT_FALSE(byZero.ok());
  EXPECT_EQ(byZero.error, "division by zero in 'x//(N - 4)'");

  EXPECT_EQ(mod(x, y).evaluate({{"x", 1}, {"y", 0}}).error, "modulo by zero in 'x%y'");
  EXPECT_EQ(floorDiv(1, 0).evaluate({}).error, "division by zero in '1//0'");

  EXPECT_EQ((a * b).evaluate({{"a", kMax}, {"b", 2}}).error, "int64 overflow in 'a*b'");
  EXPECT_EQ((a + b).evaluate({{"a", kMax}, {"b", 1}}).error, "int64 overflow in 'a + b'");
  EXPECT_EQ((a - b).evaluate({{"a", kMin}, {"b", 1}}).error, "int64 overflow in 'a - b'");
  EXPECT_EQ(floorDiv(a, b).evaluate({{"a", kMin}, {"b", -1}}).error, "int64 overflow in 'a//b'");
  EXPECT_EQ(mod(a, b).evaluate({{"a", kMin}, {"b", -1}}).value, 0);

  SymbolicEvaluation fine = (a * b).evaluate({{"a", 3}, {"b", 4}});
  EXPECT_TRUE(fine.ok());
  EXPECT_EQ(fine.value, 12);
  EXPECT_TRUE(fine.error.empty());
}

TEST(SymbolicScalar, SubstituteFoldsPartialBindings) {
  const SymbolicScalar e = floorDiv(a + 15, 16) * b + c;
  EXPECT_EQ(e.substitute({{"a", 17}}).str(), "b*2 + c");
  EXPECT_EQ(e.substitute({{"b", 0}}), c);
  EXPECT_EQ(e.substitute({{"a", 1}, {"b", 3}, {"c", 4}}).constantValue(), 7);
  EXPECT_EQ(e.substitute({{"zzz", 1}}), e);
  EXPECT_EQ(e.substitute({}).str(), "(a + 15)//16*b + c");
  // A failing constant operation survives substitution for evaluate() to report.
  EXPECT_EQ(floorDiv(a, b).substitute({{"b", 0}}).str(), "a//0");
}

TEST(SymbolicScalar, SymbolsAreSortedAndUnique) {
  EXPECT_EQ((c * a + max(b, a) - c).symbols(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(SymbolicScalar(3).symbols().empty());
  EXPECT_EQ(x.symbolName(), "x");
}

TEST(SymbolicScalar, StructuralEqualityAndHashing) {
  const SymbolicScalar e1 = floorDiv(a + 15, 16) * b;
  const SymbolicScalar e2 = floorDiv(a + 15, 16) * b;
  EXPECT_EQ(e1, e2);
  EXPECT_EQ(e1.hash(), e2.hash());
  EXPECT_NE(e1, floorDiv(a + 15, 16) * c);
  EXPECT_NE(a + b, b + a);  // structural, not mathematical
  EXPECT_NE(SymbolicScalar::symbol("1"), SymbolicScalar(1));
  EXPECT_EQ(x + 3, SymbolicScalar(3) + x);

  std::unordered_map<SymbolicScalar, int> counts;
  ++counts[e1];
  ++counts[e2];
  ++counts[a];
  EXPECT_EQ(counts.size(), 2u);
  EXPECT_EQ(counts[e1], 2);
  std::unordered_map<SymbolicScalar, int, SymbolicScalarHash> other{{x, 1}};
  EXPECT_EQ(other.count(SymbolicScalar::symbol("x")), 1u);
}

TEST(SymbolicScalar, AccessorsExposeTheTree) {
  const SymbolicScalar e = floorDiv(a + 1, b);
  EXPECT_EQ(e.kind(), SymbolicKind::FloorDiv);
  EXPECT_EQ(e.lhs(), a + 1);
  EXPECT_EQ(e.rhs(), b);
}

TEST(SymbolicScalar, SharedSubtreesStayCheap) {
  // 2^200 paths through the tree; evaluation, substitution and symbols() visit
  // each node once, and error messages print a bounded prefix.
  SymbolicScalar e = x;
  for (int i = 0; i < 200; ++i) e = e + e;
  EXPECT_EQ(e.symbols(), std::vector<std::string>{"x"});
  EXPECT_EQ(e.evaluate({{"x", 0}}).value, 0);
  const std::string error = e.evaluate({{"x", 1}}).error;
  EXPECT_EQ(error.rfind("int64 overflow in 'x + x + (x + x) + ", 0), 0u) << error;
  EXPECT_LT(error.size(), 300u);
  EXPECT_EQ(error.substr(error.size() - 4), "...'");
  EXPECT_EQ(e.substitute({{"x", 0}}).constantValue(), 0);
  EXPECT_EQ(e.substitute({{"x", 1}}).isConstant(), false);  // overflowing constants stay unfolded
}

// --- Comparisons and logic ---------------------------------------------------

TEST(SymbolicScalar, ComparisonsAndLogicFoldConstantsToZeroOrOne) {
  EXPECT_EQ(eq(3, 3).constantValue(), 1);
  EXPECT_EQ(eq(3, 4).constantValue(), 0);
  EXPECT_EQ(ne(3, 4).constantValue(), 1);
  EXPECT_EQ(lt(-2, 3).constantValue(), 1);
  EXPECT_EQ(lt(3, 3).constantValue(), 0);
  EXPECT_EQ(le(3, 3).constantValue(), 1);
  EXPECT_EQ(gt(kMin, kMax).constantValue(), 0);
  EXPECT_EQ(ge(kMax, kMin).constantValue(), 1);
  EXPECT_EQ(logicalAnd(2, -3).constantValue(), 1);  // Python's 2 and -3 is -3; ours is 0/1
  EXPECT_EQ(logicalAnd(2, 0).constantValue(), 0);
  EXPECT_EQ(logicalOr(0, 0).constantValue(), 0);
  EXPECT_EQ(logicalOr(0, -7).constantValue(), 1);
  EXPECT_EQ(logicalNot(0).constantValue(), 1);
  EXPECT_EQ(logicalNot(kMin).constantValue(), 0);
}

TEST(SymbolicScalar, ComparisonIdentitiesFold) {
  // Structurally equal, separately built operands.
  EXPECT_EQ(eq(a * b + 1, a * b + 1).constantValue(), 1);
  EXPECT_EQ(ne(x, x).constantValue(), 0);
  EXPECT_EQ(lt(x, x).constantValue(), 0);
  EXPECT_EQ(le(x, x).constantValue(), 1);
  EXPECT_EQ(gt(x, x).constantValue(), 0);
  EXPECT_EQ(ge(x, x).constantValue(), 1);
  EXPECT_FALSE(eq(a, b).isConstant());
  EXPECT_FALSE(lt(x, x + 1).isConstant());  // structural, not mathematical
  // A constant on the left moves right, mirroring the comparison.
  EXPECT_EQ(lt(3, x).str(), "x > 3");
  EXPECT_EQ(ge(-1, x).str(), "x <= -1");
  EXPECT_EQ(eq(0, x).str(), "x == 0");
  EXPECT_EQ(ne(0, x), ne(x, 0));
  // A comparison with a failing constant operand stays for evaluate() to report.
  EXPECT_EQ(lt(floorDiv(1, 0), 2).str(), "1//0 < 2");
}

TEST(SymbolicScalar, LogicFoldsToZeroOneValuedExpressions) {
  const SymbolicScalar p = lt(a, b);
  EXPECT_EQ(logicalAnd(0, x).constantValue(), 0);
  EXPECT_EQ(logicalAnd(x, 0).constantValue(), 0);
  EXPECT_EQ(logicalOr(3, x).constantValue(), 1);
  EXPECT_EQ(logicalOr(x, -1).constantValue(), 1);
  // The remaining operand becomes 0/1: x itself could be 5.
  EXPECT_EQ(logicalAnd(1, x).str(), "x != 0");
  EXPECT_EQ(logicalAnd(x, 7).str(), "x != 0");
  EXPECT_EQ(logicalOr(0, x).str(), "x != 0");
  EXPECT_EQ(logicalOr(x, 0).str(), "x != 0");
  EXPECT_EQ(logicalAnd(x, x).str(), "x != 0");
  EXPECT_EQ(logicalAnd(1, x).evaluate({{"x", 5}}).value, 1);
  // ... unless it is 0/1 valued already.
  EXPECT_EQ(logicalAnd(5, p), p);
  EXPECT_EQ(logicalOr(p, 0), p);
  EXPECT_EQ(logicalOr(p, lt(a, b)), p);
  EXPECT_EQ(logicalAnd(1, logicalNot(x)).str(), "not x");
  // not folds into comparisons and double negation.
  EXPECT_EQ(logicalNot(x).str(), "not x");
  EXPECT_EQ(logicalNot(p).str(), "a >= b");
  EXPECT_EQ(logicalNot(eq(a, b)).str(), "a != b");
  EXPECT_EQ(logicalNot(ne(a, b)).str(), "a == b");
  EXPECT_EQ(logicalNot(le(a, b)).str(), "a > b");
  EXPECT_EQ(logicalNot(gt(a, b)).str(), "a <= b");
  EXPECT_EQ(logicalNot(ge(a, b)).str(), "a < b");
  EXPECT_EQ(logicalNot(logicalNot(p)), p);
  EXPECT_EQ(logicalNot(logicalNot(x)).str(), "x != 0");
  EXPECT_EQ(logicalNot(logicalNot(logicalAnd(a, b))).str(), "a and b");
  EXPECT_EQ(logicalNot(logicalAnd(a, b)).str(), "not (a and b)");
}

TEST(SymbolicScalar, PrintsComparisonsAndLogicWithPythonPrecedence) {
  const SymbolicScalar idx = SymbolicScalar::symbol("idx");
  const SymbolicScalar n = SymbolicScalar::symbol("n");
  EXPECT_EQ(lt(idx, n - 1).str(), "idx < n - 1");
  EXPECT_EQ(eq(idx, n - 1).str(), "idx == n - 1");
  EXPECT_EQ(lt(floorDiv(a, b), mod(c, 4) * 2).str(), "a//b < c%4*2");
  EXPECT_EQ(lt(a, -3).str(), "a < -3");
  EXPECT_EQ(le(a + -3, b).str(), "a - 3 <= b");
  // Comparisons never chain: Python reads a < b == 1 as a < b and b == 1.
  EXPECT_EQ(eq(lt(a, b), 1).str(), "(a < b) == 1");
  EXPECT_EQ(ne(c, ge(a, b)).str(), "c != (a >= b)");
  EXPECT_EQ(lt(eq(a, b), ne(b, c)).str(), "(a == b) < (b != c)");
  // Comparisons inside arithmetic and calls.
  EXPECT_EQ((lt(a, b) + 1).str(), "(a < b) + 1");
  EXPECT_EQ((a - gt(b, c)).str(), "a - (b > c)");
  EXPECT_EQ((lt(a, b) * c).str(), "(a < b)*c");
  EXPECT_EQ(min(lt(a, b), c).str(), "min(a < b, c)");
  // and/or: or binds loosest, both are left-associative.
  EXPECT_EQ(logicalAnd(lt(idx, n), gt(c, 0)).str(), "idx < n and c > 0");
  EXPECT_EQ(logicalOr(logicalAnd(a, b), c).str(), "a and b or c");
  EXPECT_EQ(logicalOr(a, logicalAnd(b, c)).str(), "a or b and c");
  EXPECT_EQ(logicalAnd(logicalOr(a, b), c).str(), "(a or b) and c");
  EXPECT_EQ(logicalAnd(a, logicalOr(b, c)).str(), "a and (b or c)");
  EXPECT_EQ(logicalAnd(logicalAnd(a, b), c).str(), "a and b and c");
  EXPECT_EQ(logicalAnd(a, logicalAnd(b, c)).str(), "a and (b and c)");
  EXPECT_EQ(logicalOr(a, logicalOr(b, c)).str(), "a or (b or c)");
  EXPECT_EQ(eq(logicalAnd(a, b), c).str(), "(a and b) == c");
  EXPECT_EQ((logicalOr(a, b) * 2).str(), "(a or b)*2");
  EXPECT_EQ(max(logicalOr(a, b), c).str(), "max(a or b, c)");
  // not: between and and comparisons; Python reads not a < b as not (a < b).
  EXPECT_EQ(logicalNot(a + b).str(), "not a + b");
  EXPECT_EQ(logicalNot(min(a, b)).str(), "not min(a, b)");
  EXPECT_EQ(logicalNot(logicalOr(a, b)).str(), "not (a or b)");
  EXPECT_EQ(logicalAnd(logicalNot(a), b).str(), "not a and b");
  EXPECT_EQ(logicalOr(a, logicalNot(b)).str(), "a or not b");
  EXPECT_EQ((logicalNot(a) + 1).str(), "(not a) + 1");
  EXPECT_EQ((c * logicalNot(a)).str(), "c*(not a)");
  EXPECT_EQ(lt(logicalNot(a), b).str(), "(not a) < b");
  EXPECT_EQ(eq(a, logicalNot(b)).str(), "a == (not b)");
}

TEST(SymbolicScalar, ComparisonsAndLogicEvaluate) {
  const SymbolicScalar idx = SymbolicScalar::symbol("idx");
  const SymbolicScalar n = SymbolicScalar::symbol("n");
  const SymbolicScalar isLoopEnd = eq(idx, n - 1);
  EXPECT_EQ(isLoopEnd.evaluate({{"idx", 2}, {"n", 4}}).value, 0);
  EXPECT_EQ(isLoopEnd.evaluate({{"idx", 3}, {"n", 4}}).value, 1);
  EXPECT_EQ(lt(a, b).evaluate({{"a", kMin}, {"b", kMax}}).value, 1);
  EXPECT_EQ(ge(a, b).evaluate({{"a", kMin}, {"b", kMax}}).value, 0);
  EXPECT_EQ(logicalNot(a).evaluate({{"a", 7}}).value, 0);
  EXPECT_EQ(logicalNot(a).evaluate({{"a", 0}}).value, 1);
  // 0/1, not Python's operand: Python's 0 or -5 is -5.
  EXPECT_EQ(logicalOr(a, b).evaluate({{"a", 0}, {"b", -5}}).value, 1);
  EXPECT_EQ(logicalAnd(a, b).evaluate({{"a", 3}, {"b", 5}}).value, 1);
  EXPECT_EQ(logicalAnd(a, b).evaluate({{"a", 3}, {"b", 0}}).value, 0);

  // Short-circuit as in Python: a decided left operand skips the right one.
  const SymbolicScalar guarded = logicalAnd(b, gt(floorDiv(a, b), 1));
  EXPECT_EQ(guarded.str(), "b and a//b > 1");
  EXPECT_EQ(guarded.evaluate({{"a", 7}, {"b", 0}}).value, 0);
  EXPECT_EQ(guarded.evaluate({{"a", 7}, {"b", 2}}).value, 1);
  EXPECT_EQ(logicalOr(eq(b, 0), floorDiv(a, b)).evaluate({{"a", 7}, {"b", 0}}).value, 1);
  EXPECT_EQ(logicalAnd(b, c).evaluate({{"b", 0}}).value, 0);  // c unbound but not needed
  EXPECT_EQ(logicalOr(b, c).evaluate({{"b", 0}}).error, "unbound symbol 'c'");
  // An undecided left operand evaluates the right one; a failing left one fails.
  EXPECT_EQ(guarded.evaluate({{"a", 7}, {"b", -1}}).value, 0);
  EXPECT_EQ(logicalAnd(floorDiv(a, b), b).evaluate({{"a", 7}, {"b", 0}}).error, "division by zero in 'a//b'");
  EXPECT_EQ(logicalNot(a * b).evaluate({{"a", kMax}, {"b", 2}}).error, "int64 overflow in 'a*b'");
  EXPECT_EQ(lt(a + 1, b).evaluate({{"a", kMax}, {"b", 2}}).error, "int64 overflow in 'a + 1'");

  // Folding drops the operand, and with it its failure (see the header).
  EXPECT_EQ(logicalOr(floorDiv(a, b), 1).constantValue(), 1);
  EXPECT_EQ(logicalAnd(floorDiv(a, b), 0).constantValue(), 0);
}

TEST(SymbolicScalar, ComparisonsAndLogicSubstituteAndCompare) {
  const SymbolicScalar e = logicalAnd(lt(a, b), gt(c, 0));
  EXPECT_EQ(e.substitute({{"a", 1}, {"b", 2}}).str(), "c > 0");
  EXPECT_EQ(e.substitute({{"c", 0}}).constantValue(), 0);
  EXPECT_EQ(e.substitute({{"a", 3}}).str(), "b > 3 and c > 0");
  EXPECT_EQ(logicalNot(lt(a, b)).substitute({{"a", 5}}).str(), "b <= 5");
  EXPECT_EQ(logicalNot(x).substitute({{"x", 2}}).constantValue(), 0);
  EXPECT_EQ(logicalNot(a * b).substitute({{"a", 1}}).str(), "not b");
  EXPECT_EQ(logicalNot(a * b).substitute({{"c", 1}}), logicalNot(a * b));

  EXPECT_EQ(logicalOr(logicalNot(c), lt(a, b)).symbols(), (std::vector<std::string>{"a", "b", "c"}));
  const SymbolicScalar notX = logicalNot(x);
  EXPECT_EQ(notX.kind(), SymbolicKind::Not);
  EXPECT_EQ(notX.lhs(), x);
  EXPECT_EQ(logicalNot(SymbolicScalar::symbol("x")), notX);
  EXPECT_EQ(logicalNot(SymbolicScalar::symbol("x")).hash(), notX.hash());
  EXPECT_NE(notX, logicalNot(a));
  EXPECT_NE(notX, x);
  EXPECT_NE(lt(a, b), le(a, b));
  EXPECT_NE(lt(a, b), gt(b, a));  // structural
  EXPECT_NE(logicalAnd(a, b), logicalOr(a, b));
}

// --- Random trees against an oracle ---------------------------------------
//
// The oracle evaluates the same tree by plain recursion in 128-bit integers,
// with floor division written differently (via negation and ceiling) from the
// implementation; comparisons and logic yield 0/1, and `and`/`or` skip their
// right operand once the left decides, as the header specifies. Tolerance:
// exact. Where the oracle sees no division by zero and no intermediate outside
// int64, the implementation must return the same value; where it does, the
// implementation may fail (it may also succeed, because folding x*0, x - x,
// x == x, x and 0 or x or 1 removes the failing part).

__extension__ typedef __int128 Wide;

struct OracleResult {
  bool ok = true;
  Wide value = 0;
};

struct RandomExpression {
  SymbolicScalar expr;
  std::function<OracleResult(const Bindings&)> oracle;
};

Wide oracleFloorDiv(Wide n, Wide d) {
  if (d < 0) return oracleFloorDiv(-n, -d);
  if (n >= 0) return n / d;
  return -((-n + d - 1) / d);  // floor(n/d) = -ceil(-n/d)
}

bool fitsInt64(Wide v) { return v >= kMin && v <= kMax; }

enum class Op { Add, Sub, Mul, FloorDiv, Mod, Min, Max, Eq, Ne, Lt, Le, Gt, Ge, And, Or, Not };

class RandomExpressions {
public:
  explicit RandomExpressions(unsigned seed) : m_rng(seed) {}

  RandomExpression make(int depth) {
    if (depth == 0 || chance(0.25)) return leaf();
    // Arithmetic most of the time, so that failures stay common.
    const Op op = static_cast<Op>(chance(0.6) ? pick(0, 6) : pick(7, 15));
    RandomExpression lhs = make(depth - 1);
    if (op == Op::Not) {
      auto oracle = [l = lhs.oracle](const Bindings& bindings) -> OracleResult {
        const OracleResult p = l(bindings);
        if (!p.ok) return {false, 0};
        return {true, p.value == 0 ? 1 : 0};
      };
      return {logicalNot(lhs.expr), oracle};
    }
    RandomExpression rhs = make(depth - 1);
    SymbolicScalar expr = build(op, lhs.expr, rhs.expr);
    auto oracle = [op, l = lhs.oracle, r = rhs.oracle](const Bindings& bindings) -> OracleResult {
      const OracleResult p = l(bindings);
      if (!p.ok) return {false, 0};
      if (op == Op::And && p.value == 0) return {true, 0};
      if (op == Op::Or && p.value != 0) return {true, 1};
      const OracleResult q = r(bindings);
      if (!q.ok) return {false, 0};
      Wide v = 0;
      switch (op) {
      case Op::Add: v = p.value + q.value; break;
      case Op::Sub: v = p.value - q.value; break;
      case Op::Mul: v = p.value * q.value; break;
      case Op::FloorDiv:
        if (q.value == 0) return {false, 0};
        v = oracleFloorDiv(p.value, q.value);
        break;
      case Op::Mod:
        if (q.value == 0) return {false, 0};
        v = p.value - q.value * oracleFloorDiv(p.value, q.value);
        break;
      case Op::Min: v = p.value < q.value ? p.value : q.value; break;
      case Op::Max: v = p.value > q.value ? p.value : q.value; break;
      case Op::Eq: v = p.value == q.value ? 1 : 0; break;
      case Op::Ne: v = p.value != q.value ? 1 : 0; break;
      case Op::Lt: v = p.value < q.value ? 1 : 0; break;
      case Op::Le: v = p.value <= q.value ? 1 : 0; break;
      case Op::Gt: v = p.value > q.value ? 1 : 0; break;
      case Op::Ge: v = p.value >= q.value ? 1 : 0; break;
      case Op::And:  // the left operand was nonzero
      case Op::Or:   // the left operand was zero
        v = q.value != 0 ? 1 : 0;
        break;
      case Op::Not: break;  // unary, handled above
      }
      if (!fitsInt64(v)) return {false, 0};
      return {true, v};
    };
    return {expr, oracle};
  }

  Bindings bindings() {
    Bindings result;
    for (const char* symbolName : {"a", "b", "c"}) result[symbolName] = value();
    return result;
  }

  bool chance(double p) { return std::bernoulli_distribution(p)(m_rng); }
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(m_rng); }

private:
  // Mostly small values (where // and % signs matter), sometimes huge ones
  // to provoke overflow.
  std::int64_t value() {
    if (chance(0.05)) {
      const std::int64_t huge[] = {kMax, kMin, kMax - 1, kMin + 1, kMax / 2, kMin / 2, std::int64_t{1} << 32};
      return huge[pick(0, 6)];
    }
    return pick(-12, 12);
  }

  RandomExpression leaf() {
    if (chance(0.5)) {
      static const char* const names[] = {"a", "b", "c"};
      std::string symbolName = names[pick(0, 2)];
      return {SymbolicScalar::symbol(symbolName), [symbolName](const Bindings& bindings) {
                return OracleResult{true, bindings.at(symbolName)};
              }};
    }
    const std::int64_t constant = value();
    return {SymbolicScalar(constant), [constant](const Bindings&) { return OracleResult{true, constant}; }};
  }

  // Exercises both the SymbolicScalar and the int64 overloads.
  SymbolicScalar build(Op op, const SymbolicScalar& l, const SymbolicScalar& r) {
    if (r.isConstant() && chance(0.5)) return combine(op, l, *r.constantValue());
    return combine(op, l, r);
  }

  template <typename Rhs>
  static SymbolicScalar combine(Op op, const SymbolicScalar& l, const Rhs& r) {
    switch (op) {
    case Op::Add: return l + r;
    case Op::Sub: return l - r;
    case Op::Mul: return l * r;
    case Op::FloorDiv: return floorDiv(l, r);
    case Op::Mod: return mod(l, r);
    case Op::Min: return min(l, r);
    case Op::Max: return max(l, r);
    case Op::Eq: return eq(l, r);
    case Op::Ne: return ne(l, r);
    case Op::Lt: return lt(l, r);
    case Op::Le: return le(l, r);
    case Op::Gt: return gt(l, r);
    case Op::Ge: return ge(l, r);
    case Op::And: return logicalAnd(l, r);
    case Op::Or: return logicalOr(l, r);
    case Op::Not: break;  // unary; make() builds it
    }
    return l;
  }

  std::mt19937 m_rng;
};

TEST(SymbolicScalar, RandomTreesMatchOracle) {
  RandomExpressions random(12345);
  int agreed = 0;
  int bothFailed = 0;
  int foldedAwayFailure = 0;
  for (int tree = 0; tree < 3000; ++tree) {
    const RandomExpression e = random.make(random.pick(1, 5));
    for (int trial = 0; trial < 20; ++trial) {
      const Bindings bindings = random.bindings();
      const OracleResult expected = e.oracle(bindings);
      const SymbolicEvaluation actual = e.expr.evaluate(bindings);
      if (expected.ok) {
        ASSERT_TRUE(actual.ok()) << e.expr.str() << " with a=" << bindings.at("a") << " b=" << bindings.at("b")
                                 << " c=" << bindings.at("c") << ": " << actual.error;
        ASSERT_EQ(*actual.value, static_cast<std::int64_t>(expected.value))
            << e.expr.str() << " with a=" << bindings.at("a") << " b=" << bindings.at("b")
            << " c=" << bindings.at("c");
        // Partial substitution then evaluation gives the same value.
        const SymbolicEvaluation partial = e.expr.substitute({{"a", bindings.at("a")}}).evaluate(bindings);
        ASSERT_EQ(partial.value, actual.value) << e.expr.str() << ": " << partial.error;
        ++agreed;
      } else if (!actual.ok()) {
        EXPECT_FALSE(actual.error.empty());
        ++bothFailed;
      } else {
        ++foldedAwayFailure;
      }
    }
  }
  // The generator must reach both outcomes often enough to mean something.
  EXPECT_GT(agreed, 30000);
  EXPECT_GT(bothFailed, 3000);
  std::printf("random trees: %d agreed, %d failed in both, %d failures folded away\n", agreed, bothFailed,
              foldedAwayFailure);
}

// Python evaluates the printed text: checks printing (precedence, parentheses,
// negative constants) and the // % comparison and logic semantics in one go.
// Exact. Compared: our value against Python's value of our text, with one
// mapping. Python's comparisons and `not` give a bool, which equals our 0/1
// in every later operation, so they need none; Python's `and`/`or` give an
// operand (3 and 5 is 5), so the script wraps every and/or it parses in
// int(bool(...)), which is our 0/1 since an operand's truth is the result's
// truth. The wrapping leaves the parse, and Python's short-circuit, alone. It
// also rejects chained comparisons, which our text must never contain.
TEST(SymbolicScalar, PrintedTextEvaluatesTheSameInPython) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(PTO_TEST_DATA_DIR) / ("symbolic_python_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path cases = dir / "cases.txt";
  const fs::path script = dir / "check.py";
  {
    std::ofstream out(script);
    out << "import ast, sys\n"
           "class ZeroOneLogic(ast.NodeTransformer):\n"
           "    def visit_BoolOp(self, node):\n"
           "        self.generic_visit(node)\n"
           "        return ast.Call(ast.Name('zero_one', ast.Load()), [node], [])\n"
           "    def visit_Compare(self, node):\n"
           "        if len(node.ops) != 1:\n"
           "            raise SyntaxError('chained comparison')\n"
           "        return self.generic_visit(node)\n"
           "env = {'min': min, 'max': max, 'zero_one': lambda v: int(bool(v))}\n"
           "bad = 0\n"
           "for line in open(sys.argv[1]):\n"
           "    a, b, c, expected, text = line.rstrip('\\n').split(' ', 4)\n"
           "    try:\n"
           "        tree = ZeroOneLogic().visit(ast.parse(text, mode='eval'))\n"
           "        code = compile(ast.fix_missing_locations(tree), '<expr>', 'eval')\n"
           "        got = eval(code, env, {'a': int(a), 'b': int(b), 'c': int(c)})\n"
           "    except Exception as error:\n"
           "        got = repr(error)\n"
           "    if got != int(expected):\n"
           "        bad += 1\n"
           "        print(f'{text} with a={a} b={b} c={c}: python {got}, C++ {expected}')\n"
           "sys.exit(1 if bad else 0)\n";
  }
  RandomExpressions random(777);
  int written = 0;
  {
    std::ofstream out(cases);
    for (int tree = 0; tree < 1500; ++tree) {
      const RandomExpression e = random.make(random.pick(1, 5));
      for (int trial = 0; trial < 4; ++trial) {
        const Bindings bindings = random.bindings();
        const SymbolicEvaluation actual = e.expr.evaluate(bindings);
        if (!actual.ok()) continue;
        out << bindings.at("a") << ' ' << bindings.at("b") << ' ' << bindings.at("c") << ' ' << *actual.value << ' '
            << e.expr.str() << '\n';
        ++written;
      }
    }
  }
  ASSERT_GT(written, 2000);
  const std::string command = "'" + std::string(PTO_PYTHON_EXECUTABLE) + "' '" + script.string() + "' '" +
                              cases.string() + "' 2>&1";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr) << "cannot run " << command;
  std::string output;
  char buffer[512];
  // Keep draining after the cap so a chatty script cannot block on a full pipe.
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
    if (output.size() < 4000) output += buffer;
  }
  const int status = ::pclose(pipe);
  EXPECT_EQ(status, 0) << "python (" PTO_PYTHON_EXECUTABLE ") disagrees or failed to run:\n" << output;
  std::error_code ignored;
  fs::remove_all(dir, ignored);
}

} // namespace
} // namespace pto

// PyPTO's printing (its python tests' expected strings): every operation in
// parentheses, no spaces, C logical spellings, RUNTIME_Min/Max calls.
TEST(SymbolicScalar, PrintsAsPyptoDoes) {
  using pto::SymbolicScalar;
  SymbolicScalar b = SymbolicScalar::symbol("b");
  SymbolicScalar x = SymbolicScalar::symbol("x");
  SymbolicScalar y = SymbolicScalar::symbol("y");
  EXPECT_EQ(pto::pyptoStr(pto::ge(b, 2) * pto::lt(b, 8)), "((b>=2)*(b<8))");
  EXPECT_EQ(pto::pyptoStr(x + 8), "(x+8)");
  EXPECT_EQ(pto::pyptoStr((x - y) + 3), "((x-y)+3)");
  EXPECT_EQ(pto::pyptoStr(pto::floorDiv(x, 8)), "(x/8)");
  EXPECT_EQ(pto::pyptoStr(pto::mod(x, 3)), "(x%3)");
  EXPECT_EQ(pto::pyptoStr(pto::min(x, 5)), "RUNTIME_Min(x, 5)");
  EXPECT_EQ(pto::pyptoStr(x + pto::max(y, SymbolicScalar::symbol("z"))), "(x+RUNTIME_Max(y, z))");
  EXPECT_EQ(pto::pyptoStr(pto::logicalAnd(pto::logicalNot(x), pto::logicalNot(y))), "((!x)&&(!y))");
  EXPECT_EQ(pto::pyptoStr(SymbolicScalar(10)), "10");
}

// min/max/comparisons of operands with a known difference are decided, and
// the decided value equals the undecided one for every binding tried.
TEST(SymbolicSimplify, DecidesOperandsWithAKnownDifference) {
  using pto::SymbolicScalar;
  SymbolicScalar a = SymbolicScalar::symbol("a");
  EXPECT_EQ(pto::simplify(pto::min(a, a + 1)).str(), "a");
  EXPECT_EQ(pto::simplify(pto::max(a, a - 3)).str(), "a");
  EXPECT_EQ(pto::simplify(pto::max(a - 3, a)).str(), "a");
  EXPECT_EQ(pto::simplify(pto::gt(a + 1, a)).constantValue(), 1);
  EXPECT_EQ(pto::simplify(pto::eq(pto::min(a, a + 1), a)).constantValue(), 1);
  EXPECT_EQ(pto::simplify(pto::min(a, SymbolicScalar::symbol("c"))).str(), "min(a, c)");
  using Make = SymbolicScalar (*)(const SymbolicScalar&, const SymbolicScalar&);
  const Make operations[] = {&pto::min, &pto::max, &pto::eq, &pto::ne, &pto::lt, &pto::le, &pto::gt, &pto::ge};
  for (Make make : operations)
    for (std::int64_t c1 = -3; c1 <= 3; ++c1)
      for (std::int64_t c2 = -3; c2 <= 3; ++c2) {
        SymbolicScalar expression = make(a * 2 + c1, a * 2 + c2);
        SymbolicScalar decided = pto::simplify(expression);
        for (std::int64_t value : {-7, 0, 5}) {
          auto expected = expression.evaluate({{"a", value}});
          auto actual = decided.evaluate({{"a", value}});
          ASSERT_TRUE(expected.ok() && actual.ok());
          EXPECT_EQ(*actual.value, *expected.value) << expression.str() << " -> " << decided.str() << " at a=" << value;
        }
      }
}
