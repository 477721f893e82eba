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

std::string_view name(MemoryKind kind) { return kMemoryKindInfos[static_cast<std::size_t>(kind)].name; }
std::string_view title(MemoryKind kind) { return kMemoryKindInfos[static_cast<std::size_t>(kind)].title; }

std::optional<MemoryKind> parseMemoryKind(std::string_view text) {
  for (std::size_t i = 0; i < kMemoryKindCount; ++i)
    if (kMemoryKindInfos[i].name == text) return static_cast<MemoryKind>(i);
  return std::nullopt;
}

} // namespace pto
