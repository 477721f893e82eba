// The graph view's speed (issue 13's budget: the first picture of a tile
// graph of >= 5 000 tile ops within 1 s wall), offscreen:
//   firstPictureOfTileGraph  a 5 120-tile-op kernel compiled, its final IR
//                            snapshotted (what the Graphs tab compiles
//                            first), its tile level built, grouped as the IDE
//                            opens it, laid out by dot and painted into a
//                            1600x1000 image
//   everyPassOfTileGraph     the second job: the IR after every pass, diffed
//   layoutCost/N             grouped as the IDE opens it, then laid out, for
//                            synthetic tile graphs of N = 1k, 5k, 20k nodes in
//                            subgraphs of 8 (counter: items laid out)
//   layoutUngrouped/N        every node laid out (what grouping saves); 20k is
//                            left out: dot alone takes minutes there
//   firstPictureAfterRun/EXAMPLE  issue 35's budget (<= 1 s for DIA): a
//                            bundled example run as the IDE runs it (not
//                            timed), then what the Graphs tab does with the
//                            run: the run's own final IR (no trace, no
//                            compile), its tile level built, grouped as the
//                            IDE opens it, laid out by dot and painted
//   interactionFrames/EXAMPLE/PICTURE/ZOOM  issue 35's interaction budget
//                            (<= 50 ms per frame) on a bundled example's tile
//                            graph after its run, on the first picture and
//                            on the densest one two double-clicks away, at
//                            the fitted zoom and at the smallest zoom where
//                            box text is drawn: a pan by an arrow-key step, a
//                            wheel notch in and one out, a click selecting
//                            the item nearest the centre, a double-click
//                            opening the group nearest it, each followed by
//                            a paint of the whole 1600x1000 view into an
//                            image. The double-click goes through the
//                            Graphs tab's IrLevelCache: `expand` after the
//                            prefetch of the pictures a double-click away
//                            (what the tab does on a worker once a picture
//                            shows; its time is `prefetch_ms`), `uncached`
//                            before it (grouping from the kept structure,
//                            dot and paint). Time: the mean frame, uncached
//                            expands apart; counters: each action's mean
//                            frame and the slowest frame
// Run: QT_QPA_PLATFORM=offscreen build/release/bin/pto_graph_bench
#include "BenchGraphs.h"

#include "analysis/irviews/IrGraph.h"
#include "analysis/run/PassHistory.h"
#include "analysis/run/ProjectRun.h"
#include "core/project/ProjectFile.h"
#include "compiler/ir/TensorGraphBuilder.h"
#include "compiler/passes/Pipeline.h"
#include "widgets/IrGraphView.h"
#include "widgets/models/IrLevelCache.h"

#include <benchmark/benchmark.h>

#include <QApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>

#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <QImage>
#include <QPainter>

namespace {

using namespace pto;

// The size of the graph area the budgets are stated for.
constexpr int kViewWidthPx = 1600;
constexpr int kViewHeightPx = 1000;

// What the Graphs tab shows first for `layout`: fitted into the view and painted whole.
void paintFirstPicture(const std::shared_ptr<const widgets::IrGraphLayout>& layout) {
  widgets::IrGraphView view;
  view.resize(kViewWidthPx, kViewHeightPx);
  view.setGraphLayout(layout);
  QImage image(kViewWidthPx, kViewHeightPx, QImage::Format_ARGB32_Premultiplied);
  view.render(&image);
}

// What the Graphs tab does before its first picture (PassHistoryDepth::
// FinalIr): compile, one snapshot of the final IR, the tile level grouped as
// it opens, dot, paint.
void firstPictureOfTileGraph(benchmark::State& state) {
  TensorGraph graph = vectorChainGraph(256);
  std::size_t tileOps = 0, items = 0;
  double compileMs = 0, pictureMs = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    DiagnosticEngine diags;
    auto compiled = compileKernel(graph, CompileSettings{}, diags);
    if (!compiled) {
      state.SkipWithError("compile failed");
      return;
    }
    IrJson snapshot = irSnapshot(compiled->compilation);
    auto compiledAt = std::chrono::steady_clock::now();
    auto irGraph = std::make_shared<const IrGraph>(buildIrGraph(GraphLevel::Tile, IrJson::object(), snapshot));
    auto layout = std::make_shared<const widgets::IrGraphLayout>(
        widgets::layoutIrGraph(irGraph, visibleGraph(*irGraph, defaultVisibleOptions(*irGraph))));
    paintFirstPicture(layout);
    auto painted = std::chrono::steady_clock::now();
    tileOps = irGraph->nodes.size();
    items = layout->items.size();
    compileMs = std::chrono::duration<double, std::milli>(compiledAt - start).count();
    pictureMs = std::chrono::duration<double, std::milli>(painted - compiledAt).count();
  }
  state.counters["tile_ops"] = static_cast<double>(tileOps);
  state.counters["items"] = static_cast<double>(items);
  state.counters["compile_and_final_ir_ms"] = compileMs;
  state.counters["graph_layout_paint_ms"] = pictureMs;
}
BENCHMARK(firstPictureOfTileGraph)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

