// Shape and dtype inference for every Tensor-graph op kind.
#include "compiler/ir/ShapeInference.h"

#include "core/SymbolicSimplify.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <sstream>

namespace pto {
namespace {

std::string typeString(const TensorType& type) {
  return std::string(name(type.dtype)) + " " + shapeString(type.shape);
}

bool isOne(const SymbolicScalar& dim) { return dim.constantValue() == 1; }

// Builds a failing result from streamed text.
class Failure {
public:
  explicit Failure(TensorOpKind kind) { m_text << name(kind) << ": "; }
  template <typename T> Failure& operator<<(const T& value) {
    m_text << value;
    return *this;
  }
  operator ShapeInferenceResult() const { return ShapeInferenceResult{{}, m_text.str()}; }

private:
  std::ostringstream m_text;
};

template <typename T> const T* findAttr(const Attributes& attrs, const std::string& key) {
  auto found = attrs.find(key);
  return found == attrs.end() ? nullptr : std::get_if<T>(&found->second);
}

// Normalises a possibly negative axis; nullopt when out of range.
std::optional<std::int64_t> normaliseDim(std::int64_t dim, std::size_t rank) {
  std::int64_t r = static_cast<std::int64_t>(rank);
  if (dim < -r || dim >= r) return std::nullopt;
  return dim < 0 ? dim + r : dim;
}

ShapeInferenceResult single(DataType dtype, SymbolicShape shape) {
  return ShapeInferenceResult{{TensorType{dtype, std::move(shape)}}, {}};
}

bool isIntegral(DataType dtype) { return !isFloatingPoint(dtype) && dtype != DataType::Bool; }

// A scalar operand: a constant (double) or a value known when the kernel runs (a SymbolicScalar such as a
// dynamic dim or a loop index, which the interpreters evaluate under the current bindings).
bool hasScalar(const Attributes& attrs, const std::string& key) {
  return findAttr<double>(attrs, key) || findAttr<SymbolicScalar>(attrs, key);
}

ShapeInferenceResult inferElementwise(TensorOpKind kind, const std::vector<TensorType>& inputs, DataType resultType,
                                      bool resultIsInputType) {
  SymbolicShape shape = inputs[0].shape;
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i].dtype != inputs[0].dtype)
      return Failure(kind) << "dtypes differ (" << typeString(inputs[0]) << " and " << typeString(inputs[i])
                           << "); convert one with pypto.cast(x, dtype)";
    auto broadcast = broadcastShapes(shape, inputs[i].shape);
    if (!broadcast)
      return Failure(kind) << "shapes " << shapeString(shape) << " and " << shapeString(inputs[i].shape)
                           << " do not broadcast (trailing dims must be equal or 1)";
    shape = std::move(*broadcast);
  }
  return single(resultIsInputType ? inputs[0].dtype : resultType, std::move(shape));
}

ShapeInferenceResult inferReduce(TensorOpKind kind, const TensorType& input, Attributes& attrs) {
  std::vector<std::int64_t> dims;
  if (const auto* given = findAttr<std::vector<std::int64_t>>(attrs, "dims")) dims = *given;
  else
    for (std::size_t d = 0; d < input.shape.size(); ++d) dims.push_back(static_cast<std::int64_t>(d));
  bool keepdim = false;
  if (const auto* given = findAttr<bool>(attrs, "keepdim")) keepdim = *given;
  std::set<std::int64_t> normalised;
  for (std::int64_t dim : dims) {
    auto axis = normaliseDim(dim, input.shape.size());
    if (!axis)
      return Failure(kind) << "dim " << dim << " is out of range for " << typeString(input) << " (rank "
                           << input.shape.size() << ")";
    if (!normalised.insert(*axis).second) return Failure(kind) << "dim " << dim << " is given twice";
  }
  bool isArg = kind == TensorOpKind::Argmax || kind == TensorOpKind::Argmin;
  if (isArg && normalised.size() != 1) return Failure(kind) << "takes exactly one dim, got " << normalised.size();
  if (input.dtype == DataType::Bool && !isArg) return Failure(kind) << "does not apply to bool tensors";
  attrs["dims"] = std::vector<std::int64_t>(normalised.begin(), normalised.end());
  attrs["keepdim"] = keepdim;
  SymbolicShape shape;
  for (std::size_t d = 0; d < input.shape.size(); ++d) {
    if (!normalised.count(static_cast<std::int64_t>(d))) shape.push_back(input.shape[d]);
    else if (keepdim) shape.push_back(1);
  }
  return single(isArg ? DataType::Int32 : input.dtype, std::move(shape));
}

