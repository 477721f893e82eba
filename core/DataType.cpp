// Tables behind DataType, generated from PTO_FOR_EACH_DATA_TYPE.
#include "core/DataType.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace pto {
namespace {

struct DataTypeInfo {
  DataType type;
  std::string_view name;
  std::string_view pyptoName;
  std::size_t bytes;
  bool isFloat;
  bool isSigned;
};

constexpr std::array<DataTypeInfo, kDataTypeCount> kInfos = {{
#define PTO_DATA_TYPE_INFO(id, name, pyptoName, bytes, isFloat, isSigned) \
  {DataType::id, name, pyptoName, bytes, isFloat, isSigned},
    PTO_FOR_EACH_DATA_TYPE(PTO_DATA_TYPE_INFO)
#undef PTO_DATA_TYPE_INFO
}};

const DataTypeInfo& info(DataType type) { return enumRow(kInfos, type); }

// Spellings people type besides the canonical and PyPTO names.
struct Alias {
  std::string_view text;
  DataType type;
};
constexpr std::array<Alias, 12> kAliases = {{
    {"fp32", DataType::Fp32}, {"f32", DataType::Fp32}, {"float", DataType::Fp32},
    {"fp16", DataType::Fp16}, {"f16", DataType::Fp16}, {"half", DataType::Fp16},
    {"bf16", DataType::Bf16}, {"i8", DataType::Int8}, {"i32", DataType::Int32},
    {"i64", DataType::Int64}, {"u8", DataType::UInt8}, {"boolean", DataType::Bool},
}};

std::string lowered(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

} // namespace

std::size_t sizeOf(DataType type) { return info(type).bytes; }
std::string_view name(DataType type) { return info(type).name; }
std::string_view pyptoName(DataType type) { return info(type).pyptoName; }
bool isFloatingPoint(DataType type) { return info(type).isFloat; }
bool isSigned(DataType type) { return info(type).isSigned; }

std::optional<DataType> parseDataType(std::string_view text) {
  std::string key = lowered(text);
  if (key.starts_with("pypto.")) key.erase(0, 6);
  for (const DataTypeInfo& entry : kInfos) {
    std::string pypto = lowered(entry.pyptoName);
    if (key == entry.name || key == pypto || key == pypto.substr(3)) return entry.type;
  }
  for (const Alias& alias : kAliases)
    if (key == alias.text) return alias.type;
  return std::nullopt;
}

std::string_view dataTypeNameList() {
  static const std::string list = [] {
    std::string text;
    for (const DataTypeInfo& entry : kInfos) {
      if (!text.empty()) text += ", ";
      text += entry.name;
    }
    return text;
  }();
  return list;
}

} // namespace pto
