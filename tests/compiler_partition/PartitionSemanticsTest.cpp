// Runs every partition against sequential execution, element by element. Each tile op execution writes a
// new "version" into the elements it writes; sequential execution says which version each read must see.
// The block graph is then executed as the runtime would: a subgraph's task runs when the program walk
// reaches its first tile op's tensor op, its tile ops read what the subgraph wrote before (on chip) or
// else what its copy-ins load from global memory, and its copy-outs store to global memory. Every read must
// see the sequential version, data may stay on chip only along the core paths the machine has, copy-outs
// store only what the subgraph wrote, and the arguments end as in sequential execution. Also checked: every
// tile op in one subgraph, ids in first-op order, one core type per subgraph unless the machine shares.
// Kernels: seeded random graphs (elementwise, broadcasting, partial reductions, matmul with and without the
// fixpipe cast, overwrites of temporaries, a loop with views, a loop-carried temporary and ops after it),
// under random pass options.
#include "PartitionTestSupport.h"
#include "tests/TestDtypes.h"

#include "compiler/ir/ProgramWalker.h"
#include "compiler/passes/AllocateBuffers.h"
#include "compiler/passes/GraphPartition.h"
#include "compiler/passes/RemoveRedundantOp.h"
#include "tests/RandomCases.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

namespace pto::testing {
namespace {

using Element = std::pair<TensorId, std::int64_t>;  // storage tensor, flat index

class VersionCheck {
public:
  VersionCheck(const Compilation& compilation, bool cubeVectorMayShare)
      : m_compilation(compilation), m_tiles(compilation.tiles), m_graph(compilation.tiles.graph),
        m_share(cubeVectorMayShare) {}

  ::testing::AssertionResult run() {
    if (auto structure = checkStructure(); !structure) return structure;
    if (auto sequential = walk(true); !sequential) return sequential;
    if (auto blocks = walk(false); !blocks) return blocks;
    for (const auto& [element, version] : m_sequentialMemory)
      if (m_graph.tensor(element.first).role == TensorRole::Argument && m_global[element] != version)
        return ::testing::AssertionFailure() << "argument " << m_graph.tensor(element.first).name << " element "
                                             << element.second << " ends as version " << m_global[element]
                                             << ", sequentially " << version;
    return ::testing::AssertionSuccess();
  }

private:
  bool isCube(TileOpId id) const {
    const TileOp& op = m_tiles.tileOp(id);
    return op.kind == TensorOpKind::Matmul ||
           (op.kind == TensorOpKind::Cast && m_graph.op(op.tensorOp).kind == TensorOpKind::Matmul);
  }

  ::testing::AssertionResult checkStructure() {
    const BlockGraph& blocks = m_compilation.blocks;
    std::vector<int> seen(m_tiles.tileOps().size(), 0);
    TileOpId previousFirst = -1;
    for (const Subgraph& subgraph : blocks.subgraphs) {
      if (subgraph.ops.empty()) return ::testing::AssertionFailure() << "sg" << subgraph.id << " is empty";
      if (subgraph.ops.front() <= previousFirst)
        return ::testing::AssertionFailure() << "sg" << subgraph.id << " starts before the subgraph ahead of it";
      previousFirst = subgraph.ops.front();
      bool cube = false, vector = false;
      for (std::size_t i = 0; i < subgraph.ops.size(); ++i) {
        TileOpId op = subgraph.ops[i];
        if (i && op <= subgraph.ops[i - 1]) return ::testing::AssertionFailure() << "sg" << subgraph.id << " unsorted";
        ++seen[static_cast<std::size_t>(op)];
        if (blocks.subgraphOfTileOp[static_cast<std::size_t>(op)] != subgraph.id)
          return ::testing::AssertionFailure() << "subgraphOfTileOp[" << op << "] is wrong";
        if (m_tiles.tileOp(op).kind != TensorOpKind::View) (isCube(op) ? cube : vector) = true;  // views move nothing
      }
      if (cube && vector && !m_share)
        return ::testing::AssertionFailure() << "sg" << subgraph.id << " mixes cube and vector ops";
      if (subgraph.coreType != (cube ? CoreType::AIC : CoreType::AIV))
        return ::testing::AssertionFailure() << "sg" << subgraph.id << " has the wrong core type";
    }
    for (std::size_t op = 0; op < seen.size(); ++op)
      if (seen[op] != 1) return ::testing::AssertionFailure() << "tile op #" << op << " is in " << seen[op] << " subgraphs";
    return ::testing::AssertionSuccess();
  }

