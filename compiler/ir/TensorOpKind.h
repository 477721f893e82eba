// The operations of the Tensor graph: one list, from which the enum, the
// names and the per-kind facts are derived.
#pragma once

#include "core/XMacroEnum.h"

#include <cstddef>
#include <optional>
#include <string_view>

namespace pto {

// How an op relates its inputs to its outputs; shape inference, the
// reference interpreter and tiling dispatch on it.
enum class OpCategory : unsigned char {
  Unary,          // y = f(x), same shape
  Binary,         // z = f(x, y), numpy broadcasting
  BinaryScalar,   // y = f(x, attr "scalar"), same shape
  Compare,        // z = x <op> y -> bool, broadcasting
  CompareScalar,  // y = x <op> scalar -> bool
  Select,         // where(cond, a, b)
  Reduce,         // over attr "dims", attr "keepdim"
  Layout,         // reshape, transpose, permute, unsqueeze, concat, bitcast
  Memory,         // view, assemble, copy: move or alias data
  Creation,       // full, arange: no inputs
  Indexing,       // gather, scatter families
  Sort,           // topk, argsort, sort32, mrgsort
  Matmul,
  Quantize,
};

// X(Enumerator, "name", category, inputs, outputs); inputs -1 = variadic.
// "name" is what dumps, the CLI and PyPTO users see (PyPTO's spelling).
#define PTO_FOR_EACH_TENSOR_OP(X)                       \
  /* unary elementwise */                                \
  X(Neg, "neg", Unary, 1, 1)                             \
  X(Abs, "abs", Unary, 1, 1)                             \
  X(Reciprocal, "reciprocal", Unary, 1, 1)               \
  X(Sqrt, "sqrt", Unary, 1, 1)                           \
  X(Rsqrt, "rsqrt", Unary, 1, 1)                         \
  X(Exp, "exp", Unary, 1, 1)                             \
  X(Exp2, "exp2", Unary, 1, 1)                           \
  X(Expm1, "expm1", Unary, 1, 1)                         \
  X(Log, "log", Unary, 1, 1)                             \
  X(Log1p, "log1p", Unary, 1, 1)                         \
  X(Sin, "sin", Unary, 1, 1)                             \
  X(Cos, "cos", Unary, 1, 1)                             \
  X(Tanh, "tanh", Unary, 1, 1)                           \
  X(Erf, "erf", Unary, 1, 1)                             \
  X(Erfc, "erfc", Unary, 1, 1)                           \
  X(Round, "round", Unary, 1, 1)                         \
  X(Ceil, "ceil", Unary, 1, 1)                           \
  X(Floor, "floor", Unary, 1, 1)                         \
  X(Trunc, "trunc", Unary, 1, 1)                         \
  X(Sign, "sign", Unary, 1, 1)                           \
  X(Relu, "relu", Unary, 1, 1)                           \
  X(Sigmoid, "sigmoid", Unary, 1, 1)                     \
  X(IsFinite, "isfinite", Unary, 1, 1)                   \
  X(LogicalNot, "logical_not", Unary, 1, 1)              \
  X(Clip, "clip", Unary, 1, 1)                           \
  X(Acos, "acos", Unary, 1, 1)                           \
  X(Asin, "asin", Unary, 1, 1)                           \
  X(Atan, "atan", Unary, 1, 1)                           \
  X(Signbit, "signbit", Unary, 1, 1)                     \
  X(BitwiseNot, "bitwise_not", Unary, 1, 1)              \
  /* position-dependent: attr "diagonal" (per tile: */   \
  /* shifted by the tile's row and column offsets) */    \
  X(Tril, "tril", Unary, 1, 1)                           \
  X(Triu, "triu", Unary, 1, 1)                           \
  /* scans along attr "dim"; a tile spans the dim */     \
  X(Cumsum, "cumsum", Unary, 1, 1)                       \
  X(Cumprod, "cumprod", Unary, 1, 1)                     \
  /* the input broadcast to attr "shape" (numpy rules) */ \
  X(ExpandClone, "expand_clone", Unary, 1, 1)            \
  /* binary elementwise, broadcasting */                 \
  X(Add, "add", Binary, 2, 1)                            \
  X(Sub, "sub", Binary, 2, 1)                            \
  X(Mul, "mul", Binary, 2, 1)                            \
  X(Div, "div", Binary, 2, 1)                            \
  X(Maximum, "maximum", Binary, 2, 1)                    \
  X(Minimum, "minimum", Binary, 2, 1)                    \
  X(Pow, "pow", Binary, 2, 1)                            \
  X(LogicalAnd, "logical_and", Binary, 2, 1)             \
  X(LogicalOr, "logical_or", Binary, 2, 1)               \
  X(Atan2, "atan2", Binary, 2, 1)                        \
  X(BitwiseAnd, "bitwise_and", Binary, 2, 1)             \
  X(BitwiseOr, "bitwise_or", Binary, 2, 1)               \
  X(BitwiseXor, "bitwise_xor", Binary, 2, 1)             \
  X(ShiftLeft, "bitwise_left_shift", Binary, 2, 1)       \
  X(ShiftRight, "bitwise_right_shift", Binary, 2, 1)     \
  X(Gcd, "gcd", Binary, 2, 1)                            \
  /* tensor-scalar elementwise (TADDS, TMULS, ...) */    \
  X(AddS, "adds", BinaryScalar, 1, 1)                    \
  X(SubS, "subs", BinaryScalar, 1, 1)                    \
  X(RSubS, "rsubs", BinaryScalar, 1, 1)                  \
  X(MulS, "muls", BinaryScalar, 1, 1)                    \
  X(DivS, "divs", BinaryScalar, 1, 1)                    \
  X(RDivS, "rdivs", BinaryScalar, 1, 1)                  \
  X(MaximumS, "maxs", BinaryScalar, 1, 1)                \
  X(MinimumS, "mins", BinaryScalar, 1, 1)                \
  X(PowS, "pows", BinaryScalar, 1, 1)                    \
  X(RPowS, "rpows", BinaryScalar, 1, 1)                  \
  X(BitwiseAndS, "bitwise_ands", BinaryScalar, 1, 1)     \
  X(BitwiseOrS, "bitwise_ors", BinaryScalar, 1, 1)       \
  X(BitwiseXorS, "bitwise_xors", BinaryScalar, 1, 1)     \
  X(ShiftLeftS, "bitwise_left_shifts", BinaryScalar, 1, 1) \
  X(ShiftRightS, "bitwise_right_shifts", BinaryScalar, 1, 1) \
  /* scalar << tensor, scalar >> tensor */               \
  X(RShiftLeftS, "rbitwise_left_shifts", BinaryScalar, 1, 1) \
  X(RShiftRightS, "rbitwise_right_shifts", BinaryScalar, 1, 1) \
  X(GcdS, "gcds", BinaryScalar, 1, 1)                    \
  /* comparisons -> bool */                              \
  X(Eq, "eq", Compare, 2, 1)                             \
  X(Ne, "ne", Compare, 2, 1)                             \
  X(Gt, "gt", Compare, 2, 1)                             \
  X(Ge, "ge", Compare, 2, 1)                             \
  X(Lt, "lt", Compare, 2, 1)                             \
  X(Le, "le", Compare, 2, 1)                             \
  X(EqS, "eqs", CompareScalar, 1, 1)                     \
  X(NeS, "nes", CompareScalar, 1, 1)                     \
  X(GtS, "gts", CompareScalar, 1, 1)                     \
  X(GeS, "ges", CompareScalar, 1, 1)                     \
  X(LtS, "lts", CompareScalar, 1, 1)                     \
  X(LeS, "les", CompareScalar, 1, 1)                     \
  /* where(cond, a, b); scalar a or b as attrs */        \
  X(Where, "where", Select, -1, 1)                       \
  /* reductions over attr dims with keepdim */           \
  X(Sum, "sum", Reduce, 1, 1)                            \
  X(Amax, "amax", Reduce, 1, 1)                          \
  X(Amin, "amin", Reduce, 1, 1)                          \
  X(Prod, "prod", Reduce, 1, 1)                          \
  X(Argmax, "argmax", Reduce, 1, 1)                      \
  X(Argmin, "argmin", Reduce, 1, 1)                      \
  /* layout */                                           \
  X(Reshape, "reshape", Layout, 1, 1)                    \
  X(Transpose, "transpose", Layout, 1, 1)                \
  X(Permute, "permute", Layout, 1, 1)                    \
  X(Unsqueeze, "unsqueeze", Layout, 1, 1)                \
  X(Concat, "concat", Layout, -1, 1)                     \
  /* the same bytes read as attr "dtype" (PyPTO's */     \
  /* view(x, dtype=), OP_VIEW_TYPE): the last dim */     \
  /* scales by the ratio of the element sizes */         \
  X(Bitcast, "bitcast", Layout, 1, 1)                    \
  X(Cast, "cast", Unary, 1, 1)                           \
  /* memory: views alias, assemble/copy write */         \
  X(View, "view", Memory, 1, 1)                          \
  X(Assemble, "assemble", Memory, 1, 1)                  \
  X(Copy, "copy", Memory, 1, 1)                          \
  /* creation */                                         \
  X(Full, "full", Creation, 0, 1)                        \
  X(Arange, "arange", Creation, 0, 1)                    \
  /* indexing */                                         \
  X(Gather, "gather", Indexing, 2, 1)                    \
  X(IndexSelect, "index_select", Indexing, 2, 1)         \
  X(Scatter, "scatter", Indexing, -1, 1)                 \
  X(ScatterUpdate, "scatter_update", Indexing, 3, 1)     \
  /* sorting */                                          \
  X(TopK, "topk", Sort, 1, 2)                            \
  X(ArgSort, "argsort", Sort, 1, 1)                      \
  X(Sort32, "sort32", Sort, 1, 1)                        \
  X(MrgSort, "mrgsort", Sort, 1, 1)                      \
  /* matrix and quantisation */                          \
  X(Matmul, "matmul", Matmul, 2, 1)                      \
  X(Quantize, "quantize", Quantize, 2, 1)                \
  X(Dequantize, "dequantize", Quantize, 2, 1)

PTO_DECLARE_XMACRO_ENUM(TensorOpKind, unsigned short, PTO_FOR_EACH_TENSOR_OP);

std::string_view name(TensorOpKind kind);
OpCategory category(TensorOpKind kind);
// Element i of the result comes from element i of each input (after broadcasting): unary, binary and
// scalar forms, comparisons and select.
bool isElementwise(OpCategory category);
// Fixed input count, or -1 for variadic kinds (concat, where; scatter: x, index and src, or x and index with
// a scalar src in its attribute 'value').
int inputCount(TensorOpKind kind);
int outputCount(TensorOpKind kind);
std::optional<TensorOpKind> parseTensorOpKind(std::string_view text);
std::string_view name(OpCategory category);

} // namespace pto
