// Tables behind DataPath, generated from PTO_FOR_EACH_DATA_PATH.
#include "npusim/DataPath.h"

#include <array>

namespace pto {
namespace {

struct DataPathInfo {
  MemoryKind from;
  MemoryKind to;
  std::string_view name;
};

constexpr std::array<DataPathInfo, kDataPathCount> kDataPathInfos = {{
#define PTO_DATA_PATH_INFO(id, from, to, name) {MemoryKind::from, MemoryKind::to, name},
    PTO_FOR_EACH_DATA_PATH(PTO_DATA_PATH_INFO)
#undef PTO_DATA_PATH_INFO
}};

const DataPathInfo& info(DataPath path) { return enumRow(kDataPathInfos, path); }

} // namespace

MemoryKind source(DataPath path) { return info(path).from; }
MemoryKind destination(DataPath path) { return info(path).to; }
std::string_view name(DataPath path) { return info(path).name; }

std::optional<DataPath> parseDataPath(std::string_view text) { return findByName<DataPath>(kDataPathInfos, text); }

std::optional<DataPath> dataPathBetween(MemoryKind from, MemoryKind to) {
  for (std::size_t i = 0; i < kDataPathCount; ++i)
    if (kDataPathInfos[i].from == from && kDataPathInfos[i].to == to) return static_cast<DataPath>(i);
  return std::nullopt;
}

} // namespace pto
