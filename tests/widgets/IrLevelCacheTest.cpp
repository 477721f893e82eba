// IrLevelCache on a hand-built 1 200-op tile graph grouped by structure (two
// labels of 30 subgraphs of 20 ops, chained): a picture asked for again is
// the one laid out before; prefetching lays out exactly the pictures one
// double-click away, each the same picture (same boxes, same places) as
// laying it out afresh without the cache; pictures of another graph are not
// mixed up with these; a cancelled prefetch lays out nothing.
#include "widgets/models/IrLevelCache.h"

#include "tests/support/SyntheticIrGraph.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <string>

namespace pto::widgets {
namespace {

// Two labels of 30 subgraphs of `opsEach` ops, each op its own tensor op.
IrGraph chainedSubgraphs(int subgraphs, int opsEach) {
  IrGraph graph = test::chainedClusters(subgraphs, opsEach);
  for (IrGraphNode& node : graph.nodes) node.tensorOp = node.id;
  return graph;
}

IrLevelRequest requestFor(std::shared_ptr<const IrGraph> graph, std::set<std::string> expanded = {}) {
  IrLevelRequest request;
  request.graph = std::move(graph);
  request.options.expanded = std::move(expanded);
  return request;
}

TEST(IrLevelCache, APictureAskedForAgainIsTheOneLaidOutBefore) {
  auto graph = std::make_shared<const IrGraph>(chainedSubgraphs(60, 20));
  IrLevelCache cache;
  EXPECT_FALSE(cache.has(requestFor(graph)));
  auto first = cache.layout(requestFor(graph));
  ASSERT_TRUE(first->error.empty()) << first->error;
  ASSERT_EQ(first->items.size(), 2u);  // the labels "even" and "odd"
  EXPECT_TRUE(cache.has(requestFor(graph)));
  EXPECT_EQ(cache.layout(requestFor(graph)).get(), first.get());
  auto opened = cache.layout(requestFor(graph, {"label:even"}));
  EXPECT_NE(opened.get(), first.get());
  EXPECT_EQ(opened->items.size(), 31u);  // 30 subgraphs of "even" and the "odd" box
  // The same nodes in another graph object are another level.
  auto copy = std::make_shared<const IrGraph>(*graph);
  EXPECT_FALSE(cache.has(requestFor(copy)));
  EXPECT_NE(cache.layout(requestFor(copy)).get(), first.get());
}

TEST(IrLevelCache, PrefetchLaysOutThePicturesOneDoubleClickAwayAsDotWould) {
  auto graph = std::make_shared<const IrGraph>(chainedSubgraphs(60, 20));
  IrLevelCache cache;
  const IrLevelRequest shownRequest = requestFor(graph, {"label:even"});
  auto shown = cache.layout(shownRequest);
  std::size_t collapsed = 0;
  for (const VisibleItem& item : shown->visible.items) collapsed += item.group >= 0 ? 1 : 0;
  ASSERT_EQ(collapsed, 31u);
  EXPECT_EQ(cache.prefetchExpansions(shownRequest, *shown), IrLevelCache::kPrefetchedPictures);
  // The first kPrefetchedPictures groups in item order, and no other.
  std::size_t seen = 0;
  for (const VisibleItem& item : shown->visible.items) {
    if (item.group < 0) continue;
    const std::string key = shown->visible.groups[static_cast<std::size_t>(item.group)].key;
    IrLevelRequest opened = shownRequest;
    opened.options.expanded.insert(key);
    EXPECT_EQ(cache.has(opened), seen < IrLevelCache::kPrefetchedPictures) << key;
    ++seen;
  }
  // A prefetched picture is the one laid out without the cache: every box
  // (by key) at the same place, the same size.
  IrLevelRequest opened = shownRequest;
  opened.options.expanded.insert("label:even/sg:4");
  ASSERT_TRUE(cache.has(opened));
  auto cached = cache.layout(opened);
  const IrGraphLayout fresh = layoutIrLevel(opened);
  ASSERT_EQ(cached->items.size(), fresh.items.size());
  ASSERT_EQ(cached->items.size(), 30u + 20u);  // sg4 open into its 20 ops
  for (std::size_t i = 0; i < fresh.items.size(); ++i) {
    const int other = cached->itemWithKey(fresh.visible.items[i].key);
    ASSERT_GE(other, 0) << fresh.visible.items[i].key;
    EXPECT_DOUBLE_EQ(cached->items[static_cast<std::size_t>(other)].centre.x, fresh.items[i].centre.x);
    EXPECT_DOUBLE_EQ(cached->items[static_cast<std::size_t>(other)].centre.y, fresh.items[i].centre.y);
    EXPECT_DOUBLE_EQ(cached->items[static_cast<std::size_t>(other)].width, fresh.items[i].width);
  }
  // Asked for again: the rest, then nothing.
  EXPECT_EQ(cache.prefetchExpansions(shownRequest, *shown), 31u - IrLevelCache::kPrefetchedPictures);
  EXPECT_EQ(cache.prefetchExpansions(shownRequest, *shown), 0u);
}

TEST(IrLevelCache, ACancelledPrefetchLaysOutNothing) {
  auto graph = std::make_shared<const IrGraph>(chainedSubgraphs(60, 20));
  IrLevelCache cache;
  auto shown = cache.layout(requestFor(graph));
  std::atomic<bool> cancelled{true};
  EXPECT_EQ(cache.prefetchExpansions(requestFor(graph), *shown, &cancelled), 0u);
  EXPECT_FALSE(cache.has(requestFor(graph, {"label:even"})));
  cache.forgetPictures();
  EXPECT_FALSE(cache.has(requestFor(graph)));
}

} // namespace
} // namespace pto::widgets
