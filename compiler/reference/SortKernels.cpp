// Sorting kernels: topk (values and int32 indices) and argsort, along one dim, stable.
#include "compiler/reference/ElementAccess.h"
#include "compiler/reference/ReferenceKernels.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace pto::reference {
namespace {

// Strict order with NaN above every number (numpy's sort order); equal keys compare false both ways, so a
// stable sort keeps ties by index.
template <typename C> bool lessWithNan(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

template <typename C> bool sortTyped(KernelCall& call, std::size_t dim) {
  const HostTensor& x = call.inputs[0];
  const std::vector<C> values = loadAs<C>(x);
  const bool isTopK = call.op.kind == TensorOpKind::TopK;
  bool descending = false;
  std::int64_t keep = x.shape()[dim];
  if (isTopK) {
    const auto* largest = call.attr<bool>("largest");
    descending = !largest || *largest;
    const auto* k = call.attr<std::int64_t>("k");
    if (!k || *k <= 0 || *k > keep)
      return call.fail() << "k = " << (k ? std::to_string(*k) : std::string("?")) << " must lie in [1, " << keep
                         << "] for dim " << dim << " of " << x.shape().str();
    keep = *k;
  } else if (const auto* flag = call.attr<bool>("descending")) {
    descending = *flag;
  }
  Shape outShape = x.shape();
  outShape[dim] = keep;
  if (!call.expectOutputShape(0, outShape)) return false;
  if (isTopK && !call.expectOutputShape(1, outShape)) return false;
  // A top-k tile of a longer row (ExpandFunction's selection tree) reports row
  // indices: a chunk's own position plus `index_base`, or, when its candidates
  // come from an earlier level, the index each candidate carries in a second
  // input of x's shape.
  std::int64_t indexBase = 0;
  if (const auto* base = call.attr<std::int64_t>("index_base")) indexBase = *base;
  std::vector<std::int64_t> payload;
  if (isTopK && call.inputs.size() > 1) {
    if (call.inputs[1].shape() != x.shape())
      return call.fail() << "the candidates' indices " << call.inputs[1].shape().str() << " must have the shape of their values "
                         << x.shape().str();
    payload = loadAs<std::int64_t>(call.inputs[1]);
  }

  std::int64_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < dim; ++d) outer *= x.shape()[d];
  for (std::size_t d = dim + 1; d < x.rank(); ++d) inner *= x.shape()[d];
  const std::int64_t size = x.shape()[dim];
  std::vector<C> sortedValues(static_cast<std::size_t>(outer * keep * inner));
  std::vector<std::int64_t> sortedIndices(sortedValues.size());
  std::vector<std::int64_t> order(static_cast<std::size_t>(size));
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t i = 0; i < inner; ++i) {
      auto valueAt = [&](std::int64_t j) { return values[static_cast<std::size_t>((o * size + j) * inner + i)]; };
      std::iota(order.begin(), order.end(), std::int64_t{0});
      std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
        return descending ? lessWithNan(valueAt(b), valueAt(a)) : lessWithNan(valueAt(a), valueAt(b));
      });
      for (std::int64_t j = 0; j < keep; ++j) {
        const auto at = static_cast<std::size_t>((o * keep + j) * inner + i);
        const std::int64_t chosen = order[static_cast<std::size_t>(j)];
        sortedIndices[at] = payload.empty() ? chosen + indexBase
                                            : payload[static_cast<std::size_t>((o * size + chosen) * inner + i)];
        sortedValues[at] = valueAt(chosen);
      }
    }
  }
  if (isTopK) {
    storeFrom(call.outputs[0], sortedValues);
    storeFrom(call.outputs[1], sortedIndices);
  } else {
    storeFrom(call.outputs[0], sortedIndices);
  }
  return true;
}

// PyPTO's sort32 (its interpreter's BitSort, interface/interpreter/calculator/calc_torch.cpp): along the last
// dim, each run of 32 elements (the last run may be shorter) sorted descending, equal values by index; the
// result interleaves (value, index) pairs, the index (its position in the row plus attr "index") stored as a
// float value, as PyPTO's interpreter stores it (the chip writes the uint32's bits). mrgsort (its MrgSort): the
// row's (value, index) pairs all sorted descending by value, equal values by index: what merging sorted runs
// gives (the chip merges runs of 32 pairs four at a time; attr "mergesize" is checked, not needed here).
bool sortBlocks(KernelCall& call) {
  const HostTensor& x = call.inputs[0];
  if (x.dtype() != DataType::Fp32 || x.rank() == 0)
    return call.fail() << name(call.op.kind) << " takes a float32 tensor of 1 to 4 dims, got " << x.shape().str();
  const bool merge = call.op.kind == TensorOpKind::MrgSort;
  Shape outShape = x.shape();
  if (!merge) outShape[x.rank() - 1] *= 2;
  if (!call.expectOutputShape(0, outShape)) return false;
  const std::int64_t width = x.shape()[x.rank() - 1];
  if (merge && width % 2 != 0) return call.fail() << "mrgsort takes (value, index) pairs, got a row of " << width;
  const std::int64_t rows = width == 0 ? 0 : x.elementCount() / width;
  std::int64_t indexBase = 0;
  if (const auto* base = call.attr<std::int64_t>("index")) indexBase = *base;
  const std::vector<float> values = loadAs<float>(x);
  std::vector<float> out(static_cast<std::size_t>(rows * (merge ? width : 2 * width)));
  const std::int64_t pairs = merge ? width / 2 : width;
  std::vector<std::int64_t> order;
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = values.data() + r * width;
    float* result = out.data() + r * 2 * pairs;
    auto valueOf = [&](std::int64_t j) { return merge ? row[2 * j] : row[j]; };
    auto indexOf = [&](std::int64_t j) { return merge ? static_cast<double>(row[2 * j + 1]) : static_cast<double>(j + indexBase); };
    auto before = [&](std::int64_t a, std::int64_t b) {
      if (lessWithNan(valueOf(b), valueOf(a))) return true;
      if (lessWithNan(valueOf(a), valueOf(b))) return false;
      return indexOf(a) < indexOf(b);
    };
    const std::int64_t run = merge ? pairs : 32;
    for (std::int64_t start = 0; start < pairs; start += run) {
      const std::int64_t end = std::min(pairs, start + run);
      order.resize(static_cast<std::size_t>(end - start));
      std::iota(order.begin(), order.end(), start);
      std::stable_sort(order.begin(), order.end(), before);
      for (std::int64_t j = start; j < end; ++j) {
        const std::int64_t chosen = order[static_cast<std::size_t>(j - start)];
        result[2 * j] = valueOf(chosen);
        result[2 * j + 1] = static_cast<float>(indexOf(chosen));
      }
    }
  }
  storeFrom(call.outputs[0], out);
  return true;
}

} // namespace

bool runSort(KernelCall& call) {
  if (call.op.kind == TensorOpKind::Sort32 || call.op.kind == TensorOpKind::MrgSort) return sortBlocks(call);
  const HostTensor& x = call.inputs[0];
  const auto* dimAttr = call.attr<std::int64_t>("dim");
  std::int64_t dim = dimAttr ? *dimAttr : static_cast<std::int64_t>(x.rank()) - 1;
  if (dim < 0 || dim >= static_cast<std::int64_t>(x.rank()))
    return call.fail() << "dim " << dim << " is out of range for " << x.shape().str();
  return visitComputeType(x.dtype(), [&](auto tag) { return sortTyped<decltype(tag)>(call, static_cast<std::size_t>(dim)); });
}

} // namespace pto::reference
