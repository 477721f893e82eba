// TileGraph storage and printing.
#include "compiler/ir/TileGraph.h"

#include "core/EnumNames.h"
#include "core/SymbolicSimplify.h"

#include <atomic>

namespace pto {

constexpr auto kTileAccumulateNames = enumNames<TileAccumulate>({
    {TileAccumulate::None, "none"}, {TileAccumulate::Add, "add"}, {TileAccumulate::Max, "max"},
    {TileAccumulate::Min, "min"}, {TileAccumulate::Mul, "mul"}});

std::string_view name(TileAccumulate mode) { return kTileAccumulateNames.name(mode); }

void TileGraph::setShape(TensorId id, std::vector<std::int64_t> shape) {
  if (m_shapes.size() <= static_cast<std::size_t>(id)) m_shapes.resize(static_cast<std::size_t>(id) + 1);
  m_shapes[static_cast<std::size_t>(id)] = std::move(shape);
}

std::uint64_t TileGraph::ContentStamp::value() const {
  static std::atomic<std::uint64_t> last{0};
  if (m_value == 0) m_value = ++last;
  return m_value;
}

TileOpId TileGraph::addTileOp(TileOp op) {
  m_tileOpsStamp.changed();
  op.id = static_cast<TileOpId>(m_tileOps.size());
  m_tileOps.push_back(std::move(op));
  return m_tileOps.back().id;
}

const std::vector<TileOpId>& TileGraph::tilesOf(OpId op) const {
  static const std::vector<TileOpId> kNone;
  return static_cast<std::size_t>(op) < m_tilesOfOp.size() ? m_tilesOfOp[static_cast<std::size_t>(op)] : kNone;
}

void TileGraph::setTilesOf(OpId op, std::vector<TileOpId> tiles) {
  if (m_tilesOfOp.size() <= static_cast<std::size_t>(op)) m_tilesOfOp.resize(static_cast<std::size_t>(op) + 1);
  m_tilesOfOp[static_cast<std::size_t>(op)] = std::move(tiles);
}

std::size_t TileGraph::liveTileOpCount() const { return m_tileOps.size(); }

void TileGraph::renumber(const std::vector<bool>& keep) {
  // Compacted in place: a second array of every tile op would be allocated
  // (and its pages faulted in) on each pass that drops a few.
  std::vector<TileOpId> newId(m_tileOps.size(), kNoId);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < m_tileOps.size(); ++i) {
    if (!keep[i]) continue;
    newId[i] = static_cast<TileOpId>(kept);
    if (kept != i) m_tileOps[kept] = std::move(m_tileOps[i]);
    m_tileOps[kept].id = newId[i];
    ++kept;
  }
  m_tileOps.erase(m_tileOps.begin() + static_cast<std::ptrdiff_t>(kept), m_tileOps.end());
  for (auto& tiles : m_tilesOfOp) {
    std::size_t remapped = 0;
    for (TileOpId id : tiles)
      if (newId[static_cast<std::size_t>(id)] != kNoId) tiles[remapped++] = newId[static_cast<std::size_t>(id)];
    tiles.resize(remapped);
  }
}

bool gathersRowsFromGm(const TileOp& op) {
  if (op.kind != TensorOpKind::IndexSelect) return false;
  auto found = op.attrs.find(kGatherRowsFromGm);
  const bool* value = found == op.attrs.end() ? nullptr : std::get_if<bool>(&found->second);
  return value && *value;
}

bool gathersIntoL1(const TileOp& op) {
  if (!gathersRowsFromGm(op)) return false;
  auto found = op.attrs.find(kGatherIntoL1);
  const bool* value = found == op.attrs.end() ? nullptr : std::get_if<bool>(&found->second);
  return value && *value;
}

bool readsInPlace(const TileOp& op, std::size_t input) {
  return (input == 0 && gathersRowsFromGm(op)) || (input == 1 && gathersIntoL1(op));
}

bool scattersRowsToGm(const TileOp& op) {
  if (op.kind != TensorOpKind::ScatterUpdate) return false;
  auto found = op.attrs.find(kScatterRowsToGm);
  const bool* value = found == op.attrs.end() ? nullptr : std::get_if<bool>(&found->second);
  return value && *value;
}

bool writesInPlace(const TileOp& op, std::size_t output) { return output == 0 && scattersRowsToGm(op); }

std::string regionString(const TileGraph& graph, const TileRegion& region) {
  std::string text = graph.graph.tensor(region.tensor).name + "[";
  for (std::size_t d = 0; d < region.shape.size(); ++d) {
    if (d) text += ", ";
    SymbolicScalar start = simplify(region.offsets[d]);
    SymbolicScalar stop = simplify(region.offsets[d] + region.shape[d]);
    text += start.str() + ":" + stop.str();
  }
  return text + "]";
}

} // namespace pto