// The Graphs tab's first picture after a run of a real example: the run's
// compiled graphs reused (passHistoryOfRun), the tile level as it opens.
// A bundled example run as the IDE runs it (timing mode; the view needs the
// compiled graphs, not the outputs), or nullopt with the benchmark skipped.
std::optional<ProjectRunResult> runForGraphs(benchmark::State& state, const std::string& example) {
  ::setenv("PTO_PYTHON_PATH", PTO_PYTHON_PACKAGE_DIR, 1);
  DiagnosticEngine diags;
  auto project = loadProject(std::string(PTO_SOURCE_DIR) + "/resources/examples/" + example, diags);
  ProjectRunOptions options;
  options.check = PrecisionCheck::Never;
  auto run = project ? runProject(*project, diags, options) : std::nullopt;
  if (!run || !run->compiled) {
    state.SkipWithError("the example does not run");
    return std::nullopt;
  }
  return run;
}

void firstPictureAfterRun(benchmark::State& state, const std::string& example) {
  auto run = runForGraphs(state, example);
  if (!run) return;
  auto traced = std::make_shared<const TensorGraph>(run->graph);
  std::size_t tileOps = 0, items = 0;
  double historyMs = 0, levelMs = 0, layoutMs = 0, paintMs = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    PassHistory history = passHistoryOfRun(traced, *run->compiled);
    auto historyAt = std::chrono::steady_clock::now();
    auto irGraph = std::make_shared<const IrGraph>(
        buildIrGraph(GraphLevel::Tile, history.tensor, *history.steps.back().snapshot));
    VisibleGraph visible = visibleGraph(*irGraph, defaultVisibleOptions(*irGraph));
    auto levelAt = std::chrono::steady_clock::now();
    auto layout = std::make_shared<const widgets::IrGraphLayout>(widgets::layoutIrGraph(irGraph, std::move(visible)));
    auto laidOutAt = std::chrono::steady_clock::now();
    paintFirstPicture(layout);
    auto paintedAt = std::chrono::steady_clock::now();
    auto ms = [](auto from, auto to) { return std::chrono::duration<double, std::milli>(to - from).count(); };
    tileOps = irGraph->nodes.size();
    items = layout->items.size();
    // The picture is on screen here; freeing the old one is not part of it
    // (the IDE frees a replaced history on a pool thread).
    state.SetIterationTime(std::chrono::duration<double>(paintedAt - start).count());
    historyMs += ms(start, historyAt);
    levelMs += ms(historyAt, levelAt);
    layoutMs += ms(levelAt, laidOutAt);
    paintMs += ms(laidOutAt, paintedAt);
  }
  using benchmark::Counter;
  state.counters["tile_ops"] = static_cast<double>(tileOps);
  state.counters["items"] = static_cast<double>(items);
  state.counters["final_ir_ms"] = Counter(historyMs, Counter::kAvgIterations);
  state.counters["level_ms"] = Counter(levelMs, Counter::kAvgIterations);
  state.counters["dot_ms"] = Counter(layoutMs, Counter::kAvgIterations);
  state.counters["paint_ms"] = Counter(paintMs, Counter::kAvgIterations);
}
BENCHMARK_CAPTURE(firstPictureAfterRun, softmax, std::string("softmax"))
    ->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(3);
BENCHMARK_CAPTURE(firstPictureAfterRun, l1_reuse, std::string("lightning_indexer_tuning/l1_reuse"))
    ->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(3);
