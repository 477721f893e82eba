// SymbolicScalar: node storage, folding at construction, evaluation, printing.
#include "core/SymbolicScalar.h"

#include "core/FloorDivision.h"

#include <algorithm>
#include <array>
#include <limits>
#include <ostream>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace pto {

struct SymbolicScalar::Node {
  SymbolicKind kind = SymbolicKind::Constant;
  std::int64_t value = 0;  // Constant
  std::string name;        // Symbol; the tensor of an Element (its index is lhs)
  // Operands; a unary node has only lhs. Nodes, not SymbolicScalar: inside a
  // tree a constant operand is a constant node, so walks see one form.
  std::shared_ptr<const Node> lhs;
  std::shared_ptr<const Node> rhs;
  std::size_t hash = 0;  // structural, computed once at construction
};

namespace {

using Node = SymbolicScalar::Node;
using NodePtr = std::shared_ptr<const Node>;

constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

struct KindInfo {
  std::string_view name;
  std::string_view spelling;
  int arity;
  int precedence;
};

constexpr KindInfo kKindInfo[] = {
    {"constant", "", 0, 0},
    {"symbol", "", 0, 0},
    {"element", "", 0, 0},
#define PTO_SYMBOLIC_KIND_INFO(id, name, spelling, arity, precedence) {name, spelling, arity, precedence},
    PTO_FOR_EACH_SYMBOLIC_OP(PTO_SYMBOLIC_KIND_INFO)
#undef PTO_SYMBOLIC_KIND_INFO
};
static_assert(std::size(kKindInfo) == kSymbolicKindCount);

constexpr const KindInfo& info(SymbolicKind kind) { return kKindInfo[static_cast<std::size_t>(kind)]; }

// Python's comparisons share one precedence level, above `not` and below + -.
constexpr int kComparisonPrecedence = info(SymbolicKind::Eq).precedence;
constexpr int kAdditivePrecedence = info(SymbolicKind::Add).precedence;
constexpr int kMultiplicativePrecedence = info(SymbolicKind::Mul).precedence;
static_assert(info(SymbolicKind::Not).precedence < kComparisonPrecedence &&
              kComparisonPrecedence < kAdditivePrecedence);

constexpr bool isComparison(SymbolicKind kind) { return info(kind).precedence == kComparisonPrecedence; }

// a OP b == b mirrored(OP) a.
SymbolicKind mirrored(SymbolicKind kind) {
  switch (kind) {
  case SymbolicKind::Lt: return SymbolicKind::Gt;
  case SymbolicKind::Le: return SymbolicKind::Ge;
  case SymbolicKind::Gt: return SymbolicKind::Lt;
  case SymbolicKind::Ge: return SymbolicKind::Le;
  default: return kind;  // == and != are symmetric
  }
}

// not (a OP b) == a negated(OP) b; integers have no NaN to spoil this.
SymbolicKind negated(SymbolicKind kind) {
  switch (kind) {
  case SymbolicKind::Eq: return SymbolicKind::Ne;
  case SymbolicKind::Ne: return SymbolicKind::Eq;
  case SymbolicKind::Lt: return SymbolicKind::Ge;
  case SymbolicKind::Le: return SymbolicKind::Gt;
  case SymbolicKind::Gt: return SymbolicKind::Le;
  case SymbolicKind::Ge: return SymbolicKind::Lt;
  default: return kind;  // not reached: only called for comparisons
  }
}

std::size_t combineHash(std::size_t seed, std::size_t value) {
  return seed ^ (value + 0x9E3779B97F4A7C15ull + (seed << 6) + (seed >> 2));
}

bool structurallyEqual(const Node& a, const Node& b) {
  if (&a == &b) return true;
  if (a.hash != b.hash || a.kind != b.kind) return false;
  switch (a.kind) {
  case SymbolicKind::Constant: return a.value == b.value;
  case SymbolicKind::Symbol: return a.name == b.name;
  case SymbolicKind::Element: return a.name == b.name && structurallyEqual(*a.lhs, *b.lhs);
  default: return structurallyEqual(*a.lhs, *b.lhs) && (!a.rhs || structurallyEqual(*a.rhs, *b.rhs));
  }
}

enum class Failure { None, Overflow, DivisionByZero };

// One operation on values; never UB. A unary operation ignores b. For `and`
// and `or`, b is not looked at when a decides, so a caller that short-circuits
// may pass anything.
Failure apply(SymbolicKind kind, std::int64_t a, std::int64_t b, std::int64_t& result) {
  switch (kind) {
  case SymbolicKind::Add: return __builtin_add_overflow(a, b, &result) ? Failure::Overflow : Failure::None;
  case SymbolicKind::Sub: return __builtin_sub_overflow(a, b, &result) ? Failure::Overflow : Failure::None;
  case SymbolicKind::Mul: return __builtin_mul_overflow(a, b, &result) ? Failure::Overflow : Failure::None;
  case SymbolicKind::FloorDiv:
    if (b == 0) return Failure::DivisionByZero;
    if (a == kInt64Min && b == -1) return Failure::Overflow;
    result = floorDivide(a, b);
    return Failure::None;
  case SymbolicKind::Mod:
    if (b == 0) return Failure::DivisionByZero;
    result = floorModulo(a, b);
    return Failure::None;
  case SymbolicKind::Min: result = std::min(a, b); return Failure::None;
  case SymbolicKind::Max: result = std::max(a, b); return Failure::None;
  case SymbolicKind::Eq: result = a == b; return Failure::None;
  case SymbolicKind::Ne: result = a != b; return Failure::None;
  case SymbolicKind::Lt: result = a < b; return Failure::None;
  case SymbolicKind::Le: result = a <= b; return Failure::None;
  case SymbolicKind::Gt: result = a > b; return Failure::None;
  case SymbolicKind::Ge: result = a >= b; return Failure::None;
  case SymbolicKind::And: result = a != 0 && b != 0; return Failure::None;
  case SymbolicKind::Or: result = a != 0 || b != 0; return Failure::None;
  case SymbolicKind::Not: result = a == 0; return Failure::None;
  case SymbolicKind::Constant:
  case SymbolicKind::Symbol:
  case SymbolicKind::Element: break;
  }
  return Failure::Overflow;  // unreachable: leaves are not operations
}

std::optional<std::int64_t> applyChecked(SymbolicKind kind, std::int64_t a, std::int64_t b = 0) {
  std::int64_t result = 0;
  if (apply(kind, a, b, result) != Failure::None) return std::nullopt;
  return result;
}

std::size_t constantHash(std::int64_t value) {
  return combineHash(std::hash<int>{}(0), std::hash<std::int64_t>{}(value));
}

NodePtr makeConstantNode(std::int64_t value) {
  auto node = std::make_shared<Node>();
  node->kind = SymbolicKind::Constant;
  node->value = value;
  node->hash = constantHash(value);
  return node;
}

NodePtr makeOperationNode(SymbolicKind kind, NodePtr lhs, NodePtr rhs) {
  auto node = std::make_shared<Node>();
  node->kind = kind;
  node->hash = combineHash(std::hash<int>{}(static_cast<int>(kind)), lhs->hash);
  if (rhs) node->hash = combineHash(node->hash, rhs->hash);
  node->lhs = std::move(lhs);
  node->rhs = std::move(rhs);
  return node;
}

// Whether every value of the expression is 0 or 1.
bool isTruthValued(const SymbolicScalar& value) {
  const SymbolicKind kind = value.kind();
  if (kind == SymbolicKind::Constant) return *value.constantValue() == 0 || *value.constantValue() == 1;
  return isComparison(kind) || kind == SymbolicKind::And || kind == SymbolicKind::Or || kind == SymbolicKind::Not;
}

// 1 where value is nonzero, else 0; evaluates value exactly as the caller would.
SymbolicScalar truthValue(const SymbolicScalar& value) {
  return isTruthValued(value) ? value : makeBinary(SymbolicKind::Ne, value, 0);
}

// Printing.

constexpr int kAtomPrecedence = 100;  // leaves and calls never need parentheses

int printPrecedence(const Node& node) {
  if (node.kind == SymbolicKind::Constant || node.kind == SymbolicKind::Symbol || node.kind == SymbolicKind::Element)
    return kAtomPrecedence;
  const int precedence = info(node.kind).precedence;
  return precedence == 0 ? kAtomPrecedence : precedence;
}

bool isNegativeConstant(const Node& node) { return node.kind == SymbolicKind::Constant && node.value < 0; }

// `limit` caps the output length (error messages must stay short even for a
// shared tree whose text is astronomically long); past it printing stops.
constexpr std::size_t kUnlimited = std::numeric_limits<std::size_t>::max();

void print(const Node& node, std::string& out, std::size_t limit);

void printOperand(const Node& operand, bool parenthesize, std::string& out, std::size_t limit) {
  if (parenthesize) out += '(';
  print(operand, out, limit);
  if (parenthesize) out += ')';
}

void print(const Node& node, std::string& out, std::size_t limit) {
  if (out.size() >= limit) return;
  switch (node.kind) {
  case SymbolicKind::Constant: out += std::to_string(node.value); return;
  case SymbolicKind::Symbol: out += node.name; return;
  case SymbolicKind::Element:
    out += node.name;
    out += '[';
    print(*node.lhs, out, limit);
    out += ']';
    return;
  default: break;
  }
  const KindInfo& kindInfo = info(node.kind);
  if (kindInfo.arity == 1) {
    // Prefix: not x. Python reads not a < b as not (a < b).
    out += kindInfo.spelling;
    out += ' ';
    printOperand(*node.lhs, printPrecedence(*node.lhs) < kindInfo.precedence, out, limit);
    return;
  }
  if (kindInfo.precedence == 0) {
    out += kindInfo.spelling;
    out += '(';
    print(*node.lhs, out, limit);
    out += ", ";
    print(*node.rhs, out, limit);
    out += ')';
    return;
  }
  // x + (-3) is how x - 3 is stored (constants fold through +); print it back.
  if (node.kind == SymbolicKind::Add && isNegativeConstant(*node.rhs) && node.rhs->value != kInt64Min) {
    printOperand(*node.lhs, printPrecedence(*node.lhs) < kindInfo.precedence, out, limit);
    out += " - ";
    out += std::to_string(-node.rhs->value);
    return;
  }
  // Left-associative: the left operand needs parentheses only when it binds
  // more loosely, the right one also when it binds equally (a - (b - c)).
  // Comparisons take parentheses on both sides at equal precedence, since
  // Python would chain them: (a < b) == c. A negative constant on the right
  // of arithmetic is valid Python (x*-3) but reads badly; x < -3 reads fine.
  const bool chains = isComparison(node.kind);
  printOperand(*node.lhs,
               printPrecedence(*node.lhs) < kindInfo.precedence ||
                   (chains && printPrecedence(*node.lhs) == kindInfo.precedence),
               out, limit);
  // Multiplicative operators print without spaces, all others with: "B*32 + 1".
  if (kindInfo.precedence == kMultiplicativePrecedence) {
    out += kindInfo.spelling;
  } else {
    out += ' ';
    out += kindInfo.spelling;
    out += ' ';
  }
  printOperand(*node.rhs,
               printPrecedence(*node.rhs) <= kindInfo.precedence ||
                   (kindInfo.precedence >= kAdditivePrecedence && isNegativeConstant(*node.rhs)),
               out, limit);
}

std::string toString(const Node& node, std::size_t limit = kUnlimited) {
  std::string out;
  print(node, out, limit);
  if (out.size() > limit) {
    out.resize(limit);
    out += "...";
  }
  return out;
}

// Long enough for any expression a person would read in a message.
constexpr std::size_t kMessageExpressionLimit = 200;

// Evaluation, memoised per shared node so shared subtrees (x = x + x in a
// loop) cost once each.
class Evaluator {
public:
  explicit Evaluator(const Bindings& bindings) : m_bindings(bindings) {}

