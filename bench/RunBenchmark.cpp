// The IDE's edit → swimlane loop: a whole project run (trace with a warm
// interpreter, golden, compile, simulate, tile execution for the precision
// check) per example, with each stage's share as counters. DESIGN.md's
// budget: softmax edit → swimlane updated <= 200 ms.
#include "analysis/ProjectRun.h"
#include "analysis/Validation.h"
#include "core/project/ProjectFile.h"

#include <benchmark/benchmark.h>

#include <cstdlib>

namespace pto {
namespace {

void runExample(benchmark::State& state, const std::string& name) {
  ::setenv("PTO_PYTHON_PATH", PTO_PYTHON_PACKAGE_DIR, 1);
  DiagnosticEngine diags;
  auto project = loadProject(std::string(PTO_SOURCE_DIR) + "/resources/examples/" + name, diags);
  if (!project || !runProject(*project, diags)) {  // also starts the interpreter, as the IDE's first run does
    state.SkipWithError("the example does not run");
    return;
  }
  double trace = 0, golden = 0, compile = 0, simulate = 0, execute = 0, untilSwimlane = 0;
  for (auto _ : state) {
    auto result = runProject(*project, diags);
    benchmark::DoNotOptimize(result);
    trace += result->traceMs;
    golden += result->goldenMs;
    compile += result->compileMs;
    simulate += result->simulateMs;
    execute += result->executeMs;
    untilSwimlane += result->traceMs + result->compileMs + result->simulateMs;
  }
  auto average = [&](double total) { return benchmark::Counter(total / static_cast<double>(state.iterations())); };
  state.counters["trace_ms"] = average(trace);
  state.counters["golden_ms"] = average(golden);
  state.counters["compile_ms"] = average(compile);
  state.counters["simulate_ms"] = average(simulate);
  state.counters["execute_ms"] = average(execute);
  state.counters["swimlane_ms"] = average(untilSwimlane);
}

BENCHMARK_CAPTURE(runExample, softmax, std::string("softmax"))->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(runExample, matmul, std::string("matmul"))->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(runExample, muls_add_matmul_rowsum, std::string("muls_add_matmul_rowsum"))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// A full-size kernel as `pto run` takes it: GEMM 6144^3 fp16 on a3 (the
// validation suite's PyPTO native case, 1152 tasks of 96 k-steps), timing
// mode with the automatic precision check (skipped at this size). Target
// (issue 12): <= 5 s wall for the whole run.
void runFullSizeGemm(benchmark::State& state) {
  ::setenv("PTO_PYTHON_PATH", PTO_PYTHON_PACKAGE_DIR, 1);
  DiagnosticEngine diags;
  auto suite = loadValidationSuite(std::string(PTO_SOURCE_DIR) + "/resources/validation", diags);
  const ValidationCase* gemm = nullptr;
  if (suite)
    for (const ValidationCase& validation : suite->cases)
      if (validation.name == "gemm_fp16_6144_pypto_native") gemm = &validation;
  std::optional<OperatorProject> project;
  if (gemm) {
    nlohmann::ordered_json document = gemm->project;
    document["name"] = gemm->name;
    document["machine"] = gemm->machine;
    project = parseProject(document.dump(), suite->folder / "gemm.pto-project.json", diags);
  }
  if (!project) {
    state.SkipWithError("the validation suite's GEMM case is missing");
    return;
  }
  double compile = 0, simulate = 0, makespan = 0;
  for (auto _ : state) {
    auto result = runProject(*project, diags);
    if (!result) {
      state.SkipWithError("the GEMM does not run");
      return;
    }
    compile += result->compileMs;
    simulate += result->simulateMs;
    makespan = result->simulation->stats.makespanUs;
  }
  auto average = [&](double total) { return benchmark::Counter(total / static_cast<double>(state.iterations())); };
  state.counters["compile_ms"] = average(compile);
  state.counters["simulate_ms"] = average(simulate);
  state.counters["makespan_us"] = makespan;
}

BENCHMARK(runFullSizeGemm)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

} // namespace
} // namespace pto
