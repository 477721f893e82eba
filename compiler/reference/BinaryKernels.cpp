// Binary elementwise kernels: arithmetic and comparisons of two broadcast tensors or of a tensor and a scalar.
#include "compiler/reference/Arithmetic.h"
#include "compiler/reference/ElementAccess.h"
#include "compiler/reference/ReferenceKernels.h"

#include <cmath>
#include <numeric>
#include <optional>
#include <span>
#include <type_traits>

namespace pto::reference {
namespace {

// out[i] = f(a[...], b[...]) over the broadcast shape, with a flat loop when nothing broadcasts.
template <typename T, typename R, typename F>
void broadcastApply(const std::vector<T>& a, const Shape& aShape, const std::vector<T>& b, const Shape& bShape,
                    const Shape& outShape, std::vector<R>& out, F f) {
  if (aShape == outShape && bShape == outShape) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = f(a[i], b[i]);
    return;
  }
  const std::vector<std::int64_t> aStrides = broadcastStrides(aShape, outShape);
  const std::vector<std::int64_t> bStrides = broadcastStrides(bShape, outShape);
  forEachBroadcast<2>(outShape, {&aStrides, &bStrides},
                      [&](std::int64_t i, const std::array<std::int64_t, 2>& at) { out[i] = f(a[at[0]], b[at[1]]); });
}

// Comparison of two values as 0/1; false for kinds that are not comparisons. Float NaN compares unequal
// to everything, as IEEE and numpy say.
template <typename T, typename Apply> bool applyComparison(TensorOpKind kind, Apply apply) {
  switch (kind) {
  case TensorOpKind::Eq:
  case TensorOpKind::EqS: apply([](T x, T y) -> std::int64_t { return x == y; }); return true;
  case TensorOpKind::Ne:
  case TensorOpKind::NeS: apply([](T x, T y) -> std::int64_t { return x != y; }); return true;
  case TensorOpKind::Gt:
  case TensorOpKind::GtS: apply([](T x, T y) -> std::int64_t { return x > y; }); return true;
  case TensorOpKind::Ge:
  case TensorOpKind::GeS: apply([](T x, T y) -> std::int64_t { return x >= y; }); return true;
  case TensorOpKind::Lt:
  case TensorOpKind::LtS: apply([](T x, T y) -> std::int64_t { return x < y; }); return true;
  case TensorOpKind::Le:
  case TensorOpKind::LeS: apply([](T x, T y) -> std::int64_t { return x <= y; }); return true;
  default: return false;
  }
}

// Shifts as torch (2.1 and later) gives them: a count outside [0, width) shifts everything out, so a left
// shift gives 0 and a right shift the sign (0 or -1); C leaves both undefined. Values are computed in 64 bits
// and wrap into the dtype when stored, so counts of the dtype's width up to 63 come out the same way.
template <typename C> C shiftLeft(C value, C count) {
  if (count < C{0} || count >= C{64}) return C{0};
  return static_cast<C>(static_cast<std::uint64_t>(value) << static_cast<unsigned>(count));
}
template <typename C> C shiftRight(C value, C count) {
  if (count < C{0} || count >= C{64}) return value < C{0} ? static_cast<C>(-1) : C{0};
  return static_cast<C>(value >> static_cast<unsigned>(count));  // arithmetic for signed values (C++20)
}
// numpy.gcd: never negative, gcd(0, 0) = 0.
template <typename C> C greatestCommonDivisor(C a, C b) {
  using U = std::make_unsigned_t<C>;
  auto magnitude = [](C x) { return x < C{0} ? static_cast<U>(U{0} - static_cast<U>(x)) : static_cast<U>(x); };
  return static_cast<C>(std::gcd(magnitude(a), magnitude(b)));
}

// The integer-only ops of two values; false for other kinds (and for float data, which shape inference
// refuses for them).
template <typename T, typename Apply> bool applyIntegerOp(TensorOpKind kind, Apply apply) {
  if constexpr (!std::is_integral_v<T>) {
    return false;
  } else {
    switch (kind) {
    case TensorOpKind::BitwiseAnd: apply([](T u, T v) { return static_cast<T>(u & v); }); return true;
    case TensorOpKind::BitwiseOr: apply([](T u, T v) { return static_cast<T>(u | v); }); return true;
    case TensorOpKind::BitwiseXor: apply([](T u, T v) { return static_cast<T>(u ^ v); }); return true;
    case TensorOpKind::ShiftLeft: apply([](T u, T v) { return shiftLeft(u, v); }); return true;
    case TensorOpKind::ShiftRight: apply([](T u, T v) { return shiftRight(u, v); }); return true;
    case TensorOpKind::Gcd: apply([](T u, T v) { return greatestCommonDivisor(u, v); }); return true;
    default: return false;
    }
  }
}

// Calls apply(f) with f(u, v) the arithmetic of `kind` (add ... minimum) in T; false for other kinds.
template <typename T, typename Apply> bool applyArithmetic(TensorOpKind kind, Apply apply) {
  using Arith = ArithmeticOf<T>;
  switch (kind) {
  case TensorOpKind::Add: apply([](T u, T v) { return Arith::add(u, v); }); return true;
  case TensorOpKind::Sub: apply([](T u, T v) { return Arith::sub(u, v); }); return true;
  case TensorOpKind::Mul: apply([](T u, T v) { return Arith::mul(u, v); }); return true;
  case TensorOpKind::Div: apply([](T u, T v) { return Arith::div(u, v); }); return true;
  case TensorOpKind::Maximum: apply([](T u, T v) { return Arith::max(u, v); }); return true;
  case TensorOpKind::Minimum: apply([](T u, T v) { return Arith::min(u, v); }); return true;
  default: return false;
  }
}

template <typename T> bool runBinaryTyped(KernelCall& call) {
  using Arith = ArithmeticOf<T>;
  const HostTensor& a = call.inputs[0];
  const HostTensor& b = call.inputs[1];
  HostTensor& out = call.outputs[0];
  const std::vector<T> x = loadAs<T>(a);
  const std::vector<T> y = loadAs<T>(b);
  const Shape& outShape = out.shape();
  const auto count = static_cast<std::size_t>(out.elementCount());
  if (category(call.op.kind) == OpCategory::Compare) {
    std::vector<std::int64_t> flags(count);
    applyComparison<T>(call.op.kind, [&](auto f) { broadcastApply(x, a.shape(), y, b.shape(), outShape, flags, f); });
    storeFrom(out, flags);
    return true;
  }
  std::vector<T> result(count);
  auto apply = [&](auto f) { broadcastApply(x, a.shape(), y, b.shape(), outShape, result, f); };
  switch (call.op.kind) {
  case TensorOpKind::LogicalAnd: apply([](T u, T v) { return u != T{0} && v != T{0} ? T{1} : T{0}; }); break;
  case TensorOpKind::LogicalOr: apply([](T u, T v) { return u != T{0} || v != T{0} ? T{1} : T{0}; }); break;
  case TensorOpKind::Atan2:
    if constexpr (std::is_floating_point_v<T>) apply([](T u, T v) { return std::atan2(u, v); });
    else return call.fail() << "internal error: atan2 of integers";
    break;
  case TensorOpKind::Pow: {
    bool unused = false;
    apply([&](T u, T v) { return Arith::pow(u, v, unused); });
    break;
  }
  default:
    if (!applyArithmetic<T>(call.op.kind, apply) && !applyIntegerOp<T>(call.op.kind, apply))
      return call.fail() << "internal error: not a binary kernel";
  }
  storeFrom(out, result);
  return true;
}

// The arithmetic scalar ops (add ... minimum, pow and their reversed forms) on `values` in T, the scalar
// already in T; false for other kinds.
template <typename T, typename Values> bool applyScalarArithmetic(TensorOpKind kind, Values& values, T s) {
  using Arith = ArithmeticOf<T>;
  auto map = [&](auto f) {
    for (T& value : values) value = f(value);
  };
  switch (kind) {
  case TensorOpKind::AddS: map([s](T x) { return Arith::add(x, s); }); return true;
  case TensorOpKind::SubS: map([s](T x) { return Arith::sub(x, s); }); return true;
  case TensorOpKind::RSubS: map([s](T x) { return Arith::sub(s, x); }); return true;
  case TensorOpKind::MulS: map([s](T x) { return Arith::mul(x, s); }); return true;
  case TensorOpKind::DivS: map([s](T x) { return Arith::div(x, s); }); return true;
  case TensorOpKind::RDivS: map([s](T x) { return Arith::div(s, x); }); return true;
  case TensorOpKind::MaximumS: map([s](T x) { return Arith::max(x, s); }); return true;
  case TensorOpKind::MinimumS: map([s](T x) { return Arith::min(x, s); }); return true;
  case TensorOpKind::PowS:
  case TensorOpKind::RPowS: {
    const bool reversed = kind == TensorOpKind::RPowS;
    bool unused = false;
    for (T& value : values) value = reversed ? Arith::pow(s, value, unused) : Arith::pow(value, s, unused);
    return true;
  }
  default:
    return false;
  }
}

// The scalar ops on values of type T with the scalar already in T.
template <typename T> bool applyScalarOp(const KernelCall& call, std::vector<T>& values, T s) {
  if (applyScalarArithmetic(call.op.kind, values, s)) return true;
  auto map = [&](auto f) {
    for (T& value : values) value = f(value);
  };
  if constexpr (std::is_integral_v<T>) {
    switch (call.op.kind) {
    case TensorOpKind::BitwiseAndS: map([s](T x) { return static_cast<T>(x & s); }); return true;
    case TensorOpKind::BitwiseOrS: map([s](T x) { return static_cast<T>(x | s); }); return true;
    case TensorOpKind::BitwiseXorS: map([s](T x) { return static_cast<T>(x ^ s); }); return true;
    case TensorOpKind::ShiftLeftS: map([s](T x) { return shiftLeft(x, s); }); return true;
    case TensorOpKind::ShiftRightS: map([s](T x) { return shiftRight(x, s); }); return true;
    case TensorOpKind::RShiftLeftS: map([s](T x) { return shiftLeft(s, x); }); return true;
    case TensorOpKind::RShiftRightS: map([s](T x) { return shiftRight(s, x); }); return true;
    case TensorOpKind::GcdS: map([s](T x) { return greatestCommonDivisor(x, s); }); return true;
    default: break;
    }
  }
  return call.fail() << "internal error: not a tensor-scalar kernel";
}

// Tensor-scalar op computed in T, the scalar converted to T.
template <typename T> bool runScalarTyped(KernelCall& call, T s) {
  const HostTensor& x = call.inputs[0];
  HostTensor& out = call.outputs[0];
  std::vector<T> values = loadAs<T>(x);
  if (category(call.op.kind) == OpCategory::CompareScalar) {
    std::vector<std::int64_t> flags(values.size());
    applyComparison<T>(call.op.kind, [&](auto f) {
      for (std::size_t i = 0; i < values.size(); ++i) flags[i] = f(values[i], s);
    });
    storeFrom(out, flags);
    return true;
  }
  if (!applyScalarOp(call, values, s)) return false;
  storeFrom(out, values);
  return true;
}

// An integral scalar that C holds exactly.
template <typename C> bool fitsExactly(double scalar) {
  if (std::trunc(scalar) != scalar) return false;
  if constexpr (std::is_signed_v<C>) return scalar >= -0x1p63 && scalar < 0x1p63;
  else return scalar >= 0.0 && scalar < 0x1p64;
}

} // namespace