  std::vector<Element> elements(const TileRegion& original, const Bindings& bindings) const {
    TileRegion region = resolveViews(m_graph, original);
    const std::vector<std::int64_t>& shape = m_tiles.shapeOf(region.tensor);
    std::vector<std::int64_t> start;
    for (const SymbolicScalar& offset : region.offsets) start.push_back(*offset.evaluate(bindings).value);
    std::vector<Element> out;
    std::vector<std::int64_t> at(shape.size(), 0);
    for (std::int64_t size : region.shape)
      if (size <= 0) return out;
    while (true) {
      std::int64_t flat = 0;
      for (std::size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + start[d] + at[d];
      out.emplace_back(region.tensor, flat);
      std::size_t d = shape.size();
      while (d > 0 && ++at[d - 1] == region.shape[d - 1]) at[--d] = 0;
      if (d == 0) return out;
    }
  }

  static std::string key(TileOpId op, const Bindings& bindings) {
    std::string text = std::to_string(op);
    for (const auto& [symbol, value] : bindings) text += ";" + symbol + "=" + std::to_string(value);
    return text;
  }
  int versionOf(TileOpId op, const Bindings& bindings) {
    return m_versions.try_emplace(key(op, bindings), static_cast<int>(m_versions.size())).first->second;
  }

  std::vector<TileRegion> readsOf(const TileOp& op) const {
    std::vector<TileRegion> reads;
    if (op.kind == TensorOpKind::View) return reads;
    reads = op.inputs;
    if (op.accumulate != TileAccumulate::None) reads.insert(reads.end(), op.outputs.begin(), op.outputs.end());
    return reads;
  }

  ::testing::AssertionResult walk(bool sequential) {
    std::vector<std::vector<SubgraphId>> startingAt(m_graph.ops().size());
    for (const Subgraph& subgraph : m_compilation.blocks.subgraphs)
      startingAt[static_cast<std::size_t>(m_tiles.tileOp(subgraph.ops.front()).tensorOp)].push_back(subgraph.id);
    ::testing::AssertionResult result = ::testing::AssertionSuccess();
    ProgramVisitor visitor;
    visitor.visitOp = [&](OpId op, const Bindings& bindings) {
      if (sequential) {
        for (TileOpId id : m_tiles.tilesOf(op)) {
          const TileOp& tile = m_tiles.tileOp(id);
          std::vector<int>& expected = m_expected[key(id, bindings)];
          for (const TileRegion& region : readsOf(tile))
            for (const Element& element : elements(region, bindings)) {
              auto found = m_sequentialMemory.find(element);
              expected.push_back(found == m_sequentialMemory.end() ? -1 : found->second);
            }
          if (tile.kind == TensorOpKind::View) continue;
          int version = versionOf(id, bindings);
          for (const TileRegion& region : tile.outputs)
            for (const Element& element : elements(region, bindings)) m_sequentialMemory[element] = version;
        }
        return true;
      }
      for (SubgraphId id : startingAt[static_cast<std::size_t>(op)]) {
        result = runSubgraph(m_compilation.blocks.subgraph(id), bindings);
        if (!result) return false;
      }
      return true;
    };
    DiagnosticEngine diags;
    if (!walkProgram(m_graph, m_compilation.settings.bindings, visitor, diags) && result)
      return ::testing::AssertionFailure() << "walk failed: " << messages(diags);
    return result;
  }

  ::testing::AssertionResult runSubgraph(const Subgraph& subgraph, const Bindings& bindings) {
    std::set<Element> loaded;
    for (const TileRegion& region : subgraph.copyIns)
      for (const Element& element : elements(region, bindings)) loaded.insert(element);
    std::map<Element, std::pair<int, TileOpId>> local;  // version, writer
    for (TileOpId id : subgraph.ops) {
      const TileOp& tile = m_tiles.tileOp(id);
      const std::vector<int>& expected = m_expected.at(key(id, bindings));
      std::size_t position = 0;
      for (const TileRegion& region : readsOf(tile))
        for (const Element& element : elements(region, bindings)) {
          int seen;
          if (auto found = local.find(element); found != local.end()) {
            seen = found->second.first;
            if (isCube(found->second.second) != isCube(id) && !(m_share && isCube(found->second.second)))
              return ::testing::AssertionFailure() << "sg" << subgraph.id << ": #" << id << " reads on chip what #"
                                                   << found->second.second << " wrote on the other core type";
          } else if (loaded.count(element)) {
            auto global = m_global.find(element);
            seen = global == m_global.end() ? -1 : global->second;
          } else {
            return ::testing::AssertionFailure() << "sg" << subgraph.id << ": #" << id << " reads "
                                                 << m_graph.tensor(element.first).name << " element " << element.second
                                                 << " that is neither on chip nor copied in";
          }
          if (seen != expected[position++])
            return ::testing::AssertionFailure() << "sg" << subgraph.id << ": #" << id << " reads "
                                                 << m_graph.tensor(element.first).name << " element " << element.second
                                                 << " as version " << seen << ", sequentially "
                                                 << expected[position - 1];
        }
      if (tile.kind == TensorOpKind::View) continue;
      int version = versionOf(id, bindings);
      for (const TileRegion& region : tile.outputs)
        for (const Element& element : elements(region, bindings)) local[element] = {version, id};
    }
    for (const TileRegion& region : subgraph.copyOuts)
      for (const Element& element : elements(region, bindings)) {
        auto found = local.find(element);
        if (found == local.end())
          return ::testing::AssertionFailure() << "sg" << subgraph.id << " copies out "
                                               << m_graph.tensor(element.first).name << " element " << element.second
                                               << ", which it never wrote";
        m_global[element] = found->second.first;
      }
    return ::testing::AssertionSuccess();
  }

  const Compilation& m_compilation;
  const TileGraph& m_tiles;
  const TensorGraph& m_graph;
  bool m_share;
  std::map<std::string, int> m_versions;
  std::map<std::string, std::vector<int>> m_expected;
  std::map<Element, int> m_sequentialMemory;
  std::map<Element, int> m_global;
};

// Random kernels over [8, 64] float32 tensors.
class RandomKernel {
public:
  explicit RandomKernel(std::uint64_t seed) : m_random(seed), m_builder("random", kernelLine(1)) {}

