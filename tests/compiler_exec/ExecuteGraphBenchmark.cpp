// Times the Execute graph at 100 000 tasks (a benchmark, not a test): the dependency index alone on a tiled
// kernel-like workload and on random boxes (implied edges kept, then removed), and BuildExecuteGraph on a loop of
// 25 000 iterations (walk, offset evaluation and dependencies). Prints the best of three runs of each.
#include "compiler/ir/TensorGraphBuilder.h"
#include "compiler/passes/BuildExecuteGraph.h"
#include "compiler/passes/Pipeline.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <random>
#include <string>

namespace {

using namespace pto;

double bestMilliseconds(const std::function<void()>& run) {
  double best = 1e300;
  for (int i = 0; i < 3; ++i) {
    auto start = std::chrono::steady_clock::now();
    run();
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

Task task(TaskId id, std::vector<ConcreteRegion> reads, std::vector<ConcreteRegion> writes) {
  Task made;
  made.id = id;
  made.reads = std::move(reads);
  made.writes = std::move(writes);
  return made;
}

// Four stages of 25 000 tiles of 64 x 64 over a [1280, 81920] plane (20 x 1280 tiles): t = exp(x) per tile,
// u = t * w with w's column panel, row sums of u accumulated per tile into s (read-modify-write), and
// y = u / s.
ExecuteGraph tiledWorkload() {
  constexpr std::int64_t kTile = 64, kRows = 20, kCols = 1250;
  enum : TensorId { X, T, W, U, S, Y };
  ExecuteGraph graph;
  auto tile = [&](TensorId tensor, std::int64_t r, std::int64_t c) {
    return ConcreteRegion{tensor, {r * kTile, c * kTile}, {kTile, kTile}};
  };
  auto add = [&](std::vector<ConcreteRegion> reads, std::vector<ConcreteRegion> writes) {
    graph.tasks.push_back(task(static_cast<TaskId>(graph.tasks.size()), std::move(reads), std::move(writes)));
  };
  for (std::int64_t r = 0; r < kRows; ++r)
    for (std::int64_t c = 0; c < kCols; ++c) add({tile(X, r, c)}, {tile(T, r, c)});
  for (std::int64_t r = 0; r < kRows; ++r)
    for (std::int64_t c = 0; c < kCols; ++c)
      add({tile(T, r, c), ConcreteRegion{W, {0, c * kTile}, {1, kTile}}}, {tile(U, r, c)});
  for (std::int64_t r = 0; r < kRows; ++r)
    for (std::int64_t c = 0; c < kCols; ++c) {
      ConcreteRegion sum{S, {r * kTile, 0}, {kTile, 1}};
      add({tile(U, r, c), sum}, {sum});
    }
  for (std::int64_t r = 0; r < kRows; ++r)
    for (std::int64_t c = 0; c < kCols; ++c)
      add({tile(U, r, c), ConcreteRegion{S, {r * kTile, 0}, {kTile, 1}}}, {tile(Y, r, c)});
  return graph;
}

// 100 000 tasks with 1-3 accesses each on 8 tensors [4096, 4096]: 70% aligned tiles of three sizes, 25%
// random boxes of up to 256 x 256, 5% whole-row panels; 40% of accesses write.
ExecuteGraph randomWorkload() {
  std::mt19937_64 random(42);
  ExecuteGraph graph;
  const std::int64_t tiles[3][2] = {{64, 64}, {128, 32}, {16, 256}};
  for (TaskId t = 0; t < 100000; ++t) {
    std::vector<ConcreteRegion> reads, writes;
    const int accesses = 1 + static_cast<int>(random() % 3);
    for (int a = 0; a < accesses; ++a) {
      ConcreteRegion region{static_cast<TensorId>(random() % 8), {0, 0}, {0, 0}};
      const auto kind = random() % 100;
      if (kind < 70) {
        const auto* shape = tiles[random() % 3];
        for (int d = 0; d < 2; ++d) {
          region.offsets[d] = static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(4096 / shape[d])) * shape[d];
          region.shape[d] = shape[d];
        }
      } else if (kind < 95) {
        for (int d = 0; d < 2; ++d) {
          region.offsets[d] = static_cast<std::int64_t>(random() % 3840);
          region.shape[d] = 1 + static_cast<std::int64_t>(random() % 256);
        }
      } else {
        region.offsets = {static_cast<std::int64_t>(random() % 64) * 64, 0};
        region.shape = {64, 4096};
      }
      (random() % 10 < 4 ? writes : reads).push_back(std::move(region));
    }
    graph.tasks.push_back(task(t, std::move(reads), std::move(writes)));
  }
  return graph;
}

// for b in range(25000): y[b] = exp(x[b]) on [25000, 32] with tile [1, 16]: four tile ops per iteration, each
// made its own subgraph, 100 000 tasks.
Compilation rowExpLoop(std::int64_t rows) {
  const SourceLocation line{"kernel.py", 1, 0};
  TensorGraphBuilder builder("row_exp", line);
  SymbolicShape shape{SymbolicScalar(rows), SymbolicScalar(32)};
  const TensorId x = builder.addArgument("x", DataType::Fp32, shape, line);
  const TensorId y = builder.addArgument("y", DataType::Fp32, shape, line);
  builder.beginPath();
  builder.setVecTile({1, 16}, line);
  const LoopId loop = builder.beginLoop("rows", "b", 0, rows, 1, false, line);
  builder.beginLoopBody(loop, 1);
  builder.beginPath();
  const SymbolicScalar b = SymbolicScalar::symbol(builder.loop(loop).indexSymbol);
  const TensorId xv = builder.addOp(TensorOpKind::View, {x}, {{"offsets", SymbolicShape{b, 0}}, {"shape", SymbolicShape{1, 32}}}, line).outputs.at(0);
  const TensorId e = builder.addOp(TensorOpKind::Exp, {xv}, {}, line).outputs.at(0);
  builder.addOp(TensorOpKind::Assemble, {e}, {{"offsets", SymbolicShape{b, 0}}}, line, {y});
  builder.endPath();
  builder.endLoop(loop);
  builder.endPath();
  DiagnosticEngine diags;
  std::optional<CompileResult> result = compileKernel(builder.finish(), CompileSettings{}, diags);
  if (!result) {
    diags.print(std::cerr);
    std::exit(1);
  }
  Compilation compilation = std::move(result->compilation);
  BlockGraph& blocks = compilation.blocks;
  blocks = BlockGraph{};
  std::vector<ScopeId> scopeOfOp;
  blocks.scopes = collectScopes(compilation.tiles.graph, scopeOfOp);
  for (const TileOp& op : compilation.tiles.tileOps()) {
    Subgraph subgraph;
    subgraph.id = static_cast<SubgraphId>(blocks.subgraphs.size());
    subgraph.scope = scopeOfOp.at(static_cast<std::size_t>(op.tensorOp));
    subgraph.ops = {op.id};
    subgraph.copyIns = op.inputs;
    subgraph.copyOuts = op.outputs;
    blocks.subgraphOfTileOp.push_back(subgraph.id);
    blocks.subgraphs.push_back(std::move(subgraph));
  }
  return compilation;
}

void report(const char* what, const ExecuteGraph& graph, double milliseconds) {
  std::printf("%-58s %7zu tasks %8zu edges %9.1f ms\n", what, graph.tasks.size(), graph.edgeCount, milliseconds);
}

} // namespace

// With an argument (tiled, random or pass) runs only that case.
int main(int argc, char** argv) {
  auto wanted = [&](const char* name) { return argc < 2 || std::string(argv[1]) == name; };
  if (wanted("tiled")) {
    ExecuteGraph tiled = tiledWorkload();
    report("computeTaskDependencies, tiled 4-stage kernel, implied kept", tiled,
           bestMilliseconds([&] { computeTaskDependencies(tiled, ImpliedEdges::Kept); }));
    report("computeTaskDependencies, tiled 4-stage kernel", tiled, bestMilliseconds([&] { computeTaskDependencies(tiled); }));
  }
  if (wanted("random")) {
    ExecuteGraph random = randomWorkload();
    report("computeTaskDependencies, random boxes, implied kept", random,
           bestMilliseconds([&] { computeTaskDependencies(random, ImpliedEdges::Kept); }));
    report("computeTaskDependencies, random boxes", random, bestMilliseconds([&] { computeTaskDependencies(random); }));
  }
  if (!wanted("pass")) return 0;
  Compilation compilation = rowExpLoop(25000);
  DiagnosticEngine diags;
  const double pass = bestMilliseconds([&] {
    if (!buildExecuteGraph(compilation, diags)) {
      diags.print(std::cerr);
      std::exit(1);
    }
  });
  report("buildExecuteGraph, loop of 25 000 iterations x 4 subgraphs", compilation.tasks, pass);
  return 0;
}
