// Implementation of the kernel-building test helpers.
#include "tests/support/KernelBuilding.h"

#include <gtest/gtest.h>

namespace pto::testing {

SourceLocation kernelLine(int line) { return SourceLocation{"kernel.py", line, 0}; }

SymbolicShape dimsOf(std::initializer_list<std::int64_t> dims) {
  SymbolicShape shape;
  for (std::int64_t dim : dims) shape.emplace_back(dim);
  return shape;
}

TensorId addArgument(TensorGraphBuilder& builder, const KernelArgument& argument) {
  return builder.addArgument(argument.name, argument.dtype, SymbolicShape(argument.dims.begin(), argument.dims.end()),
                             kernelLine(1));
}

std::vector<TensorId> addOps(TensorGraphBuilder& builder, TensorOpKind kind, std::vector<TensorId> inputs,
                             Attributes attrs, int line, std::vector<TensorId> into) {
  const TensorGraphBuilder::OpResult result =
      builder.addOp(kind, std::move(inputs), std::move(attrs), kernelLine(line), std::move(into));
  EXPECT_EQ(result.error, "") << "at line " << line;
  return result.outputs;
}

TensorId addOp(TensorGraphBuilder& builder, TensorOpKind kind, std::vector<TensorId> inputs, Attributes attrs,
               int line, std::vector<TensorId> into) {
  const std::vector<TensorId> outputs = addOps(builder, kind, std::move(inputs), std::move(attrs), line, std::move(into));
  return outputs.empty() ? kNoId : outputs[0];
}

TensorGraph finishNamed(TensorGraphBuilder& builder, std::initializer_list<std::pair<TensorId, std::string>> names) {
  builder.endPath();
  TensorGraph graph = builder.finish();
  for (const auto& [id, name] : names) graph.tensor(id).name = name;
  return graph;
}

XyKernel beginXyKernel(std::string name, std::initializer_list<std::int64_t> xShape,
                       std::initializer_list<std::int64_t> yShape, std::vector<std::int64_t> vecTile) {
  XyKernel kernel{TensorGraphBuilder(std::move(name), kernelLine(1))};
  kernel.x = kernel.builder.addArgument("x", DataType::Fp32, dimsOf(xShape), kernelLine(1));
  kernel.y = kernel.builder.addArgument("y", DataType::Fp32, dimsOf(yShape), kernelLine(1));
  kernel.builder.beginPath();
  kernel.builder.setVecTile(std::move(vecTile), kernelLine(2));
  return kernel;
}

TensorGraph vectorCubeVectorKernel(const std::vector<std::string>& labels) {
  TensorGraphBuilder builder("vcv", kernelLine(1));
  const auto [x, w, y] =
      addArguments(builder, {{"x", DataType::Fp32, {64, 64}}, {"w", DataType::Fp32, {64, 64}},
                             {"y", DataType::Fp32, {64, 64}}});
  builder.beginPath();
  builder.setVecTile({64, 64}, kernelLine(2));
  builder.setCubeTile(CubeTileShape{64, 64, 64, 64, 64, 64, 64, false}, kernelLine(2));
  auto label = [&](std::size_t op) {
    if (op < labels.size()) builder.setLabel(labels[op]);
  };
  label(0);
  const TensorId a = addOp(builder, TensorOpKind::Exp, {x}, {}, 3);
  label(1);
  const TensorId c = addOp(builder, TensorOpKind::Matmul, {a, w}, {}, 4);
  label(2);
  const TensorId d = addOp(builder, TensorOpKind::Add, {c, a}, {}, 5);
  label(3);
  addOp(builder, TensorOpKind::Copy, {d}, {}, 6, {y});
  return finishNamed(builder, {{a, "a"}, {c, "c"}, {d, "d"}});
}

TensorGraph rowExpKernel(std::int64_t rows) {
  auto [builder, x, y] = beginXyKernel("row_exp", {rows, 32}, {rows, 32}, {1, 16});
  const LoopId loop = builder.beginLoop("rows", "b", 0, rows, 1, false, kernelLine(3));
  builder.beginLoopBody(loop, 1);
  builder.beginPath();
  const SymbolicScalar b = SymbolicScalar::symbol(builder.loop(loop).indexSymbol);
  const TensorId xv =
      addOp(builder, TensorOpKind::View, {x}, {{"offsets", SymbolicShape{b, 0}}, {"shape", dimsOf({1, 32})}}, 4);
  const TensorId e = addOp(builder, TensorOpKind::Exp, {xv}, {}, 5);
  addOp(builder, TensorOpKind::Assemble, {e}, {{"offsets", SymbolicShape{b, 0}}}, 6, {y});
  builder.endPath();
  builder.endLoop(loop);
  builder.endPath();
  return builder.finish();
}

TensorGraph matmulKernel(std::int64_t m, std::int64_t k, std::int64_t n, const CubeTileShape& cube, DataType out) {
  TensorGraphBuilder builder("mm", kernelLine(1));
  const auto [a, b, c] =
      addArguments(builder, {{"a", DataType::Fp16, {m, k}}, {"b", DataType::Fp16, {k, n}}, {"c", out, {m, n}}});
  builder.beginPath();
  builder.setCubeTile(cube, kernelLine(2));
  addOp(builder, TensorOpKind::Matmul, {a, b}, {{"out_dtype", out}}, 3, {c});
  builder.endPath();
  return builder.finish();
}

TensorGraph matmulKStepsKernel() {
  return matmulKernel(40, 96, 48, {.mL0 = 32, .mL1 = 64, .kL0 = 64, .kAL1 = 128, .kBL1 = 128, .nL0 = 32, .nL1 = 64},
                      DataType::Fp16);
}

std::string messages(const DiagnosticEngine& diags) {
  std::string text;
  for (const Diagnostic& diagnostic : diags.diagnostics()) text += diagnostic.message + "\n";
  return text;
}

} // namespace pto::testing
