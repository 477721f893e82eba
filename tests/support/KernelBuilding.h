// What the compiler and interpreter tests use to write kernels op by op: the
// imaginary kernel file's lines, constant shapes, recording an op (a shape
// error fails the test), the start most test kernels share, and the
// diagnostics' messages as one text.
#pragma once

#include "compiler/ir/TensorGraphBuilder.h"
#include "core/Diagnostics.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace pto::testing {

// A line of the imaginary kernel file the tests' ops come from: "kernel.py:<line>".
SourceLocation kernelLine(int line);

// A constant symbolic shape.
SymbolicShape dimsOf(std::initializer_list<std::int64_t> dims);

// Records an op and returns its outputs; a shape-inference error fails the test (and returns none).
std::vector<TensorId> addOps(TensorGraphBuilder& builder, TensorOpKind kind, std::vector<TensorId> inputs,
                             Attributes attrs, int line, std::vector<TensorId> into = {});
// The first output of addOps, or kNoId.
TensorId addOp(TensorGraphBuilder& builder, TensorOpKind kind, std::vector<TensorId> inputs, Attributes attrs,
               int line, std::vector<TensorId> into = {});

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

// The messages of all diagnostics, one per line.
std::string messages(const DiagnosticEngine& diags);

} // namespace pto::testing
