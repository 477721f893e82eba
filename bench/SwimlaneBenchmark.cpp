// Swimlane painting and memory on synthetic 1 000 000- and 10 000 000-task
// traces (DESIGN.md budget: <= 16 ms per frame offscreen in release at 10M
// tasks, <= 100 bytes per task resident).
// Run: QT_QPA_PLATFORM=offscreen build/<preset>/bin/pto_swimlane_bench
// The 10M cases (argument /10000000, about 1 GB and a minute to build) run
// only when a --benchmark_filter names them, e.g.
//   pto_swimlane_bench --benchmark_filter=/10000000
// BM_TraceFileFirstPicture writes its trace file to $TMPDIR once (170 MB,
// or 1.6 GB for 10M) and keeps it for later runs.
// Counters: trace_MB (Trace::memoryBytes + TraceIndex, LaneSummary
// included), B_per_task (the same per task), rss_B_per_task (growth of the
// process's resident memory from before the trace was generated to after,
// per task: what the heap really holds), summary_MB (the LaneSummary
// alone), items (drawn per frame), tasks (stood for by those items). Frames
// pan by a pixel each, so no frame repeats the one before.
#include "widgets/SwimlaneRenderer.h"
#include "widgets/models/TraceLoading.h"

#include <benchmark/benchmark.h>

#include <QApplication>
#include <QImage>
#include <QPainter>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>

#include <malloc.h>
#include <unistd.h>

