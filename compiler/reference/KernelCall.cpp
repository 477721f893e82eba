// KernelCall's error reporting and shape check.
#include "compiler/reference/ReferenceKernels.h"

namespace pto::reference {

DiagnosticBuilder KernelCall::fail() const {
  DiagnosticBuilder builder = diags.error(op.location);
  builder << name(op.kind) << ": ";
  return builder;
}

bool KernelCall::expectOutputShape(std::size_t index, const Shape& expected) const {
  const Shape& actual = outputs.at(index).shape();
  if (actual == expected) return true;
  return fail() << "internal error: the graph gives output " << index << " the shape " << actual.str()
                << " but the inputs make " << expected.str() << " (the Tensor graph is inconsistent)";
}

bool runKernel(KernelCall& call) {
  const TensorOpKind kind = call.op.kind;
  switch (category(kind)) {
  case OpCategory::Unary: return kind == TensorOpKind::Cast ? runCast(call) : runUnary(call);
  case OpCategory::Binary:
  case OpCategory::Compare: return runBinary(call);
  case OpCategory::BinaryScalar:
  case OpCategory::CompareScalar: return runBinaryScalar(call);
  case OpCategory::Select: return runWhere(call);
  case OpCategory::Reduce: return runReduction(call);
  case OpCategory::Layout: return runLayout(call);
  case OpCategory::Creation: return runCreation(call);
  case OpCategory::Indexing: return runIndexing(call);
  case OpCategory::Sort: return runSort(call);
  case OpCategory::Matmul: return runMatmul(call);
  case OpCategory::Quantize: return runQuantize(call);
  case OpCategory::Memory: break;
  }
  return call.fail() << "internal error: no kernel";
}

} // namespace pto::reference