  TensorGraph build() {
    m_x = m_builder.addArgument("x", kF32, dimsOf({16, 64}), kernelLine(1));
    m_w = m_builder.addArgument("w", kF32, dimsOf({64, 64}), kernelLine(1));
    m_w16 = m_builder.addArgument("w16", DataType::Fp16, dimsOf({64, 64}), kernelLine(1));
    for (int i = 0; i < 3; ++i)
      m_outs.push_back(m_builder.addArgument("y" + std::to_string(i), kF32, dimsOf({16, 64}), kernelLine(1)));
    m_builder.beginPath();
    randomTiles();
    std::vector<TensorId> pre{view(m_x, 0)};
    for (int i = pick(1, 4); i > 0; --i) pre.push_back(randomOp(pre));
    bool loop = pick(0, 2) > 0;
    TensorId carried = kNoId;
    if (loop) {
      carried = m_builder.addTemporary("carried", kF32, dimsOf({8, 64}), kernelLine(2));
      copyInto(pre.back(), carried);
      const LoopId id = m_builder.beginLoop("rows", "b", 0, 2, 1, false, kernelLine(3));
      m_builder.beginLoopBody(id, 1);
      m_builder.beginPath();
      SymbolicScalar b = SymbolicScalar::symbol(m_builder.loop(id).indexSymbol);
      std::vector<TensorId> body{viewAt(m_x, b * 8), pre[static_cast<std::size_t>(pick(0, static_cast<int>(pre.size()) - 1))]};
      for (int i = pick(1, 5); i > 0; --i) body.push_back(randomOp(body));
      TensorId next = addOp(m_builder, TensorOpKind::Add, {carried, body.back()}, {}, line());
      copyInto(next, carried);
      assembleAt(body.back(), m_outs[0], b * 8);
      m_builder.endPath();
      m_builder.endLoop(id);
      pre.push_back(carried);
      for (int i = pick(0, 2); i > 0; --i) pre.push_back(randomOp(pre));
    } else {
      assembleAt(pre.back(), m_outs[0], SymbolicScalar(0));
    }
    assembleAt(pre[static_cast<std::size_t>(pick(0, static_cast<int>(pre.size()) - 1))], m_outs[1], SymbolicScalar(8));
    assembleAt(pre.back(), m_outs[2], SymbolicScalar(0));
    m_builder.endPath();
    return m_builder.finish();
  }

private:
  int pick(int low, int high) { return std::uniform_int_distribution<int>(low, high)(m_random); }
  int line() { return ++m_line; }

