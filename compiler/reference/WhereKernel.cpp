// The select kernel: where(cond, x, y) with broadcasting, either operand a tensor or a scalar attribute.
#include "compiler/reference/ElementAccess.h"
#include "compiler/reference/ReferenceKernels.h"

#include <optional>

namespace pto::reference {
namespace {

// A scalar operand as a rank-0 tensor of the output dtype (converted like a cast in rint mode).
HostTensor scalarTensor(double value, DataType dtype) {
  HostTensor cell(dtype, Shape{});
  cell.setFromDouble(0, value);
  return cell;
}

template <std::size_t Bytes>
void select(std::byte* out, const std::vector<std::int64_t>& cond, const std::byte* x, const std::byte* y,
            const Shape& outShape, const std::array<const std::vector<std::int64_t>*, 3>& strides) {
  forEachBroadcast<3>(outShape, strides, [&](std::int64_t i, const std::array<std::int64_t, 3>& at) {
    const std::byte* from = cond[static_cast<std::size_t>(at[0])] != 0 ? x + at[1] * static_cast<std::int64_t>(Bytes)
                                                                       : y + at[2] * static_cast<std::int64_t>(Bytes);
    std::memcpy(out + i * static_cast<std::int64_t>(Bytes), from, Bytes);
  });
}

} // namespace

bool runWhere(KernelCall& call) {
  HostTensor& out = call.outputs[0];
  const DataType dtype = out.dtype();
  const double* xScalar = call.attr<double>("x");
  const double* yScalar = call.attr<double>("y");
  const std::size_t expectedInputs = 1 + (xScalar ? 0 : 1) + (yScalar ? 0 : 1);
  if (call.inputs.size() != expectedInputs)
    return call.fail() << "internal error: " << call.inputs.size() << " inputs, expected " << expectedInputs;
  std::size_t next = 1;
  // Operands in the output dtype and packed, so the selection is a byte copy.
  HostTensor x = xScalar ? scalarTensor(*xScalar, dtype) : call.inputs[next++].astype(dtype);
  HostTensor y = yScalar ? scalarTensor(*yScalar, dtype) : call.inputs[next++].astype(dtype);
  const HostTensor& condition = call.inputs[0];

  std::optional<Shape> shape = broadcastShape(condition.shape(), x.shape());
  if (shape) shape = broadcastShape(*shape, y.shape());
  if (!shape || !(*shape == out.shape()))
    return call.fail() << "internal error: condition " << condition.shape().str() << " and operands "
                       << x.shape().str() << ", " << y.shape().str() << " do not broadcast to the output's "
                       << out.shape().str();
  const std::vector<std::int64_t> cond = loadAs<std::int64_t>(condition);
  const std::vector<std::int64_t> condStrides = broadcastStrides(condition.shape(), out.shape());
  const std::vector<std::int64_t> xStrides = broadcastStrides(x.shape(), out.shape());
  const std::vector<std::int64_t> yStrides = broadcastStrides(y.shape(), out.shape());
  const std::array<const std::vector<std::int64_t>*, 3> strides{&condStrides, &xStrides, &yStrides};
  if (out.elementCount() == 0) return true;
  std::byte* to = out.data();
  switch (out.itemBytes()) {
  case 1: select<1>(to, cond, x.data(), y.data(), out.shape(), strides); break;
  case 2: select<2>(to, cond, x.data(), y.data(), out.shape(), strides); break;
  case 4: select<4>(to, cond, x.data(), y.data(), out.shape(), strides); break;
  case 8: select<8>(to, cond, x.data(), y.data(), out.shape(), strides); break;
  default: return call.fail() << "internal error: unsupported item size " << out.itemBytes();
  }
  return true;
}

} // namespace pto::reference
