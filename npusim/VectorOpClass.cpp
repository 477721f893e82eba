// Name tables behind VectorOpClass, generated from PTO_FOR_EACH_VECTOR_OP_CLASS.
#include "npusim/VectorOpClass.h"

#include <array>

namespace pto {
namespace {

struct VectorOpClassInfo {
  std::string_view name;
  std::string_view members;
};

constexpr std::array<VectorOpClassInfo, kVectorOpClassCount> kVectorOpClassInfos = {{
#define PTO_VECTOR_OP_CLASS_INFO(id, name, members) {name, members},
    PTO_FOR_EACH_VECTOR_OP_CLASS(PTO_VECTOR_OP_CLASS_INFO)
#undef PTO_VECTOR_OP_CLASS_INFO
}};

} // namespace

std::string_view name(VectorOpClass opClass) { return enumRow(kVectorOpClassInfos, opClass).name; }
std::string_view members(VectorOpClass opClass) { return enumRow(kVectorOpClassInfos, opClass).members; }

std::optional<VectorOpClass> parseVectorOpClass(std::string_view text) { return findByName<VectorOpClass>(kVectorOpClassInfos, text); }

} // namespace pto
