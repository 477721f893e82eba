// Reduction kernels: sum, prod, amax, amin, argmax and argmin over a set of dims, with keepdim.
#include "compiler/reference/Arithmetic.h"
#include "compiler/reference/ElementAccess.h"
#include "compiler/reference/ReferenceKernels.h"

#include <cmath>
#include <optional>
#include <set>
#include <span>

namespace pto::reference {
namespace {

// Pairwise summation (as numpy sums float arrays): the rounding error grows with log n, not n.
float pairwiseSum(const float* values, std::size_t count) {
  if (count <= 8) {
    float sum = 0.0f;
    for (std::size_t i = 0; i < count; ++i) sum += values[i];
    return sum;
  }
  const std::size_t half = count / 2;
  return pairwiseSum(values, half) + pairwiseSum(values + half, count - half);
}

template <typename C> C reduceSum(std::span<const C> values) {
  if constexpr (std::is_same_v<C, float>) {
    return pairwiseSum(values.data(), values.size());
  } else {
    C sum = 0;
    for (C value : values) sum = IntegerArithmetic<C>::add(sum, value);
    return sum;
  }
}

template <typename C> C reduceProd(std::span<const C> values) {
  using Arith = ArithmeticOf<C>;
  C product = 1;
  for (C value : values) product = Arith::mul(product, value);
  return product;
}

// One line (non-empty unless a sum or product) reduced by sum, prod, amax or amin; nullopt for other kinds.
template <typename C> std::optional<C> reduceLine(TensorOpKind kind, std::span<const C> line) {
  using Arith = ArithmeticOf<C>;
  switch (kind) {
  case TensorOpKind::Sum: return reduceSum(line);
  case TensorOpKind::Prod: return reduceProd(line);
  case TensorOpKind::Amax:
  case TensorOpKind::Amin: {
    C extreme = line[0];
    for (C value : line) extreme = kind == TensorOpKind::Amax ? Arith::max(extreme, value) : Arith::min(extreme, value);
    return extreme;
  }
  default: return std::nullopt;
  }
}

template <typename C> bool isNan(C value) {
  if constexpr (std::is_floating_point_v<C>) return std::isnan(value);
  else return false;
}

// Index of the first extreme (largest when `largest`), or of the first NaN.
template <typename C> std::int64_t argExtreme(const std::vector<C>& values, bool largest) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < values.size(); ++i) {
    if (isNan(values[best])) break;
    const bool better = largest ? values[i] > values[best] : values[i] < values[best];
    if (isNan(values[i]) || better) best = i;
  }
  return static_cast<std::int64_t>(best);
}

template <typename C> bool reduceTyped(KernelCall& call, const std::vector<std::int64_t>& permutedShape,
                                       const std::vector<std::int64_t>& permutedStrides, std::int64_t keptCount,
                                       std::int64_t reducedCount) {
  const TensorOpKind kind = call.op.kind;
  const std::vector<C> values = loadAs<C>(call.inputs[0]);
  StridedWalker walker(permutedShape, permutedStrides);
  std::vector<C> line(static_cast<std::size_t>(reducedCount));
  const bool isArg = kind == TensorOpKind::Argmax || kind == TensorOpKind::Argmin;
  std::vector<C> result(isArg ? 0 : static_cast<std::size_t>(keptCount));
  std::vector<std::int64_t> indices(isArg ? static_cast<std::size_t>(keptCount) : 0);
  for (std::int64_t o = 0; o < keptCount; ++o) {
    for (C& value : line) {
      value = values[static_cast<std::size_t>(walker.offset())];
      walker.next();
    }
    const auto at = static_cast<std::size_t>(o);
    if (kind == TensorOpKind::Argmax || kind == TensorOpKind::Argmin) {
      indices[at] = argExtreme(line, kind == TensorOpKind::Argmax);
    } else if (std::optional<C> reduced = reduceLine<C>(kind, line)) {
      result[at] = *reduced;
    } else {
      return call.fail() << "internal error: not a reduction kernel";
    }
  }
  if (isArg) storeFrom(call.outputs[0], indices);
  else storeFrom(call.outputs[0], result);
  return true;
}

} // namespace

std::optional<float> reduceFloatLine(TensorOpKind kind, std::span<const float> line) {
  // An empty line has no extreme; the answer then only says that the kind is covered.
  if (line.empty() && (kind == TensorOpKind::Amax || kind == TensorOpKind::Amin)) return 0.0f;
  return reduceLine<float>(kind, line);
}

bool runReduction(KernelCall& call) {
  const HostTensor& x = call.inputs[0];
  const std::size_t rank = x.rank();
  std::set<std::int64_t> reduced;
  if (const auto* dims = call.attr<std::vector<std::int64_t>>("dims")) {
    for (std::int64_t dim : *dims) {
      if (dim < 0 || dim >= static_cast<std::int64_t>(rank))
        return call.fail() << "dim " << dim << " is out of range for rank " << rank;
      reduced.insert(dim);
    }
  } else {
    for (std::size_t d = 0; d < rank; ++d) reduced.insert(static_cast<std::int64_t>(d));
  }
  const bool keepdim = call.attr<bool>("keepdim") && *call.attr<bool>("keepdim");

  std::vector<std::int64_t> outDims, permutedShape, permutedStrides, reducedShape, reducedStrides;
  const std::vector<std::int64_t> strides = x.shape().contiguousStrides();
  std::int64_t keptCount = 1, reducedCount = 1;
  for (std::size_t d = 0; d < rank; ++d) {
    if (reduced.count(static_cast<std::int64_t>(d))) {
      reducedShape.push_back(x.shape()[d]);
      reducedStrides.push_back(strides[d]);
      reducedCount *= x.shape()[d];
      if (keepdim) outDims.push_back(1);
    } else {
      permutedShape.push_back(x.shape()[d]);
      permutedStrides.push_back(strides[d]);
      keptCount *= x.shape()[d];
      outDims.push_back(x.shape()[d]);
    }
  }
  if (!call.expectOutputShape(0, Shape(outDims))) return false;
  const TensorOpKind kind = call.op.kind;
  if (reducedCount == 0 && keptCount > 0 && kind != TensorOpKind::Sum && kind != TensorOpKind::Prod)
    return call.fail() << "reduces an empty dim of " << x.shape().str() << ", which has no "
                       << (kind == TensorOpKind::Amax || kind == TensorOpKind::Argmax ? "maximum" : "minimum");
  // Kept dims outermost, reduced dims innermost: each run of reducedCount offsets is one output's line.
  permutedShape.insert(permutedShape.end(), reducedShape.begin(), reducedShape.end());
  permutedStrides.insert(permutedStrides.end(), reducedStrides.begin(), reducedStrides.end());
  return visitComputeType(x.dtype(), [&](auto tag) {
    return reduceTyped<decltype(tag)>(call, permutedShape, permutedStrides, keptCount, reducedCount);
  });
}

} // namespace pto::reference
