// Creation kernels: full (a constant) and arange (start + i * step).
#include "compiler/reference/ReferenceKernels.h"

#include <cstring>

namespace pto::reference {

bool runCreation(KernelCall& call) {
  HostTensor& out = call.outputs[0];
  const std::int64_t count = out.elementCount();
  if (call.op.kind == TensorOpKind::Full) {
    const auto* value = call.attr<double>("value");
    if (!value) return call.fail() << "internal error: no value attribute";
    if (count == 0) return true;
    // The value is converted once (as setFromDouble does), then its bytes repeated.
    out.setFromDouble(0, *value);
    std::byte* data = out.data();
    const std::size_t item = out.itemBytes();
    for (std::int64_t i = 1; i < count; ++i) std::memcpy(data + static_cast<std::size_t>(i) * item, data, item);
    return true;
  }
  if (call.op.kind == TensorOpKind::Arange) {
    const auto* start = call.attr<double>("start");
    const auto* step = call.attr<double>("step");
    const auto* size = call.attr<std::int64_t>("size");
    if (size && !call.expectOutputShape(0, Shape{*size})) return false;
    const double first = start ? *start : 0.0;
    const double delta = step ? *step : 1.0;
    // Computed in double and rounded once to the dtype.
    for (std::int64_t i = 0; i < count; ++i) out.setFromDouble(i, first + static_cast<double>(i) * delta);
    return true;
  }
  return call.fail() << "internal error: not a creation kernel";
}

} // namespace pto::reference