ShapeInferenceResult inferView(TensorOpKind kind, const TensorType& input, Attributes& attrs) {
  const auto* offsets = findAttr<SymbolicShape>(attrs, "offsets");
  const auto* shape = findAttr<SymbolicShape>(attrs, "shape");
  if (!offsets || !shape) return Failure(kind) << "needs offsets and shape";
  if (offsets->size() != input.shape.size() || shape->size() != input.shape.size())
    return Failure(kind) << "offsets (" << offsets->size() << " dims) and shape (" << shape->size()
                         << " dims) must have the rank of " << typeString(input);
  for (std::size_t d = 0; d < shape->size(); ++d) {
    auto size = (*shape)[d].constantValue();
    auto offset = simplify((*offsets)[d]).constantValue();
    auto full = input.shape[d].constantValue();
    if (size && *size <= 0) return Failure(kind) << "dim " << d << " has size " << *size << "; sizes must be positive";
    if (offset && *offset < 0) return Failure(kind) << "dim " << d << " has negative offset " << *offset;
    // A region reaching past the end is PyPTO's last (or only) block of a loop over view blocks: accepted
    // when valid_shape says how much of it holds data (the run clamps that to the part inside), refused when
    // it starts outside or nothing says which part is valid.
    const bool validGiven = findAttr<SymbolicShape>(attrs, "valid_shape") != nullptr;
    if (size && offset && full && *offset + *size > *full && (!validGiven || *offset >= *full))
      return Failure(kind) << "region [" << *offset << ", " << *offset + *size << ") of dim " << d
                           << " lies outside " << typeString(input)
                           << (validGiven ? "" : "; give valid_shape to say which part of a block past the end holds data");
  }
  // No "valid_shape" here: its absence means "what of the input's valid part the region covers", which
  // only the run can tell (the reference interpreter; TensorValue::validShape records the given one).
  return single(input.dtype, *shape);
}

ShapeInferenceResult inferMatmul(TensorOpKind kind, const std::vector<TensorType>& inputs, Attributes& attrs) {
  const TensorType& a = inputs[0];
  const TensorType& b = inputs[1];
  if (a.shape.size() < 2 || b.shape.size() < 2)
    return Failure(kind) << "needs matrices (rank >= 2), got " << typeString(a) << " and " << typeString(b);
  if (a.dtype != b.dtype)
    return Failure(kind) << "operand dtypes differ (" << typeString(a) << " and " << typeString(b) << ")";
  if (a.dtype == DataType::Bool) return Failure(kind) << "does not apply to bool tensors";
  bool aTrans = false, bTrans = false;
  if (const auto* flag = findAttr<bool>(attrs, "a_trans")) aTrans = *flag;
  if (const auto* flag = findAttr<bool>(attrs, "b_trans")) bTrans = *flag;
  std::size_t ar = a.shape.size(), br = b.shape.size();
  SymbolicScalar m = aTrans ? a.shape[ar - 1] : a.shape[ar - 2];
  SymbolicScalar ka = aTrans ? a.shape[ar - 2] : a.shape[ar - 1];
  SymbolicScalar kb = bTrans ? b.shape[br - 1] : b.shape[br - 2];
  SymbolicScalar n = bTrans ? b.shape[br - 2] : b.shape[br - 1];
  if (!provablyEqual(ka, kb))
    return Failure(kind) << "inner dims differ: " << typeString(a) << (aTrans ? " (transposed)" : "") << " @ "
                         << typeString(b) << (bTrans ? " (transposed)" : "") << " has k = " << ka.str() << " vs "
                         << kb.str();
  SymbolicShape batchA(a.shape.begin(), a.shape.end() - 2), batchB(b.shape.begin(), b.shape.end() - 2);
  auto batch = broadcastShapes(batchA, batchB);
  if (!batch)
    return Failure(kind) << "batch dims " << shapeString(batchA) << " and " << shapeString(batchB)
                         << " do not broadcast";
  DataType outType = a.dtype == DataType::Int8 ? DataType::Int32 : DataType::Fp32;
  if (const auto* given = findAttr<DataType>(attrs, "out_dtype")) outType = *given;
  attrs["out_dtype"] = outType;
  attrs["a_trans"] = aTrans;
  attrs["b_trans"] = bTrans;
  SymbolicShape shape = *batch;
  shape.push_back(m);
  shape.push_back(n);
  return single(outType, std::move(shape));
}