  // Returns false and sets m_error on the first failure. Only a node with
  // more than one owner (`shared`) can be reached twice, so only those are
  // remembered: every other node is evaluated once per evaluation of its one
  // parent, and a remembered value for each node cost an allocation per node
  // (BuildExecuteGraph evaluates every offset of every task).
  bool run(const Node& node, std::int64_t& result, bool shared) {
    if (!shared) return compute(node, result, false);
    if (const std::int64_t* known = m_memo.find(&node)) {
      result = *known;
      return true;
    }
    return compute(node, result, true);
  }

  const std::string& error() const { return m_error; }

private:
  static bool shared(const NodePtr& operand) { return operand.use_count() > 1; }

  bool compute(const Node& node, std::int64_t& result, bool remember) {
    switch (node.kind) {
    case SymbolicKind::Constant: result = node.value; return true;
    case SymbolicKind::Symbol: {
      auto it = m_bindings.find(node.name);
      if (it == m_bindings.end()) {
        m_error = "unbound symbol '" + node.name + "'";
        return false;
      }
      result = it->second;
      return true;
    }
    case SymbolicKind::Element: {
      std::int64_t position = 0;
      if (!run(*node.lhs, position, shared(node.lhs))) return false;
      auto it = m_bindings.find(SymbolicScalar::elementKey(node.name, position));
      if (it == m_bindings.end()) {
        m_error = "element " + std::to_string(position) + " of '" + node.name + "' (read as '" +
                  toString(node, kMessageExpressionLimit) + "') is not known: " +
                  (m_bindings.count(SymbolicScalar::elementKey(node.name, 0)) != 0
                       ? std::string("the position lies outside the tensor")
                       : "the tensor's values are not bound (a kernel reads elements only of its input arguments)");
        return false;
      }
      result = it->second;
      if (remember) m_memo.add(&node, result);
      return true;
    }
    default: break;
    }
    std::int64_t a = 0;
    std::int64_t b = 0;
    if (!run(*node.lhs, a, shared(node.lhs))) return false;
    // As in Python, `and` and `or` leave the right operand alone once the
    // left one decides, so 0 and 1//0 is 0; apply() then ignores b.
    const bool decided = (node.kind == SymbolicKind::And && a == 0) || (node.kind == SymbolicKind::Or && a != 0);
    if (node.rhs && !decided && !run(*node.rhs, b, shared(node.rhs))) return false;
    switch (apply(node.kind, a, b, result)) {
    case Failure::None: break;
    case Failure::Overflow: m_error = "int64 overflow in '" + toString(node, kMessageExpressionLimit) + "'"; return false;
    case Failure::DivisionByZero:
      m_error = std::string(node.kind == SymbolicKind::Mod ? "modulo" : "division") + " by zero in '" +
                toString(node, kMessageExpressionLimit) + "'";
      return false;
    }
    if (remember) m_memo.add(&node, result);
    return true;
  }

