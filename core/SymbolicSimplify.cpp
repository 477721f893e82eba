// Linear-form simplification of symbolic scalars.
#include "core/SymbolicSimplify.h"

#include <map>
#include <optional>
#include <unordered_map>

namespace pto {
namespace {

// term text -> (coefficient, term); ordered by text for a canonical result.
struct LinearForm {
  std::map<std::string, std::pair<std::int64_t, SymbolicScalar>> terms;
  std::int64_t constant = 0;
  bool overflow = false;

  void addTerm(const SymbolicScalar& term, std::int64_t coefficient) {
    auto& slot = terms.try_emplace(term.str(), 0, term).first->second;
    if (__builtin_add_overflow(slot.first, coefficient, &slot.first)) overflow = true;
  }
};

void collect(const SymbolicScalar& value, std::int64_t scale, LinearForm& form);

// min, max and comparisons whose operands differ by a known constant are
// decided: min(a, a + 1) is a, a + 1 > a is 1. Integer algebra, no overflow
// at the operands' values assumed, as everywhere in folding.
std::optional<SymbolicScalar> decideByDifference(SymbolicKind kind, const SymbolicScalar& a, const SymbolicScalar& b) {
  std::optional<std::int64_t> difference;  // a - b
  switch (kind) {
  case SymbolicKind::Min:
  case SymbolicKind::Max:
  case SymbolicKind::Eq:
  case SymbolicKind::Ne:
  case SymbolicKind::Lt:
  case SymbolicKind::Le:
  case SymbolicKind::Gt:
  case SymbolicKind::Ge:
    difference = simplify(a - b).constantValue();
    break;
  default:
    return std::nullopt;
  }
  if (!difference) return std::nullopt;
  const std::int64_t d = *difference;
  switch (kind) {
  case SymbolicKind::Min: return d <= 0 ? a : b;
  case SymbolicKind::Max: return d >= 0 ? a : b;
  case SymbolicKind::Eq: return SymbolicScalar(d == 0 ? 1 : 0);
  case SymbolicKind::Ne: return SymbolicScalar(d != 0 ? 1 : 0);
  case SymbolicKind::Lt: return SymbolicScalar(d < 0 ? 1 : 0);
  case SymbolicKind::Le: return SymbolicScalar(d <= 0 ? 1 : 0);
  case SymbolicKind::Gt: return SymbolicScalar(d > 0 ? 1 : 0);
  case SymbolicKind::Ge: return SymbolicScalar(d >= 0 ? 1 : 0);
  default: return std::nullopt;
  }
}

SymbolicScalar simplifyOperands(const SymbolicScalar& value) {
  if (isUnary(value.kind())) return makeUnary(value.kind(), simplify(value.lhs()));
  if (!isBinary(value.kind())) return value;
  SymbolicScalar a = simplify(value.lhs());
  SymbolicScalar b = simplify(value.rhs());
  if (auto decided = decideByDifference(value.kind(), a, b)) return *decided;
  return makeBinary(value.kind(), a, b);
}

void collect(const SymbolicScalar& value, std::int64_t scale, LinearForm& form) {
  std::int64_t scaled = 0;
  switch (value.kind()) {
  case SymbolicKind::Constant:
    if (__builtin_mul_overflow(*value.constantValue(), scale, &scaled) ||
        __builtin_add_overflow(form.constant, scaled, &form.constant))
      form.overflow = true;
    return;
  case SymbolicKind::Add:
    collect(value.lhs(), scale, form);
    collect(value.rhs(), scale, form);
    return;
  case SymbolicKind::Sub:
    collect(value.lhs(), scale, form);
    if (scale == INT64_MIN) form.overflow = true;
    else collect(value.rhs(), -scale, form);
    return;
  case SymbolicKind::Mul:
    if (auto factor = value.rhs().constantValue()) {
      if (__builtin_mul_overflow(scale, *factor, &scaled)) form.overflow = true;
      else collect(value.lhs(), scaled, form);
      return;
    }
    if (auto factor = value.lhs().constantValue()) {
      if (__builtin_mul_overflow(scale, *factor, &scaled)) form.overflow = true;
      else collect(value.rhs(), scaled, form);
      return;
    }
    break;
  default:
    break;
  }
  SymbolicScalar term = simplifyOperands(value);
  if (auto known = term.constantValue()) {
    if (__builtin_mul_overflow(*known, scale, &scaled) || __builtin_add_overflow(form.constant, scaled, &form.constant))
      form.overflow = true;
    return;
  }
  // A decided min/max is one of its (simplified) operands: linear again.
  const bool decidedMinMax = (value.kind() == SymbolicKind::Min || value.kind() == SymbolicKind::Max) &&
                             term.kind() != SymbolicKind::Min && term.kind() != SymbolicKind::Max;
  if (decidedMinMax) {
    collect(term, scale, form);
    return;
  }
  form.addTerm(term, scale);
}

} // namespace

namespace {

SymbolicScalar simplifyUncached(const SymbolicScalar& value) {
  LinearForm form;
  collect(value, 1, form);
  if (form.overflow) return value;  // keep the original; evaluation reports the overflow
  std::optional<SymbolicScalar> result;
  for (const auto& [text, entry] : form.terms) {
    auto [coefficient, term] = entry;
    if (coefficient == 0) continue;
    std::int64_t magnitude = coefficient < 0 ? -coefficient : coefficient;
    SymbolicScalar scaled = magnitude == 1 ? term : term * magnitude;
    if (!result) result = coefficient < 0 ? SymbolicScalar(0) - scaled : scaled;
    else result = coefficient < 0 ? *result - scaled : *result + scaled;
  }
  if (!result) return form.constant;
  return form.constant == 0 ? *result : *result + form.constant;
}

// Results of earlier calls, by structure. The tracer simplifies every
// operation's result, whose operands it simplified already, and a min or max
// simplifies its operands' difference again (and that difference's min/max
// operands in turn), so without this a nested min(max(...)) costs
// exponentially in its depth; the DIA kernel's trace spent half its time
// here. simplify() is a function of the structure only, so a remembered
// result is the one it would compute. Per thread (traces and compilations run
// on several); cleared when full, as a kernel's expressions come and go.
constexpr std::size_t kRememberedLimit = 1 << 15;
thread_local std::unordered_map<SymbolicScalar, SymbolicScalar, SymbolicScalarHash> t_simplified;

} // namespace

SymbolicScalar simplify(const SymbolicScalar& value) {
  // A leaf is its own linear form.
  const SymbolicKind kind = value.kind();
  if (kind == SymbolicKind::Constant || kind == SymbolicKind::Symbol || kind == SymbolicKind::Element) return value;
  if (auto found = t_simplified.find(value); found != t_simplified.end()) return found->second;
  SymbolicScalar result = simplifyUncached(value);
  if (t_simplified.size() >= kRememberedLimit) t_simplified.clear();
  t_simplified.emplace(value, result);
  return result;
}

bool provablyEqual(const SymbolicScalar& a, const SymbolicScalar& b) {
  auto difference = simplify(a - b).constantValue();
  return difference && *difference == 0;
}

} // namespace pto
