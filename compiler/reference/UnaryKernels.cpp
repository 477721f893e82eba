// Unary kernels: neg ... sigmoid, isfinite, logical_not, clip, inverse trigonometry, signbit, bitwise_not,
// and the position-dependent ones: tril/triu (by row and column) and cumsum/cumprod (a scan along a dim).
#include "compiler/reference/Arithmetic.h"
#include "compiler/reference/ElementAccess.h"
#include "compiler/reference/ReferenceKernels.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <span>
#include <type_traits>

namespace pto::reference {
namespace {

template <typename Values, typename F> void mapValues(Values& values, F f) {
  for (auto& value : values) value = f(value);
}

// Ops whose result is not an integer for an integer operand: on integer tensors they compute in double.
bool isFloatMath(TensorOpKind kind) {
  switch (kind) {
  case TensorOpKind::Reciprocal:
  case TensorOpKind::Sqrt:
  case TensorOpKind::Rsqrt:
  case TensorOpKind::Exp:
  case TensorOpKind::Exp2:
  case TensorOpKind::Expm1:
  case TensorOpKind::Log:
  case TensorOpKind::Log1p:
  case TensorOpKind::Sin:
  case TensorOpKind::Cos:
  case TensorOpKind::Tanh:
  case TensorOpKind::Erf:
  case TensorOpKind::Erfc:
  case TensorOpKind::Sigmoid:
  case TensorOpKind::Acos:
  case TensorOpKind::Asin:
  case TensorOpKind::Atan:
    return true;
  default:
    return false;
  }
}

// The float maths ops on float (fp32 compute) or double; false for kinds that are not float maths.
template <typename T> bool applyFloatMath(TensorOpKind kind, std::span<T> values) {
  switch (kind) {
  case TensorOpKind::Reciprocal: mapValues(values, [](T x) { return T(1) / x; }); return true;
  case TensorOpKind::Sqrt: mapValues(values, [](T x) { return std::sqrt(x); }); return true;
  case TensorOpKind::Rsqrt: mapValues(values, [](T x) { return T(1) / std::sqrt(x); }); return true;
  case TensorOpKind::Exp: mapValues(values, [](T x) { return std::exp(x); }); return true;
  case TensorOpKind::Exp2: mapValues(values, [](T x) { return std::exp2(x); }); return true;
  case TensorOpKind::Expm1: mapValues(values, [](T x) { return std::expm1(x); }); return true;
  case TensorOpKind::Log: mapValues(values, [](T x) { return std::log(x); }); return true;
  case TensorOpKind::Log1p: mapValues(values, [](T x) { return std::log1p(x); }); return true;
  case TensorOpKind::Sin: mapValues(values, [](T x) { return std::sin(x); }); return true;
  case TensorOpKind::Cos: mapValues(values, [](T x) { return std::cos(x); }); return true;
  case TensorOpKind::Tanh: mapValues(values, [](T x) { return std::tanh(x); }); return true;
  case TensorOpKind::Erf: mapValues(values, [](T x) { return std::erf(x); }); return true;
  case TensorOpKind::Erfc: mapValues(values, [](T x) { return std::erfc(x); }); return true;
  case TensorOpKind::Sigmoid: mapValues(values, [](T x) { return T(1) / (T(1) + std::exp(-x)); }); return true;
  case TensorOpKind::Acos: mapValues(values, [](T x) { return std::acos(x); }); return true;
  case TensorOpKind::Asin: mapValues(values, [](T x) { return std::asin(x); }); return true;
  case TensorOpKind::Atan: mapValues(values, [](T x) { return std::atan(x); }); return true;
  default: return false;
  }
}

} // namespace

bool applyFloatUnary(TensorOpKind kind, std::span<float> values) {
  if (applyFloatMath<float>(kind, values)) return true;
  switch (kind) {
  case TensorOpKind::Neg: mapValues(values, [](float x) { return -x; }); return true;
  case TensorOpKind::Abs: mapValues(values, [](float x) { return std::fabs(x); }); return true;
  case TensorOpKind::Round: mapValues(values, [](float x) { return std::nearbyint(x); }); return true;  // half to even
  case TensorOpKind::Ceil: mapValues(values, [](float x) { return std::ceil(x); }); return true;
  case TensorOpKind::Floor: mapValues(values, [](float x) { return std::floor(x); }); return true;
  case TensorOpKind::Trunc: mapValues(values, [](float x) { return std::trunc(x); }); return true;
  case TensorOpKind::Sign:
    // NaN and signed zeros stay as they are, as numpy.sign.
    mapValues(values, [](float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : x; });
    return true;
  case TensorOpKind::Relu: mapValues(values, [](float x) { return std::isnan(x) || x > 0.0f ? x : 0.0f; }); return true;
  default: return false;
  }
}

namespace {

struct ClipBounds {
  std::optional<double> low;
  std::optional<double> high;
};

ClipBounds clipBounds(const KernelCall& call) {
  ClipBounds bounds;
  if (const auto* low = call.attr<double>("min")) bounds.low = *low;
  if (const auto* high = call.attr<double>("max")) bounds.high = *high;
  return bounds;
}

bool runFloatUnary(KernelCall& call) {
  const TensorOpKind kind = call.op.kind;
  std::vector<float> values = loadAs<float>(call.inputs[0]);
  HostTensor& out = call.outputs[0];
  if (kind == TensorOpKind::IsFinite || kind == TensorOpKind::LogicalNot || kind == TensorOpKind::Signbit) {
    std::vector<std::int64_t> flags(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
      flags[i] = kind == TensorOpKind::IsFinite     ? std::isfinite(values[i])
                 : kind == TensorOpKind::Signbit ? std::signbit(values[i])  // -0.0 and -NaN too
                                                    : values[i] == 0.0f;
    storeFrom(out, flags);
    return true;
  }
  if (!applyFloatUnary(kind, values)) {
    switch (kind) {
    case TensorOpKind::Clip: {
      const ClipBounds bounds = clipBounds(call);
      const DataType dtype = out.dtype();
      // The bounds are held in the tensor's dtype, like every scalar operand.
      if (bounds.low) {
        const auto low = static_cast<float>(roundToDtype(*bounds.low, dtype));
        mapValues(values, [low](float x) { return FloatArithmetic<float>::max(x, low); });
      }
      if (bounds.high) {
        const auto high = static_cast<float>(roundToDtype(*bounds.high, dtype));
        mapValues(values, [high](float x) { return FloatArithmetic<float>::min(x, high); });
      }
      break;
    }
    default:
      return call.fail() << "internal error: not a unary kernel";
    }
  }
  storeFrom(out, values);
  return true;
}

template <typename C> bool runIntegerUnary(KernelCall& call) {
  const TensorOpKind kind = call.op.kind;
  HostTensor& out = call.outputs[0];
  if (isFloatMath(kind)) {
    std::vector<double> values = loadAs<double>(call.inputs[0]);
    applyFloatMath<double>(kind, values);
    storeFrom(out, values);
    return true;
  }
  std::vector<C> values = loadAs<C>(call.inputs[0]);
  using Arith = IntegerArithmetic<C>;
  switch (kind) {
  case TensorOpKind::IsFinite: mapValues(values, [](C) { return C{1}; }); break;
  case TensorOpKind::LogicalNot: mapValues(values, [](C x) { return x == C{0} ? C{1} : C{0}; }); break;
  case TensorOpKind::Signbit: mapValues(values, [](C x) { return x < C{0} ? C{1} : C{0}; }); break;
  case TensorOpKind::BitwiseNot:
    // A bool's complement is its negation; an integer's wraps into its dtype when stored.
    if (out.dtype() == DataType::Bool) mapValues(values, [](C x) { return x == C{0} ? C{1} : C{0}; });
    else mapValues(values, [](C x) { return static_cast<C>(~x); });
    break;
  case TensorOpKind::Neg: mapValues(values, [](C x) { return Arith::neg(x); }); break;
  case TensorOpKind::Abs: mapValues(values, [](C x) { return x < C{0} ? Arith::neg(x) : x; }); break;
  case TensorOpKind::Round:
  case TensorOpKind::Ceil:
  case TensorOpKind::Floor:
  case TensorOpKind::Trunc: break;  // integers are already integral
  case TensorOpKind::Sign: mapValues(values, [](C x) { return x > C{0} ? C{1} : x == C{0} ? C{0} : Arith::neg(C{1}); }); break;
  case TensorOpKind::Relu: mapValues(values, [](C x) { return x > C{0} ? x : C{0}; }); break;
  case TensorOpKind::Clip: {
    // Compared as doubles; a value outside is replaced by the bound rounded inwards (ceil of the low bound,
    // floor of the high one), so a clip to [0.5, 2.5] gives 1..2.
    const ClipBounds bounds = clipBounds(call);
    if (bounds.low) {
      const double low = *bounds.low;
      const C replacement = saturatingCast<C>(std::ceil(low));
      mapValues(values, [&](C x) { return static_cast<double>(x) < low ? replacement : x; });
    }
    if (bounds.high) {
      const double high = *bounds.high;
      const C replacement = saturatingCast<C>(std::floor(high));
      mapValues(values, [&](C x) { return static_cast<double>(x) > high ? replacement : x; });
    }
    break;
  }
  default:
    return call.fail() << "internal error: not a unary kernel";
  }
  storeFrom(out, values);
  return true;
}

// tril keeps element (.., i, j) where j - i <= diagonal, triu where j - i >= diagonal; the rest is zero. A
// tile's diagonal is shifted by its offsets when it is cut (ExpandFunction), so one rule serves both.
bool runTriangle(KernelCall& call) {
  const HostTensor& in = call.inputs[0];
  HostTensor& out = call.outputs[0];
  // An int, or a run-time value bound to a double (RunTimeScalars).
  const auto* diagonal = call.attr<std::int64_t>("diagonal");
  const auto* bound = call.attr<double>("diagonal");
  const Shape& shape = in.shape();
  if (shape.rank() < 2) return call.fail() << "needs at least 2 dims, got " << shape.str();
  out.copyFrom(in);
  const std::int64_t rows = shape[shape.rank() - 2], columns = shape[shape.rank() - 1];
  const std::int64_t keep = diagonal ? *diagonal : bound ? static_cast<std::int64_t>(*bound) : 0;
  const bool lower = call.op.kind == TensorOpKind::Tril;
  const std::int64_t count = in.elementCount();
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t column = i % columns, row = (i / columns) % rows;
    const bool kept = lower ? column - row <= keep : column - row >= keep;
    if (!kept) out.setFromDouble(i, 0.0);
  }
  return true;
}

// Running sums or products along attr "dim", in C (float data: fp32, rounded once to the output's dtype;
// integers: int64 or uint64, wrapping).
template <typename C> void scan(std::vector<C>& values, const Shape& shape, std::size_t dim, bool product) {
  std::int64_t inner = 1;
  for (std::size_t d = dim + 1; d < shape.rank(); ++d) inner *= shape[d];
  const std::int64_t extent = shape[dim];
  const std::int64_t outer = extent == 0 || inner == 0 ? 0 : static_cast<std::int64_t>(values.size()) / (extent * inner);
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t k = 0; k < inner; ++k) {
      const std::int64_t base = o * extent * inner + k;
      for (std::int64_t step = 1; step < extent; ++step) {
        C& value = values[static_cast<std::size_t>(base + step * inner)];
        const C previous = values[static_cast<std::size_t>(base + (step - 1) * inner)];
        if constexpr (std::is_integral_v<C>) {
          using U = std::make_unsigned_t<C>;  // wraps instead of overflowing
          value = static_cast<C>(product ? static_cast<U>(value) * static_cast<U>(previous)
                                         : static_cast<U>(value) + static_cast<U>(previous));
        } else {
          value = product ? value * previous : value + previous;
        }
      }
    }
}

bool runScan(KernelCall& call) {
  const HostTensor& in = call.inputs[0];
  HostTensor& out = call.outputs[0];
  const auto* dim = call.attr<std::int64_t>("dim");
  const Shape& shape = in.shape();
  if (!dim || *dim < 0 || static_cast<std::size_t>(*dim) >= shape.rank())
    return call.fail() << "internal error: no valid dim attribute for " << shape.str();
  const bool product = call.op.kind == TensorOpKind::Cumprod;
  const auto axis = static_cast<std::size_t>(*dim);
  switch (computeClass(in.dtype())) {
  case ComputeClass::Float: {
    std::vector<float> values = loadAs<float>(in);
    scan(values, shape, axis, product);
    storeFrom(out, values);
    return true;
  }
  case ComputeClass::Unsigned: {
    std::vector<std::uint64_t> values = loadAs<std::uint64_t>(in);
    scan(values, shape, axis, product);
    storeFrom(out, values);
    return true;
  }
  case ComputeClass::Signed: break;
  }
  std::vector<std::int64_t> values = loadAs<std::int64_t>(in);
  scan(values, shape, axis, product);
  storeFrom(out, values);
  return true;
}

// expand_clone: every output element is the input element it broadcasts from (numpy rules), byte for byte.
bool runExpandClone(KernelCall& call) {
  const HostTensor& in = call.inputs[0];
  HostTensor& out = call.outputs[0];
  const std::optional<Shape> broadcast = broadcastShape(in.shape(), out.shape());
  if (!broadcast || !(*broadcast == out.shape()))
    return call.fail() << "internal error: " << in.shape().str() << " does not broadcast to " << out.shape().str();
  // Tiles arrive as views into larger buffers: work on contiguous copies.
  const HostTensor source = in.isContiguous() ? in : in.contiguous();
  HostTensor result(out.dtype(), out.shape());
  const std::vector<std::int64_t> strides = broadcastStrides(in.shape(), out.shape());
  const std::size_t item = out.itemBytes();
  const std::byte* from = source.data();
  std::byte* to = result.data();
  if (out.elementCount() == 0) return true;
  forEachBroadcast<1>(out.shape(), {&strides}, [&](std::int64_t i, const std::array<std::int64_t, 1>& at) {
    std::memcpy(to + static_cast<std::size_t>(i) * item, from + static_cast<std::size_t>(at[0]) * item, item);
  });
  out.copyFrom(result);
  return true;
}

} // namespace

bool runUnary(KernelCall& call) {
  if (call.op.kind == TensorOpKind::ExpandClone) return runExpandClone(call);
  if (!call.expectOutputShape(0, call.inputs[0].shape())) return false;
  switch (call.op.kind) {
  case TensorOpKind::Tril:
  case TensorOpKind::Triu: return runTriangle(call);
  case TensorOpKind::Cumsum:
  case TensorOpKind::Cumprod: return runScan(call);
  default: break;
  }
  switch (computeClass(call.inputs[0].dtype())) {
  case ComputeClass::Float: return runFloatUnary(call);
  case ComputeClass::Unsigned: return runIntegerUnary<std::uint64_t>(call);
  case ComputeClass::Signed: break;
  }
  return runIntegerUnary<std::int64_t>(call);
}

} // namespace pto::reference