  // The values of shared nodes met so far: a few (an offset's loop index
  // terms), so they sit in the evaluator itself and are searched in order;
  // a hash map took an allocation per node remembered, once per offset of
  // every task the execute graph builds. Past kInline, a map.
  class Memo {
  public:
    const std::int64_t* find(const Node* node) const {
      for (std::size_t i = 0; i < m_count; ++i)
        if (m_inline[i].first == node) return &m_inline[i].second;
      if (auto it = m_more.find(node); it != m_more.end()) return &it->second;
      return nullptr;
    }
    void add(const Node* node, std::int64_t value) {
      if (m_count < kInline) m_inline[m_count++] = {node, value};
      else m_more.emplace(node, value);
    }

  private:
    static constexpr std::size_t kInline = 16;
    std::array<std::pair<const Node*, std::int64_t>, kInline> m_inline{};
    std::size_t m_count = 0;
    std::unordered_map<const Node*, std::int64_t> m_more;
  };

  const Bindings& m_bindings;
  Memo m_memo;
  std::string m_error;
};

} // namespace

std::string_view name(SymbolicKind kind) { return info(kind).name; }

bool isUnary(SymbolicKind kind) { return info(kind).arity == 1; }

bool isBinary(SymbolicKind kind) { return info(kind).arity == 2; }