  void randomTiles() {
    static const std::vector<std::vector<std::int64_t>> vec = {{8, 64}, {4, 64}, {8, 32}, {2, 16}, {4, 8}, {1, 64}};
    m_builder.setVecTile(vec[static_cast<std::size_t>(pick(0, static_cast<int>(vec.size()) - 1))], kernelLine(line()));
    std::int64_t m = pick(0, 1) ? 8 : 4, k = std::int64_t{16} << pick(0, 2), n = pick(0, 1) ? 64 : 32;
    m_builder.setCubeTile(CubeTileShape{m, m, k, k, k, n, n, false}, kernelLine(line()));
  }

  TensorId view(TensorId tensor, std::int64_t row) { return viewAt(tensor, SymbolicScalar(row)); }
  TensorId viewAt(TensorId tensor, const SymbolicScalar& row) {
    return addOp(m_builder, TensorOpKind::View, {tensor}, {{"offsets", SymbolicShape{row, 0}}, {"shape", dimsOf({8, 64})}},
                 line());
  }
  void copyInto(TensorId value, TensorId target) { addOp(m_builder, TensorOpKind::Copy, {value}, {}, line(), {target}); }
  void assembleAt(TensorId value, TensorId target, const SymbolicScalar& row) {
    addOp(m_builder, TensorOpKind::Assemble, {value}, {{"offsets", SymbolicShape{row, 0}}}, line(), {target});
  }

  TensorId randomOp(std::vector<TensorId>& live) {
    if (pick(0, 3) == 0) randomTiles();
    auto any = [&]() { return live[static_cast<std::size_t>(pick(0, static_cast<int>(live.size()) - 1))]; };
    const std::vector<std::int64_t> columns{1};
    switch (pick(0, 7)) {
    case 0: return addOp(m_builder, TensorOpKind::Exp, {any()}, {}, line());
    case 1: return addOp(m_builder, TensorOpKind::Add, {any(), any()}, {}, line());
    case 2: return addOp(m_builder, TensorOpKind::MulS, {any()}, {{"scalar", 0.5}}, line());
    case 3: {  // a partial reduction broadcast back
      TensorId source = any();
      TensorId sum = addOp(m_builder, pick(0, 1) ? TensorOpKind::Sum : TensorOpKind::Amax, {source},
                           {{"dims", columns}, {"keepdim", true}}, line());
      return addOp(m_builder, TensorOpKind::Sub, {source, sum}, {}, line());
    }
    case 4: return addOp(m_builder, TensorOpKind::Matmul, {any(), m_w}, {}, line());
    case 5: {  // float16 matmul: the accumulator's cast runs on the cube core
      TensorId half = addOp(m_builder, TensorOpKind::Cast, {any()}, {{"dtype", DataType::Fp16}}, line());
      TensorId product = addOp(m_builder, TensorOpKind::Matmul, {half, m_w16}, {{"out_dtype", DataType::Fp16}}, line());
      m_builder.setVecTile({8, 64}, kernelLine(line()));  // 16 innermost float16 values at least
      return addOp(m_builder, TensorOpKind::Cast, {product}, {{"dtype", kF32}}, line());
    }
    case 6: {  // overwrite a temporary that may have been read already
      TensorId target = any();
      TensorId value = addOp(m_builder, TensorOpKind::Neg, {any()}, {}, line());
      if (m_builder.graph().tensor(target).role == TensorRole::Temporary) copyInto(value, target);
      return value;
    }
    default: return addOp(m_builder, TensorOpKind::Abs, {any()}, {}, line());
    }
  }

