// Implementation of the Execute graph tests' helpers.
#include "ExecTestSupport.h"

#include "compiler/passes/Pipeline.h"

#include <algorithm>

namespace pto::testing {

Compilation compileWithOneSubgraphPerTileOp(const TensorGraph& graph,
                                            const Bindings& bindings) {
  CompileSettings settings;
  settings.bindings = bindings;
  DiagnosticEngine diags;
  CompileOptions options;
  options.disabledPasses.insert("ForwardAssemble");  // expectations keep the kernels' copies
  std::optional<CompileResult> result = compileKernel(graph, settings, diags, options);
  EXPECT_TRUE(result) << messages(diags);
  if (!result) return {};
  Compilation compilation = std::move(result->compilation);
  const TileGraph& tiles = compilation.tiles;
  BlockGraph& blocks = compilation.blocks;
  blocks = BlockGraph{};
  std::vector<ScopeId> scopeOfOp;
  blocks.scopes = collectScopes(tiles.graph, scopeOfOp);
  std::map<TensorOpKind, int> programs;
  for (const TileOp& op : tiles.tileOps()) {
    Subgraph subgraph;
    subgraph.id = static_cast<SubgraphId>(blocks.subgraphs.size());
    subgraph.scope = scopeOfOp.at(static_cast<std::size_t>(op.tensorOp));
    subgraph.coreType = op.kind == TensorOpKind::Matmul ? CoreType::AIC : CoreType::AIV;
    subgraph.ops = {op.id};
    subgraph.copyIns = op.inputs;
    if (op.accumulate != TileAccumulate::None)
      subgraph.copyIns.insert(subgraph.copyIns.end(), op.outputs.begin(), op.outputs.end());
    subgraph.copyOuts = op.outputs;
    subgraph.programId = programs.emplace(op.kind, static_cast<int>(programs.size())).first->second;
    subgraph.label = std::string(name(op.kind));
    blocks.subgraphs.push_back(std::move(subgraph));
  }
  blocks.programCount = static_cast<int>(programs.size());
  reindexSubgraphs(blocks);
  return compilation;
}

void reindexSubgraphs(BlockGraph& blocks) {
  std::size_t count = 0;
  for (const Subgraph& subgraph : blocks.subgraphs)
    for (TileOpId op : subgraph.ops) count = std::max(count, static_cast<std::size_t>(op) + 1);
  blocks.subgraphOfTileOp.assign(std::max(count, blocks.subgraphOfTileOp.size()), kNoId);
  for (const Subgraph& subgraph : blocks.subgraphs)
    for (TileOpId op : subgraph.ops) blocks.subgraphOfTileOp[static_cast<std::size_t>(op)] = subgraph.id;
}

bool boxesOverlap(const ConcreteRegion& a, const ConcreteRegion& b) {
  // Different instances are different storage (a loop-made temporary's per-iteration copies).
  if (a.tensor != b.tensor || a.instance != b.instance) return false;
  for (std::size_t d = 0; d < a.shape.size(); ++d) {
    if (a.shape[d] <= 0 || b.shape[d] <= 0) return false;
    if (a.offsets[d] + a.shape[d] <= b.offsets[d] || b.offsets[d] + b.shape[d] <= a.offsets[d]) return false;
  }
  return true;
}

bool tasksConflict(const Task& a, const Task& b) {
  auto anyOverlap = [](const std::vector<ConcreteRegion>& x, const std::vector<ConcreteRegion>& y) {
    for (const ConcreteRegion& r : x)
      for (const ConcreteRegion& s : y)
        if (boxesOverlap(r, s)) return true;
    return false;
  };
  return anyOverlap(a.writes, b.writes) || anyOverlap(a.writes, b.reads) || anyOverlap(a.reads, b.writes);
}

::testing::AssertionResult dependenciesAreExact(const ExecuteGraph& graph) {
  const std::size_t n = graph.tasks.size();
  const std::size_t words = (n + 63) / 64;
  std::vector<std::uint64_t> reach(n * words, 0);  // reach[b] holds every a from which b is reachable
  std::size_t edges = 0;
  std::vector<std::vector<TaskId>> mirror(n);
  for (std::size_t b = 0; b < n; ++b) {
    const Task& task = graph.tasks[b];
    if (task.id != static_cast<TaskId>(b)) return ::testing::AssertionFailure() << "task " << b << " has id " << task.id;
    for (std::size_t i = 0; i < task.predecessors.size(); ++i) {
      const TaskId a = task.predecessors[i];
      if (a < 0 || static_cast<std::size_t>(a) >= b)
        return ::testing::AssertionFailure() << "task " << b << " has predecessor " << a << ", not an earlier task";
      if (i > 0 && task.predecessors[i - 1] >= a)
        return ::testing::AssertionFailure() << "predecessors of task " << b << " are not ascending and unique";
      if (!tasksConflict(graph.tasks[static_cast<std::size_t>(a)], task))
        return ::testing::AssertionFailure() << "edge " << a << " -> " << b << " joins tasks that do not conflict";
      mirror[static_cast<std::size_t>(a)].push_back(static_cast<TaskId>(b));
      std::uint64_t* into = &reach[b * words];
      const std::uint64_t* from = &reach[static_cast<std::size_t>(a) * words];
      for (std::size_t w = 0; w < words; ++w) into[w] |= from[w];
      into[static_cast<std::size_t>(a) / 64] |= std::uint64_t{1} << (static_cast<std::size_t>(a) % 64);
    }
    edges += task.predecessors.size();
  }
  if (edges != graph.edgeCount)
    return ::testing::AssertionFailure() << "edgeCount is " << graph.edgeCount << " but there are " << edges << " edges";
  for (std::size_t a = 0; a < n; ++a)
    if (graph.tasks[a].successors != mirror[a])
      return ::testing::AssertionFailure() << "successors of task " << a << " do not mirror the predecessors";
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t a = 0; a < b; ++a)
      if (!(reach[b * words + a / 64] >> (a % 64) & 1) && tasksConflict(graph.tasks[a], graph.tasks[b]))
        return ::testing::AssertionFailure() << "tasks " << a << " and " << b << " conflict but are not ordered";
  return ::testing::AssertionSuccess();
}

