// Valid parts: how much of a tensor holds data (PyPTO's validShape): the rules the reference interpreter,
// the compiler and the functional simulator share.
//
// A tensor of shape S may hold data only in its leading box V <= S, V known when the kernel runs: a view's
// `valid_shape` (a paged cache block holding a tail of keys), a `full` that pads a run-time tail, and what
// ops compute from such tensors. PyPTO's ops work on valid parts only, and the kernels rely on it: a
// softmax over a tile of 2 048 gathered keys of which 15 are valid reduces over 15, a matmul contracts over
// the valid keys, and an assemble writes only the valid part (so a pad of valid length 2048 - n assembled at
// offset n fits a 2048 tensor although its shape does not).
//
// The interpreter records each tensor's valid part and, before an op's kernel runs, cuts its inputs to the
// boxes `cutInputs` gives; the result fills the leading box of the output, whose valid part it becomes.
// These functions decide the boxes; they know shapes, not storage. The compiler applies the same rules to
// symbolic valid parts (compiler/ir/ValidShapes.h), whose values are known only when a task runs, and the
// functional simulator to each tile: one rule for all three, so that they agree.
#pragma once

#include "compiler/ir/TensorGraph.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace pto::validparts {

using Dims = std::vector<std::int64_t>;

// The boxes `op`'s inputs are cut to before its kernel runs, given their shapes and valid parts (each the
// same rank as its shape). nullopt when no input needs cutting (the kernel sees whole inputs). An input's box
// is its valid part, narrowed where the op pairs elements of two inputs (elementwise operands on axes
// neither broadcasts, a matmul's contraction, concat's other axes). Gather sources, scatter targets and
// layout ops that keep the bytes (reshape, bitcast) are never cut.
std::optional<std::vector<Dims>> cutInputs(const TensorOp& op, const std::vector<Dims>& shapes,
                                           const std::vector<Dims>& valids);
// The same with symbolic valid parts: a valid size not provably its dim's counts as partial, and where
// the op pairs elements the box is the min() of the sizes paired.
std::optional<std::vector<SymbolicShape>> cutInputs(const TensorOp& op, const std::vector<Dims>& shapes,
                                                    const std::vector<SymbolicShape>& valids);

// The valid part of reshape(x, newShape) when x's valid part is `valid`: the valid elements are a
// row-major prefix of x when every dim after the first partly valid one is whole and every dim before it
// holds one valid index; that prefix is then the leading box of newShape whose size it is, if such a box
// exists. Anything else keeps newShape whole.
Dims reshapedValid(const Dims& shape, const Dims& valid, const Dims& newShape);
// The same with symbolic sizes, for the cases where the rule gives one expression whatever the values: the
// partial dims are the first one not provably whole (after dims of size 1) and the whole ones after it, and
// the prefix lands in one dim of newShape for every value. nullopt when which box it is depends on values.
std::optional<SymbolicShape> reshapedValid(const Dims& shape, const SymbolicShape& valid, const Dims& newShape);

// The valid part of x's bytes read as another dtype (bitcast): the last dim scales by the byte ratio,
// rounded down to whole elements.
Dims bitcastValid(const Dims& valid, std::size_t fromBytes, std::size_t toBytes);

// expand_clone of an input valid only in `inValid` of its `inShape`: the attribute "shape" (its target)
// keeps its size along the dims it broadcasts (the input's are 1 there, or missing in front) and takes the
// input's valid size along the others, so that shape inference on the valid part gives the result's.
void broadcastValidPart(const Dims& inShape, const Dims& inValid, Attributes& attrs);

// `box` clamped to [0, shape] per dim.
Dims clampedBox(Dims box, const Dims& shape);

bool isWhole(const Dims& valid, const Dims& shape);

} // namespace pto::validparts