  std::mt19937_64 m_random;
  TensorGraphBuilder m_builder;
  TensorId m_x = kNoId, m_w = kNoId, m_w16 = kNoId;
  std::vector<TensorId> m_outs;
  int m_line = 10;
};

TEST(PartitionSemantics, RandomKernelsRunLikeSequentialExecution) {
  std::mt19937_64 options(7);
  for (std::uint64_t seed = 1; seed < 1 + static_cast<std::uint64_t>(pto::test::randomCaseCount(150)); ++seed) {
    TensorGraph graph = RandomKernel(seed).build();
    nlohmann::ordered_json passOptions = nlohmann::ordered_json::object();
    bool share = options() % 2 == 0;
    passOptions["machine_has_l0c_to_ub"] = share;
    static const std::int64_t bounds[] = {4 << 20, 4096, 1024};
    passOptions["mg_copyin_upper_bound"] = bounds[options() % 3];
    static const std::int64_t parallel[] = {1, 3, 16};
    passOptions["pg_parallel_lower_bound"] = parallel[options() % 3];
    std::string errors;
    auto result = compileWith(graph, passOptions, &errors);
    ASSERT_TRUE(result) << "seed " << seed << ": " << errors;
    EXPECT_TRUE(VersionCheck(result->compilation, share).run()) << "seed " << seed << " options " << passOptions.dump();
  }
}

TEST(PartitionSemantics, RandomKernelsWithoutRemoveRedundantOpRunLikeSequentialExecution) {
  for (std::uint64_t seed = 200; seed < 200 + static_cast<std::uint64_t>(pto::test::randomCaseCount(41)); ++seed) {
    TensorGraph graph = RandomKernel(seed).build();
    CompileSettings settings;
    CompileOptions options;
    options.disabledPasses.insert("RemoveRedundantOp");
    DiagnosticEngine diags;
    auto result = compileKernel(graph, settings, diags, options);
    ASSERT_TRUE(result) << "seed " << seed << ": " << messages(diags);
    EXPECT_TRUE(VersionCheck(result->compilation, false).run()) << "seed " << seed;
  }
}

// With a unified buffer of 6 KiB (three of the largest vector tiles, 8 x 64 float32), free grouping
// overflows it in many kernels; GraphPartition must cut those groups so that AllocateBuffers accepts every
// subgraph (compiling succeeds) and the cut partition still runs like sequential execution. The same tile
// graphs partitioned for an unbounded buffer show that free grouping overflows 6 KiB in some of them.
TEST(PartitionSemantics, RandomKernelsCutToASmallUnifiedBufferRunLikeSequentialExecution) {
  int cut = 0;
  // Every case, also under the sanitizers: the count of cut kernels below is a property of all 101.
  for (std::uint64_t seed = 300; seed <= 400; ++seed) {
    TensorGraph graph = RandomKernel(seed).build();
    CompileSettings settings;
    settings.passOptions = {{"machine_has_l0c_to_ub", seed % 2 == 0}};
    settings.target.capacityBytes[static_cast<std::size_t>(MemoryKind::UB)] = 6 * 1024;
    CompileOptions options;
    options.disabledPasses.insert("ForwardAssemble");
    DiagnosticEngine diags;
    auto result = compileKernel(graph, settings, diags, options);
    ASSERT_TRUE(result) << "seed " << seed << ": " << messages(diags);
    EXPECT_TRUE(VersionCheck(result->compilation, seed % 2 == 0).run()) << "seed " << seed;
    for (const Subgraph& subgraph : result->compilation.blocks.subgraphs)
      EXPECT_LE(subgraph.peakBytes[static_cast<std::size_t>(MemoryKind::UB)], 6 * 1024) << "seed " << seed;
    // The same tile graph partitioned for an unbounded buffer: does some group overflow 6 KiB?
    Compilation unbounded = result->compilation;
    unbounded.settings.target.capacityBytes[static_cast<std::size_t>(MemoryKind::UB)] = std::int64_t{1} << 40;
    ASSERT_TRUE(graphPartition(unbounded, diags)) << "seed " << seed;
    for (const Subgraph& subgraph : unbounded.blocks.subgraphs)
      if (plannedPeakBytes(unbounded.tiles, settings.target, subgraph)[static_cast<std::size_t>(MemoryKind::UB)] >
          6 * 1024) {
        ++cut;
        break;
      }
  }
  EXPECT_GE(cut, 10);
}

} // namespace
} // namespace pto::testing
