// Symbolic int64 scalar expressions: dynamic tensor dims and loop indices.
//
// Meaning: a SymbolicScalar denotes an integer computed from int64 constants
// and named symbols (bound to int64 values at evaluation time) with
// + - * // % min max. // and % follow Python: // rounds toward negative
// infinity and the result of % has the divisor's sign, so a == (a//b)*b + a%b.
//
// Representation: an immutable tree of shared nodes; a SymbolicScalar is a
// cheap value (one shared_ptr). Construction folds constants and algebraic
// identities (x+0, x*1, x*0, x//1, x%1, min(x,x), (x+2)+3 -> x+5, ...) and puts
// the constant operand of + and * on the right. Folding follows integer
// algebra, so a folded-away subexpression can no longer fail: x*0 is 0 even
// where x would divide by zero. Constant operations that would fail (division
// by zero, overflow) are left unfolded, so evaluate() reports them.
#pragma once

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

// X(enumerator, name, spelling, precedence) for the binary operations.
// precedence is Python's binding strength of the infix operator (higher binds
// tighter); 0 means the operation prints as a call, spelling(a, b).
#define PTO_FOR_EACH_SYMBOLIC_OP(X)     \
  X(Add, "add", "+", 1)                 \
  X(Sub, "sub", "-", 1)                 \
  X(Mul, "mul", "*", 2)                 \
  X(FloorDiv, "floordiv", "//", 2)      \
  X(Mod, "mod", "%", 2)                 \
  X(Min, "min", "min", 0)               \
  X(Max, "max", "max", 0)

// Leaves first, then the binary operations in X-macro order.
enum class SymbolicKind : unsigned char {
  Constant,
  Symbol,
#define PTO_SYMBOLIC_KIND_ENUMERATOR(id, name, spelling, precedence) id,
  PTO_FOR_EACH_SYMBOLIC_OP(PTO_SYMBOLIC_KIND_ENUMERATOR)
#undef PTO_SYMBOLIC_KIND_ENUMERATOR
};

inline constexpr std::size_t kSymbolicKindCount = 2
#define PTO_SYMBOLIC_KIND_COUNT(...) +1
    PTO_FOR_EACH_SYMBOLIC_OP(PTO_SYMBOLIC_KIND_COUNT)
#undef PTO_SYMBOLIC_KIND_COUNT
    ;

// "constant", "symbol", "add", ..., "max".
std::string_view name(SymbolicKind kind);
bool isBinary(SymbolicKind kind);

// Result of evaluate(): a value, or a message saying why there is none.
struct SymbolicEvaluation {
  std::optional<std::int64_t> value;
  std::string error;  // empty when value is set
  bool ok() const { return value.has_value(); }
};

class SymbolicScalar {
public:
  SymbolicScalar() : SymbolicScalar(0) {}
  SymbolicScalar(std::int64_t value);  // NOLINT(google-explicit-constructor): constants mix freely
  static SymbolicScalar symbol(std::string name);

  SymbolicKind kind() const;
  bool isConstant() const { return kind() == SymbolicKind::Constant; }
  std::optional<std::int64_t> constantValue() const;
  // Only for kind() == Symbol; empty otherwise.
  const std::string& symbolName() const;
  // Operands of a binary node; only for isBinary(kind()).
  SymbolicScalar lhs() const;
  SymbolicScalar rhs() const;

  // Error messages name the failing subexpression: "unbound symbol 'N'",
  // "division by zero in 'x//(N - 4)'", "int64 overflow in 'a*b'".
  SymbolicEvaluation evaluate(const std::map<std::string, std::int64_t>& bindings) const;
  // Replaces the bound symbols by constants and refolds; unbound ones stay.
  SymbolicScalar substitute(const std::map<std::string, std::int64_t>& bindings) const;
  // Names of the symbols in the expression, sorted, each once.
  std::vector<std::string> symbols() const;

  // Python syntax with the fewest parentheses that keep the tree:
  // "B*32 + 1", "(N + 15)//16", "a - (b - c)", "min(a, b)".
  std::string str() const;

  // Structural equality (same tree), not mathematical equivalence.
  friend bool operator==(const SymbolicScalar& a, const SymbolicScalar& b);
  std::size_t hash() const;

  struct Node;

private:
  explicit SymbolicScalar(std::shared_ptr<const Node> node) : m_node(std::move(node)) {}
  friend SymbolicScalar makeBinary(SymbolicKind kind, const SymbolicScalar& lhs, const SymbolicScalar& rhs);

  std::shared_ptr<const Node> m_node;
};

// The operations. Ints on either side convert implicitly to constants.
SymbolicScalar operator+(const SymbolicScalar& a, const SymbolicScalar& b);
SymbolicScalar operator-(const SymbolicScalar& a, const SymbolicScalar& b);
SymbolicScalar operator*(const SymbolicScalar& a, const SymbolicScalar& b);
SymbolicScalar floorDiv(const SymbolicScalar& a, const SymbolicScalar& b);
SymbolicScalar mod(const SymbolicScalar& a, const SymbolicScalar& b);
SymbolicScalar min(const SymbolicScalar& a, const SymbolicScalar& b);
SymbolicScalar max(const SymbolicScalar& a, const SymbolicScalar& b);
// Builds (and folds) any binary kind; the functions above call this.
SymbolicScalar makeBinary(SymbolicKind kind, const SymbolicScalar& lhs, const SymbolicScalar& rhs);

// Writes str(); also lets test frameworks print expressions.
std::ostream& operator<<(std::ostream& out, const SymbolicScalar& value);

// For unordered containers keyed by expressions.
struct SymbolicScalarHash {
  std::size_t operator()(const SymbolicScalar& value) const { return value.hash(); }
};

} // namespace pto

template <>
struct std::hash<pto::SymbolicScalar> {
  std::size_t operator()(const pto::SymbolicScalar& value) const { return value.hash(); }
};