SymbolicScalar::SymbolicScalar(std::shared_ptr<const Node> node) {
  if (node->kind == SymbolicKind::Constant) m_constant = node->value;
  else m_node = std::move(node);
}

std::shared_ptr<const SymbolicScalar::Node> SymbolicScalar::node() const {
  return m_node ? m_node : makeConstantNode(m_constant);
}

SymbolicScalar SymbolicScalar::symbol(std::string name) {
  auto node = std::make_shared<Node>();
  node->kind = SymbolicKind::Symbol;
  node->hash = combineHash(std::hash<int>{}(1), std::hash<std::string>{}(name));
  node->name = std::move(name);
  return SymbolicScalar(NodePtr(std::move(node)));
}

SymbolicKind SymbolicScalar::kind() const { return m_node ? m_node->kind : SymbolicKind::Constant; }

SymbolicScalar SymbolicScalar::element(std::string tensor, SymbolicScalar index) {
  auto node = std::make_shared<Node>();
  node->kind = SymbolicKind::Element;
  node->hash = combineHash(combineHash(std::hash<int>{}(2), std::hash<std::string>{}(tensor)), index.hash());
  node->name = std::move(tensor);
  node->lhs = index.node();
  return SymbolicScalar(NodePtr(std::move(node)));
}

std::string SymbolicScalar::elementKey(std::string_view tensor, std::int64_t position) {
  std::string key;
  key.reserve(tensor.size() + 22);
  key.append(tensor);
  key += '[';
  key += std::to_string(position);
  key += ']';
  return key;
}

