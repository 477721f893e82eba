// Cost classes of vector instructions: instructions of one class cost the
// same per byte, so a machine file gives one factor per class.
#pragma once

#include "core/XMacroEnum.h"

#include <cstddef>
#include <optional>
#include <string_view>

namespace pto {

// X(Enumerator, "name", "members"). The name is the key under
// "vector.cost_factors" in machine files; a factor scales the cycles per
// `vector.bytes_per_cycle` bytes, add = 1.
#define PTO_FOR_EACH_VECTOR_OP_CLASS(X)                                                   \
  X(Add, "add", "add, sub, max, min, abs, relu, compare, select, bitwise ops, shifts, tril/triu and their scalar forms") \
  X(Mul, "mul", "mul, muls")                                                              \
  X(Div, "div", "div, divs, reciprocal")                                                  \
  X(Exp, "exp", "exp, exp2, expm1")                                                       \
  X(Log, "log", "log, log1p")                                                             \
  X(Sqrt, "sqrt", "sqrt, rsqrt")                                                          \
  X(Composite, "composite", "sigmoid, tanh, erf, sin, cos, pow: several instructions")    \
  X(Reduce, "reduce", "cross-lane row reductions: row sum, row max, row min")             \
  X(Cast, "cast", "dtype conversion")                                                     \
  X(Copy, "copy", "copy, duplicate, broadcast within the unified buffer")

PTO_DECLARE_XMACRO_ENUM(VectorOpClass, unsigned char, PTO_FOR_EACH_VECTOR_OP_CLASS);

std::string_view name(VectorOpClass opClass);
// What belongs to the class, for documentation and tooltips.
std::string_view members(VectorOpClass opClass);
std::optional<VectorOpClass> parseVectorOpClass(std::string_view text);

} // namespace pto
