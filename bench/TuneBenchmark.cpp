// The autotuner's rate: configurations simulated per second (issue 15's
// target: >= 1 000 per second on the softmax example in timing mode on a
// 2-core machine), on the softmax example's declared space (tile shapes,
// merge counts, scheduling policies: 240 points) and on the Lightning
// Indexer tuning story's first step (per_block; its derived space) and
// second (l1_reuse at 64K keys: its declared space of 48 points, merge counts
// and runtime options, the issue-36 target of 200 points per second). The
// kernel is traced once, as `pto tune` does; every iteration is one whole
// sweep, with no result cache.
#include "analysis/run/ProjectRun.h"
#include "analysis/tuner/Tuner.h"
#include "core/project/ProjectFile.h"

#include <benchmark/benchmark.h>

#include <cstdlib>

namespace pto {
namespace {

void tuneExample(benchmark::State& state, const char* folder, int budget) {
  ::setenv("PTO_PYTHON_PATH", PTO_PYTHON_PACKAGE_DIR, 1);
  DiagnosticEngine diags;
  auto project = loadProject(std::string(PTO_SOURCE_DIR) + "/resources/examples/" + folder, diags);
  std::optional<TracedProject> traced;
  if (project) traced = traceForVariants(*project, diags);
  if (!traced) {
    state.SkipWithError("the example does not trace");
    return;
  }
  TuneOptions options;
  options.budget = budget;
  std::int64_t evaluated = 0;
  double seconds = 0.0;
  int compilations = 0, simulations = 0, resumed = 0;
  for (auto _ : state) {
    auto result = tune(*traced, options, diags);
    if (!result) {
      state.SkipWithError("the sweep failed");
      return;
    }
    evaluated += result->evaluated;
    seconds += result->seconds;
    compilations = result->compilations;
    simulations = result->simulations;
    resumed = result->resumedSimulations;
  }
  state.counters["compilations"] = compilations;
  state.counters["simulations"] = simulations;
  state.counters["resumed"] = resumed;
  state.counters["configs_per_s"] = seconds > 0 ? static_cast<double>(evaluated) / seconds : 0.0;
  state.counters["configs"] = static_cast<double>(evaluated) / static_cast<double>(state.iterations());
}

void tuneSoftmax(benchmark::State& state) { tuneExample(state, "softmax", 1000); }
void tuneLightningIndexer(benchmark::State& state) { tuneExample(state, "lightning_indexer_tuning/per_block", 16); }
void tuneLightningIndexerL1Reuse(benchmark::State& state) { tuneExample(state, "lightning_indexer_tuning/l1_reuse", 48); }

BENCHMARK(tuneSoftmax)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(tuneLightningIndexer)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK(tuneLightningIndexerL1Reuse)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

} // namespace
} // namespace pto
