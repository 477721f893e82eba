// Swimlane painting and memory on a synthetic 1 000 000-task trace
// (DESIGN.md budget: <= 16 ms per frame offscreen in release, <= 200 MB for
// the trace in memory). Run: QT_QPA_PLATFORM=offscreen build/<preset>/bin/pto_swimlane_bench
// Counters: trace_MB (Trace::memoryBytes + TraceIndex, LaneSummary
// included), summary_MB (the LaneSummary alone), items (drawn per frame),
// tasks (stood for by those items). Frames pan by a pixel each, so no
// frame repeats the one before.
#include "widgets/SwimlaneRenderer.h"

#include <benchmark/benchmark.h>

#include <QApplication>
#include <QImage>
#include <QPainter>

#include <memory>
#include <random>

namespace {

using namespace pto;

// 24 AIC + 48 AIV lanes, tasks back to back with small gaps, 10 labels,
// 1-2 producers each on other lanes: the shape of a large attention run.
std::shared_ptr<const widgets::TraceIndex> syntheticTrace(int taskCount) {
  static std::shared_ptr<const widgets::TraceIndex> cached;
  if (cached) return cached;
  auto trace = std::make_shared<trace::Trace>();
  constexpr int kAic = 24, kAiv = 48;
  std::vector<trace::LaneIndex> lanes;
  for (int i = 0; i < kAic; ++i) lanes.push_back(trace->addLane("AIC_" + std::to_string(i), i));
  for (int i = 0; i < kAiv; ++i) lanes.push_back(trace->addLane("AIV_" + std::to_string(i), kAic + i));
  const char* labels[] = {"load_q", "load_kv", "qk", "softmax_max", "softmax_exp", "softmax_sum", "pv", "rescale", "store", "indexer"};
  std::vector<trace::StringId> labelIds, nameIds;
  for (const char* label : labels) {
    labelIds.push_back(trace->intern(label));
    nameIds.push_back(trace->intern(std::string("attn-") + label));
  }
  trace::StringId file = trace->intern("kernel.py");
  std::mt19937 rng(1);
  std::vector<std::int64_t> laneTime(lanes.size(), 0);
  trace->reserveTasks(static_cast<std::size_t>(taskCount), static_cast<std::size_t>(taskCount) * 3 / 2);
  for (int i = 0; i < taskCount; ++i) {
    std::size_t lane = static_cast<std::size_t>(i) % lanes.size();
    trace::Task task;
    task.id = i;
    task.lane = lanes[lane];
    task.startNs = laneTime[lane] + static_cast<std::int64_t>(rng() % 200);
    task.endNs = task.startNs + 300 + static_cast<std::int64_t>(rng() % 4000);
    task.dispatchNs = task.startNs - 50;
    laneTime[lane] = task.endNs;
    std::size_t label = rng() % 10;
    task.label = labelIds[label];
    task.name = nameIds[label];
    task.subgraph = static_cast<std::int32_t>(label);
    task.sourceFile = file;
    task.sourceLine = static_cast<std::int32_t>(10 + label);
    trace::TaskIndex index = trace->addTask(task);
    if (i >= 200) {
      trace->addDependency(index - 100 - static_cast<trace::TaskIndex>(rng() % 100), index);
      if (rng() % 2) trace->addDependency(index - 150, index);
    }
  }
  trace->finalize();
  cached = std::make_shared<const widgets::TraceIndex>(trace, "synthetic");
  return cached;
}

// `summary` false paints dense lanes fold by fold from the tasks (the path
// before LaneSummary), for comparison.
void paintFrames(benchmark::State& state, double zoom, bool summary = true,
                 widgets::SwimlaneColorMode mode = widgets::SwimlaneColorMode::Label) {
  auto index = syntheticTrace(1000000);
  widgets::SwimlaneRenderer renderer;
  renderer.setTrace(index);
  renderer.setUseLaneSummary(summary);
  renderer.setPalette(QApplication::palette());
  QSize size(1600, 2000);  // all 72 lanes visible
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  widgets::SwimlaneState view;
  view.coords.setWidthPx(widgets::SwimlaneRenderer::timeArea(size).width());
  view.coords.setExtent(index->startNs(), index->endNs());
  view.coords.fit();
  view.coords.zoomAbout(view.coords.widthPx() / 2, zoom);
  view.selected = static_cast<trace::TaskIndex>(500000);
  view.arrows = index->dependencyEdges(view.selected, 2);
  view.colorMode = mode;
  int frame = 0;
  for (auto _ : state) {
    // Pan a pixel back and forth: every frame shows a new time range, as
    // while dragging, so nothing can be reused from the frame before.
    view.coords.panPx((frame++ % 2) ? -1 : 1);
    QPainter painter(&image);
    renderer.paint(painter, size, view);
    painter.end();
    benchmark::DoNotOptimize(image.constBits());
  }
  state.counters["trace_MB"] = static_cast<double>(index->memoryBytes()) / 1e6;
  state.counters["summary_MB"] = static_cast<double>(index->laneSummary().memoryBytes()) / 1e6;
  state.counters["items"] = static_cast<double>(renderer.lastItemCount());
  state.counters["tasks"] = static_cast<double>(renderer.lastTaskCount());
}

void BM_SwimlanePaintFitAll(benchmark::State& state) { paintFrames(state, 1); }
void BM_SwimlanePaintMidZoom(benchmark::State& state) { paintFrames(state, 100); }
void BM_SwimlanePaintDeepZoom(benchmark::State& state) { paintFrames(state, 5000); }

void BM_SwimlanePaintFitAllFoldOnly(benchmark::State& state) { paintFrames(state, 1, false); }
void BM_SwimlanePaintFitAllBound(benchmark::State& state) { paintFrames(state, 1, true, widgets::SwimlaneColorMode::Bound); }
// Building the TraceIndex (successors, critical path, bound classes, lane
// summaries) for the 1 000 000-task trace, off the GUI thread in the IDE.
void BM_TraceIndexBuild(benchmark::State& state) {
  auto trace = syntheticTrace(1000000)->sharedTrace();
  for (auto _ : state) {
    widgets::TraceIndex index(trace);
    benchmark::DoNotOptimize(index.makespanNs());
  }
}

BENCHMARK(BM_SwimlanePaintFitAll)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SwimlanePaintFitAllFoldOnly)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SwimlanePaintFitAllBound)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TraceIndexBuild)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_SwimlanePaintMidZoom)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SwimlanePaintDeepZoom)->Unit(benchmark::kMillisecond);

} // namespace

int main(int argc, char** argv) {
  // Fonts and palettes need an application object; no window is shown.
  qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen") : qgetenv("QT_QPA_PLATFORM"));
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
