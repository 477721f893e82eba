// Queries on the operator-project model.
#include "core/project/OperatorProject.h"

namespace pto {

std::string_view initKindName(const InitSpec& init) {
  struct Visitor {
    std::string_view operator()(const UniformInit&) const { return "uniform"; }
    std::string_view operator()(const NormalInit&) const { return "normal"; }
    std::string_view operator()(const ZerosInit&) const { return "zeros"; }
    std::string_view operator()(const ArangeInit&) const { return "arange"; }
    std::string_view operator()(const NpyInit&) const { return "npy"; }
    std::string_view operator()(const ValuesInit&) const { return "values"; }
  };
  return std::visit(Visitor{}, init);
}

SourceLocation OperatorProject::locationOf(const std::string& key) const {
  auto found = settingLocations.find(key);
  return found != settingLocations.end() ? found->second : SourceLocation{file.string()};
}

const KernelArgument* OperatorProject::findArgument(std::string_view argName) const {
  for (const KernelArgument& arg : args)
    if (arg.name == argName) return &arg;
  return nullptr;
}

std::optional<std::vector<std::int64_t>> OperatorProject::concreteShape(const KernelArgument& arg) const {
  std::vector<std::int64_t> dims;
  dims.reserve(arg.shape.size());
  for (const ProjectDim& dim : arg.shape) {
    if (dim.symbol.empty()) {
      dims.push_back(dim.value);
      continue;
    }
    auto bound = bindings.find(dim.symbol);
    if (bound == bindings.end()) return std::nullopt;
    dims.push_back(bound->second);
  }
  return dims;
}

Tolerance defaultTolerance(DataType dtype) {
  // Half-precision results carry ~3 (fp16) or ~2 (bf16) significant digits;
  // fp32 kernels still differ from the reference in summation order.
  switch (dtype) {
  case DataType::Fp16: return {1e-3, 1e-3};
  case DataType::Bf16: return {8e-3, 8e-3};
  case DataType::Fp32: return {1e-4, 1e-5};
  default: return {0.0, 0.0};  // integers and bools compare exactly
  }
}

Tolerance OperatorProject::toleranceFor(const KernelArgument& arg) const {
  if (auto found = tolerance.find(arg.name); found != tolerance.end()) return found->second;
  return defaultTolerance(arg.dtype);
}

} // namespace pto
