// BuildExecuteGraph on small kernels with one subgraph per tile op: which tasks a loop makes and in what order,
// their loop indices and concrete regions, and their dependencies (read after write between producer and
// consumer tiles, write after read, write after write, accumulate chains, across iterations), each worked out
// by hand from the kernel; plus the brute-force contract check on every graph and the pass's diagnostics.
#include "ExecTestSupport.h"
#include "tests/TestDtypes.h"

#include "compiler/passes/BuildExecuteGraph.h"
#include "compiler/passes/Pipeline.h"

#include <gtest/gtest.h>

namespace pto::testing {
namespace {

using Ids = std::vector<TaskId>;
using LoopIndices = std::vector<std::pair<std::string, std::int64_t>>;

std::string regionText(const Compilation& compilation, const ConcreteRegion& region) {
  std::string text = compilation.tiles.graph.tensor(region.tensor).name + "[";
  for (std::size_t d = 0; d < region.shape.size(); ++d)
    text += (d ? ", " : "") + std::to_string(region.offsets[d]) + ":" +
            std::to_string(region.offsets[d] + region.shape[d]);
  return text + "]";
}

// "x[0:1, 0:16] -> e[0:1, 0:16]": what a task reads, then what it writes.
std::string accessText(const Compilation& compilation, const Task& task) {
  std::string text;
  for (std::size_t i = 0; i < task.reads.size(); ++i) text += (i ? ", " : "") + regionText(compilation, task.reads[i]);
  text += " ->";
  for (std::size_t i = 0; i < task.writes.size(); ++i) text += (i ? ", " : " ") + regionText(compilation, task.writes[i]);
  return text;
}

Compilation built(const TensorGraph& graph, const Bindings& bindings = {}) {
  Compilation compilation = compileWithOneSubgraphPerTileOp(graph, bindings);
  DiagnosticEngine diags;
  EXPECT_TRUE(buildExecuteGraph(compilation, diags)) << messages(diags);
  return compilation;
}


TEST(BuildExecuteGraph, ALoopMakesOneTaskPerSubgraphAndIterationWithItsIndexAndRegions) {
  const Compilation compilation = built(rowExpKernel(5));
  const ExecuteGraph& graph = compilation.tasks;
  ASSERT_EQ(compilation.blocks.subgraphs.size(), 4u);
  ASSERT_EQ(graph.tasks.size(), 20u);
  const std::string e = compilation.tiles.graph.tensor(compilation.tiles.tileOp(0).outputs[0].tensor).name;
  for (TaskId id = 0; id < 20; ++id) {
    const Task& task = graph.tasks[static_cast<std::size_t>(id)];
    const std::int64_t b = id / 4;
    const std::string row = std::to_string(b) + ":" + std::to_string(b + 1);
    EXPECT_EQ(task.id, id);
    EXPECT_EQ(task.subgraph, id % 4);
    EXPECT_EQ(task.coreType, CoreType::AIV);
    EXPECT_EQ(task.loopIndices, (LoopIndices{{"b", b}})) << id;
    const char* expected[4] = {"x[R, 0:16] -> E[0:1, 0:16]", "x[R, 16:32] -> E[0:1, 16:32]",
                               "E[0:1, 0:16] -> y[R, 0:16]", "E[0:1, 16:32] -> y[R, 16:32]"};
    std::string text = expected[id % 4];
    text.replace(text.find('E'), 1, e);
    text.replace(text.find('R'), 1, row);
    EXPECT_EQ(accessText(compilation, task), text) << id;
  }
  EXPECT_TRUE(dependenciesAreExact(graph));
  EXPECT_TRUE(noEdgeIsImplied(graph));
}

// Same kernel: e is made in the loop body, so every iteration has its own copy of it (PyPTO's per-iteration
// workspace). Each copy follows the exp that wrote its tile of e in the same iteration (read after write) and
// nothing else: no iteration waits for another's use of e, x is only read and the rows of y are disjoint.
TEST(BuildExecuteGraph, TemporariesMadeInALoopBodyAreEachIterationsOwn) {
  const ExecuteGraph graph = built(rowExpKernel(5)).tasks;
  ASSERT_EQ(graph.tasks.size(), 20u);
  for (TaskId b = 0; b < 5; ++b) {
    const TaskId first = 4 * b;
    EXPECT_EQ(graph.tasks[static_cast<std::size_t>(first)].predecessors, Ids{});
    EXPECT_EQ(graph.tasks[static_cast<std::size_t>(first + 1)].predecessors, Ids{});
    EXPECT_EQ(graph.tasks[static_cast<std::size_t>(first + 2)].predecessors, (Ids{first}));
    EXPECT_EQ(graph.tasks[static_cast<std::size_t>(first + 3)].predecessors, (Ids{first + 1}));
    // The exp writes and the copy reads the same instance of e; other iterations use others.
    const std::uint64_t instance = graph.tasks[static_cast<std::size_t>(first)].writes.at(0).instance;
    EXPECT_NE(instance, 0u);
    EXPECT_EQ(graph.tasks[static_cast<std::size_t>(first + 2)].reads.at(0).instance, instance);
    if (b) {
      EXPECT_NE(graph.tasks[static_cast<std::size_t>(first - 4)].writes.at(0).instance, instance);
    }
  }
  EXPECT_EQ(graph.edgeCount, 5u * 2);  // two copies per iteration, each after its exp
  EXPECT_EQ(graph.tasks[0].successors, (Ids{2}));
  EXPECT_EQ(graph.tasks[2].successors, Ids{});
  EXPECT_TRUE(dependenciesAreExact(graph));
  EXPECT_TRUE(noEdgeIsImplied(graph));
}

// e = exp(x); n = neg(e); copy(n) -> y on [8, 32] with tile [4, 16]: four tiles per op, and tile k of each op
// depends on tile k of the op before only.
TEST(BuildExecuteGraph, ConsumerTilesFollowTheirProducerTileAndNoOther) {
  auto [builder, x, y] = beginXyKernel("chain", {8, 32}, {8, 32}, {4, 16});
  const TensorId e = addOp(builder, TensorOpKind::Exp, {x}, {}, 3);
  const TensorId n = addOp(builder, TensorOpKind::Neg, {e}, {}, 4);
  addOp(builder, TensorOpKind::Copy, {n}, {}, 5, {y});
  builder.endPath();
  const ExecuteGraph graph = built(builder.finish()).tasks;
  ASSERT_EQ(graph.tasks.size(), 12u);
  for (TaskId k = 0; k < 4; ++k) {
    EXPECT_EQ(graph.tasks[static_cast<std::size_t>(k)].predecessors, Ids{});
    EXPECT_EQ(graph.tasks[static_cast<std::size_t>(4 + k)].predecessors, (Ids{k}));
    EXPECT_EQ(graph.tasks[static_cast<std::size_t>(8 + k)].predecessors, (Ids{4 + k}));
    EXPECT_EQ(graph.tasks[static_cast<std::size_t>(k)].successors, (Ids{4 + k}));
  }
  EXPECT_EQ(graph.edgeCount, 8u);
  EXPECT_TRUE(dependenciesAreExact(graph));
  EXPECT_TRUE(noEdgeIsImplied(graph));
}

// t = exp(x); u = neg(t); copy(x) -> t; w = abs(t), each cut into two [4, 16] tiles. Copy tile k overwrites
// what exp tile k wrote (WAW) and neg tile k read (WAR); the WAW edge is implied (neg read what exp wrote, so
// exp -> neg -> copy) and not stored. Abs tile k reads the copy's data only (the exp before it is ordered
// through the copy).
TEST(BuildExecuteGraph, OverwritingATileFollowsItsWriterAndItsReaders) {
  TensorGraphBuilder builder("overwrite", kernelLine(1));
  const TensorId x = builder.addArgument("x", kF32, dimsOf({4, 32}), kernelLine(1));
  builder.beginPath();
  builder.setVecTile({4, 16}, kernelLine(2));
  const TensorId t = addOp(builder, TensorOpKind::Exp, {x}, {}, 3);
  addOp(builder, TensorOpKind::Neg, {t}, {}, 4);
  addOp(builder, TensorOpKind::Copy, {x}, {}, 5, {t});
  addOp(builder, TensorOpKind::Abs, {t}, {}, 6);
  builder.endPath();
  const ExecuteGraph graph = built(builder.finish()).tasks;
  ASSERT_EQ(graph.tasks.size(), 8u);
  for (TaskId k = 0; k < 2; ++k) {
    EXPECT_EQ(graph.tasks[static_cast<std::size_t>(2 + k)].predecessors, (Ids{k}));          // neg: RAW
    EXPECT_EQ(graph.tasks[static_cast<std::size_t>(4 + k)].predecessors, (Ids{2 + k}));      // copy: WAR (WAW via neg)
    EXPECT_EQ(graph.tasks[static_cast<std::size_t>(6 + k)].predecessors, (Ids{4 + k}));      // abs: RAW
  }
  EXPECT_TRUE(dependenciesAreExact(graph));
  EXPECT_TRUE(noEdgeIsImplied(graph));
}

// sum(x [4, 40], dims=[1], keepdim) -> s with tile [2, 16]: per row block one partial that replaces s's tile
// and two that accumulate into it (they read and write it). Each partial follows the one before; the two row
// blocks are independent.
TEST(BuildExecuteGraph, AccumulatingPartialsOfAReductionFormAChain) {
  TensorGraphBuilder builder("partial", kernelLine(1));
  const TensorId x = builder.addArgument("x", kF32, dimsOf({4, 40}), kernelLine(1));
  const TensorId s = builder.addArgument("s", kF32, dimsOf({4, 1}), kernelLine(1));
  builder.beginPath();
  builder.setVecTile({2, 16}, kernelLine(2));
  addOp(builder, TensorOpKind::Sum, {x}, {{"dims", std::vector<std::int64_t>{1}}, {"keepdim", true}}, 3, {s});
  builder.endPath();
  const Compilation compilation = built(builder.finish());
  const ExecuteGraph& graph = compilation.tasks;
  ASSERT_EQ(graph.tasks.size(), 6u);
  EXPECT_EQ(accessText(compilation, graph.tasks[1]), "x[0:2, 16:32], s[0:2, 0:1] -> s[0:2, 0:1]");
  const Ids expected[6] = {{}, {0}, {1}, {}, {3}, {4}};
  for (std::size_t t = 0; t < 6; ++t) EXPECT_EQ(graph.tasks[t].predecessors, expected[t]) << t;
  EXPECT_TRUE(dependenciesAreExact(graph));
  EXPECT_TRUE(noEdgeIsImplied(graph));
}

// matmul(a [40, 96], b [96, 48]) -> c (fp16) with cube tile m=[32, 64] k=[64, 128] n=[32, 64]: per output
// block two k-steps into the fp32 accumulator c_acc (AIC) and a cast into c (AIV). The second k-step follows
// the first, the cast the second; blocks are independent.
TEST(BuildExecuteGraph, MatmulKStepsAndTheirCastAreOrderedPerOutputBlock) {
  const Compilation compilation = built(matmulKStepsKernel());
  const ExecuteGraph& graph = compilation.tasks;
  ASSERT_EQ(graph.tasks.size(), 12u);
  for (TaskId block = 0; block < 4; ++block) {
    const TaskId first = 3 * block;
    EXPECT_EQ(graph.tasks[static_cast<std::size_t>(first)].coreType, CoreType::AIC);
    EXPECT_EQ(graph.tasks[static_cast<std::size_t>(first + 1)].coreType, CoreType::AIC);
    EXPECT_EQ(graph.tasks[static_cast<std::size_t>(first + 2)].coreType, CoreType::AIV);
    EXPECT_EQ(graph.tasks[static_cast<std::size_t>(first)].predecessors, Ids{});
    EXPECT_EQ(graph.tasks[static_cast<std::size_t>(first + 1)].predecessors, (Ids{first}));
    EXPECT_EQ(graph.tasks[static_cast<std::size_t>(first + 2)].predecessors, (Ids{first + 1}));
  }
  EXPECT_EQ(accessText(compilation, graph.tasks[4]), "a[0:32, 64:96], b[64:96, 32:48], c_acc[0:32, 32:48] -> c_acc[0:32, 32:48]");
  EXPECT_TRUE(dependenciesAreExact(graph));
  EXPECT_TRUE(noEdgeIsImplied(graph));
}

// for i in range(1, 6): y[i] = y[i - 1] + 1 on y [6, 16], tile [1, 16]: tile ops adds y[i-1] -> a and
// copy a -> y[i]. Iteration i reads the row iteration i - 1 wrote, so its adds follows the previous copy
// (read after write) as well as the previous adds (a is overwritten) and copy (which read a).
TEST(BuildExecuteGraph, AnIterationReadingWhatThePreviousOneWroteFollowsIt) {
  TensorGraphBuilder builder("scan", kernelLine(1));
  const TensorId y = builder.addArgument("y", kF32, dimsOf({6, 16}), kernelLine(1));
  builder.beginPath();
  builder.setVecTile({1, 16}, kernelLine(2));
  const LoopId loop = builder.beginLoop("rows", "i", 1, 6, 1, false, kernelLine(3));
  builder.beginLoopBody(loop, 1);
  builder.beginPath();
  const SymbolicScalar i = SymbolicScalar::symbol(builder.loop(loop).indexSymbol);
  const TensorId previous = addOp(builder, TensorOpKind::View, {y}, {{"offsets", SymbolicShape{i - 1, 0}}, {"shape", dimsOf({1, 16})}}, 4);
  const TensorId next = addOp(builder, TensorOpKind::AddS, {previous}, {{"scalar", 1.0}}, 5);
  addOp(builder, TensorOpKind::Assemble, {next}, {{"offsets", SymbolicShape{i, 0}}}, 6, {y});
  builder.endPath();
  builder.endLoop(loop);
  builder.endPath();
  const ExecuteGraph graph = built(builder.finish()).tasks;
  ASSERT_EQ(graph.tasks.size(), 10u);
  for (TaskId k = 0; k < 5; ++k) {
    const Task& adds = graph.tasks[static_cast<std::size_t>(2 * k)];
    const Task& copy = graph.tasks[static_cast<std::size_t>(2 * k + 1)];
    EXPECT_EQ(adds.loopIndices, (LoopIndices{{"i", k + 1}}));
    EXPECT_EQ(adds.reads.at(0).offsets, (std::vector<std::int64_t>{k, 0}));
    EXPECT_EQ(copy.writes.at(0).offsets, (std::vector<std::int64_t>{k + 1, 0}));
    // Only the true chain: row k comes from the copy that wrote it; the previous adds' temporary is its own.
    EXPECT_EQ(adds.predecessors, k ? (Ids{2 * k - 1}) : Ids{});
    EXPECT_EQ(copy.predecessors, (Ids{2 * k}));
  }
  EXPECT_TRUE(dependenciesAreExact(graph));
  EXPECT_TRUE(noEdgeIsImplied(graph));
}

// for i in range(2): for j in range(3): y[i, 16j:16j+16] = exp(x[i, 16j:16j+16]): loop indices outermost
// first, in execution order; each run of the inner body is one root function (PyPTO's control flow calls
// the innermost body once per iteration), so the six iterations are calls 0 to 5.
TEST(BuildExecuteGraph, NestedLoopsRecordTheirIndicesOutermostFirst) {
  auto [builder, x, y] = beginXyKernel("nested", {2, 48}, {2, 48}, {1, 16});
  const LoopId rows = builder.beginLoop("rows", "i", 0, 2, 1, false, kernelLine(3));
  builder.beginLoopBody(rows, 1);
  builder.beginPath();
  const SymbolicScalar i = SymbolicScalar::symbol(builder.loop(rows).indexSymbol);
  const LoopId cols = builder.beginLoop("cols", "j", 0, 3, 1, false, kernelLine(4));
  builder.beginLoopBody(cols, 1);
  builder.beginPath();
  const SymbolicScalar j = SymbolicScalar::symbol(builder.loop(cols).indexSymbol);
  const SymbolicShape at{i, j * 16};
  const TensorId tile = addOp(builder, TensorOpKind::View, {x}, {{"offsets", at}, {"shape", dimsOf({1, 16})}}, 5);
  const TensorId e = addOp(builder, TensorOpKind::Exp, {tile}, {}, 6);
  addOp(builder, TensorOpKind::Assemble, {e}, {{"offsets", at}}, 7, {y});
  builder.endPath();
  builder.endLoop(cols);
  builder.endPath();
  builder.endLoop(rows);
  builder.endPath();
  const Compilation compilation = built(builder.finish());
  const ExecuteGraph& graph = compilation.tasks;
  ASSERT_EQ(graph.tasks.size(), 12u);
  for (std::int64_t t = 0; t < 12; ++t) {
    const std::int64_t iteration = t / 2;
    const Task& task = graph.tasks[static_cast<std::size_t>(t)];
    EXPECT_EQ(task.loopIndices, (LoopIndices{{"i", iteration / 3}, {"j", iteration % 3}})) << t;
    EXPECT_EQ(task.rootCall, iteration) << t;
    const ConcreteRegion& global = t % 2 == 0 ? task.reads.at(0) : task.writes.at(0);
    EXPECT_EQ(global.offsets, (std::vector<std::int64_t>{iteration / 3, 16 * (iteration % 3)})) << t;
  }
  EXPECT_TRUE(dependenciesAreExact(graph));
  EXPECT_TRUE(noEdgeIsImplied(graph));
}

// for i in pypto.loop(0, 6, 1, unroll=[4, 1]): y[i:i+f] = exp(x[i:i+f]) for the body of factor f. The factor-4
// body runs once at i = 0 (8 tasks, one scope, one root function), then the factor-1 body at 4 and 5 (2 tasks
// and one root function each).
TEST(BuildExecuteGraph, UnrolledBodiesAreTheirOwnScopesAndReportTheirFirstIteration) {
  auto [builder, x, y] = beginXyKernel("unrolled", {6, 16}, {6, 16}, {1, 16});
  const LoopId loop = builder.beginLoop("rows", "i", 0, 6, 1, false, kernelLine(3));
  for (std::int64_t factor : {4, 1}) {
    builder.beginLoopBody(loop, factor);
    builder.beginPath();
    const SymbolicScalar i = SymbolicScalar::symbol(builder.loop(loop).indexSymbol);
    const TensorId rows = addOp(builder, TensorOpKind::View, {x}, {{"offsets", SymbolicShape{i, 0}}, {"shape", dimsOf({factor, 16})}}, 4);
    const TensorId e = addOp(builder, TensorOpKind::Exp, {rows}, {}, 5);
    addOp(builder, TensorOpKind::Assemble, {e}, {{"offsets", SymbolicShape{i, 0}}}, 6, {y});
    builder.endPath();
  }
  builder.endLoop(loop);
  builder.endPath();
  const Compilation compilation = built(builder.finish());
  const ExecuteGraph& graph = compilation.tasks;
  ASSERT_EQ(graph.tasks.size(), 12u);
  for (std::size_t t = 0; t < 12; ++t) {
    const std::int64_t expected = t < 8 ? 0 : (t < 10 ? 4 : 5);
    EXPECT_EQ(graph.tasks[t].loopIndices, (LoopIndices{{"i", expected}})) << t;
    EXPECT_EQ(graph.tasks[t].rootCall, t < 8 ? 0 : (t < 10 ? 1 : 2)) << t;
    const ScopeId scope = compilation.blocks.subgraph(graph.tasks[t].subgraph).scope;
    EXPECT_EQ(compilation.blocks.scopes.at(static_cast<std::size_t>(scope)).body, t < 8 ? 0 : 1) << t;
  }
  EXPECT_TRUE(dependenciesAreExact(graph));
  EXPECT_TRUE(noEdgeIsImplied(graph));
}

// pypto.loop(13, unroll_list=[8, 4, 2, 1]) traced once (Loop::unrollList): PyPTO's control flow calls the body
// for iterations 0-7, 8-11 and 12, so the 13 iterations' tasks are three root functions; the code before the
// loop and after it are one each. Worked by hand from the greedy rule (8 fits once in 13, then 4 in 5, then 1).
TEST(BuildExecuteGraph, AnUnrollListGroupsIterationsIntoRootCalls) {
  XyKernel kernel = beginXyKernel("unroll_list", {15, 16}, {15, 16}, {1, 16});
  TensorGraphBuilder& builder = kernel.builder;
  const TensorId x = kernel.x, y = kernel.y;
  auto copyRow = [&](SymbolicScalar row, int line) {
    const SymbolicShape at{row, 0};
    const TensorId tile = addOp(builder, TensorOpKind::View, {x}, {{"offsets", at}, {"shape", dimsOf({1, 16})}}, line);
    const TensorId e = addOp(builder, TensorOpKind::Exp, {tile}, {}, line + 1);
    addOp(builder, TensorOpKind::Assemble, {e}, {{"offsets", at}}, line + 2, {y});
  };
  copyRow(SymbolicScalar(0), 3);
  const LoopId loop = builder.beginLoop("rows", "i", 1, 14, 1, false, kernelLine(6));
  builder.setUnrollList(loop, {8, 4, 2, 1});
  builder.beginLoopBody(loop, 1);
  builder.beginPath();
  copyRow(SymbolicScalar::symbol(builder.loop(loop).indexSymbol), 7);
  builder.endPath();
  builder.endLoop(loop);
  copyRow(SymbolicScalar(14), 10);
  builder.endPath();
  const Compilation compilation = built(builder.finish());
  const ExecuteGraph& graph = compilation.tasks;
  ASSERT_EQ(graph.tasks.size(), 30u);  // 15 rows, a load-exp and a store task each
  for (std::size_t t = 0; t < graph.tasks.size(); ++t) {
    const std::size_t row = t / 2;  // 0 before the loop, 1-13 in it, 14 after
    const std::int64_t expected = row == 0 ? 0 : row <= 8 ? 1 : row <= 12 ? 2 : row == 13 ? 3 : 4;
    EXPECT_EQ(graph.tasks[t].rootCall, expected) << "task " << t;
  }
}

// for b in range(4): y[b] = x[b] if b % 2 == 0 else x[b] * 2. The even path has one tile op (copy), the odd
// path two (muls, copy): each iteration makes the tasks of the path it takes only.
TEST(BuildExecuteGraph, OnlyThePathAnIterationTakesMakesTasks) {
  auto [builder, x, y] = beginXyKernel("cond", {4, 16}, {4, 16}, {1, 16});
  const LoopId loop = builder.beginLoop("rows", "b", 0, 4, 1, false, kernelLine(3));
  builder.beginLoopBody(loop, 1);
  const SymbolicScalar b = SymbolicScalar::symbol(builder.loop(loop).indexSymbol);
  do {
    builder.beginPath();
    const TensorId row = addOp(builder, TensorOpKind::View, {x}, {{"offsets", SymbolicShape{b, 0}}, {"shape", dimsOf({1, 16})}}, 4);
    TensorId value = row;
    if (!builder.decide(eq(mod(b, 2), 0), kernelLine(5))) value = addOp(builder, TensorOpKind::MulS, {row}, {{"scalar", 2.0}}, 6);
    addOp(builder, TensorOpKind::Assemble, {value}, {{"offsets", SymbolicShape{b, 0}}}, 7, {y});
  } while (builder.endPath());
  builder.endLoop(loop);
  builder.endPath();
  const Compilation compilation = built(builder.finish());
  const ExecuteGraph& graph = compilation.tasks;
  // Subgraph 0 is the even path's copy, 1 and 2 the odd path's muls and copy.
  ASSERT_EQ(compilation.blocks.subgraphs.size(), 3u);
  std::vector<SubgraphId> order;
  for (const Task& task : graph.tasks) order.push_back(task.subgraph);
  EXPECT_EQ(order, (std::vector<SubgraphId>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(graph.tasks[5].predecessors, (Ids{4}));
  EXPECT_TRUE(dependenciesAreExact(graph));
  EXPECT_TRUE(noEdgeIsImplied(graph));
}

// Regroups tile ops into subgraphs (each in the scope of its first op), regions concatenated.
void regroup(Compilation& compilation, const std::vector<std::vector<TileOpId>>& groups) {
  BlockGraph& blocks = compilation.blocks;
  std::vector<ScopeId> scopeOfOp;
  collectScopes(compilation.tiles.graph, scopeOfOp);
  blocks.subgraphs.clear();
  for (const std::vector<TileOpId>& group : groups) {
    Subgraph subgraph;
    subgraph.id = static_cast<SubgraphId>(blocks.subgraphs.size());
    subgraph.ops = group;
    subgraph.scope = scopeOfOp.at(static_cast<std::size_t>(compilation.tiles.tileOp(group.front()).tensorOp));
    for (TileOpId id : group) {
      const TileOp& op = compilation.tiles.tileOp(id);
      subgraph.copyIns.insert(subgraph.copyIns.end(), op.inputs.begin(), op.inputs.end());
      subgraph.copyOuts.insert(subgraph.copyOuts.end(), op.outputs.begin(), op.outputs.end());
    }
    blocks.subgraphs.push_back(std::move(subgraph));
  }
  reindexSubgraphs(blocks);
}

// e = exp(x), n = neg(x), z = abs(x), two tiles each (#0 #1 exp, #2 #3 neg, #4 #5 abs), regrouped as
// sg0 = {#4, #5}, sg1 = {#1}, sg2 = {#2, #0}, sg3 = {#3}: sg1 and sg2 both start at exp (sg2's first listed op
// is a neg tile, but its exp tile comes first in the program) and are made in id order, then sg3 at neg, then
// sg0 at abs.
TEST(BuildExecuteGraph, ASubgraphStartsAtItsEarliestTensorOpAndTiesGoInIdOrder) {
  TensorGraphBuilder builder("starts", kernelLine(1));
  const TensorId x = builder.addArgument("x", kF32, dimsOf({4, 32}), kernelLine(1));
  builder.beginPath();
  builder.setVecTile({4, 16}, kernelLine(2));
  addOp(builder, TensorOpKind::Exp, {x}, {}, 3);
  addOp(builder, TensorOpKind::Neg, {x}, {}, 4);
  addOp(builder, TensorOpKind::Abs, {x}, {}, 5);
  builder.endPath();
  Compilation compilation = compileWithOneSubgraphPerTileOp(builder.finish());
  ASSERT_EQ(compilation.tiles.tileOps().size(), 6u);
  regroup(compilation, {{4, 5}, {1}, {2, 0}, {3}});
  DiagnosticEngine diags;
  ASSERT_TRUE(buildExecuteGraph(compilation, diags)) << messages(diags);
  std::vector<SubgraphId> order;
  for (const Task& task : compilation.tasks.tasks) order.push_back(task.subgraph);
  EXPECT_EQ(order, (std::vector<SubgraphId>{1, 2, 3, 0}));
  EXPECT_EQ(compilation.tasks.edgeCount, 0u);
}

TEST(BuildExecuteGraph, ALoopWithoutIterationsMakesNoTasks) {
  const Compilation compilation = built(rowExpKernel(0));
  EXPECT_EQ(compilation.blocks.subgraphs.size(), 4u);
  EXPECT_TRUE(compilation.tasks.tasks.empty());
  EXPECT_EQ(compilation.tasks.edgeCount, 0u);
}

TEST(BuildExecuteGraph, AnOffsetThatCannotBeEvaluatedIsReportedAtTheKernelLine) {
  Compilation compilation = compileWithOneSubgraphPerTileOp(rowExpKernel(3));
  compilation.blocks.subgraphs.at(1).copyIns.at(0).offsets.at(1) = SymbolicScalar::symbol("q") * 16;
  DiagnosticEngine diags;
  EXPECT_FALSE(buildExecuteGraph(compilation, diags));
  EXPECT_EQ(messages(diags),
            "cannot evaluate offset 'q*16' of x[b:b + 1, q*16:q*16 + 16], which subgraph 1 moves: unbound symbol 'q'\n");
  EXPECT_EQ(diags.diagnostics().at(0).location, kernelLine(5));
  EXPECT_TRUE(compilation.tasks.tasks.empty());
}

TEST(BuildExecuteGraph, ABlockGraphThatMissesTileOpsIsAnInternalError) {
  Compilation compilation = compileWithOneSubgraphPerTileOp(rowExpKernel(3));
  compilation.blocks.subgraphOfTileOp.pop_back();
  DiagnosticEngine diags;
  EXPECT_FALSE(buildExecuteGraph(compilation, diags));
  EXPECT_EQ(messages(diags), "internal error in BuildExecuteGraph: the block graph assigns 3 tile ops to subgraphs "
                             "but the tile graph has 4\n");

  Compilation orphan = compileWithOneSubgraphPerTileOp(rowExpKernel(3));
  orphan.blocks.subgraphOfTileOp.at(2) = kNoId;
  diags.clear();
  EXPECT_FALSE(buildExecuteGraph(orphan, diags));
  EXPECT_EQ(messages(diags), "internal error in BuildExecuteGraph: tile op #2 belongs to no subgraph\n");
  EXPECT_EQ(diags.diagnostics().at(0).location, kernelLine(6));
}

} // namespace
} // namespace pto::testing

namespace pto::testing {
namespace {

// With the pipeline's own GraphPartition and GenerateMoveOp (whatever grouping they choose): every subgraph of
// the loop body makes one task per iteration, in id order within an iteration, and the links meet the contract
// by brute force. The kernel is a row softmax followed by a matmul of the result and a sum of it.
TEST(BuildExecuteGraph, OnThePipelinesOwnBlockGraphTheContractHolds) {
  constexpr std::int64_t kRows = 6;
  TensorGraphBuilder builder("softmax_mm", kernelLine(1));
  const TensorId x = builder.addArgument("x", kF32, dimsOf({kRows, 64}), kernelLine(1));
  const TensorId w = builder.addArgument("w", kF32, dimsOf({64, 32}), kernelLine(1));
  const TensorId y = builder.addArgument("y", kF32, dimsOf({kRows, 64}), kernelLine(1));
  const TensorId z = builder.addArgument("z", kF32, dimsOf({kRows, 32}), kernelLine(1));
  const TensorId s = builder.addArgument("s", kF32, dimsOf({1, 32}), kernelLine(1));
  builder.beginPath();
  builder.setVecTile({1, 32}, kernelLine(2));
  CubeTileShape cube;
  cube.mL0 = 16, cube.mL1 = 16, cube.kL0 = 32, cube.kAL1 = cube.kBL1 = 32, cube.nL0 = 16, cube.nL1 = 16;
  builder.setCubeTile(cube, kernelLine(2));
  const LoopId loop = builder.beginLoop("rows", "b", 0, kRows, 1, false, kernelLine(3));
  builder.beginLoopBody(loop, 1);
  builder.beginPath();
  const SymbolicScalar b = SymbolicScalar::symbol(builder.loop(loop).indexSymbol);
  const std::vector<std::int64_t> last{1};
  const TensorId xv = addOp(builder, TensorOpKind::View, {x}, {{"offsets", SymbolicShape{b, 0}}, {"shape", dimsOf({1, 64})}}, 4);
  const TensorId m = addOp(builder, TensorOpKind::Amax, {xv}, {{"dims", last}, {"keepdim", true}}, 5);
  const TensorId d = addOp(builder, TensorOpKind::Sub, {xv, m}, {}, 6);
  const TensorId e = addOp(builder, TensorOpKind::Exp, {d}, {}, 7);
  const TensorId sum = addOp(builder, TensorOpKind::Sum, {e}, {{"dims", last}, {"keepdim", true}}, 8);
  const TensorId r = addOp(builder, TensorOpKind::Div, {e, sum}, {}, 9);
  addOp(builder, TensorOpKind::Assemble, {r}, {{"offsets", SymbolicShape{b, 0}}}, 10, {y});
  builder.endPath();
  builder.endLoop(loop);
  addOp(builder, TensorOpKind::Matmul, {y, w}, {}, 11, {z});
  addOp(builder, TensorOpKind::Sum, {z}, {{"dims", std::vector<std::int64_t>{0}}, {"keepdim", true}}, 12, {s});
  builder.endPath();

  DiagnosticEngine diags;
  std::optional<CompileResult> result = compileKernel(builder.finish(), CompileSettings{}, diags);
  ASSERT_TRUE(result) << messages(diags);
  Compilation& compilation = result->compilation;
  const BlockGraph& blocks = compilation.blocks;
  if (blocks.subgraphs.empty()) GTEST_SKIP() << "the pipeline has no GraphPartition yet";
  ASSERT_TRUE(buildExecuteGraph(compilation, diags)) << messages(diags);

  std::size_t expected = 0;
  for (const Subgraph& subgraph : blocks.subgraphs)
    expected += blocks.scopes.at(static_cast<std::size_t>(subgraph.scope)).loop == kNoId ? 1 : kRows;
  const ExecuteGraph& graph = compilation.tasks;
  EXPECT_EQ(graph.tasks.size(), expected);
  for (std::size_t t = 1; t < graph.tasks.size(); ++t) {
    const Task& before = graph.tasks[t - 1];
    const Task& task = graph.tasks[t];
    const bool sameRun = before.loopIndices == task.loopIndices &&
                         blocks.subgraph(before.subgraph).scope == blocks.subgraph(task.subgraph).scope;
    if (sameRun) {
      EXPECT_LT(before.subgraph, task.subgraph) << "tasks " << t - 1 << " and " << t;
    }
  }
  std::size_t cubeTasks = 0;
  for (const Task& task : graph.tasks) cubeTasks += task.coreType == CoreType::AIC;
  EXPECT_GT(cubeTasks, 0u);
  EXPECT_TRUE(dependenciesAreExact(graph));
  EXPECT_TRUE(noEdgeIsImplied(graph));
}

} // namespace
} // namespace pto::testing
