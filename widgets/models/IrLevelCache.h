// IrLevelCache: what the Graphs tab's layout jobs keep between requests, so
// that a double-click on a group shows its picture within a frame (issue
// 35's 50 ms budget) instead of building the level, grouping it and running
// dot again: the level built once per snapshot, its group structure once per
// grouping, the layouts of recent pictures, and the pictures one
// double-click away, laid out on a worker while the user looks at the
// current one (prefetchExpansions). Plain C++ (no Qt).
//
// Stability: a cached picture is the one dot gave the first time, so closing
// and opening a group again shows exactly the same boxes in the same places.
//
// Thread-safe: jobs on several pool threads share one cache. Levels and
// layouts are made outside the cache's lock (dot has its own); a level is
// built once even when two jobs ask for it at the same time.
#pragma once

#include "analysis/irviews/GroupStructure.h"
#include "widgets/models/IrGraphLayout.h"

#include <atomic>
#include <cstddef>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace pto::widgets {

class IrLevelCache {
public:
  // Levels kept (the one shown and one before, e.g. the previous pass), and
  // pictures kept per level (the current one, the ones a double-click away
  // and the recently closed).
  static constexpr std::size_t kLevelsKept = 2;
  static constexpr std::size_t kPicturesKept = 48;
  // The pictures a prefetch lays out at most: the first collapsed groups in
  // execution order (a picture opens at most kMostChildrenShown boxes).
  static constexpr std::size_t kPrefetchedPictures = 24;

  // The layout `layoutIrLevel(request)` gives, from the cache when it has it.
  std::shared_ptr<const IrGraphLayout> layout(const IrLevelRequest& request, const std::atomic<bool>* cancelled = nullptr);
  // Whether the picture of `request` is kept (tests, the benchmark).
  bool has(const IrLevelRequest& request);
  // Lays out and keeps the picture of `shown` (the layout of `request`) with
  // each of its collapsed groups opened, in item order, up to
  // kPrefetchedPictures; stops between pictures when `cancelled`. Returns
  // how many it laid out.
  std::size_t prefetchExpansions(const IrLevelRequest& request, const IrGraphLayout& shown,
                                 const std::atomic<bool>* cancelled = nullptr);
  // Drops the kept pictures, not the levels (the benchmark's cache misses).
  void forgetPictures();

private:
  struct Level;
  // The level `request` asks for, made or found (null when cancelled first).
  std::shared_ptr<Level> levelOf(const IrLevelRequest& request);
  std::shared_ptr<const GroupStructure> structureOf(Level& level, GraphGrouping grouping);
  static std::string pictureKey(const VisibleGraphOptions& options);

  std::mutex m_mutex;
  std::list<std::shared_ptr<Level>> m_levels;  // most recently used first
};

} // namespace pto::widgets