BENCHMARK_CAPTURE(firstPictureAfterRun, sparse_flash_attention, std::string("sparse_flash_attention"))
    ->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(3);
BENCHMARK_CAPTURE(firstPictureAfterRun, deepseek_indexer_attention, std::string("deepseek_indexer_attention"))
    ->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(3);

// Opening groups on DIA's tile graph, as a user drills down from the first
// picture: each stage opens on its own, and each label inside it; every
// picture is grouped and laid out (what the view waits for after a
// double-click). Counters: the slowest opening, its items, and the mean.
void openEveryLabelOfDia(benchmark::State& state) {
  auto run = runForGraphs(state, "deepseek_indexer_attention");
  if (!run) return;
  PassHistory history = passHistoryOfRun(std::make_shared<const TensorGraph>(run->graph), *run->compiled);
  auto graph = std::make_shared<const IrGraph>(buildIrGraph(GraphLevel::Tile, history.tensor, *history.steps.back().snapshot));
  double slowestMs = 0, totalMs = 0;
  std::size_t slowestItems = 0, openings = 0;
  for (auto _ : state) {
    const VisibleGraphOptions first = defaultVisibleOptions(*graph);
    std::vector<std::set<std::string>> toOpen;
    for (const VisibleGroup& stage : visibleGraph(*graph, first).groups)
      if (stage.depth == 0 && !stage.expanded) {
        toOpen.push_back({stage.key});
        VisibleGraphOptions opened = first;
        opened.expanded = {stage.key};
        for (const VisibleGroup& label : visibleGraph(*graph, opened).groups)
          if (label.depth == 1 && !label.expanded && label.key.rfind(stage.key + ".", 0) == 0)
            toOpen.push_back({stage.key, label.key});
      }
    for (const std::set<std::string>& keys : toOpen) {
      auto start = std::chrono::steady_clock::now();
      VisibleGraphOptions opened = first;
      opened.expanded = keys;
      auto layout = widgets::layoutIrGraph(graph, visibleGraph(*graph, opened));
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      totalMs += ms;
      ++openings;
      if (ms > slowestMs) {
        slowestMs = ms;
        slowestItems = layout.items.size();
      }
    }
  }
  state.counters["openings"] = static_cast<double>(openings);
  state.counters["slowest_ms"] = slowestMs;
  state.counters["slowest_items"] = static_cast<double>(slowestItems);
  state.counters["mean_ms"] = openings ? totalMs / static_cast<double>(openings) : 0.0;
}
BENCHMARK(openEveryLabelOfDia)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

// A bundled example's tile graph after its run, grouped as the IDE opens it,
// kept for the interaction cases (the run is not what they time).
const IrGraph* tileGraphAfterRun(benchmark::State& state, const std::string& example) {
  static std::map<std::string, std::shared_ptr<const IrGraph>> graphs;
  auto found = graphs.find(example);
  if (found != graphs.end()) return found->second.get();
  auto run = runForGraphs(state, example);
  if (!run) return nullptr;
  PassHistory history = passHistoryOfRun(std::make_shared<const TensorGraph>(run->graph), *run->compiled);
  auto graph = std::make_shared<const IrGraph>(buildIrGraph(GraphLevel::Tile, history.tensor, *history.steps.back().snapshot));
  return graphs.emplace(example, std::move(graph)).first->second.get();
}

// What the view shows: the first picture, or the densest one two
// double-clicks away (the biggest top-level group opened, then its biggest
// group inside).
enum class Picture { First, Opened };
enum class StartZoom { Fitted, Legible };

VisibleGraphOptions optionsOf(const IrGraph& graph, Picture picture) {
  VisibleGraphOptions options = defaultVisibleOptions(graph);
  for (int depth = 0; picture == Picture::Opened && depth < 2; ++depth) {
    const VisibleGroup* biggest = nullptr;
    for (const VisibleGroup& group : visibleGraph(graph, options).groups)
      if (group.depth == depth && !group.expanded && (!biggest || group.members.size() > biggest->members.size()))
        biggest = &group;
    if (biggest) options.expanded.insert(biggest->key);
  }
  return options;
}

