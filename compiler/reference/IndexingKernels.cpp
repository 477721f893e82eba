// Indexing kernels: gather, index_select, scatter and scatter_update (torch semantics along one dim).
// Every index is checked against its dim before any element moves; elements move as bytes.
#include "compiler/reference/ElementAccess.h"
#include "compiler/reference/ReferenceKernels.h"
#include "compiler/reference/ScatterRows.h"

namespace pto::reference {
namespace {

struct IndexingSetup {
  std::size_t dim = 0;
  std::vector<std::int64_t> indices;  // the index tensor in C order
};

std::optional<IndexingSetup> setup(const KernelCall& call) {
  const HostTensor& x = call.inputs[0];
  const HostTensor& index = call.inputs[1];
  const auto* dimAttr = call.attr<std::int64_t>("dim");
  const std::int64_t dim = dimAttr ? *dimAttr : 0;
  if (dim < 0 || dim >= static_cast<std::int64_t>(x.rank()))
    return call.fail() << "dim " << dim << " is out of range for " << x.shape().str();
  if (isFloatingPoint(index.dtype()) || index.dtype() == DataType::Bool)
    return call.fail() << "index must be an integer tensor, got " << name(index.dtype());
  IndexingSetup result;
  result.dim = static_cast<std::size_t>(dim);
  result.indices = loadAs<std::int64_t>(index);
  const std::int64_t size = x.shape()[result.dim];
  for (std::size_t i = 0; i < result.indices.size(); ++i) {
    const std::int64_t value = result.indices[i];
    if (value < 0 || value >= size)
      return call.fail() << "index " << value << " at " << indexString(index.shape(), static_cast<std::int64_t>(i))
                         << " is out of range for dim " << dim << " of " << x.shape().str() << " (valid: 0.."
                         << size - 1 << ")";
  }
  return result;
}

// Fails unless `inner` fits in `outer` in every dim except `skip` (torch's rule for gather and scatter).
bool fitsOutside(const KernelCall& call, const char* innerName, const Shape& inner, const char* outerName,
                 const Shape& outer, std::size_t skip) {
  if (inner.rank() != outer.rank())
    return call.fail() << innerName << " " << inner.str() << " must have the rank of " << outerName << " " << outer.str();
  for (std::size_t d = 0; d < inner.rank(); ++d)
    if (d != skip && inner[d] > outer[d])
      return call.fail() << innerName << " " << inner.str() << " exceeds " << outerName << " " << outer.str()
                         << " in dim " << d;
  return true;
}

std::int64_t productOf(const Shape& shape, std::size_t from, std::size_t to) {
  std::int64_t product = 1;
  for (std::size_t d = from; d < to; ++d) product *= shape[d];
  return product;
}

void copyElement(std::byte* to, std::int64_t toIndex, const std::byte* from, std::int64_t fromIndex,
                 std::size_t itemBytes) {
  const auto item = static_cast<std::int64_t>(itemBytes);
  std::memcpy(to + toIndex * item, from + fromIndex * item, itemBytes);
}

// out[p] = x[p with p[dim] = index[p]].
bool runGather(KernelCall& call, const IndexingSetup& s) {
  // x is read in place through its own strides: it is often a large table (a cache), and a copy of it per
  // call would cost far more than the gather.
  const HostTensor& x = call.inputs[0];
  const Shape& indexShape = call.inputs[1].shape();
  HostTensor& out = call.outputs[0];
  if (!fitsOutside(call, "index", indexShape, "x", x.shape(), s.dim)) return false;
  if (!call.expectOutputShape(0, indexShape)) return false;
  std::vector<std::int64_t> strides = x.strides();
  const std::int64_t dimStride = strides[s.dim];
  strides[s.dim] = 0;
  StridedWalker walker(indexShape.dims(), strides);
  std::vector<std::int64_t> offsets(s.indices.size());
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    offsets[i] = walker.offset() + s.indices[i] * dimStride;
    walker.next();
  }
  if (offsets.empty()) return true;
  // A one-element view is contiguous, so data() gives x's first element whatever its strides.
  const std::vector<std::int64_t> zeros(x.rank(), 0), ones(x.rank(), 1);
  gatherElements(out.data(), x.view(zeros, ones).data(), offsets, out.itemBytes());
  return true;
}

// out = x with dim `dim` replaced by x's slices index[0], index[1], ... (x read in place through its strides,
// as runGather reads it).
bool runIndexSelect(KernelCall& call, const IndexingSetup& s) {
  const HostTensor& x = call.inputs[0];
  HostTensor& out = call.outputs[0];
  if (call.inputs[1].rank() != 1) return call.fail() << "index must be 1-D, got " << call.inputs[1].shape().str();
  Shape expected = x.shape();
  expected[s.dim] = static_cast<std::int64_t>(s.indices.size());
  if (!call.expectOutputShape(0, expected)) return false;
  const std::int64_t inner = productOf(x.shape(), s.dim + 1, x.rank());
  const auto count = static_cast<std::int64_t>(s.indices.size());
  std::vector<std::int64_t> strides = x.strides();
  const std::int64_t dimStride = strides[s.dim];
  strides[s.dim] = 0;
  StridedWalker walker(expected.dims(), strides);
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(out.elementCount()));
  for (std::size_t e = 0; e < offsets.size(); ++e) {
    const auto k = static_cast<std::size_t>(static_cast<std::int64_t>(e) / inner % count);  // position along dim
    offsets[e] = walker.offset() + s.indices[k] * dimStride;
    walker.next();
  }
  if (offsets.empty()) return true;
  const std::vector<std::int64_t> zeros(x.rank(), 0), ones(x.rank(), 1);
  gatherElements(out.data(), x.view(zeros, ones).data(), offsets, out.itemBytes());
  return true;
}