ShapeInferenceResult inferLayout(TensorOpKind kind, const std::vector<TensorType>& inputs, Attributes& attrs) {
  const TensorType& x = inputs[0];
  switch (kind) {
  case TensorOpKind::Reshape: {
    const auto* shape = findAttr<SymbolicShape>(attrs, "shape");
    if (!shape) return Failure(kind) << "needs a shape";
    SymbolicScalar before = 1, after = 1;
    for (const auto& dim : x.shape) before = before * dim;
    for (const auto& dim : *shape) after = after * dim;
    auto b = simplify(before).constantValue(), a = simplify(after).constantValue();
    if ((a && b && *a != *b) || (!a != !b))
      return Failure(kind) << "cannot reshape " << typeString(x) << " to " << shapeString(*shape)
                           << ": element counts differ";
    return single(x.dtype, *shape);
  }
  case TensorOpKind::Transpose: {
    const auto* dims = findAttr<std::vector<std::int64_t>>(attrs, "dims");
    if (!dims || dims->size() != 2) return Failure(kind) << "needs two dims";
    auto d0 = normaliseDim((*dims)[0], x.shape.size()), d1 = normaliseDim((*dims)[1], x.shape.size());
    if (!d0 || !d1) return Failure(kind) << "dims out of range for " << typeString(x);
    attrs["dims"] = std::vector<std::int64_t>{*d0, *d1};
    SymbolicShape shape = x.shape;
    std::swap(shape[static_cast<std::size_t>(*d0)], shape[static_cast<std::size_t>(*d1)]);
    return single(x.dtype, std::move(shape));
  }
  case TensorOpKind::Permute: {
    const auto* dims = findAttr<std::vector<std::int64_t>>(attrs, "dims");
    if (!dims || dims->size() != x.shape.size())
      return Failure(kind) << "needs a permutation of all " << x.shape.size() << " dims of " << typeString(x);
    std::vector<std::int64_t> normalised;
    std::set<std::int64_t> seen;
    SymbolicShape shape;
    for (std::int64_t dim : *dims) {
      auto axis = normaliseDim(dim, x.shape.size());
      if (!axis || !seen.insert(*axis).second)
        return Failure(kind) << "dims must be a permutation of 0.." << x.shape.size() - 1;
      normalised.push_back(*axis);
      shape.push_back(x.shape[static_cast<std::size_t>(*axis)]);
    }
    attrs["dims"] = normalised;
    return single(x.dtype, std::move(shape));
  }
  case TensorOpKind::Unsqueeze: {
    const auto* dim = findAttr<std::int64_t>(attrs, "dim");
    if (!dim) return Failure(kind) << "needs a dim";
    auto axis = normaliseDim(*dim, x.shape.size() + 1);
    if (!axis) return Failure(kind) << "dim " << *dim << " is out of range for " << typeString(x);
    attrs["dim"] = *axis;
    SymbolicShape shape = x.shape;
    shape.insert(shape.begin() + *axis, SymbolicScalar(1));
    return single(x.dtype, std::move(shape));
  }
  case TensorOpKind::Concat: {
    const auto* dim = findAttr<std::int64_t>(attrs, "dim");
    if (!dim) return Failure(kind) << "needs a dim";
    auto axis = normaliseDim(*dim, x.shape.size());
    if (!axis) return Failure(kind) << "dim " << *dim << " is out of range for " << typeString(x);
    attrs["dim"] = *axis;
    SymbolicShape shape = x.shape;
    for (std::size_t i = 1; i < inputs.size(); ++i) {
      if (inputs[i].dtype != x.dtype || inputs[i].shape.size() != x.shape.size())
        return Failure(kind) << "inputs differ: " << typeString(x) << " and " << typeString(inputs[i]);
      for (std::size_t d = 0; d < shape.size(); ++d) {
        if (static_cast<std::int64_t>(d) == *axis) continue;
        if (!provablyEqual(shape[d], inputs[i].shape[d]))
          return Failure(kind) << "inputs differ outside dim " << *axis << ": " << typeString(x) << " and "
                               << typeString(inputs[i]);
      }
      shape[static_cast<std::size_t>(*axis)] =
          simplify(shape[static_cast<std::size_t>(*axis)] + inputs[i].shape[static_cast<std::size_t>(*axis)]);
    }
    return single(x.dtype, std::move(shape));
  }
  case TensorOpKind::Bitcast: {
    // Row-major bytes read as another dtype: only the innermost dim changes,
    // by the ratio of the element sizes (PyPTO's view(x, dtype=) rule).
    const auto* dtype = findAttr<DataType>(attrs, "dtype");
    if (!dtype) return Failure(kind) << "needs a target dtype";
    if (*dtype == DataType::Bool)
      return Failure(kind) << "cannot read bytes as bool (a bool is 0 or 1, any other byte is no bool); compare "
                              "with pypto.ne(x, 0) instead";
    if (x.shape.empty())
      return Failure(kind) << "cannot reinterpret the single element of " << typeString(x)
                           << ": the last dim takes the change in element count; reshape it to [1] first";
    const auto from = static_cast<std::int64_t>(sizeOf(x.dtype)), to = static_cast<std::int64_t>(sizeOf(*dtype));
    SymbolicShape shape = x.shape;
    SymbolicScalar& last = shape.back();
    if (from >= to && from % to == 0) {
      last = simplify(last * (from / to));
    } else {
      auto known = simplify(last).constantValue();
      if (!known)
        return Failure(kind) << "the last dim of " << typeString(x) << " must be known while tracing to be read as "
                             << name(*dtype) << " (" << to << "-byte elements)";
      if (*known * from % to != 0)
        return Failure(kind) << "the last dim of " << typeString(x) << " holds " << *known * from
                             << " bytes, not a whole number of " << to << "-byte " << name(*dtype)
                             << " elements; use a last dim that is a multiple of " << to / std::gcd(from, to);
      last = SymbolicScalar(*known * from / to);
    }
    return single(*dtype, std::move(shape));
  }
  default:
    return Failure(kind) << "is not a layout op";
  }
}

