// Layout kernels: reshape, unsqueeze, transpose, permute, concat and bitcast. They move element bytes, so
// they are exact for every dtype.
#include "compiler/reference/ElementAccess.h"
#include "compiler/reference/ReferenceKernels.h"

#include <numeric>
#include <set>

namespace pto::reference {
namespace {

// reshape and unsqueeze: the same elements in C order under the output's shape.
bool runReshape(KernelCall& call) {
  const HostTensor& x = call.inputs[0];
  HostTensor& out = call.outputs[0];
  if (x.elementCount() != out.elementCount())
    return call.fail() << "cannot reshape " << x.shape().str() << " (" << x.elementCount() << " elements) to "
                       << out.shape().str() << " (" << out.elementCount() << " elements)";
  if (out.elementCount() == 0) return true;
  const HostTensor packed = x.isContiguous() ? x : x.contiguous();
  std::memcpy(out.data(), packed.data(), out.byteCount());
  return true;
}

// bitcast: x's bytes in C order read as out's dtype; the shapes differ only
// in the last dim, so the byte counts agree.
bool runBitcast(KernelCall& call) {
  const HostTensor& x = call.inputs[0];
  HostTensor& out = call.outputs[0];
  std::vector<std::int64_t> expected = x.shape().dims();
  const auto rowBytes = expected.empty() ? 0 : expected.back() * static_cast<std::int64_t>(x.itemBytes());
  if (expected.empty() || rowBytes % static_cast<std::int64_t>(out.itemBytes()) != 0)
    return call.fail() << "the last dim of " << x.shape().str() << " " << name(x.dtype())
                       << " is not a whole number of " << name(out.dtype()) << " elements";
  expected.back() = rowBytes / static_cast<std::int64_t>(out.itemBytes());
  if (!call.expectOutputShape(0, Shape(expected))) return false;
  if (out.byteCount() == 0) return true;
  const HostTensor packed = x.isContiguous() ? x : x.contiguous();
  std::memcpy(out.data(), packed.data(), out.byteCount());
  return true;
}

// out = x with its dims reordered: out dim i is x dim permutation[i].
bool runPermutation(KernelCall& call, const std::vector<std::int64_t>& permutation) {
  const HostTensor& x = call.inputs[0];
  HostTensor& out = call.outputs[0];
  std::vector<std::int64_t> shape, strides;
  const HostTensor packed = x.isContiguous() ? x : x.contiguous();
  const std::vector<std::int64_t> own = x.shape().contiguousStrides();
  for (std::int64_t axis : permutation) {
    shape.push_back(x.shape()[static_cast<std::size_t>(axis)]);
    strides.push_back(own[static_cast<std::size_t>(axis)]);
  }
  if (!call.expectOutputShape(0, Shape(shape))) return false;
  if (out.elementCount() == 0) return true;
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(out.elementCount()));
  StridedWalker walker(shape, strides);
  for (std::int64_t& offset : offsets) {
    offset = walker.offset();
    walker.next();
  }
  gatherElements(out.data(), packed.data(), offsets, out.itemBytes());
  return true;
}

bool runConcat(KernelCall& call) {
  HostTensor& out = call.outputs[0];
  const auto* dimAttr = call.attr<std::int64_t>("dim");
  const std::int64_t dim = dimAttr ? *dimAttr : 0;
  if (dim < 0 || dim >= static_cast<std::int64_t>(out.rank()))
    return call.fail() << "dim " << dim << " is out of range for rank " << out.rank();
  const auto axis = static_cast<std::size_t>(dim);
  std::vector<std::int64_t> offsets(out.rank(), 0);
  for (const HostTensor& input : call.inputs) {
    Shape expected = out.shape();
    if (input.rank() == out.rank()) expected[axis] = input.shape()[axis];
    if (!(input.shape() == expected) || input.shape()[axis] > out.shape()[axis] - offsets[axis])
      return call.fail() << "internal error: input " << input.shape().str() << " does not fit the output "
                         << out.shape().str() << " at offset " << offsets[axis] << " of dim " << dim;
    out.view(offsets, input.shape().dims()).copyFrom(input);
    offsets[axis] += input.shape()[axis];
  }
  if (offsets[axis] != out.shape()[axis])
    return call.fail() << "internal error: inputs cover " << offsets[axis] << " of the output's " << out.shape()[axis]
                       << " in dim " << dim;
  return true;
}

} // namespace

bool runLayout(KernelCall& call) {
  const std::size_t rank = call.inputs.empty() ? 0 : call.inputs[0].rank();
  switch (call.op.kind) {
  case TensorOpKind::Reshape:
  case TensorOpKind::Unsqueeze:
    return runReshape(call);
  case TensorOpKind::Transpose: {
    const auto* dims = call.attr<std::vector<std::int64_t>>("dims");
    if (!dims || dims->size() != 2 || (*dims)[0] < 0 || (*dims)[1] < 0 || (*dims)[0] >= static_cast<std::int64_t>(rank) ||
        (*dims)[1] >= static_cast<std::int64_t>(rank))
      return call.fail() << "needs two dims in [0, " << rank << ")";
    std::vector<std::int64_t> permutation(rank);
    std::iota(permutation.begin(), permutation.end(), std::int64_t{0});
    std::swap(permutation[static_cast<std::size_t>((*dims)[0])], permutation[static_cast<std::size_t>((*dims)[1])]);
    return runPermutation(call, permutation);
  }
  case TensorOpKind::Permute: {
    const auto* dims = call.attr<std::vector<std::int64_t>>("dims");
    std::set<std::int64_t> seen;
    if (dims)
      for (std::int64_t dim : *dims)
        if (dim >= 0 && dim < static_cast<std::int64_t>(rank)) seen.insert(dim);
    if (!dims || dims->size() != rank || seen.size() != rank)
      return call.fail() << "dims must be a permutation of 0.." << static_cast<std::int64_t>(rank) - 1;
    return runPermutation(call, *dims);
  }
  case TensorOpKind::Concat:
    return runConcat(call);
  case TensorOpKind::Bitcast:
    return runBitcast(call);
  default:
    return call.fail() << "internal error: not a layout kernel";
  }
}

} // namespace pto::reference
