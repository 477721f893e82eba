// The kernels of the reference interpreter, one entry per group of op kinds, and the call record they share.
//
// Contract: the interpreter hands a kernel the op's current input buffers and its output buffers, already
// allocated (contiguous, not aliasing any input) with the shapes the graph gives under the current
// bindings. The kernel fills every output element, or reports an error through fail() and returns false.
// Kernels check that the inputs' run-time shapes agree with the prepared outputs; a disagreement means the
// graph was built inconsistently and is reported, never trusted.
#pragma once

#include "compiler/ir/TensorGraph.h"
#include "compiler/ir/TileGraph.h"
#include "core/Diagnostics.h"
#include "core/HostTensor.h"

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace pto::reference {

struct KernelCall {
  const TensorOp& op;
  std::vector<HostTensor> inputs;
  std::vector<HostTensor> outputs;
  DiagnosticEngine& diags;

  // An error at the op's source location, its text starting with the op's name ("gather: ...").
  DiagnosticBuilder fail() const;
  template <typename T> const T* attr(const std::string& key) const { return op.attr<T>(key); }
  // Fails unless outputs[index] has `expected` as shape ("internal error: ...").
  bool expectOutputShape(std::size_t index, const Shape& expected) const;
};

// Scalar operands known only when the kernel runs: a "scalar" (tensor-scalar ops) or "value" (full) attribute
// that is a SymbolicScalar (a dynamic dim, a loop index) is evaluated under `bindings` and replaced by a double,
// so the kernels only ever see doubles. Returns nullopt after a diagnostic when an expression cannot be evaluated.
bool hasRunTimeScalars(const TensorOp& op);
std::optional<TensorOp> bindRunTimeScalars(const TensorOp& op, const Bindings& bindings,
                                           DiagnosticEngine& diags);

bool runUnary(KernelCall& call);          // neg ... clip, except cast
bool runBinary(KernelCall& call);         // binary and compare: two tensors, broadcasting
bool runBinaryScalar(KernelCall& call);   // tensor-scalar and compare-scalar
bool runWhere(KernelCall& call);
bool runCast(KernelCall& call);
bool runQuantize(KernelCall& call);       // quantize, dequantize
bool runReduction(KernelCall& call);
bool runLayout(KernelCall& call);         // reshape, transpose, permute, unsqueeze, concat, bitcast
bool runCreation(KernelCall& call);       // full, arange
bool runIndexing(KernelCall& call);       // gather, index_select, scatter, scatter_update
bool runSort(KernelCall& call);           // topk, argsort
bool runMatmul(KernelCall& call);

// The kernel for call.op's kind (views, assemble and copy are the caller's: they move no values).
bool runKernel(KernelCall& call);

// The elementwise float maths of the kernels above on fp32 values in place, exactly as they compute it on a
// float tensor (the functional simulator applies them row by row to on-chip memory, without tensors). Each
// returns false, values untouched, for a kind it does not cover, so an empty span asks whether it does.
// applyFloatUnary: the unary kinds without attributes (neg ... relu, exp ... atan).
bool applyFloatUnary(TensorOpKind kind, std::span<float> values);
// a = a <kind> b for add, sub, mul, div, maximum and minimum (operands of one shape, nothing broadcast).
bool applyFloatArithmetic(TensorOpKind kind, std::span<float> a, std::span<const float> b);
// values = values <kind> scalar for adds ... minimums, pows and their reversed forms; `scalar` is already
// rounded to the tensor's dtype (roundToDtype), as runBinaryScalar holds it.
bool applyFloatScalarArithmetic(TensorOpKind kind, std::span<float> values, float scalar);
// The sum, product, maximum or minimum of `line`, as runReduction reduces each line of a float tensor;
// nullopt for other kinds (an empty span asks whether it covers `kind`: it has no maximum or minimum).
std::optional<float> reduceFloatLine(TensorOpKind kind, std::span<const float> line);

// target = combine(target, values) elementwise by `mode` (same shapes; None
// copies). Floats combine in double and round once into the target's dtype;
// integers combine exactly and wrap. NaN wins max and min.
void accumulateInto(HostTensor& target, const HostTensor& values, TileAccumulate mode);

} // namespace pto::reference