const std::string& SymbolicScalar::symbolName() const {
  static const std::string kNone;
  return m_node ? m_node->name : kNone;
}

// A leaf has no operands; it answers 0, as a default value does.
SymbolicScalar SymbolicScalar::lhs() const { return m_node && m_node->lhs ? SymbolicScalar(m_node->lhs) : SymbolicScalar(); }

SymbolicScalar SymbolicScalar::rhs() const { return m_node && m_node->rhs ? SymbolicScalar(m_node->rhs) : SymbolicScalar(); }

SymbolicEvaluation SymbolicScalar::evaluate(const Bindings& bindings) const {
  if (!m_node) return {m_constant, {}};
  Evaluator evaluator(bindings);
  std::int64_t result = 0;
  if (!evaluator.run(*m_node, result, /*shared=*/false)) return {std::nullopt, evaluator.error()};  // the root is reached once
  return {result, {}};
}

SymbolicScalar SymbolicScalar::substitute(const Bindings& bindings) const {
  if (!m_node) return *this;
  // Whether a rebuilt operand is still the node it came from (a constant
  // node comes back as an inline constant of its value).
  auto same = [](const SymbolicScalar& rebuilt, const NodePtr& original) {
    return rebuilt.m_node ? rebuilt.m_node == original : original->kind == SymbolicKind::Constant;
  };
  std::unordered_map<const Node*, SymbolicScalar> memo;
  // Rebuilding through makeBinary refolds every level whose operands became constant.
  auto rebuild = [&](auto& self, const NodePtr& node) -> SymbolicScalar {
    if (auto it = memo.find(node.get()); it != memo.end()) return it->second;
    SymbolicScalar result{node};
    if (node->kind == SymbolicKind::Symbol) {
      if (auto it = bindings.find(node->name); it != bindings.end()) result = SymbolicScalar(it->second);
    } else if (node->kind == SymbolicKind::Element) {
      SymbolicScalar index = self(self, node->lhs);
      auto position = index.constantValue();
      auto it = position ? bindings.find(SymbolicScalar::elementKey(node->name, *position)) : bindings.end();
      if (it != bindings.end()) result = SymbolicScalar(it->second);
      else if (!same(index, node->lhs)) result = SymbolicScalar::element(node->name, index);
    } else if (isUnary(node->kind)) {
      SymbolicScalar operand = self(self, node->lhs);
      if (!same(operand, node->lhs)) result = makeUnary(node->kind, operand);
    } else if (isBinary(node->kind)) {
      SymbolicScalar lhs = self(self, node->lhs);
      SymbolicScalar rhs = self(self, node->rhs);
      // Untouched operands keep the node (and its sharing) as it is.
      if (!same(lhs, node->lhs) || !same(rhs, node->rhs)) result = makeBinary(node->kind, lhs, rhs);
    }
    memo.emplace(node.get(), result);
    return result;
  };
  return rebuild(rebuild, m_node);
}