// scatter with reduce: out[target] = out[target] + src[p] (or *) in the compute type of out's dtype, rounded
// to it per update, in C order of the index (so repeated targets accumulate in that order).
bool scatterReduce(KernelCall& call, const IndexingSetup& s, bool multiply, StridedWalker& target,
                   StridedWalker& from, std::int64_t dimStride, const HostTensor& src) {
  HostTensor& out = call.outputs[0];
  return visitComputeType(out.dtype(), [&](auto zero) {
    using C = decltype(zero);
    std::vector<C> values = loadAs<C>(out);
    const std::vector<C> updates = loadAs<C>(src);
    for (std::int64_t index : s.indices) {
      auto& slot = values[static_cast<std::size_t>(target.offset() + index * dimStride)];
      const C update = updates[static_cast<std::size_t>(from.offset())];
      slot = multiply ? static_cast<C>(slot * update) : static_cast<C>(slot + update);
      // fp16/bf16 round after every update, as a store would (integers wrap alike at the final store).
      if constexpr (std::is_same_v<C, float>)
        if (out.dtype() != DataType::Fp32) slot = static_cast<C>(roundToDtype(static_cast<double>(slot), out.dtype()));
      target.next();
      from.next();
    }
    storeFrom(out, values);
    return true;
  });
}

// out = x; out[p with p[dim] = index[p]] = src[p] for p over index's shape, in C order.
bool runScatter(KernelCall& call, const IndexingSetup& s) {
  const HostTensor& x = call.inputs[0];
  const Shape& indexShape = call.inputs[1].shape();
  HostTensor& out = call.outputs[0];
  if (!call.expectOutputShape(0, x.shape())) return false;
  // Without a src tensor, the scalar 'value' is written at every index position (one element, broadcast).
  const bool broadcast = call.inputs.size() == 2;
  HostTensor src = broadcast ? HostTensor(out.dtype(), Shape{1}) : call.inputs[2].contiguous();
  if (broadcast) {
    const double* value = call.attr<double>("value");
    if (!value) return call.fail() << "needs a src tensor or a scalar value";
    src.setFromDouble(0, *value);
  }
  if (src.dtype() != out.dtype()) return call.fail() << "src dtype " << name(src.dtype()) << " differs from x's";
  if (!fitsOutside(call, "index", indexShape, "x", x.shape(), s.dim) ||
      (!broadcast && !fitsOutside(call, "index", indexShape, "src", src.shape(), x.rank())))
    return false;
  if (!out.sharesStorageWith(x)) out.copyFrom(x);
  std::vector<std::int64_t> outStrides = out.shape().contiguousStrides();
  const std::int64_t dimStride = outStrides[s.dim];
  outStrides[s.dim] = 0;
  StridedWalker target(indexShape.dims(), outStrides);
  StridedWalker from(indexShape.dims(), broadcast ? std::vector<std::int64_t>(indexShape.rank(), 0)
                                                  : src.shape().contiguousStrides());
  const auto* reduce = call.attr<std::string>("reduce");
  if (reduce && *reduce != "none") return scatterReduce(call, s, *reduce == "multiply", target, from, dimStride, src);
  for (std::int64_t value : s.indices) {
    if (out.elementCount() > 0)
      copyElement(out.data(), target.offset() + value * dimStride, src.data(), from.offset(), out.itemBytes());
    target.next();
    from.next();
  }
  return true;
}

