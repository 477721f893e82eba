// Tables behind TensorOpKind, generated from PTO_FOR_EACH_TENSOR_OP.
#include "compiler/ir/TensorOpKind.h"

#include <array>

namespace pto {
namespace {

struct OpKindInfo {
  std::string_view name;
  OpCategory category;
  int inputs;
  int outputs;
};

constexpr std::array<OpKindInfo, kTensorOpKindCount> kOpKindInfos = {{
#define PTO_TENSOR_OP_INFO(id, name, category, inputs, outputs) {name, OpCategory::category, inputs, outputs},
    PTO_FOR_EACH_TENSOR_OP(PTO_TENSOR_OP_INFO)
#undef PTO_TENSOR_OP_INFO
}};

const OpKindInfo& info(TensorOpKind kind) { return enumRow(kOpKindInfos, kind); }

} // namespace

std::string_view name(TensorOpKind kind) { return info(kind).name; }
OpCategory category(TensorOpKind kind) { return info(kind).category; }

bool isElementwise(OpCategory category) {
  switch (category) {
  case OpCategory::Unary:
  case OpCategory::Binary:
  case OpCategory::BinaryScalar:
  case OpCategory::Compare:
  case OpCategory::CompareScalar:
  case OpCategory::Select: return true;
  default: return false;
  }
}
int inputCount(TensorOpKind kind) { return info(kind).inputs; }
int outputCount(TensorOpKind kind) { return info(kind).outputs; }

std::optional<TensorOpKind> parseTensorOpKind(std::string_view text) { return findByName<TensorOpKind>(kOpKindInfos, text); }

std::string_view name(OpCategory category) {
  switch (category) {
  case OpCategory::Unary: return "unary";
  case OpCategory::Binary: return "binary";
  case OpCategory::BinaryScalar: return "binary-scalar";
  case OpCategory::Compare: return "compare";
  case OpCategory::CompareScalar: return "compare-scalar";
  case OpCategory::Select: return "select";
  case OpCategory::Reduce: return "reduce";
  case OpCategory::Layout: return "layout";
  case OpCategory::Memory: return "memory";
  case OpCategory::Creation: return "creation";
  case OpCategory::Indexing: return "indexing";
  case OpCategory::Sort: return "sort";
  case OpCategory::Matmul: return "matmul";
  case OpCategory::Quantize: return "quantize";
  }
  return "unknown";
}

} // namespace pto
