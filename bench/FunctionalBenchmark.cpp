// Functional-mode speed. A cube kernel whose every task multiplies 128x128x128
// fp16 tiles (one TMATMUL, then TMATMUL_ACC per k-step) into fp32, executed
// on one simulated core with its loads, moves and converting stores: the
// target (issue 5) is >= 5 GFLOP/s of matmul work on one core; the counter
// GFLOP (a rate) counts 2*M*N*K per run. And PTO instructions per second
// (issue 36: >= 5 M/s) over whole kernels run task by task as `pto run
// --mode functional` does: the vector chain of BenchGraphs.h (small
// elementwise tiles, where the cost per instruction shows), the matmul, a
// cube-and-vector kernel (BenchGraphs.h's independent iterations: a small
// matmul, a scale and an exp per iteration) and a row softmax (reductions
// and broadcasting ops, which take the general path of reference kernels).
#include "compiler/ir/TensorGraphBuilder.h"
#include "compiler/passes/Pipeline.h"
#include "npusim/FunctionalExecutor.h"

#include "BenchGraphs.h"

#include <benchmark/benchmark.h>

#include <random>

namespace pto {
namespace {

struct MatmulKernel {
  Compilation compilation;
  std::vector<HostTensor> arguments;
  double flops = 0.0;
};

// Uniform values in [-1, 1) for each (dtype, shape), in order.
std::vector<HostTensor> randomArguments(const std::vector<std::pair<DataType, Shape>>& specs) {
  std::mt19937 random(1);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<HostTensor> arguments;
  for (const auto& [dtype, shape] : specs) {
    HostTensor tensor(dtype, shape);
    for (std::int64_t e = 0; e < tensor.elementCount(); ++e) tensor.setFromDouble(e, uniform(random));
    arguments.push_back(std::move(tensor));
  }
  return arguments;
}

// c[m, n] = a[m, k] @ b[k, n], fp16 in, fp32 out, in 128x128x128 cube tiles.
MatmulKernel matmulKernel(std::int64_t m, std::int64_t k, std::int64_t n) {
  SourceLocation line{"kernel.py", 1, 0};
  TensorGraphBuilder builder("matmul", line);
  const TensorId a = builder.addArgument("a", DataType::Fp16, SymbolicShape{m, k}, line);
  const TensorId b = builder.addArgument("b", DataType::Fp16, SymbolicShape{k, n}, line);
  const TensorId c = builder.addArgument("c", DataType::Fp32, SymbolicShape{m, n}, line);
  builder.beginPath();
  CubeTileShape cube;
  cube.mL0 = cube.mL1 = 128;
  cube.kL0 = 128;
  cube.kAL1 = cube.kBL1 = 256;
  cube.nL0 = cube.nL1 = 128;
  builder.setCubeTile(cube, line);
  builder.addOp(TensorOpKind::Matmul, {a, b}, {{"out_dtype", DataType::Fp32}}, line, {c});
  builder.endPath();
  DiagnosticEngine diags;
  MatmulKernel kernel;
  kernel.compilation = std::move(compileKernel(builder.finish(), CompileSettings{}, diags)->compilation);
  kernel.arguments = randomArguments(
      {{DataType::Fp16, Shape({m, k})}, {DataType::Fp16, Shape({k, n})}, {DataType::Fp32, Shape({m, n})}});
  kernel.flops = 2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n);
  return kernel;
}

void functionalMatmulOneCore(benchmark::State& state) {
  const std::int64_t size = state.range(0);
  MatmulKernel kernel = matmulKernel(size, size, size);
  DiagnosticEngine diags;
  std::unique_ptr<FunctionalExecutor> executor = FunctionalExecutor::create(kernel.compilation, kernel.arguments, diags);
  for (auto _ : state)
    for (const Task& task : kernel.compilation.tasks.tasks)
      if (!executor->executeTask(task, 0)) state.SkipWithError("functional execution failed");
  // Shown as "GFLOP=<n>/s": matmul work per second of CPU time (the machine is shared, so wall time is noisier).
  state.counters["GFLOP"] = benchmark::Counter(kernel.flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["tasks"] = static_cast<double>(kernel.compilation.tasks.tasks.size());
}
BENCHMARK(functionalMatmulOneCore)->Arg(128)->Arg(512)->Unit(benchmark::kMillisecond);

// Every task of `compilation` in id order per iteration (FunctionalExecutor::executeAll).
// Counter instructions_per_s: PTO instructions executed per second of CPU time.
void countInstructionRate(benchmark::State& state, const Compilation& compilation, std::vector<HostTensor>& arguments) {
  DiagnosticEngine diags;
  std::unique_ptr<FunctionalExecutor> executor = FunctionalExecutor::create(compilation, arguments, diags);
  if (!executor) {
    state.SkipWithError("functional setup failed");
    return;
  }
  for (auto _ : state)
    if (!executor->executeAll()) {
      state.SkipWithError("functional execution failed");
      return;
    }
  const auto instructions = static_cast<double>(executor->instructionsExecuted());
  state.counters["instructions"] = instructions / static_cast<double>(state.iterations());
  state.counters["tasks"] = static_cast<double>(compilation.tasks.tasks.size());
  state.counters["instructions_per_s"] = benchmark::Counter(instructions, benchmark::Counter::kIsRate);
}

void countCompiledInstructionRate(benchmark::State& state, TensorGraph graph,
                                  const std::vector<std::pair<DataType, Shape>>& specs) {
  DiagnosticEngine diags;
  auto compiled = compileKernel(std::move(graph), CompileSettings{}, diags);
  if (!compiled) {
    state.SkipWithError("compile failed");
    return;
  }
  std::vector<HostTensor> arguments = randomArguments(specs);
  countInstructionRate(state, compiled->compilation, arguments);
}

// The vector chain (five exps and an assemble in [1, 64] fp32 tiles) over `rows` rows.
void functionalVectorChain(benchmark::State& state) {
  const std::int64_t rows = state.range(0);
  countCompiledInstructionRate(state, vectorChainGraph(rows),
                               {{DataType::Fp32, Shape({rows, 256})}, {DataType::Fp32, Shape({rows, 256})}});
}
BENCHMARK(functionalVectorChain)->Arg(64)->Arg(1024)->Unit(benchmark::kMillisecond);

void functionalMatmulInstructions(benchmark::State& state) {
  MatmulKernel kernel = matmulKernel(state.range(0), state.range(0), state.range(0));
  countInstructionRate(state, kernel.compilation, kernel.arguments);
}
BENCHMARK(functionalMatmulInstructions)->Arg(512)->Unit(benchmark::kMillisecond);

// Cube and vector tasks: per iteration a [32, 64] x [64, 64] fp16 matmul, a scale and an exp (N iterations).
void functionalMixedInstructions(benchmark::State& state) {
  const std::int64_t trips = state.range(0);
  countCompiledInstructionRate(state, independentIterationsGraph(trips),
                               {{DataType::Fp16, Shape({32 * trips, 64})},
                                {DataType::Fp16, Shape({64, 64})},
                                {DataType::Fp32, Shape({32 * trips, 64})}});
}
BENCHMARK(functionalMixedInstructions)->Arg(256)->Unit(benchmark::kMillisecond);

// softmax(x) along rows of a [rows, 256] fp32 tensor in [4, 256] tiles: row max, subtract, exp, row sum,
// divide (the max and sum broadcast back over the row).
void functionalSoftmaxInstructions(benchmark::State& state) {
  const std::int64_t rows = state.range(0);
  TensorGraphBuilder builder("softmax", SourceLocation{"softmax.py", 1, 0});
  builder.beginPath();
  SourceLocation at{"softmax.py", 2, 0};
  const TensorId x = builder.addArgument("x", DataType::Fp32, {SymbolicScalar(rows), SymbolicScalar(256)}, at);
  const TensorId y = builder.addArgument("y", DataType::Fp32, {SymbolicScalar(rows), SymbolicScalar(256)}, at);
  builder.setVecTile({4, 256}, at);
  const Attributes lastDim{{"dims", std::vector<std::int64_t>{1}}, {"keepdim", true}};
  const TensorId best = builder.addOp(TensorOpKind::Amax, {x}, lastDim, at).outputs[0];
  const TensorId shifted = builder.addOp(TensorOpKind::Sub, {x, best}, {}, at).outputs[0];
  const TensorId exps = builder.addOp(TensorOpKind::Exp, {shifted}, {}, at).outputs[0];
  const TensorId total = builder.addOp(TensorOpKind::Sum, {exps}, lastDim, at).outputs[0];
  const TensorId ratio = builder.addOp(TensorOpKind::Div, {exps, total}, {}, at).outputs[0];
  builder.addOp(TensorOpKind::Assemble, {ratio}, {{"offsets", SymbolicShape{0, 0}}}, at, {y});
  builder.endPath();
  countCompiledInstructionRate(state, builder.finish(),
                               {{DataType::Fp32, Shape({rows, 256})}, {DataType::Fp32, Shape({rows, 256})}});
}
BENCHMARK(functionalSoftmaxInstructions)->Arg(1024)->Unit(benchmark::kMillisecond);

} // namespace
} // namespace pto
