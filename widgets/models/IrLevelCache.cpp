#include "widgets/models/IrLevelCache.h"

#include <algorithm>
#include <vector>

namespace pto::widgets {

struct IrLevelCache::Level {
  // What the level is built from, held so that the pointers stay unique
  // while the level is cached.
  GraphLevel level = GraphLevel::Tile;
  std::shared_ptr<const IrJson> tensor;
  std::shared_ptr<const IrJson> snapshot;
  std::shared_ptr<const IrGraph> given;

  std::once_flag built;
  std::shared_ptr<const IrGraph> graph;

  std::mutex structuresMutex;  // held while a structure is made: made once
  std::map<GraphGrouping, std::shared_ptr<const GroupStructure>> structures;

  // Under the cache's mutex: pictures, most recently used first. A picture
  // in neighbourhood mode depends on its focus node too.
  struct Picture {
    std::string key;
    int focusNode = -1;
    std::shared_ptr<const IrGraphLayout> layout;
  };
  std::list<Picture> pictures;

  // The kept picture of `key` (and `focusNode`), else end().
  std::list<Picture>::iterator find(const std::string& key, int focusNode) {
    return std::find_if(pictures.begin(), pictures.end(), [&](const Picture& picture) {
      return picture.key == key && (!picture.layout->visible.neighbourhood || picture.focusNode == focusNode);
    });
  }

  bool builtFrom(const IrLevelRequest& request) const {
    return level == request.level && tensor.get() == request.tensor.get() && snapshot.get() == request.snapshot.get() &&
           given.get() == request.graph.get();
  }
};

std::shared_ptr<IrLevelCache::Level> IrLevelCache::levelOf(const IrLevelRequest& request) {
  std::shared_ptr<Level> level;
  std::vector<std::shared_ptr<Level>> dropped;  // freed outside the lock
  {
    std::lock_guard lock(m_mutex);
    auto found = std::find_if(m_levels.begin(), m_levels.end(), [&](const auto& kept) { return kept->builtFrom(request); });
    if (found != m_levels.end()) {
      level = *found;
      m_levels.erase(found);
    } else {
      level = std::make_shared<Level>();
      level->level = request.level;
      level->tensor = request.tensor;
      level->snapshot = request.snapshot;
      level->given = request.graph;
      // Another kernel's or run's levels are not asked for again.
      for (auto kept = m_levels.begin(); kept != m_levels.end();)
        if ((*kept)->tensor.get() != request.tensor.get()) {
          dropped.push_back(std::move(*kept));
          kept = m_levels.erase(kept);
        } else {
          ++kept;
        }
    }
    m_levels.push_front(level);
    while (m_levels.size() > kLevelsKept) {
      dropped.push_back(std::move(m_levels.back()));
      m_levels.pop_back();
    }
  }
  std::call_once(level->built, [&] {
    static const IrJson empty = IrJson::object();
    level->graph = request.graph ? request.graph
                                 : std::make_shared<const IrGraph>(buildIrGraph(
                                       request.level, *request.tensor, request.snapshot ? *request.snapshot : empty));
  });
  return level;
}

std::shared_ptr<const GroupStructure> IrLevelCache::structureOf(Level& level, GraphGrouping grouping) {
  std::lock_guard lock(level.structuresMutex);
  auto& structure = level.structures[grouping];
  if (!structure) structure = std::make_shared<const GroupStructure>(groupStructure(*level.graph, grouping));
  return structure;
}

std::string IrLevelCache::pictureKey(const VisibleGraphOptions& options) {
  std::string key = std::string(name(options.grouping)) + (options.expandAll ? "*" : "");
  for (const std::string& open : options.expanded) key += "\n" + open;
  return key;
}

std::shared_ptr<const IrGraphLayout> IrLevelCache::layout(const IrLevelRequest& request, const std::atomic<bool>* cancelled) {
  std::shared_ptr<Level> level = levelOf(request);
  if (!level->graph->missing.empty()) {
    auto missing = std::make_shared<IrGraphLayout>();
    missing->graph = level->graph;
    return missing;
  }
  const VisibleGraphOptions options = visibleOptionsOf(request, *level->graph);
  const std::string key = pictureKey(options);
  {
    std::lock_guard lock(m_mutex);
    auto found = level->find(key, options.focusNode);
    if (found != level->pictures.end()) {
      level->pictures.splice(level->pictures.begin(), level->pictures, found);
      return found->layout;
    }
  }
  std::shared_ptr<const GroupStructure> structure = structureOf(*level, options.grouping);
  auto laidOut =
      std::make_shared<const IrGraphLayout>(layoutIrGraph(level->graph, visibleGraph(*level->graph, options, *structure), cancelled));
  if ((cancelled && cancelled->load()) || !laidOut->error.empty()) return laidOut;  // not a picture to keep
  std::lock_guard lock(m_mutex);
  if (level->find(key, options.focusNode) == level->pictures.end()) {
    level->pictures.push_front({key, options.focusNode, laidOut});
    if (level->pictures.size() > kPicturesKept) level->pictures.pop_back();
  }
  return laidOut;
}

bool IrLevelCache::has(const IrLevelRequest& request) {
  std::shared_ptr<Level> level = levelOf(request);
  if (!level->graph->missing.empty()) return false;
  const VisibleGraphOptions options = visibleOptionsOf(request, *level->graph);
  const std::string key = pictureKey(options);
  std::lock_guard lock(m_mutex);
  return level->find(key, options.focusNode) != level->pictures.end();
}

std::size_t IrLevelCache::prefetchExpansions(const IrLevelRequest& request, const IrGraphLayout& shown,
                                             const std::atomic<bool>* cancelled) {
  std::size_t made = 0;
  for (const VisibleItem& item : shown.visible.items) {
    if (made >= kPrefetchedPictures || (cancelled && cancelled->load())) break;
    if (item.group < 0) continue;
    IrLevelRequest opened = request;
    opened.options.expanded.insert(shown.visible.groups[static_cast<std::size_t>(item.group)].key);
    if (has(opened)) continue;
    layout(opened, cancelled);
    ++made;
  }
  return made;
}

void IrLevelCache::forgetPictures() {
  std::lock_guard lock(m_mutex);
  for (const std::shared_ptr<Level>& level : m_levels) level->pictures.clear();
}

} // namespace pto::widgets
