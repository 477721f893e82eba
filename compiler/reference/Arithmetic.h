// Scalar arithmetic of the reference kernels per compute type: IEEE float maths, and integer maths that
// wraps modulo 2^64 (then to the dtype when stored) with numpy's floor division.
//
// Both policies have the same static functions, so a kernel written once over `Arith` serves every dtype.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace pto::reference {

// T is float (the fp32 compute type) or double (float maths on integer tensors).
template <typename T> struct FloatArithmetic {
  using Value = T;
  static T add(T a, T b) { return a + b; }
  static T sub(T a, T b) { return a - b; }
  static T mul(T a, T b) { return a * b; }
  static T div(T a, T b) { return a / b; }
  // NaN propagates, as numpy.maximum/minimum.
  static T max(T a, T b) { return std::isnan(a) ? a : std::isnan(b) ? b : (a < b ? b : a); }
  static T min(T a, T b) { return std::isnan(a) ? a : std::isnan(b) ? b : (b < a ? b : a); }
  static T pow(T a, T b, bool& /*invalid*/) { return std::pow(a, b); }
  static T neg(T a) { return -a; }
};

// C is std::int64_t or std::uint64_t. Overflow wraps (computed on uint64, which C++ defines).
template <typename C> struct IntegerArithmetic {
  using Value = C;
  static C add(C a, C b) { return static_cast<C>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b)); }
  static C sub(C a, C b) { return static_cast<C>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b)); }
  static C mul(C a, C b) { return static_cast<C>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b)); }
  // numpy floor_divide: rounds toward negative infinity; x // 0 is 0; INT64_MIN // -1 wraps to INT64_MIN.
  static C div(C a, C b) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<C>) {
      if (a == std::numeric_limits<C>::min() && b == -1) return a;
      C quotient = a / b;
      if (a % b != 0 && ((a < 0) != (b < 0))) --quotient;
      return quotient;
    } else {
      return a / b;
    }
  }
  static C max(C a, C b) { return a < b ? b : a; }
  static C min(C a, C b) { return b < a ? b : a; }
  // Exact power modulo 2^64. A negative exponent gives what torch's integer pow gives, which PyPTO's
  // goldens use (numpy refuses it): 1 for a base of 1, +-1 for -1 by the exponent's parity, else 0 (the
  // reciprocal truncated toward zero; 0 for a base of 0 as well).
  static C pow(C base, C exponent, bool& /*invalid*/) {
    if constexpr (std::is_signed_v<C>) {
      if (exponent < 0) {
        if (base == C{1}) return C{1};
        if (base == C{-1}) return (exponent % 2 != 0) ? C{-1} : C{1};
        return C{0};
      }
    }
    C result = 1;
    auto remaining = static_cast<std::uint64_t>(exponent);
    while (remaining != 0) {
      if (remaining & 1u) result = mul(result, base);
      base = mul(base, base);
      remaining >>= 1;
    }
    return result;
  }
  static C neg(C a) { return sub(C{0}, a); }
};

// The arithmetic policy of a compute type.
template <typename T>
using ArithmeticOf = std::conditional_t<std::is_floating_point_v<T>, FloatArithmetic<T>, IntegerArithmetic<T>>;

} // namespace pto::reference