bool runBinary(KernelCall& call) {
  const HostTensor& a = call.inputs[0];
  const HostTensor& b = call.inputs[1];
  const Shape& outShape = call.outputs[0].shape();
  const std::optional<Shape> expected = broadcastShape(a.shape(), b.shape());
  if (!expected || !(*expected == outShape))
    return call.fail() << "internal error: shapes " << a.shape().str() << " and " << b.shape().str()
                       << " do not broadcast to the output's " << outShape.str();
  if (a.dtype() != b.dtype())
    return call.fail() << "internal error: operand dtypes differ (" << name(a.dtype()) << " and " << name(b.dtype())
                       << ")";
  return visitComputeType(a.dtype(), [&](auto tag) { return runBinaryTyped<decltype(tag)>(call); });
}

bool runBinaryScalar(KernelCall& call) {
  const HostTensor& x = call.inputs[0];
  if (!call.expectOutputShape(0, x.shape())) return false;
  const double* scalar = call.attr<double>("scalar");
  if (!scalar) return call.fail() << "internal error: no scalar attribute";
  switch (computeClass(x.dtype())) {
  case ComputeClass::Float:
    // The vector unit holds the scalar in the tensor's dtype (and numpy rounds a Python float so too).
    return runScalarTyped<float>(call, static_cast<float>(roundToDtype(*scalar, x.dtype())));
  case ComputeClass::Unsigned:
    if (fitsExactly<std::uint64_t>(*scalar)) return runScalarTyped<std::uint64_t>(call, static_cast<std::uint64_t>(*scalar));
    return runScalarTyped<double>(call, *scalar);
  case ComputeClass::Signed:
    break;
  }
  if (fitsExactly<std::int64_t>(*scalar)) return runScalarTyped<std::int64_t>(call, static_cast<std::int64_t>(*scalar));
  return runScalarTyped<double>(call, *scalar);
}

bool applyFloatArithmetic(TensorOpKind kind, std::span<float> a, std::span<const float> b) {
  return applyArithmetic<float>(kind, [&](auto f) {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = f(a[i], b[i]);
  });
}

bool applyFloatScalarArithmetic(TensorOpKind kind, std::span<float> values, float scalar) {
  return applyScalarArithmetic(kind, values, scalar);
}

} // namespace pto::reference
