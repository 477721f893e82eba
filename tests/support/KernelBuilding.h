// What the compiler and interpreter tests use to write kernels op by op: the
// imaginary kernel file's lines, constant shapes, declaring arguments,
// recording an op (a shape error fails the test), the start most test kernels
// share, and the diagnostics' messages as one text.
#pragma once

#include "compiler/ir/TensorGraphBuilder.h"
#include "core/Diagnostics.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace pto::testing {

// A line of the imaginary kernel file the tests' ops come from: "kernel.py:<line>".
SourceLocation kernelLine(int line);

// A constant symbolic shape.
SymbolicShape dimsOf(std::initializer_list<std::int64_t> dims);

// One argument of a test kernel: its name, element type and constant shape.
struct KernelArgument {
  std::string name;
  DataType dtype;
  std::vector<std::int64_t> dims;
};

// Declares an argument (at line 1) and returns its id.
TensorId addArgument(TensorGraphBuilder& builder, const KernelArgument& argument);

// Declares `arguments` in order (at line 1) and returns their ids, to be bound by name:
//   const auto [a, b, c] = addArguments(builder, {{"a", kF16, {16, 64}},
//                                                 {"b", kF16, {64, 32}}, {"c", kF32, {16, 32}}});
template <std::size_t N>
std::array<TensorId, N> addArguments(TensorGraphBuilder& builder, const KernelArgument (&arguments)[N]) {
  std::array<TensorId, N> ids{};
  for (std::size_t i = 0; i < N; ++i) ids[i] = addArgument(builder, arguments[i]);
  return ids;
}

// Records an op and returns its outputs; a shape-inference error fails the test (and returns none).
std::vector<TensorId> addOps(TensorGraphBuilder& builder, TensorOpKind kind, std::vector<TensorId> inputs,
                             Attributes attrs, int line, std::vector<TensorId> into = {});
// The first output of addOps, or kNoId.
TensorId addOp(TensorGraphBuilder& builder, TensorOpKind kind, std::vector<TensorId> inputs, Attributes attrs,
               int line, std::vector<TensorId> into = {});

// Ends the body's path and finishes the kernel, naming its temporaries as a kernel's variables would name
// them (dumps and messages show these names).
TensorGraph finishNamed(TensorGraphBuilder& builder, std::initializer_list<std::pair<TensorId, std::string>> names);

// Kernel `name` (line 1) over float32 arguments x of `xShape` and y of `yShape` (line 1), its body's first
// path begun with vec tile `vecTile` (line 2): how most test kernels start. Used as
//   auto [builder, x, y] = beginXyKernel("exp_adds", {8, 64}, {8, 64}, {4, 64});
struct XyKernel {
  TensorGraphBuilder builder;
  TensorId x = kNoId;
  TensorId y = kNoId;
};
XyKernel beginXyKernel(std::string name, std::initializer_list<std::int64_t> xShape,
                       std::initializer_list<std::int64_t> yShape, std::vector<std::int64_t> vecTile);

// a = exp(x) (line 3); c = a @ w (line 4); d = c + a (line 5); y = d (line 6): all [64, 64] float32, one tile
// each (vec [64, 64], cube 64^3, tile ops #0 exp, #1 matmul, #2 add, #3 copy), the temporaries named a, c
// and d. The ops are labelled labels[0..3] when `labels` is given. The partition tests' smallest kernel with
// a cube op between two vector ops.
TensorGraph vectorCubeVectorKernel(const std::vector<std::string>& labels = {});

// for b in range(rows) (loop "rows", line 3): y[b] = exp(x[b]) (view line 4, exp line 5, assemble line 6) on
// x, y [rows, 32] float32 with vec tile [1, 16]. After RemoveRedundantOp the body has four tile ops: exp
// x[b, 0:16] -> e[0, 0:16], exp x[b, 16:32] -> e[0, 16:32], and the two copies of e into y[b].
TensorGraph rowExpKernel(std::int64_t rows);

// Kernel "mm": c = a @ b (line 3) for fp16 a [m, k] and b [k, n] into c [m, n] of `out` (the matmul's
// out_dtype) under cube tile `cube` (line 2).
TensorGraph matmulKernel(std::int64_t m, std::int64_t k, std::int64_t n, const CubeTileShape& cube, DataType out);

// matmulKernel for fp16 a [40, 96], b [96, 48], c [40, 48] with cube tile m=[32, 64] k=[64, 128] n=[32, 64]:
// per output block two k-steps into an fp32 accumulator and a cast into c.
TensorGraph matmulKStepsKernel();

// The messages of all diagnostics, one per line.
std::string messages(const DiagnosticEngine& diags);

} // namespace pto::testing