ShapeInferenceResult inferIndexing(TensorOpKind kind, const std::vector<TensorType>& inputs, Attributes& attrs) {
  const TensorType& x = inputs[0];
  const TensorType& index = inputs[1];
  std::int64_t dim = 0;
  if (const auto* given = findAttr<std::int64_t>(attrs, "dim")) dim = *given;
  auto axis = normaliseDim(dim, x.shape.size());
  if (!axis) return Failure(kind) << "dim " << dim << " is out of range for " << typeString(x);
  attrs["dim"] = *axis;
  if (!isIntegral(index.dtype)) return Failure(kind) << "index must be an integer tensor, got " << typeString(index);
  switch (kind) {
  case TensorOpKind::Gather:
    if (index.shape.size() != x.shape.size())
      return Failure(kind) << "index " << typeString(index) << " must have the rank of " << typeString(x);
    return single(x.dtype, index.shape);
  case TensorOpKind::IndexSelect: {
    if (index.shape.size() != 1) return Failure(kind) << "index must be 1-D, got " << typeString(index);
    SymbolicShape shape = x.shape;
    shape[static_cast<std::size_t>(*axis)] = index.shape[0];
    return single(x.dtype, std::move(shape));
  }
  case TensorOpKind::Scatter:
    if (const auto* reduce = findAttr<std::string>(attrs, "reduce"); reduce && *reduce != "none" &&
                                                                     *reduce != "add" && *reduce != "multiply")
      return Failure(kind) << "reduce must be 'add' or 'multiply' (or absent), got '" << *reduce << "'";
    if (inputs.size() == 2) {  // a scalar src, written at every index position
      if (!findAttr<double>(attrs, "value")) return Failure(kind) << "needs a src tensor or a scalar 'value'";
      if (index.shape.size() != x.shape.size())
        return Failure(kind) << "index " << typeString(index) << " must have the rank of " << typeString(x);
      return single(x.dtype, x.shape);
    }
    if (inputs.size() != 3) return Failure(kind) << "takes x, index and src (or a scalar value), got " << inputs.size() << " inputs";
    if (index.shape.size() != x.shape.size() || inputs[2].shape.size() != x.shape.size())
      return Failure(kind) << "index " << typeString(index) << " and src " << typeString(inputs[2])
                           << " must have the rank of " << typeString(x);
    if (inputs[2].dtype != x.dtype) return Failure(kind) << "src dtype differs from " << typeString(x);
    return single(x.dtype, x.shape);
  case TensorOpKind::ScatterUpdate: {
    const TensorType& src = inputs[2];
    if (index.shape.size() != 1) return Failure(kind) << "index must be 1-D, got " << typeString(index);
    if (const auto* rows = findAttr<bool>(attrs, "rows"); rows && *rows) {
      // The paged-cache form: row index[i] of x (one index over all dims but
      // the last) takes row i of src, [n, 1, ..., d] or [n, d].
      if (src.dtype != x.dtype || src.shape.size() < 2 || x.shape.size() < 2 ||
          !provablyEqual(src.shape[0], index.shape[0]) || !provablyEqual(src.shape.back(), x.shape.back()))
        return Failure(kind) << "src " << typeString(src) << " must be " << index.shape[0].str() << " rows of "
                             << typeString(x) << "'s last dim";
      for (std::size_t d = 1; d + 1 < src.shape.size(); ++d)
        if (!provablyEqual(src.shape[d], SymbolicScalar(std::int64_t{1})))
          return Failure(kind) << "src " << typeString(src) << " must be [n, 1, ..., d]";
      return single(x.dtype, x.shape);
    }
    if (src.dtype != x.dtype || src.shape.size() != x.shape.size())
      return Failure(kind) << "src " << typeString(src) << " must match " << typeString(x) << " in dtype and rank";
    if (const auto* reduce = findAttr<std::string>(attrs, "reduce"); reduce && *reduce != "add")
      return Failure(kind) << "reduce must be 'add' (or absent), got '" << *reduce << "'";
    for (std::size_t d = 0; d < x.shape.size(); ++d) {
      const SymbolicScalar& expected = static_cast<std::int64_t>(d) == *axis ? index.shape[0] : x.shape[d];
      if (!provablyEqual(src.shape[d], expected))
        return Failure(kind) << "src " << typeString(src) << " must have " << expected.str() << " in dim " << d;
    }
    return single(x.dtype, x.shape);
  }
  default:
    return Failure(kind) << "is not an indexing op";
  }
}

