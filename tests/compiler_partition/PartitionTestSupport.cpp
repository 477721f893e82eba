// Helpers for the partition tests.
#include "PartitionTestSupport.h"

#include "compiler/ir/ProgramWalker.h"
#include "compiler/passes/RemoveRedundantOp.h"

#include <algorithm>
#include <map>
#include <set>

namespace pto::testing {

std::optional<CompileResult> compileWith(const TensorGraph& graph, const nlohmann::ordered_json& passOptions,
                                         std::string* errors) {
  CompileSettings settings;
  settings.passOptions = passOptions;
  settings.projectFile = "pto-project.json";
  // These tests are about grouping, not capacity: buffers never overflow here.
  settings.target.capacityBytes.fill(std::int64_t{1} << 40);
  DiagnosticEngine diags;
  // The expected structures keep the kernels' copies: ForwardAssemble would fold them away.
  CompileOptions options;
  options.disabledPasses.insert("ForwardAssemble");
  auto result = compileKernel(graph, settings, diags, options);
  if (errors) *errors = messages(diags);
  else if (!result) ADD_FAILURE() << "compilation failed:\n" << messages(diags);
  return result;
}

std::string describe(const Compilation& compilation, const Subgraph& subgraph) {
  const TileGraph& tiles = compilation.tiles;
  std::string text = "sg" + std::to_string(subgraph.id) + " scope " + std::to_string(subgraph.scope) + " " +
                     std::string(name(subgraph.coreType)) + " program " + std::to_string(subgraph.programId) +
                     (subgraph.pinned ? " pinned" : "") + "\n  ops";
  for (std::size_t i = 0; i < subgraph.ops.size(); ++i)
    text += std::string(i ? ", #" : " #") + std::to_string(subgraph.ops[i]) + " " +
            std::string(name(tiles.tileOp(subgraph.ops[i]).kind));
  auto regions = [&](const char* title, const std::vector<TileRegion>& list) {
    text += std::string("\n  ") + title;
    if (list.empty()) text += " -";
    for (std::size_t i = 0; i < list.size(); ++i) text += (i ? "; " : " ") + regionString(tiles, list[i]);
  };
  regions("in", subgraph.copyIns);
  regions("out", subgraph.copyOuts);
  return text + "\n";
}

std::string describeAll(const Compilation& compilation) {
  std::string text;
  for (const Subgraph& subgraph : compilation.blocks.subgraphs) text += describe(compilation, subgraph);
  return text;
}

std::string partitionOf(const TensorGraph& graph, const nlohmann::ordered_json& passOptions) {
  std::string errors;
  auto result = compileWith(graph, passOptions, &errors);
  return result ? describeAll(result->compilation) : "compilation failed:\n" + errors;
}

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
      // A merged subgraph's members each keep their tile ops in id order.
      std::set<int> memberStarts(subgraph.memberStarts.begin(), subgraph.memberStarts.end());
      for (std::size_t i = 0; i < subgraph.ops.size(); ++i) {
        TileOpId op = subgraph.ops[i];
        if (i && !memberStarts.count(static_cast<int>(i)) && op <= subgraph.ops[i - 1])
          return ::testing::AssertionFailure() << "sg" << subgraph.id << " is unsorted within a member";
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
    // A task starts at its subgraph's earliest tensor op (tile op ids follow program order in a scope).
    for (const Subgraph& subgraph : m_compilation.blocks.subgraphs) {
      const TileOpId first = *std::min_element(subgraph.ops.begin(), subgraph.ops.end());
      startingAt[static_cast<std::size_t>(m_tiles.tileOp(first).tensorOp)].push_back(subgraph.id);
    }
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

} // namespace

::testing::AssertionResult runsLikeSequential(const Compilation& compilation, bool cubeVectorMayShare) {
  return VersionCheck(compilation, cubeVectorMayShare).run();
}

} // namespace pto::testing
