// Tables behind TensorOpKind, generated from PTO_FOR_EACH_TENSOR_OP.
#include "compiler/ir/TensorOpKind.h"

#include "core/EnumNames.h"

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

constexpr auto kOpCategoryNames = enumNames<OpCategory>({
    {OpCategory::Unary, "unary"}, {OpCategory::Binary, "binary"}, {OpCategory::BinaryScalar, "binary-scalar"},
    {OpCategory::Compare, "compare"}, {OpCategory::CompareScalar, "compare-scalar"},
    {OpCategory::Select, "select"}, {OpCategory::Reduce, "reduce"}, {OpCategory::Layout, "layout"},
    {OpCategory::Memory, "memory"}, {OpCategory::Creation, "creation"}, {OpCategory::Indexing, "indexing"},
    {OpCategory::Sort, "sort"}, {OpCategory::Matmul, "matmul"}, {OpCategory::Quantize, "quantize"}});

std::string_view name(OpCategory category) { return kOpCategoryNames.name(category); }

} // namespace pto