ShapeInferenceResult inferSort(TensorOpKind kind, const TensorType& x, Attributes& attrs) {
  if (kind == TensorOpKind::Sort32 || kind == TensorOpKind::MrgSort) {
    // PyPTO's sort building blocks (interface/operation/vector/sort.cpp): fp32 only, 1 to 4 dims, along the
    // last dim, whose elements are (value, index) pairs in a sort32 result and in a mrgsort input and result.
    if (x.dtype != DataType::Fp32) return Failure(kind) << "takes float32 (as PyPTO's), got " << typeString(x);
    if (x.shape.empty() || x.shape.size() > 4) return Failure(kind) << "takes 1 to 4 dims, got " << typeString(x);
    attrs["dim"] = static_cast<std::int64_t>(x.shape.size() - 1);
    SymbolicShape shape = x.shape;
    if (kind == TensorOpKind::Sort32) {
      if (!findAttr<std::int64_t>(attrs, "index")) attrs["index"] = std::int64_t{0};
      shape.back() = shape.back() * 2;
      return single(DataType::Fp32, shape);
    }
    const auto* mergeSize = findAttr<std::int64_t>(attrs, "mergesize");
    if (!mergeSize || *mergeSize <= 0) return Failure(kind) << "mergesize must be a positive integer";
    if (auto size = x.shape.back().constantValue(); size && *size % 2 != 0)
      return Failure(kind) << "takes (value, index) pairs along the last dim, an even count; got " << typeString(x);
    return single(DataType::Fp32, shape);
  }
  std::int64_t dim = -1;
  if (const auto* given = findAttr<std::int64_t>(attrs, "dim")) dim = *given;
  auto axis = normaliseDim(dim, x.shape.size());
  if (!axis) return Failure(kind) << "dim " << dim << " is out of range for " << typeString(x);
  attrs["dim"] = *axis;
  if (kind == TensorOpKind::ArgSort) {
    if (!findAttr<bool>(attrs, "descending")) attrs["descending"] = false;
    return single(DataType::Int32, x.shape);
  }
  const auto* k = findAttr<std::int64_t>(attrs, "k");
  if (!k || *k <= 0) return Failure(kind) << "k must be a positive integer";
  auto size = x.shape[static_cast<std::size_t>(*axis)].constantValue();
  if (size && *k > *size) return Failure(kind) << "k = " << *k << " exceeds dim " << *axis << " of " << typeString(x);
  if (!findAttr<bool>(attrs, "largest")) attrs["largest"] = true;
  SymbolicShape shape = x.shape;
  shape[static_cast<std::size_t>(*axis)] = *k;
  return ShapeInferenceResult{{TensorType{x.dtype, shape}, TensorType{DataType::Int32, shape}}, {}};
}

