// Linear-form simplification of symbolic scalars.
#include "core/SymbolicSimplify.h"

#include <map>

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

SymbolicScalar simplifyOperands(const SymbolicScalar& value) {
  if (isUnary(value.kind())) return makeUnary(value.kind(), simplify(value.lhs()));
  if (!isBinary(value.kind())) return value;
  return makeBinary(value.kind(), simplify(value.lhs()), simplify(value.rhs()));
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
  form.addTerm(simplifyOperands(value), scale);
}

} // namespace

SymbolicScalar simplify(const SymbolicScalar& value) {
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

bool provablyEqual(const SymbolicScalar& a, const SymbolicScalar& b) {
  auto difference = simplify(a - b).constantValue();
  return difference && *difference == 0;
}

} // namespace pto