std::vector<std::string> SymbolicScalar::symbols() const {
  std::vector<std::string> names;
  if (!m_node) return names;
  std::unordered_set<const Node*> visited;
  std::vector<const Node*> pending{m_node.get()};
  while (!pending.empty()) {
    const Node* node = pending.back();
    pending.pop_back();
    if (!visited.insert(node).second) continue;
    if (node->kind == SymbolicKind::Symbol) names.push_back(node->name);
    if (node->lhs) pending.push_back(node->lhs.get());
    if (node->rhs) pending.push_back(node->rhs.get());
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::string SymbolicScalar::str() const { return m_node ? toString(*m_node) : std::to_string(m_constant); }

std::string pyptoStr(const SymbolicScalar& value) {
  switch (value.kind()) {
  case SymbolicKind::Constant: return std::to_string(*value.constantValue());
  case SymbolicKind::Symbol: return value.symbolName();
  case SymbolicKind::Element: return value.symbolName() + "[" + pyptoStr(value.lhs()) + "]";
  case SymbolicKind::Not: return "(!" + pyptoStr(value.lhs()) + ")";
  case SymbolicKind::Min: return "RUNTIME_Min(" + pyptoStr(value.lhs()) + ", " + pyptoStr(value.rhs()) + ")";
  case SymbolicKind::Max: return "RUNTIME_Max(" + pyptoStr(value.lhs()) + ", " + pyptoStr(value.rhs()) + ")";
  default: break;
  }
  std::string_view spelling;
  switch (value.kind()) {
#define PTO_SYMBOLIC_PYPTO_SPELLING(id, name, text, arity, precedence) \
  case SymbolicKind::id: spelling = text; break;
    PTO_FOR_EACH_SYMBOLIC_OP(PTO_SYMBOLIC_PYPTO_SPELLING)
#undef PTO_SYMBOLIC_PYPTO_SPELLING
  default: break;
  }
  if (value.kind() == SymbolicKind::FloorDiv) spelling = "/";
  if (value.kind() == SymbolicKind::And) spelling = "&&";
  if (value.kind() == SymbolicKind::Or) spelling = "||";
  return "(" + pyptoStr(value.lhs()) + std::string(spelling) + pyptoStr(value.rhs()) + ")";
}

bool operator==(const SymbolicScalar& a, const SymbolicScalar& b) {
  if (!a.m_node || !b.m_node) return !a.m_node && !b.m_node && a.m_constant == b.m_constant;
  return structurallyEqual(*a.m_node, *b.m_node);
}

std::size_t SymbolicScalar::hash() const { return m_node ? m_node->hash : constantHash(m_constant); }

SymbolicScalar makeBinary(SymbolicKind kind, const SymbolicScalar& lhs, const SymbolicScalar& rhs) {
  const std::optional<std::int64_t> a = lhs.constantValue();
  const std::optional<std::int64_t> b = rhs.constantValue();
  if (a && b) {
    // A failing constant operation stays a node so evaluate() can report it.
    if (auto folded = applyChecked(kind, *a, *b)) return *folded;
  }
  const bool commutative = kind == SymbolicKind::Add || kind == SymbolicKind::Mul || kind == SymbolicKind::Min ||
                           kind == SymbolicKind::Max;
  // Constants go right so nested constants meet: (x + 2) + 3. Comparisons
  // mirror instead (3 < x is x > 3). Constants cannot fail, so evaluating the
  // other operand first changes no outcome. `and` and `or` with a constant
  // operand always fold below.
  if (commutative && a && !b) return makeBinary(kind, rhs, lhs);
  if (isComparison(kind) && a && !b) return makeBinary(mirrored(kind), rhs, lhs);

  // (x inner c1) kind c2 regrouped as x kind (c1 combine c2): nested
  // constants fold into one. None when the left operand is not such a node,
  // when `positive` asks for both constants > 0 and they are not, or when
  // the combined constant overflows.
  auto regrouped = [&](SymbolicKind inner, SymbolicKind combine,
                       bool positive = false) -> std::optional<SymbolicScalar> {
    if (!b || lhs.kind() != inner) return std::nullopt;
    const std::optional<std::int64_t> c1 = lhs.rhs().constantValue();
    if (!c1 || (positive && (*c1 <= 0 || *b <= 0))) return std::nullopt;
    const std::optional<std::int64_t> merged = applyChecked(combine, *c1, *b);
    if (!merged) return std::nullopt;
    return makeBinary(kind, lhs.lhs(), *merged);
  };

  switch (kind) {
  case SymbolicKind::Add:
    if (b == 0) return lhs;
    if (auto folded = regrouped(SymbolicKind::Add, SymbolicKind::Add)) return *folded;
    break;
  case SymbolicKind::Sub:
    if (b == 0) return lhs;
    if (lhs == rhs) return 0;
    // x - c is stored as x + (-c) so it folds with neighbouring constants.
    if (b && *b != kInt64Min) return makeBinary(SymbolicKind::Add, lhs, -*b);
    break;
  case SymbolicKind::Mul:
    if (b == 0) return 0;
    if (b == 1) return lhs;
    if (auto folded = regrouped(SymbolicKind::Mul, SymbolicKind::Mul)) return *folded;
    break;
  case SymbolicKind::FloorDiv:
    if (b == 1) return lhs;
    // (x // c1) // c2 == x // (c1*c2) for positive divisors.
    if (auto folded = regrouped(SymbolicKind::FloorDiv, SymbolicKind::Mul, /*positive=*/true)) return *folded;
    break;
  case SymbolicKind::Mod:
    if (b == 1 || b == -1) return 0;
    break;
  case SymbolicKind::Min:
  case SymbolicKind::Max:
    if (lhs == rhs) return lhs;
    if (auto folded = regrouped(kind, kind)) return *folded;
    break;
  case SymbolicKind::Eq:
  case SymbolicKind::Le:
  case SymbolicKind::Ge:
    if (lhs == rhs) return 1;
    break;
  case SymbolicKind::Ne:
  case SymbolicKind::Lt:
  case SymbolicKind::Gt:
    if (lhs == rhs) return 0;
    break;
  // A constant operand decides or drops out; what remains is made 0/1 valued.
  // x and 0 and x or 1 drop x, which then cannot fail (see the header).
  case SymbolicKind::And:
    if (a == 0 || b == 0) return 0;
    if (a) return truthValue(rhs);
    if (b) return truthValue(lhs);
    if (lhs == rhs) return truthValue(lhs);
    break;
  case SymbolicKind::Or:
    if ((a && *a != 0) || (b && *b != 0)) return 1;
    if (a) return truthValue(rhs);
    if (b) return truthValue(lhs);
    if (lhs == rhs) return truthValue(lhs);
    break;
  case SymbolicKind::Constant:
  case SymbolicKind::Symbol:
  case SymbolicKind::Element:
  case SymbolicKind::Not: break;  // not binary
  }

  return SymbolicScalar(makeOperationNode(kind, lhs.node(), rhs.node()));
}

SymbolicScalar makeUnary(SymbolicKind kind, const SymbolicScalar& operand) {
  // Not is the only unary kind.
  if (auto value = operand.constantValue()) return *applyChecked(kind, *value);
  if (operand.kind() == SymbolicKind::Not) return truthValue(operand.lhs());
  if (isComparison(operand.kind())) return makeBinary(negated(operand.kind()), operand.lhs(), operand.rhs());
  return SymbolicScalar(makeOperationNode(kind, operand.node(), nullptr));
}

std::ostream& operator<<(std::ostream& out, const SymbolicScalar& value) { return out << value.str(); }

SymbolicScalar operator+(const SymbolicScalar& a, const SymbolicScalar& b) { return makeBinary(SymbolicKind::Add, a, b); }
SymbolicScalar operator-(const SymbolicScalar& a, const SymbolicScalar& b) { return makeBinary(SymbolicKind::Sub, a, b); }
SymbolicScalar operator*(const SymbolicScalar& a, const SymbolicScalar& b) { return makeBinary(SymbolicKind::Mul, a, b); }
SymbolicScalar floorDiv(const SymbolicScalar& a, const SymbolicScalar& b) { return makeBinary(SymbolicKind::FloorDiv, a, b); }
SymbolicScalar mod(const SymbolicScalar& a, const SymbolicScalar& b) { return makeBinary(SymbolicKind::Mod, a, b); }
SymbolicScalar min(const SymbolicScalar& a, const SymbolicScalar& b) { return makeBinary(SymbolicKind::Min, a, b); }
SymbolicScalar max(const SymbolicScalar& a, const SymbolicScalar& b) { return makeBinary(SymbolicKind::Max, a, b); }
SymbolicScalar eq(const SymbolicScalar& a, const SymbolicScalar& b) { return makeBinary(SymbolicKind::Eq, a, b); }
SymbolicScalar ne(const SymbolicScalar& a, const SymbolicScalar& b) { return makeBinary(SymbolicKind::Ne, a, b); }
SymbolicScalar lt(const SymbolicScalar& a, const SymbolicScalar& b) { return makeBinary(SymbolicKind::Lt, a, b); }
SymbolicScalar le(const SymbolicScalar& a, const SymbolicScalar& b) { return makeBinary(SymbolicKind::Le, a, b); }
SymbolicScalar gt(const SymbolicScalar& a, const SymbolicScalar& b) { return makeBinary(SymbolicKind::Gt, a, b); }
SymbolicScalar ge(const SymbolicScalar& a, const SymbolicScalar& b) { return makeBinary(SymbolicKind::Ge, a, b); }
SymbolicScalar logicalAnd(const SymbolicScalar& a, const SymbolicScalar& b) { return makeBinary(SymbolicKind::And, a, b); }
SymbolicScalar logicalOr(const SymbolicScalar& a, const SymbolicScalar& b) { return makeBinary(SymbolicKind::Or, a, b); }
SymbolicScalar logicalNot(const SymbolicScalar& a) { return makeUnary(SymbolicKind::Not, a); }

} // namespace pto
