// Binding scalar operands that are symbolic (dynamic dims, loop indices) to their run-time values.
#include "compiler/reference/ReferenceKernels.h"

namespace pto::reference {
namespace {

// "diagonal": tril/triu's, a SymInt in PyPTO (its tests move it by a view block's offsets).
constexpr const char* kScalarKeys[] = {"scalar", "value", "diagonal"};

} // namespace

bool hasRunTimeScalars(const TensorOp& op) {
  for (const char* key : kScalarKeys)
    if (op.attr<SymbolicScalar>(key)) return true;
  return false;
}

std::optional<TensorOp> bindRunTimeScalars(const TensorOp& op, const Bindings& bindings,
                                           DiagnosticEngine& diags) {
  TensorOp bound = op;
  for (const char* key : kScalarKeys) {
    const auto* symbolic = op.attr<SymbolicScalar>(key);
    if (!symbolic) continue;
    SymbolicEvaluation value = symbolic->evaluate(bindings);
    if (!value.ok()) {
      diags.error(op.location) << name(op.kind) << ": the scalar operand '" << symbolic->str()
                               << "' cannot be evaluated: " << value.error;
      return std::nullopt;
    }
    bound.attrs[key] = static_cast<double>(*value.value);
  }
  return bound;
}

} // namespace pto::reference
