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

} // namespace pto::reference
