// Name tables behind MemoryKind, generated from PTO_FOR_EACH_MEMORY_KIND.
#include "compiler/ir/MemoryKind.h"

#include <array>

namespace pto {
namespace {

struct MemoryKindInfo {
  std::string_view name;
  std::string_view title;
};

constexpr std::array<MemoryKindInfo, kMemoryKindCount> kMemoryKindInfos = {{
#define PTO_MEMORY_KIND_INFO(id, name, title) {name, title},
    PTO_FOR_EACH_MEMORY_KIND(PTO_MEMORY_KIND_INFO)
#undef PTO_MEMORY_KIND_INFO
}};

} // namespace

std::string_view name(MemoryKind kind) { return enumRow(kMemoryKindInfos, kind).name; }
std::string_view title(MemoryKind kind) { return enumRow(kMemoryKindInfos, kind).title; }

std::optional<MemoryKind> parseMemoryKind(std::string_view text) { return findByName<MemoryKind>(kMemoryKindInfos, text); }

} // namespace pto