// quantize(x, scale): otype = saturate(rint(x * scale)); dequantize(q, scale): (float(q)) * scale. `axis` is the
// axis the scales run along the other way: a scale per row for axis = -1 ([..., row, 1]), per column for
// axis = -2 ([..., 1, col]). The frontend gives scale the rank of x with a 1 at `axis`; any shape that
// broadcasts to x without growing it is accepted.
ShapeInferenceResult inferQuantize(TensorOpKind kind, const std::vector<TensorType>& inputs, Attributes& attrs) {
  const TensorType& x = inputs[0];
  const TensorType& scale = inputs[1];
  const bool quantize = kind == TensorOpKind::Quantize;
  std::int64_t axis = -1;
  if (const auto* given = findAttr<std::int64_t>(attrs, "axis")) axis = *given;
  auto normalised = normaliseDim(axis, x.shape.size());
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  if (!normalised || (*normalised != rank - 1 && *normalised != rank - 2))
    return Failure(kind) << "axis " << axis << " must be one of the last two dims of " << typeString(x)
                         << (rank == 1 ? " (a 1-D input takes -1 only)" : " (-1 or -2)");
  attrs["axis"] = *normalised;
  if (!isFloatingPoint(scale.dtype)) return Failure(kind) << "scale must be a float tensor, got " << typeString(scale);
  auto broadcast = broadcastShapes(x.shape, scale.shape);
  bool fits = broadcast && scale.shape.size() == x.shape.size();
  for (std::size_t d = 0; fits && d < x.shape.size(); ++d) fits = provablyEqual((*broadcast)[d], x.shape[d]);
  if (!fits)
    return Failure(kind) << "scale " << typeString(scale) << " does not broadcast to " << typeString(x)
                         << "; give one scale per " << (*normalised == rank - 1 ? "row" : "column")
                         << " with a 1 in dim " << *normalised;
  const auto* otype = findAttr<DataType>(attrs, "otype");
  if (quantize) {
    if (!isFloatingPoint(x.dtype)) return Failure(kind) << "needs a float input, got " << typeString(x);
    DataType out = otype ? *otype : DataType::Int8;
    if (out != DataType::Int8 && out != DataType::UInt8)
      return Failure(kind) << "otype must be DT_INT8 (symmetric) or DT_UINT8 (with zero points), got " << name(out);
    attrs["otype"] = out;
    return single(out, x.shape);
  }
  if (x.dtype != DataType::Int8 && x.dtype != DataType::UInt8 && x.dtype != DataType::Int16 &&
      x.dtype != DataType::Int32)
    return Failure(kind) << "needs an int8, uint8, int16 or int32 input, got " << typeString(x);
  DataType out = otype ? *otype : DataType::Fp32;
  if (!isFloatingPoint(out)) return Failure(kind) << "otype must be a float dtype, got " << name(out);
  attrs["otype"] = out;
  return single(out, x.shape);
}

// Bitwise ops, shifts and gcd take integer tensors (bitwise_not, and, or
// and xor bool ones too, as torch does).
bool takesIntegersOnly(TensorOpKind kind) {
  switch (kind) {
  case TensorOpKind::BitwiseNot:
  case TensorOpKind::BitwiseAnd:
  case TensorOpKind::BitwiseOr:
  case TensorOpKind::BitwiseXor:
  case TensorOpKind::ShiftLeft:
  case TensorOpKind::ShiftRight:
  case TensorOpKind::Gcd:
  case TensorOpKind::BitwiseAndS:
  case TensorOpKind::BitwiseOrS:
  case TensorOpKind::BitwiseXorS:
  case TensorOpKind::ShiftLeftS:
  case TensorOpKind::ShiftRightS:
  case TensorOpKind::RShiftLeftS:
  case TensorOpKind::RShiftRightS:
  case TensorOpKind::GcdS:
    return true;
  default:
    return false;
  }
}

bool takesBool(TensorOpKind kind) {
  return kind == TensorOpKind::BitwiseNot || kind == TensorOpKind::BitwiseAnd || kind == TensorOpKind::BitwiseOr ||
         kind == TensorOpKind::BitwiseXor;
}

// Inverse trigonometry has no integer form in PyPTO (fp32, fp16, bf16).
bool takesFloatsOnly(TensorOpKind kind) {
  return kind == TensorOpKind::Acos || kind == TensorOpKind::Asin || kind == TensorOpKind::Atan ||
         kind == TensorOpKind::Atan2;
}

// The operand dtype rules of the kinds above; nullopt when the dtype is fine.
std::optional<ShapeInferenceResult> checkOperandClass(TensorOpKind kind, const TensorType& input) {
  if (takesIntegersOnly(kind) && (isFloatingPoint(input.dtype) || (input.dtype == DataType::Bool && !takesBool(kind))))
    return ShapeInferenceResult(Failure(kind) << "needs integer tensors, got " << typeString(input)
                                              << "; cast with pypto.cast(x, pypto.DT_INT32) first");
  if (takesFloatsOnly(kind) && !isFloatingPoint(input.dtype))
    return ShapeInferenceResult(Failure(kind) << "needs a float tensor (fp32, fp16 or bf16), got " << typeString(input)
                                              << "; cast with pypto.cast(x, pypto.DT_FP32) first");
  return std::nullopt;
}