void sendKey(QWidget& view, int key) {
  QKeyEvent press(QEvent::KeyPress, key, Qt::NoModifier);
  QCoreApplication::sendEvent(&view, &press);
}

void sendWheel(QWidget& view, QPointF at, int notches) {
  QWheelEvent wheel(at, view.mapToGlobal(at), QPoint(), QPoint(0, 120 * notches), Qt::NoButton, Qt::NoModifier,
                    Qt::NoScrollPhase, false);
  QCoreApplication::sendEvent(&view, &wheel);
}

void sendClick(QWidget& view, QPointF at, QEvent::Type type = QEvent::MouseButtonPress) {
  QMouseEvent press(type, at, view.mapToGlobal(at), Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
  QCoreApplication::sendEvent(&view, &press);
  QMouseEvent release(QEvent::MouseButtonRelease, at, view.mapToGlobal(at), Qt::LeftButton, Qt::NoButton, Qt::NoModifier);
  QCoreApplication::sendEvent(&view, &release);
}

// The item (a collapsed group if `group`) whose centre is nearest the view's
// centre: what a user clicks. -1 when there is none.
int itemNearCentre(const widgets::IrGraphView& view, bool group) {
  const QPointF centre(view.width() / 2.0, view.height() / 2.0);
  int best = -1;
  double bestDistance = 0;
  for (std::size_t i = 0; i < view.graphLayout()->items.size(); ++i) {
    if (group && view.graphLayout()->visible.items[i].group < 0) continue;
    QPointF d = view.widgetPosOfItem(static_cast<int>(i)) - centre;
    double distance = d.x() * d.x() + d.y() * d.y();
    if (best < 0 || distance < bestDistance) {
      best = static_cast<int>(i);
      bestDistance = distance;
    }
  }
  return best;
}

void interactionFrames(benchmark::State& state, const std::string& example, Picture picture, StartZoom zoom) {
  const IrGraph* found = tileGraphAfterRun(state, example);
  if (!found) return;
  auto graph = std::shared_ptr<const IrGraph>(found, [](const IrGraph*) {});  // owned by tileGraphAfterRun
  // What the Graphs tab's layout jobs keep: the level's group structure
  // (made with the first picture, not timed) and the pictures laid out.
  widgets::IrLevelCache cache;
  widgets::IrLevelRequest request;
  request.graph = graph;
  request.options = optionsOf(*graph, picture);
  auto layout = cache.layout(request);
  widgets::IrGraphView view;
  view.resize(kViewWidthPx, kViewHeightPx);
  const QPointF centre(kViewWidthPx / 2.0, kViewHeightPx / 2.0);
  // The legible zoom: wheel notches in about the centre until box text is
  // drawn (IrGraphView draws it from kMinTextPixels for its 9-point titles).
  const double legible = widgets::IrGraphView::kMinTextPixels / 9.0;
  auto startView = [&] {
    view.setGraphLayout(nullptr);  // not kept: fitted afresh
    view.setGraphLayout(layout);
    for (int notch = 0; zoom == StartZoom::Legible && notch < 40 && view.scale() < legible; ++notch) sendWheel(view, centre, 1);
  };
  auto msSince = [](std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  // A double-click on a group: the tab asks its worker for the picture with
  // the group open (from the cache, else grouped and laid out by dot) and
  // the view shows it; the worker's time is counted here as if on the GUI
  // thread.
  double layoutMs[2] = {}, prefetchMs = 0;
  int hits = 0;
  QObject::connect(&view, &widgets::IrGraphView::groupToggled, [&](const std::string& key) {
    widgets::IrLevelRequest opened = request;
    if (!opened.options.expanded.erase(key)) opened.options.expanded.insert(key);
    auto start = std::chrono::steady_clock::now();
    const bool hit = cache.has(opened);
    view.setGraphLayout(cache.layout(opened));
    layoutMs[hit ? 0 : 1] += msSince(start);
    hits += hit;
  });
  startView();
  const double scaleAtStart = view.scale();
  QImage image(kViewWidthPx, kViewHeightPx, QImage::Format_ARGB32_Premultiplied);
  view.render(&image);
  // Expand: the picture laid out behind the one shown (prefetched, what a
  // user double-clicking after a moment gets); ExpandUncached: the same
  // double-click before that, grouped and laid out on the spot.
  enum Action { Pan, ZoomIn, ZoomOut, Select, Expand, ExpandUncached, kActions };
  double totalMs[kActions] = {}, slowestMs[kActions] = {}, paintMs[kActions] = {};
  int frames[kActions] = {};
  // One frame: an action, then the whole view painted, as on screen.
  auto frame = [&](Action action, auto&& act) {
    auto start = std::chrono::steady_clock::now();
    act();
    auto acted = std::chrono::steady_clock::now();
    view.render(&image);
    double ms = msSince(start);
    paintMs[action] += msSince(acted);
    totalMs[action] += ms;
    frames[action] += 1;
    slowestMs[action] = std::max(slowestMs[action], ms);
    return ms;
  };
  for (auto _ : state) {
    double iterationMs = 0;
    int iterationFrames = 5;
    // Right then back left, so every iteration pans over the same picture.
    iterationMs += frame(Pan, [&] { sendKey(view, Qt::Key_Right); });
    iterationMs += frame(Pan, [&] { sendKey(view, Qt::Key_Left); });
    iterationMs += frame(ZoomIn, [&] { sendWheel(view, centre, 1); });
    iterationMs += frame(ZoomOut, [&] { sendWheel(view, centre, -1); });
    const int item = itemNearCentre(view, false);
    iterationMs += frame(Select, [&] { sendClick(view, view.widgetPosOfItem(item)); });
    const int group = itemNearCentre(view, true);
    if (group >= 0) {
      const QPointF at = view.widgetPosOfItem(group);
      auto start = std::chrono::steady_clock::now();
      cache.prefetchExpansions(request, *layout);  // the worker, while the user looks
      prefetchMs += msSince(start);
      iterationMs += frame(Expand, [&] { sendClick(view, at, QEvent::MouseButtonDblClick); });
      ++iterationFrames;
      startView();
      cache.forgetPictures();
      frame(ExpandUncached, [&] { sendClick(view, at, QEvent::MouseButtonDblClick); });
      startView();
    }
    state.SetIterationTime(iterationMs / iterationFrames / 1000.0);  // the mean frame (uncached expands apart)
  }
  auto mean = [&](Action action) { return frames[action] ? totalMs[action] / frames[action] : 0.0; };
  auto perFrame = [&](double ms, Action action) { return frames[action] ? ms / frames[action] : 0.0; };
  state.counters["items"] = static_cast<double>(layout->items.size());
  state.counters["scale"] = scaleAtStart;
  state.counters["pan_ms"] = mean(Pan);
  state.counters["zoom_in_ms"] = mean(ZoomIn);
  state.counters["zoom_out_ms"] = mean(ZoomOut);
  state.counters["select_ms"] = mean(Select);
  state.counters["expand_ms"] = mean(Expand);
  state.counters["expand_layout_ms"] = perFrame(layoutMs[0], Expand);  // the cache's answer
  state.counters["expand_paint_ms"] = perFrame(paintMs[Expand], Expand);
  state.counters["expand_hits"] = static_cast<double>(hits);
  state.counters["prefetch_ms"] = perFrame(prefetchMs, Expand);  // a worker's time per picture shown
  state.counters["uncached_ms"] = mean(ExpandUncached);
  state.counters["uncached_layout_ms"] = perFrame(layoutMs[1], ExpandUncached);  // grouping and dot
  state.counters["uncached_slowest_ms"] = slowestMs[ExpandUncached];
  state.counters["select_paint_ms"] = perFrame(paintMs[Select], Select);
  state.counters["slowest_ms"] = *std::max_element(slowestMs, slowestMs + ExpandUncached);
}
#define PTO_INTERACTION_CASE(name, example, picture, zoom, iterations)                                      \
  BENCHMARK_CAPTURE(interactionFrames, name, std::string(example), Picture::picture, StartZoom::zoom) \
      ->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(iterations)
PTO_INTERACTION_CASE(softmax/first/fitted, "softmax", First, Fitted, 1);
PTO_INTERACTION_CASE(l1_reuse/first/fitted, "lightning_indexer_tuning/l1_reuse", First, Fitted, 10);
PTO_INTERACTION_CASE(l1_reuse/opened/fitted, "lightning_indexer_tuning/l1_reuse", Opened, Fitted, 10);
PTO_INTERACTION_CASE(sparse_flash_attention/first/fitted, "sparse_flash_attention", First, Fitted, 10);
PTO_INTERACTION_CASE(sparse_flash_attention/first/legible, "sparse_flash_attention", First, Legible, 10);
PTO_INTERACTION_CASE(sparse_flash_attention/opened/fitted, "sparse_flash_attention", Opened, Fitted, 10);
PTO_INTERACTION_CASE(sparse_flash_attention/opened/legible, "sparse_flash_attention", Opened, Legible, 10);
PTO_INTERACTION_CASE(deepseek_indexer_attention/first/fitted, "deepseek_indexer_attention", First, Fitted, 10);
PTO_INTERACTION_CASE(deepseek_indexer_attention/first/legible, "deepseek_indexer_attention", First, Legible, 10);
PTO_INTERACTION_CASE(deepseek_indexer_attention/opened/fitted, "deepseek_indexer_attention", Opened, Fitted, 10);
PTO_INTERACTION_CASE(deepseek_indexer_attention/opened/legible, "deepseek_indexer_attention", Opened, Legible, 10);

// The second job: the IR after every pass, parsed and diffed (the pass list).
void everyPassOfTileGraph(benchmark::State& state) {
  TensorGraph graph = vectorChainGraph(256);
  for (auto _ : state) {
    DiagnosticEngine diags;
    CompileOptions options;
    options.keepSnapshots = true;
    auto compiled = compileKernel(graph, CompileSettings{}, diags, options);
    if (!compiled) {
      state.SkipWithError("compile failed");
      return;
    }
    PassHistory history;
    appendPassSteps(history, std::move(compiled->passes));
    benchmark::DoNotOptimize(history.steps.size());
  }
}
BENCHMARK(everyPassOfTileGraph)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

// N tile ops in subgraphs of 8 chained ops, each subgraph feeding the next.
IrGraph syntheticTileGraph(int nodes) {
  IrGraph graph;
  graph.level = GraphLevel::Tile;
  for (int i = 0; i < nodes; ++i) {
    if (i % 8 == 0) {
      IrGraphCluster cluster;
      cluster.id = i / 8;
      cluster.key = "sg:" + std::to_string(cluster.id);
      cluster.title = "sg" + std::to_string(cluster.id) + " AIV 'stage" + std::to_string(i / 8 % 5) + "'";
      cluster.coreType = "AIV";
      graph.clusters.push_back(cluster);
    }
    IrGraphNode node;
    node.id = i;
    node.key = "op" + std::to_string(i);
    node.kind = "exp";
    node.title = "exp #" + std::to_string(i) + " · line " + std::to_string(3 + i % 5);
    node.detail = "[1, 64] fp32 · UB · tile " + std::to_string(i / 8);
    node.label = "stage" + std::to_string(i / 8 % 5);
    node.cluster = static_cast<int>(graph.clusters.size()) - 1;
    node.subgraph = node.cluster;
    node.tileIndex = i / 8;
    graph.clusters.back().nodes.push_back(i);
    if (i > 0) graph.edges.push_back({i - 1, i});
    graph.nodes.push_back(node);
  }
  return graph;
}

void layoutCost(benchmark::State& state) {
  auto graph = std::make_shared<const IrGraph>(syntheticTileGraph(static_cast<int>(state.range(0))));
  std::size_t items = 0;
  for (auto _ : state) {
    auto layout = widgets::layoutIrGraph(graph, visibleGraph(*graph, defaultVisibleOptions(*graph)));
    items = layout.items.size();
  }
  state.counters["items"] = static_cast<double>(items);
}
BENCHMARK(layoutCost)->Arg(1000)->Arg(5000)->Arg(20000)->Unit(benchmark::kMillisecond)->UseRealTime();

void layoutUngrouped(benchmark::State& state) {
  auto graph = std::make_shared<const IrGraph>(syntheticTileGraph(static_cast<int>(state.range(0))));
  VisibleGraphOptions options;
  options.neighbourhoodAbove = graph->nodes.size() + 1;
  for (auto _ : state) benchmark::DoNotOptimize(widgets::layoutIrGraph(graph, visibleGraph(*graph, options)));
}
BENCHMARK(layoutUngrouped)->Arg(1000)->Arg(5000)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

} // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