namespace {

using namespace pto;

// Resident bytes of this process (Linux /proc/self/statm), after handing
// freed heap back to the kernel so that builders' garbage is not counted.
double residentBytes() {
  malloc_trim(0);
  std::ifstream statm("/proc/self/statm");
  double sizePages = 0, residentPages = 0;
  statm >> sizePages >> residentPages;
  return residentPages * static_cast<double>(sysconf(_SC_PAGESIZE));
}

struct SyntheticTrace {
  std::shared_ptr<const widgets::TraceIndex> index;
  double residentBytes = 0;  // growth of the process's resident memory while it was built
};

// 24 AIC + 48 AIV lanes, tasks back to back with small gaps, 10 labels,
// 1-2 producers each on other lanes: the shape of a large attention run.
// Built once per size and kept for the process's lifetime.
const SyntheticTrace& syntheticTrace(int taskCount) {
  static std::map<int, SyntheticTrace> cache;
  if (auto found = cache.find(taskCount); found != cache.end()) return found->second;
  double residentBefore = residentBytes();
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
  SyntheticTrace& built = cache[taskCount];
  built.index = std::make_shared<const widgets::TraceIndex>(trace, "synthetic");
  built.residentBytes = residentBytes() - residentBefore;
  return built;
}

// `summary` false paints dense lanes fold by fold from the tasks (the path
// before LaneSummary), for comparison.
void paintFrames(benchmark::State& state, double zoom, bool summary = true,
                 widgets::SwimlaneColorMode mode = widgets::SwimlaneColorMode::Label) {
  const int taskCount = static_cast<int>(state.range(0));
  const SyntheticTrace& synthetic = syntheticTrace(taskCount);
  const auto& index = synthetic.index;
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
  view.selected = static_cast<trace::TaskIndex>(taskCount / 2);
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
  state.counters["B_per_task"] = static_cast<double>(index->memoryBytes()) / taskCount;
  state.counters["rss_B_per_task"] = synthetic.residentBytes / taskCount;
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
// summaries) for the synthetic trace, off the GUI thread in the IDE.
void BM_TraceIndexBuild(benchmark::State& state) {
  auto trace = syntheticTrace(static_cast<int>(state.range(0))).index->sharedTrace();
  for (auto _ : state) {
    widgets::TraceIndex index(trace);
    benchmark::DoNotOptimize(index.makespanNs());
  }
}

// Opening a trace file as the IDE does (TraceLoadControl with a preview
// after one second of reading): a synthetic Chrome trace of N complete
// events on 72 lanes (~160 bytes each, like PyPTO's merged_swimlane.json),
// written once to $TMPDIR. Counters: first_picture_s (from the open to the
// preview painted once at fit-all), preview_tasks, total_s (the whole file
// read and indexed), MB_per_s (file bytes per second of the whole read).
std::filesystem::path syntheticTraceFile(int taskCount) {
  auto path = std::filesystem::temp_directory_path() / ("pto_swimlane_bench_" + std::to_string(taskCount) + ".json");
  if (std::filesystem::exists(path)) return path;
  auto partial = path;
  partial += ".partial";
  {
    std::FILE* out = std::fopen(partial.c_str(), "wb");
    std::fputs("{\"traceEvents\":[\n", out);
    constexpr int kLanes = 72;
    for (int lane = 0; lane < kLanes; ++lane)
      std::fprintf(out, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":%d,\"args\":{\"name\":\"%s_%d\"}},\n", lane,
                   lane < 24 ? "AIC" : "AIV", lane < 24 ? lane : lane - 24);
    const char* labels[] = {"load_q", "load_kv", "qk", "softmax_max", "softmax_exp", "softmax_sum", "pv", "rescale", "store", "indexer"};
    std::mt19937 rng(1);
    std::vector<std::int64_t> laneTime(kLanes, 0);
    for (int i = 0; i < taskCount; ++i) {
      int lane = i % kLanes;
      std::int64_t start = laneTime[static_cast<std::size_t>(lane)] + static_cast<std::int64_t>(rng() % 200);
      std::int64_t dur = 300 + static_cast<std::int64_t>(rng() % 4000);
      laneTime[static_cast<std::size_t>(lane)] = start + dur;
      int k = i % 10;
      std::fprintf(out,
                   "{\"ph\":\"X\",\"name\":\"%d-attn-%s-0-%d(%s)\",\"pid\":1,\"tid\":%d,\"ts\":%lld.%03lld,\"dur\":%lld.%03lld,"
                   "\"args\":{\"taskId\":%d,\"seqNo\":1,\"subgraph\":%d,\"label\":\"%s\"}},\n",
                   k, labels[k], k, labels[k], lane, static_cast<long long>(start / 1000), static_cast<long long>(start % 1000),
                   static_cast<long long>(dur / 1000), static_cast<long long>(dur % 1000), i, k, labels[k]);
    }
    std::fputs("{\"ph\":\"C\",\"name\":\"ReadyCount_Total\",\"pid\":1,\"ts\":0,\"args\":{\"value\":1}}]}\n", out);
    std::fclose(out);
  }
  std::filesystem::rename(partial, path);
  return path;
}

void BM_TraceFileFirstPicture(benchmark::State& state) {
  auto path = syntheticTraceFile(static_cast<int>(state.range(0)));
  using Clock = std::chrono::steady_clock;
  double firstPictureS = 0, totalS = 0;
  std::size_t previewTasks = 0;
  for (auto _ : state) {
    auto start = Clock::now();
    widgets::TraceLoadControl control;
    control.previewAfterMs = 1000;
    control.preview = [&](std::shared_ptr<const widgets::TraceIndex> preview) {
      // What the IDE does with it: one fit-all frame.
      widgets::SwimlaneRenderer renderer;
      renderer.setTrace(preview);
      renderer.setPalette(QApplication::palette());
      QSize size(1600, 2000);
      QImage image(size, QImage::Format_ARGB32_Premultiplied);
      widgets::SwimlaneState view;
      view.coords.setWidthPx(widgets::SwimlaneRenderer::timeArea(size).width());
      view.coords.setExtent(preview->startNs(), preview->endNs());
      view.coords.fit();
      QPainter painter(&image);
      renderer.paint(painter, size, view);
      painter.end();
      firstPictureS = std::chrono::duration<double>(Clock::now() - start).count();
      previewTasks = preview->trace().taskCount();
    };
    widgets::TraceLoadResult result = widgets::loadTraceFile(path, control);
    totalS = std::chrono::duration<double>(Clock::now() - start).count();
    if (!result.index) state.SkipWithError(result.error.c_str());
    if (previewTasks == 0) firstPictureS = totalS;  // read before a preview was due: the whole trace is the first picture
  }
  state.counters["first_picture_s"] = firstPictureS;
  state.counters["preview_tasks"] = static_cast<double>(previewTasks);
  state.counters["total_s"] = totalS;
  state.counters["MB_per_s"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6 / totalS;
}

constexpr int kMillion = 1000000;
constexpr int kTenMillion = 10000000;
BENCHMARK(BM_SwimlanePaintFitAll)->Unit(benchmark::kMillisecond)->Arg(kMillion)->Arg(kTenMillion);
BENCHMARK(BM_SwimlanePaintFitAllFoldOnly)->Unit(benchmark::kMillisecond)->Arg(kMillion);
BENCHMARK(BM_SwimlanePaintFitAllBound)->Unit(benchmark::kMillisecond)->Arg(kMillion)->Arg(kTenMillion);
BENCHMARK(BM_TraceIndexBuild)->Unit(benchmark::kMillisecond)->Iterations(2)->Arg(kMillion)->Arg(kTenMillion);
BENCHMARK(BM_SwimlanePaintMidZoom)->Unit(benchmark::kMillisecond)->Arg(kMillion)->Arg(kTenMillion);
BENCHMARK(BM_SwimlanePaintDeepZoom)->Unit(benchmark::kMillisecond)->Arg(kMillion)->Arg(kTenMillion);
BENCHMARK(BM_TraceFileFirstPicture)->Unit(benchmark::kMillisecond)->Iterations(1)->Arg(kMillion)->Arg(kTenMillion);

} // namespace

int main(int argc, char** argv) {
  // Fonts and palettes need an application object; no window is shown.
  qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen") : qgetenv("QT_QPA_PLATFORM"));
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  // The 10M cases need about a minute and a gigabyte: run them when asked for by name.
  if (benchmark::GetBenchmarkFilter().empty() || benchmark::GetBenchmarkFilter() == "all" ||
      benchmark::GetBenchmarkFilter() == ".")
    benchmark::SetBenchmarkFilter("-/10000000");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