// tril/triu: a matrix (or a batch of them) and an integer diagonal.
ShapeInferenceResult inferTriangle(TensorOpKind kind, const TensorType& input, Attributes& attrs) {
  if (input.shape.size() < 2)
    return Failure(kind) << "needs a tensor of at least 2 dims (a matrix or a batch of them), got " << typeString(input);
  if (input.dtype == DataType::Bool) return Failure(kind) << "does not apply to bool tensors";
  if (!findAttr<std::int64_t>(attrs, "diagonal") && !findAttr<SymbolicScalar>(attrs, "diagonal"))
    attrs["diagonal"] = std::int64_t{0};
  return single(input.dtype, input.shape);
}

// cumsum/cumprod along attr "dim": integer inputs give int64, as in PyPTO and torch.
ShapeInferenceResult inferScan(TensorOpKind kind, const TensorType& input, Attributes& attrs) {
  const auto* dim = findAttr<std::int64_t>(attrs, "dim");
  if (!dim) return Failure(kind) << "needs a dim";
  const auto axis = normaliseDim(*dim, input.shape.size());
  if (!axis)
    return Failure(kind) << "dim " << *dim << " is out of range for " << typeString(input) << " (rank "
                         << input.shape.size() << ")";
  attrs["dim"] = *axis;
  if (input.dtype == DataType::Bool) return Failure(kind) << "does not apply to bool tensors";
  return single(isFloatingPoint(input.dtype) ? input.dtype : DataType::Int64, input.shape);
}

} // namespace

std::optional<SymbolicShape> broadcastShapes(const SymbolicShape& a, const SymbolicShape& b) {
  std::size_t rank = std::max(a.size(), b.size());
  SymbolicShape result(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const SymbolicScalar* da = i < a.size() ? &a[a.size() - 1 - i] : nullptr;
    const SymbolicScalar* db = i < b.size() ? &b[b.size() - 1 - i] : nullptr;
    SymbolicScalar& out = result[rank - 1 - i];
    if (!da) out = *db;
    else if (!db) out = *da;
    else if (isOne(*da)) out = *db;
    else if (isOne(*db)) out = *da;
    else if (provablyEqual(*da, *db)) out = *da;
    else return std::nullopt;
  }
  return result;
}

