// Symbolic int64 scalar expressions: dynamic tensor dims, loop indices,
// elements read from index tensors (act_seq[b], block_table[b, i]) and the
// predicates of pypto.cond (idx < n - 1, is_loop_end(idx)).
//
// Meaning: a SymbolicScalar denotes an integer computed from int64 constants
// and named symbols (bound to int64 values at evaluation time) with
// + - * // % min max, the comparisons == != < <= > >= and the logical
// operations and, or, not. // and % follow Python: // rounds toward negative
// infinity and the result of % has the divisor's sign, so a == (a//b)*b + a%b.
// Comparisons and logical operations yield 1 (true) or 0 (false); logical
// operands are true when nonzero. `and` and `or` short-circuit like Python's:
// the right operand is not evaluated (so cannot fail) once the left one
// decides. Unlike Python's, they yield 0/1 rather than an operand: 3 and 5 is
// 1, not 5.
//
// Element reads: element(tensor, index) is the value at flat (row-major)
// position `index` of the kernel argument named `tensor`, as the device's
// runtime reads it when a task runs (PyPTO's GetTensorData on a tensor that
// is ready on the host). It is bound like a symbol, one binding per element
// under the key elementKey(tensor, position), so every place that evaluates
// with bindings evaluates reads too; the index may itself be any expression
// (a loop index, another read). A read is a leaf to folding and simplifying.
//
// Representation: an immutable tree of shared nodes; a SymbolicScalar is a
// cheap value (one shared_ptr). A constant is held inline, without a node:
// tile regions hold millions of constant offsets, and a node each was most
// of a large kernel's compile time (allocating, counting references,
// freeing). Construction folds constants and algebraic
// identities (x+0, x*1, x*0, x//1, x%1, min(x,x), (x+2)+3 -> x+5, x == x -> 1,
// 0 and x -> 0, 1 and x -> x != 0, not (a < b) -> a >= b, ...) and puts the
// constant operand of + * min max and of comparisons on the right (3 < x ->
// x > 3). A logical operation folds to an expression that is still 0/1
// valued. Folding follows integer algebra, so a folded-away subexpression can
// no longer fail: x*0, x - x and `x and 0` are 0, x == x and `x or 1` are 1
// even where x would divide by zero. Folding never makes an expression fail
// that would not, and where the unfolded one has a value the folded one has
// the same value. Constant operations that would fail (division by zero,
// overflow) are left unfolded, so evaluate() reports them.
#pragma once

#include "core/Bindings.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

// X(enumerator, name, spelling, arity, precedence) for the operations.
// precedence is Python's binding strength of the operator, higher binds
// tighter: 1 or, 2 and, 3 not, 4 comparisons, 5 + -, 6 * // %. 0 means a
// binary operation prints as a call, spelling(a, b). The unary operation
// prints as a prefix, "not x".
#define PTO_FOR_EACH_SYMBOLIC_OP(X)     \
  X(Add, "add", "+", 2, 5)              \
  X(Sub, "sub", "-", 2, 5)              \
  X(Mul, "mul", "*", 2, 6)              \
  X(FloorDiv, "floordiv", "//", 2, 6)   \
  X(Mod, "mod", "%", 2, 6)              \
  X(Min, "min", "min", 2, 0)            \
  X(Max, "max", "max", 2, 0)            \
  X(Eq, "eq", "==", 2, 4)               \
  X(Ne, "ne", "!=", 2, 4)               \
  X(Lt, "lt", "<", 2, 4)                \
  X(Le, "le", "<=", 2, 4)               \
  X(Gt, "gt", ">", 2, 4)                \
  X(Ge, "ge", ">=", 2, 4)               \
  X(And, "and", "and", 2, 2)            \
  X(Or, "or", "or", 2, 1)               \
  X(Not, "not", "not", 1, 3)

// Leaves first, then the operations in X-macro order.
enum class SymbolicKind : unsigned char {
  Constant,
  Symbol,
  Element,
#define PTO_SYMBOLIC_KIND_ENUMERATOR(id, name, spelling, arity, precedence) id,
  PTO_FOR_EACH_SYMBOLIC_OP(PTO_SYMBOLIC_KIND_ENUMERATOR)
#undef PTO_SYMBOLIC_KIND_ENUMERATOR
};

inline constexpr std::size_t kSymbolicKindCount = 3
#define PTO_SYMBOLIC_KIND_COUNT(...) +1
    PTO_FOR_EACH_SYMBOLIC_OP(PTO_SYMBOLIC_KIND_COUNT)
#undef PTO_SYMBOLIC_KIND_COUNT
    ;

// "constant", "symbol", "add", ..., "not".
std::string_view name(SymbolicKind kind);
bool isUnary(SymbolicKind kind);
bool isBinary(SymbolicKind kind);

// Result of evaluate(): a value, or a message saying why there is none.
struct SymbolicEvaluation {
  std::optional<std::int64_t> value;
  std::string error;  // empty when value is set
  bool ok() const { return value.has_value(); }
};

class SymbolicScalar {
public:
  SymbolicScalar() = default;
  SymbolicScalar(std::int64_t value) : m_constant(value) {}  // NOLINT(google-explicit-constructor): constants mix freely
  static SymbolicScalar symbol(std::string name);
  // The element at flat position `index` of the argument named `tensor`.
  static SymbolicScalar element(std::string tensor, SymbolicScalar index);
  // The binding key of one element: "tensor[position]".
  static std::string elementKey(std::string_view tensor, std::int64_t position);