// out = x; out's slice index[k] along dim = src's slice k, or with reduce 'add' (index_add_, index_put_'s
// accumulate) out's slice index[k] += alpha * src's slice k (alpha 1 unless given, rounded to out's dtype), in
// the compute type of out's dtype, the product and each sum rounded to it (a multiply then an add), k in order (so
// repeated indices accumulate in that order).
bool runScatterUpdate(KernelCall& call, const IndexingSetup& s) {
  const HostTensor& x = call.inputs[0];
  const HostTensor src = call.inputs[2].contiguous();
  HostTensor& out = call.outputs[0];
  if (!call.expectOutputShape(0, x.shape())) return false;
  if (call.inputs[1].rank() != 1) return call.fail() << "index must be 1-D, got " << call.inputs[1].shape().str();
  Shape expected = x.shape();
  expected[s.dim] = static_cast<std::int64_t>(s.indices.size());
  if (src.dtype() != out.dtype() || !(src.shape() == expected))
    return call.fail() << "src " << name(src.dtype()) << " " << src.shape().str() << " must be "
                       << name(out.dtype()) << " " << expected.str();
  if (!out.sharesStorageWith(x)) out.copyFrom(x);
  if (out.elementCount() == 0) return true;
  const std::int64_t outer = productOf(x.shape(), 0, s.dim);
  const std::int64_t inner = productOf(x.shape(), s.dim + 1, x.rank());
  const std::int64_t size = x.shape()[s.dim];
  const auto count = static_cast<std::int64_t>(s.indices.size());
  const auto* reduce = call.attr<std::string>("reduce");
  if (reduce && *reduce == "add") {
    const double* alphaAttr = call.attr<double>("alpha");
    return visitComputeType(out.dtype(), [&](auto zero) {
      using C = decltype(zero);
      const auto rounded = [&](C value) {
        if constexpr (std::is_same_v<C, float>)
          if (out.dtype() != DataType::Fp32) return static_cast<C>(roundToDtype(static_cast<double>(value), out.dtype()));
        return value;
      };
      std::vector<C> values = loadAs<C>(out);
      std::vector<C> updates = loadAs<C>(src);
      if (alphaAttr) {
        const C alpha = rounded(static_cast<C>(*alphaAttr));  // a scalar of out's dtype, as PyPTO's Element is
        for (C& update : updates) update = rounded(static_cast<C>(update * alpha));
      }
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t k = 0; k < count; ++k)
          for (std::int64_t i = 0; i < inner; ++i) {
            auto& slot = values[static_cast<std::size_t>((o * size + s.indices[static_cast<std::size_t>(k)]) * inner + i)];
            slot = rounded(static_cast<C>(slot + updates[static_cast<std::size_t>((o * count + k) * inner + i)]));
          }
      storeFrom(out, values);
      return true;
    });
  }
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t k = 0; k < count; ++k)
      for (std::int64_t i = 0; i < inner; ++i)
        copyElement(out.data(), (o * size + s.indices[static_cast<std::size_t>(k)]) * inner + i, src.data(),
                    (o * count + k) * inner + i, out.itemBytes());
  return true;
}

// The paged-cache form (attribute rows): out = x, then row index[i] of out
// (one index over all dims but the last) = row i of src.
bool runScatterRows(KernelCall& call) {
  const HostTensor& x = call.inputs[0];
  HostTensor& out = call.outputs[0];
  if (!call.expectOutputShape(0, x.shape())) return false;
  if (isFloatingPoint(call.inputs[1].dtype()) || call.inputs[1].dtype() == DataType::Bool)
    return call.fail() << "index must be an integer tensor, got " << name(call.inputs[1].dtype());
  if (!out.sharesStorageWith(x)) out.copyFrom(x);
  if (std::string problem = scatterRows(out, call.inputs[1], call.inputs[2]); !problem.empty())
    return call.fail() << problem;
  return true;
}

} // namespace

bool runIndexing(KernelCall& call) {
  if (const auto* rows = call.attr<bool>("rows"); rows && *rows && call.op.kind == TensorOpKind::ScatterUpdate)
    return runScatterRows(call);
  const std::optional<IndexingSetup> s = setup(call);
  if (!s) return false;
  switch (call.op.kind) {
  case TensorOpKind::Gather: return runGather(call, *s);
  case TensorOpKind::IndexSelect: return runIndexSelect(call, *s);
  case TensorOpKind::Scatter: return runScatter(call, *s);
  case TensorOpKind::ScatterUpdate: return runScatterUpdate(call, *s);
  default: return call.fail() << "internal error: not an indexing kernel";
  }
}

} // namespace pto::reference
