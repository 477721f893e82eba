// Quantisation kernels, PyPTO's contract: quantize = saturate_otype(rint(x * scale)) into int8 or uint8;
// dequantize = float(q) * scale. The scale broadcasts to x (one per row or per column, see docs/ir.md).
// Zero points are not an input: the frontend adds them with ordinary ops before quantize / after the cast.
#include "compiler/reference/ElementAccess.h"
#include "compiler/reference/ReferenceKernels.h"

#include <cmath>

namespace pto::reference {

bool runQuantize(KernelCall& call) {
  const HostTensor& x = call.inputs[0];
  const HostTensor& scale = call.inputs[1];
  HostTensor& out = call.outputs[0];
  if (!call.expectOutputShape(0, x.shape())) return false;
  if (!broadcastsTo(scale.shape(), x.shape()))
    return call.fail() << "scale " << scale.shape().str() << " does not broadcast to " << x.shape().str();
  const std::vector<float> values = loadAs<float>(x);
  const std::vector<float> scales = loadAs<float>(scale);
  const std::vector<std::int64_t> scaleStrides = broadcastStrides(scale.shape(), x.shape());
  std::vector<float> result(values.size());
  const bool quantize = call.op.kind == TensorOpKind::Quantize;
  forEachBroadcast<1>(x.shape(), {&scaleStrides}, [&](std::int64_t i, const std::array<std::int64_t, 1>& at) {
    // One fp32 product. Quantize rounds it half to even (the current rounding mode) and the integer store
    // saturates (NaN -> 0); dequantize's product is rounded to otype on store.
    const float product = values[static_cast<std::size_t>(i)] * scales[static_cast<std::size_t>(at[0])];
    result[static_cast<std::size_t>(i)] = quantize ? std::nearbyint(product) : product;
  });
  storeFrom(out, result);
  return true;
}

} // namespace pto::reference