namespace {

// reach[b * words ...]: a bitset of the tasks b follows (through `predecessors` of each task, earlier first).
std::vector<std::uint64_t> reachability(const std::vector<std::vector<TaskId>>& predecessors, std::size_t words) {
  const std::size_t n = predecessors.size();
  std::vector<std::uint64_t> reach(n * words, 0);
  for (std::size_t b = 0; b < n; ++b)
    for (TaskId a : predecessors[b]) {
      const auto from = static_cast<std::size_t>(a);
      for (std::size_t w = 0; w < words; ++w) reach[b * words + w] |= reach[from * words + w];
      reach[b * words + from / 64] |= std::uint64_t{1} << (from % 64);
    }
  return reach;
}

bool follows(const std::vector<std::uint64_t>& reach, std::size_t words, std::size_t later, std::size_t earlier) {
  return reach[later * words + earlier / 64] >> (earlier % 64) & 1;
}

} // namespace

::testing::AssertionResult noEdgeIsImplied(const ExecuteGraph& graph) {
  const std::size_t words = (graph.tasks.size() + 63) / 64;
  std::vector<std::vector<TaskId>> predecessors;
  for (const Task& task : graph.tasks) predecessors.push_back(task.predecessors);
  const std::vector<std::uint64_t> reach = reachability(predecessors, words);
  for (const Task& task : graph.tasks)
    for (TaskId a : task.predecessors)
      for (TaskId c : task.predecessors)
        if (c != a && follows(reach, words, static_cast<std::size_t>(c), static_cast<std::size_t>(a)))
          return ::testing::AssertionFailure() << "edge " << a << " -> " << task.id << " is implied by the path through "
                                               << c;
  return ::testing::AssertionSuccess();
}

std::vector<std::vector<TaskId>> reducedConflictOrder(const ExecuteGraph& graph) {
  const std::size_t n = graph.tasks.size();
  const std::size_t words = (n + 63) / 64;
  std::vector<std::vector<TaskId>> conflicts(n);
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t a = 0; a < b; ++a)
      if (tasksConflict(graph.tasks[a], graph.tasks[b])) conflicts[b].push_back(static_cast<TaskId>(a));
  const std::vector<std::uint64_t> reach = reachability(conflicts, words);
  std::vector<std::vector<TaskId>> reduced(n);
  for (std::size_t b = 0; b < n; ++b) {
    // b's direct predecessors are the tasks it follows that no other task it follows follows.
    std::vector<std::uint64_t> implied(words, 0);
    for (std::size_t c = 0; c < b; ++c)
      if (follows(reach, words, b, c))
        for (std::size_t w = 0; w < words; ++w) implied[w] |= reach[c * words + w];
    for (std::size_t a = 0; a < b; ++a)
      if (follows(reach, words, b, a) && !(implied[a / 64] >> (a % 64) & 1)) reduced[b].push_back(static_cast<TaskId>(a));
  }
  return reduced;
}

std::vector<TaskId> tasksOfSubgraph(const ExecuteGraph& graph, SubgraphId subgraph) {
  std::vector<TaskId> ids;
  for (const Task& task : graph.tasks)
    if (task.subgraph == subgraph) ids.push_back(task.id);
  return ids;
}

} // namespace pto::testing
