// The reference interpreter: runs a Tensor graph on host tensors; its outputs are the golden of every run.
//
// It executes the graph exactly as compiler/ir/TensorGraph.h and docs/ir.md define it: dynamic symbols are
// bound from the argument shapes, regions take the first path whose conditions hold, loops bind their index
// symbol per iteration (an unrolled loop runs, at each position, the body with the largest factor whose
// iterations still fit, with the index at that position), and ops run in program order on buffers:
//  - a temporary is allocated when its producer runs, with its shape evaluated under the current bindings,
//    and rewritten in place when the producer runs again;
//  - a temporary no op produces (pypto.tensor) starts as zeros on first use and keeps its contents across
//    loop iterations;
//  - a view aliases its base's storage at the offsets evaluated when the view op runs (loop-dependent
//    offsets work);
//  - a tensor may hold data only in a leading box, its valid part (PyPTO's validShape; ValidParts.h): a
//    view's valid_shape, else what of its base's valid part it covers; full's and reshape's valid_shape;
//    ops run on their inputs cut to their valid parts and make a result whose valid part is what they
//    computed; assemble and copy write only the source's valid part;
//  - assemble writes its source into the region of its output tensor at "offsets", copy into the whole
//    output; any other op recorded to write into an existing tensor (`out=`) writes its result there the
//    same way. Writes go through views into the caller's tensors.
//
// Choices where docs/ir.md is silent (tests/reference pins each one):
//  - Float dtypes compute in float (fp32) and round to the op's dtype, nearest-even, when the op stores its
//    result. sum accumulates in fp32 by pairwise summation (as numpy does), prod sequentially in fp32; amax
//    and amin are exact and propagate NaN; argmax/argmin take the first NaN, else the first extreme.
//  - The scalar of a tensor-scalar op (adds ... rpows, eqs ... les) and clip's bounds are first rounded to
//    a float tensor's dtype, as the vector unit holds them and as numpy does with a Python float.
//  - Integer dtypes compute in int64 (uint64 for uint64) and wrap to the dtype, as numpy does. bool operands
//    are 0/1 integers; a result stored into bool is nonzero -> 1 (NaN -> 1).
//      div: floor division, numpy's floor_divide (-7 div 2 == -4); x div 0 == 0, as numpy gives.
//      pow: exact integer power; a negative exponent is an error (numpy refuses it too).
//      float-only maths (exp, sqrt, reciprocal, sigmoid, ...) on an integer tensor computes in double and
//      converts back truncating toward zero, saturating, NaN -> 0.
//      A non-integral scalar on an integer tensor (muls 0.5) computes that op in double and converts back
//      the same way; an integral scalar is used exactly. clip on integers: bounds rounded inwards.
//  - cast: the mode rounds float -> integer (then saturates; NaN -> 0) and float -> narrower float (fp32 ->
//    fp16/bf16: floor/ceil/trunc are directed roundings, round breaks ties away from zero; overflow gives
//    inf, or the largest finite value where the direction is toward zero). Integer -> float rounds to
//    nearest-even; integer -> integer wraps; anything -> bool is nonzero.
//  - where: scalar operands are converted to the output dtype like a cast in rint mode.
//  - quantize: q = saturate_otype(rint(x * scale)) computed in fp32 (otype int8 or uint8), NaN -> 0;
//    dequantize: float(q) * scale in fp32, rounded to otype.
//  - matmul: float operands are multiplied in fp32 with fp32 accumulation (Eigen) and rounded once to
//    out_dtype; integer operands accumulate in int64, which wraps to an int32 out_dtype exactly as int32
//    accumulation would. Batch dims broadcast.
//  - gather/index_select/scatter/scatter_update: indices must lie in [0, size); a negative or too large
//    index is an error naming it. Duplicate scatter targets: the last write in C order of the index wins;
//    with reduce add/multiply they accumulate in that order, rounding to the dtype after each update.
//  - A tensor-scalar op's "scalar" or full's "value" may be symbolic (a dynamic dim, a loop index): it is
//    evaluated under the current bindings when the op runs and then treated as the constant it is.
//  - topk/argsort order NaN above every number; ties keep the lower index first, in both directions.
//  - arange: element i is start + i * step computed in double, rounded once to the dtype.
//
// Errors (all are diagnostics at the failing op's location, or the argument's / loop's / condition's; the
// interpreter never aborts on bad input): argument count, dtype or shape mismatch; a dynamic symbol bound
// to two values; a symbolic expression that cannot be evaluated; a loop step <= 0; a view/assemble region
// outside its tensor at run time; an index out of range; a temporary of more than maxElements elements;
// cancellation ("cancelled"). On failure the arguments may be partly written.
#pragma once

#include "compiler/ir/TensorGraph.h"
#include "core/Diagnostics.h"
#include "core/HostTensor.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace pto {

struct ReferenceOptions {
  // Polled before every op and loop iteration; returning true stops the run with the error "cancelled".
  std::function<bool()> cancelled;
  // Temporaries (and run-time buffers) larger than this many elements are refused with a diagnostic.
  std::int64_t maxElements = std::int64_t{1} << 31;
  // Called after every write into an existing tensor (assemble, copy, an op's `out=`) with the region written,
  // a view sharing the target's storage: the caller's argument when the target is one or an alias of one.
  // The golden of a multi-stage kernel uses it to see, and replace, what each stage wrote (StagedGolden.h).
  std::function<void(const TensorOp& op, const HostTensor& region)> onWrite;
};

// Executes `graph` on `arguments` (one HostTensor per graph.arguments entry, in order; shapes must match the
// argument shapes once dynamic symbols are bound from graph.dynamicSymbols). Outputs are written into these
// tensors in place. Returns false after reporting a diagnostic at the failing op's source location.
bool runReference(const TensorGraph& graph, std::vector<HostTensor>& arguments, DiagnosticEngine& diags,
                  const ReferenceOptions& options = {});

} // namespace pto