  SymbolicKind kind() const;
  bool isConstant() const { return !m_node; }
  std::optional<std::int64_t> constantValue() const {
    if (m_node) return std::nullopt;
    return m_constant;
  }
  // The symbol's name (kind() == Symbol) or the read tensor's (Element);
  // empty otherwise.
  const std::string& symbolName() const;
  // Operands: lhs() of a unary or binary node (for not x, x) and the flat
  // index of an Element, rhs() of a binary node only.
  SymbolicScalar lhs() const;
  SymbolicScalar rhs() const;

  // Error messages name the failing subexpression: "unbound symbol 'N'",
  // "division by zero in 'x//(N - 4)'", "int64 overflow in 'a*b'".
  SymbolicEvaluation evaluate(const Bindings& bindings) const;
  // Replaces the bound symbols by constants and refolds; unbound ones stay.
  SymbolicScalar substitute(const Bindings& bindings) const;
  // Names of the symbols in the expression, sorted, each once.
  std::vector<std::string> symbols() const;

  // Python syntax with the fewest parentheses that keep the tree:
  // "B*32 + 1", "(N + 15)//16", "a - (b - c)", "min(a, b)",
  // "i < n - 1 and not b". Comparisons never chain: "(a < b) == c", as
  // Python reads a < b == c as a < b and b == c.
  std::string str() const;

  // Structural equality (same tree), not mathematical equivalence.
  friend bool operator==(const SymbolicScalar& a, const SymbolicScalar& b);
  std::size_t hash() const;

  struct Node;

private:
  // A constant node becomes an inline constant (m_node is never a constant).
  explicit SymbolicScalar(std::shared_ptr<const Node> node);
  // The node of this value; a constant gets a new one (operands of nodes).
  std::shared_ptr<const Node> node() const;
  friend SymbolicScalar makeUnary(SymbolicKind kind, const SymbolicScalar& operand);
  friend SymbolicScalar makeBinary(SymbolicKind kind, const SymbolicScalar& lhs, const SymbolicScalar& rhs);

  std::shared_ptr<const Node> m_node;  // null for a constant
  std::int64_t m_constant = 0;         // the value when m_node is null
};

// The operations. Ints on either side convert implicitly to constants.
SymbolicScalar operator+(const SymbolicScalar& a, const SymbolicScalar& b);
SymbolicScalar operator-(const SymbolicScalar& a, const SymbolicScalar& b);
SymbolicScalar operator*(const SymbolicScalar& a, const SymbolicScalar& b);
SymbolicScalar floorDiv(const SymbolicScalar& a, const SymbolicScalar& b);
SymbolicScalar mod(const SymbolicScalar& a, const SymbolicScalar& b);
SymbolicScalar min(const SymbolicScalar& a, const SymbolicScalar& b);
SymbolicScalar max(const SymbolicScalar& a, const SymbolicScalar& b);
// Comparisons and logic yield 0/1. Named functions, not operators: == is
// structural equality, and C++'s && || ! would not build expressions.
SymbolicScalar eq(const SymbolicScalar& a, const SymbolicScalar& b);
SymbolicScalar ne(const SymbolicScalar& a, const SymbolicScalar& b);
SymbolicScalar lt(const SymbolicScalar& a, const SymbolicScalar& b);
SymbolicScalar le(const SymbolicScalar& a, const SymbolicScalar& b);
SymbolicScalar gt(const SymbolicScalar& a, const SymbolicScalar& b);
SymbolicScalar ge(const SymbolicScalar& a, const SymbolicScalar& b);
SymbolicScalar logicalAnd(const SymbolicScalar& a, const SymbolicScalar& b);
SymbolicScalar logicalOr(const SymbolicScalar& a, const SymbolicScalar& b);
SymbolicScalar logicalNot(const SymbolicScalar& a);
// Build (and fold) any unary or binary kind; the functions above call these.
SymbolicScalar makeUnary(SymbolicKind kind, const SymbolicScalar& operand);
SymbolicScalar makeBinary(SymbolicKind kind, const SymbolicScalar& lhs, const SymbolicScalar& rhs);

// Writes str(); also lets test frameworks print expressions.
std::ostream& operator<<(std::ostream& out, const SymbolicScalar& value);

// The expression as PyPTO prints it (its Python str()): every operation in
// parentheses without spaces, "((b>=2)*(b<8))", "(x+8)", C spellings for
// the logical operations ("(a&&b)", "(!x)"), "/" for floor division and
// "RUNTIME_Min(a, b)" / "RUNTIME_Max(a, b)". The `pypto` package prints
// symbolic values this way; diagnostics keep str()'s Python syntax.
std::string pyptoStr(const SymbolicScalar& value);

// For unordered containers keyed by expressions.
struct SymbolicScalarHash {
  std::size_t operator()(const SymbolicScalar& value) const { return value.hash(); }
};

} // namespace pto

template <>
struct std::hash<pto::SymbolicScalar> {
  std::size_t operator()(const pto::SymbolicScalar& value) const { return value.hash(); }
};
