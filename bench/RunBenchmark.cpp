// The IDE's edit → swimlane loop: a whole project run (trace with a warm
// interpreter, golden, compile, simulate, tile execution for the precision
// check) per example, with each stage's share as counters. DESIGN.md's
// budget: softmax edit → swimlane updated <= 200 ms.
#include "analysis/run/ProjectRun.h"
#include "analysis/validation/Validation.h"
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

// Every example is timed in wall milliseconds; the large ones twice only.
void wallMs(benchmark::internal::Benchmark* timed) { timed->Unit(benchmark::kMillisecond)->UseRealTime(); }
void twiceWallMs(benchmark::internal::Benchmark* timed) { wallMs(timed->Iterations(2)); }

BENCHMARK_CAPTURE(runExample, softmax, std::string("softmax"))->Apply(wallMs);
BENCHMARK_CAPTURE(runExample, matmul, std::string("matmul"))->Apply(wallMs);
BENCHMARK_CAPTURE(runExample, muls_add_matmul_rowsum, std::string("muls_add_matmul_rowsum"))->Apply(wallMs);
// The DeepSeek-V3.2 examples at their default shapes (issue 14's budgets: DIA <= 3 s to compile and
// simulate; their precision checks are skipped at these sizes, as pto run skips them).
BENCHMARK_CAPTURE(runExample, sparse_flash_attention, std::string("sparse_flash_attention"))->Apply(twiceWallMs);
BENCHMARK_CAPTURE(runExample, deepseek_indexer_attention, std::string("deepseek_indexer_attention"))
    ->Apply(twiceWallMs);
// The DIA gather story's two forms (resources/examples/sparse_attention_gather_tuning) at the same shape.
BENCHMARK_CAPTURE(runExample, gather_through_workspace, std::string("sparse_attention_gather_tuning/workspace"))
    ->Apply(twiceWallMs);
BENCHMARK_CAPTURE(runExample, gather_into_l1, std::string("sparse_attention_gather_tuning/gather_in_l1"))
    ->Apply(twiceWallMs);

// The Lightning Indexer example (resources/examples/lightning_indexer) as
// `pto run --mode timing` takes it, at B = 4 requests of 2 query tokens and
// `kv` keys each (every request full length): trace, compile and simulate
// (the precision check is skipped at this size, as pto run skips it). Target
// (issue 14): <= 1 s wall at 64K; compile cost near-linear in tile ops, so
// 16K / 32K / 64K should scale about 1 : 2 : 4.
void runLightningIndexer(benchmark::State& state) {
  ::setenv("PTO_PYTHON_PATH", PTO_PYTHON_PACKAGE_DIR, 1);
  const std::int64_t kv = state.range(0);
  DiagnosticEngine diags;
  auto project = loadProject(std::string(PTO_SOURCE_DIR) + "/resources/examples/lightning_indexer", diags);
  if (!project) {
    state.SkipWithError("the example does not load");
    return;
  }
  const std::int64_t blocks = kv / 128;
  project->bindings["KV"] = kv;
  project->bindings["MAX_BLOCKS"] = blocks;
  project->bindings["CACHE_BLOCKS"] = 4 * blocks;
  for (KernelArgument& argument : project->args)
    if (argument.name == "kv_lengths") argument.init = ValuesInit{std::vector<double>(4, static_cast<double>(kv))};
  ProjectRunOptions options;
  options.check = PrecisionCheck::Never;
  if (!runProject(*project, diags, options)) {
    state.SkipWithError("the example does not run");
    return;
  }
  double trace = 0, compile = 0, simulate = 0;
  std::int64_t tileOps = 0;
  for (auto _ : state) {
    auto result = runProject(*project, diags, options);
    benchmark::DoNotOptimize(result);
    trace += result->traceMs;
    compile += result->compileMs;
    simulate += result->simulateMs;
    tileOps = static_cast<std::int64_t>(result->compiled->compilation.tiles.tileOps().size());
  }
  auto average = [&](double total) { return benchmark::Counter(total / static_cast<double>(state.iterations())); };
  state.counters["trace_ms"] = average(trace);
  state.counters["compile_ms"] = average(compile);
  state.counters["simulate_ms"] = average(simulate);
  state.counters["tile_ops"] = benchmark::Counter(static_cast<double>(tileOps));
}
BENCHMARK(runLightningIndexer)->Arg(16384)->Arg(32768)->Arg(65536)->Apply(wallMs);

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

BENCHMARK(runFullSizeGemm)->Apply(twiceWallMs);

// `pto validate` as CI runs it: every case of the bundled suite (trace,
// compile and simulate each, delta cases once per configuration). Target
// (issue 32): under 60 s on two cores.
void validateSuite(benchmark::State& state) {
  ::setenv("PTO_PYTHON_PATH", PTO_PYTHON_PACKAGE_DIR, 1);
  DiagnosticEngine diags;
  auto suite = loadValidationSuite(std::string(PTO_SOURCE_DIR) + "/resources/validation", diags);
  if (!suite) {
    state.SkipWithError("the validation suite does not load");
    return;
  }
  double passed = 0, cases = 0;
  for (auto _ : state) {
    DiagnosticEngine runDiags;
    std::vector<ValidationResult> results = runValidation(*suite, {}, runDiags);
    cases = static_cast<double>(results.size());
    passed = 0;
    for (const ValidationResult& result : results) passed += result.pass ? 1 : 0;
  }
  state.counters["cases"] = cases;
  state.counters["passed"] = passed;
}

BENCHMARK(validateSuite)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

} // namespace
} // namespace pto
