// Quantisation kernels: quantize (float -> int8 by a broadcast scale) and dequantize (int -> float).
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
    const float s = scales[static_cast<std::size_t>(at[0])];
    const float v = values[static_cast<std::size_t>(i)];
    // Quantize: rint then the int8 store saturates (NaN -> 0). Dequantize: one fp32 product, rounded on store.
    result[static_cast<std::size_t>(i)] = quantize ? std::nearbyint(v / s) : v * s;
  });
  storeFrom(out, result);
  return true;
}

} // namespace pto::reference
