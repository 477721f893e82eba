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

XyKernel beginXyKernel(std::string name, std::initializer_list<std::int64_t> xShape,
                       std::initializer_list<std::int64_t> yShape, std::vector<std::int64_t> vecTile) {
  XyKernel kernel{TensorGraphBuilder(std::move(name), kernelLine(1))};
  kernel.x = kernel.builder.addArgument("x", DataType::Fp32, dimsOf(xShape), kernelLine(1));
  kernel.y = kernel.builder.addArgument("y", DataType::Fp32, dimsOf(yShape), kernelLine(1));
  kernel.builder.beginPath();
  kernel.builder.setVecTile(std::move(vecTile), kernelLine(2));
  return kernel;
}

std::string messages(const DiagnosticEngine& diags) {
  std::string text;
  for (const Diagnostic& diagnostic : diags.diagnostics()) text += diagnostic.message + "\n";
  return text;
}

} // namespace pto::testing