ShapeInferenceResult inferShapes(TensorOpKind kind, const std::vector<TensorType>& inputs, Attributes& attrs) {
  int expected = inputCount(kind);
  if (expected >= 0 && static_cast<int>(inputs.size()) != expected)
    return Failure(kind) << "takes " << expected << " tensor input" << (expected == 1 ? "" : "s") << ", got "
                         << inputs.size();
  switch (category(kind)) {
  case OpCategory::Unary:
    if (kind == TensorOpKind::Cast) {
      const auto* dtype = findAttr<DataType>(attrs, "dtype");
      if (!dtype) return Failure(kind) << "needs a target dtype";
      if (!findAttr<std::string>(attrs, "mode")) attrs["mode"] = std::string("rint");
      return single(*dtype, inputs[0].shape);
    }
    if (kind == TensorOpKind::IsFinite || kind == TensorOpKind::LogicalNot)
      return single(DataType::Bool, inputs[0].shape);
    if (auto refused = checkOperandClass(kind, inputs[0])) return std::move(*refused);
    if (kind == TensorOpKind::Tril || kind == TensorOpKind::Triu) return inferTriangle(kind, inputs[0], attrs);
    if (kind == TensorOpKind::Cumsum || kind == TensorOpKind::Cumprod) return inferScan(kind, inputs[0], attrs);
    if (kind == TensorOpKind::Signbit) {
      if (inputs[0].dtype == DataType::Bool) return Failure(kind) << "does not apply to bool tensors";
      return single(DataType::Bool, inputs[0].shape);
    }
    if (kind == TensorOpKind::BitwiseNot) return single(inputs[0].dtype, inputs[0].shape);
    if (kind == TensorOpKind::ExpandClone) {
      const auto* shape = findAttr<SymbolicShape>(attrs, "shape");
      if (!shape) return Failure(kind) << "needs a shape";
      const auto broadcast = broadcastShapes(inputs[0].shape, *shape);
      if (!broadcast || broadcast->size() != shape->size() || shapeString(*broadcast) != shapeString(*shape))
        return Failure(kind) << typeString(inputs[0]) << " does not broadcast to " << shapeString(*shape)
                             << " (each dim must equal the target's or be 1)";
      return single(inputs[0].dtype, *shape);
    }
    if (inputs[0].dtype == DataType::Bool)
      return Failure(kind) << "does not apply to bool tensors (" << typeString(inputs[0]) << ")";
    return single(inputs[0].dtype, inputs[0].shape);
  case OpCategory::Binary:
    if ((kind == TensorOpKind::LogicalAnd || kind == TensorOpKind::LogicalOr) && inputs[0].dtype != DataType::Bool)
      return Failure(kind) << "needs bool tensors, got " << typeString(inputs[0]);
    for (const TensorType& input : inputs)
      if (auto refused = checkOperandClass(kind, input)) return std::move(*refused);
    return inferElementwise(kind, inputs, inputs[0].dtype, true);
  case OpCategory::BinaryScalar:
    if (!hasScalar(attrs, "scalar")) return Failure(kind) << "needs a scalar";
    if (auto refused = checkOperandClass(kind, inputs[0])) return std::move(*refused);
    if (inputs[0].dtype == DataType::Bool) return Failure(kind) << "does not apply to bool tensors";
    if (const auto* scalar = findAttr<double>(attrs, "scalar"); scalar && takesIntegersOnly(kind)) {
      if (std::trunc(*scalar) != *scalar) return Failure(kind) << "needs an integer scalar, got " << *scalar;
      if (*scalar < 0 && !isSigned(inputs[0].dtype))
        return Failure(kind) << "a negative scalar (" << *scalar << ") with an unsigned tensor ("
                             << typeString(inputs[0]) << ")";
    }
    return single(inputs[0].dtype, inputs[0].shape);
  case OpCategory::Compare:
    return inferElementwise(kind, inputs, DataType::Bool, false);
  case OpCategory::CompareScalar:
    if (!hasScalar(attrs, "scalar")) return Failure(kind) << "needs a scalar";
    return single(DataType::Bool, inputs[0].shape);
  case OpCategory::Select: {
    std::size_t tensorOperands = 2 - (attrs.count("x") ? 1 : 0) - (attrs.count("y") ? 1 : 0);
    if (inputs.size() != 1 + tensorOperands)
      return Failure(kind) << "takes a condition and two operands (tensors or scalars)";
    if (inputs[0].dtype != DataType::Bool) return Failure(kind) << "condition must be bool, got " << typeString(inputs[0]);
    SymbolicShape shape = inputs[0].shape;
    for (std::size_t i = 1; i < inputs.size(); ++i) {
      auto broadcast = broadcastShapes(shape, inputs[i].shape);
      if (!broadcast)
        return Failure(kind) << "shapes " << shapeString(shape) << " and " << shapeString(inputs[i].shape)
                             << " do not broadcast";
      shape = *broadcast;
    }
    if (inputs.size() == 3 && inputs[1].dtype != inputs[2].dtype)
      return Failure(kind) << "operand dtypes differ (" << typeString(inputs[1]) << " and " << typeString(inputs[2])
                           << ")";
    DataType dtype = inputs.size() > 1 ? inputs[1].dtype : DataType::Fp32;
    if (const auto* given = findAttr<DataType>(attrs, "dtype")) dtype = *given;
    return single(dtype, std::move(shape));
  }
  case OpCategory::Reduce:
    return inferReduce(kind, inputs[0], attrs);
  case OpCategory::Layout:
    if (inputs.empty()) return Failure(kind) << "needs at least one input";
    return inferLayout(kind, inputs, attrs);
  case OpCategory::Memory:
    if (kind == TensorOpKind::View) return inferView(kind, inputs[0], attrs);
    return single(inputs[0].dtype, inputs[0].shape);  // assemble/copy: the written region has the source's type
  case OpCategory::Creation: {
    const auto* dtype = findAttr<DataType>(attrs, "dtype");
    if (!dtype) return Failure(kind) << "needs a dtype";
    if (kind == TensorOpKind::Arange) {
      const auto* size = findAttr<std::int64_t>(attrs, "size");
      if (!size || *size <= 0) return Failure(kind) << "needs a positive size";
      return single(*dtype, {SymbolicScalar(*size)});
    }
    const auto* shape = findAttr<SymbolicShape>(attrs, "shape");
    if (!shape) return Failure(kind) << "needs a shape";
    for (const auto& dim : *shape)
      if (auto value = dim.constantValue(); value && *value <= 0)
        return Failure(kind) << "shape " << shapeString(*shape) << " has a non-positive dim";
    return single(*dtype, *shape);
  }
  case OpCategory::Indexing:
    return inferIndexing(kind, inputs, attrs);
  case OpCategory::Sort:
    return inferSort(kind, inputs[0], attrs);
  case OpCategory::Matmul:
    return inferMatmul(kind, inputs, attrs);
  case OpCategory::Quantize:
    return inferQuantize(kind, inputs, attrs);
  }
  return Failure(kind) << "has no shape rule";
}

} // namespace pto
