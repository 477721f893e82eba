// Helpers for the merge tests.
#include "MergeTestSupport.h"

#include "compiler/ir/ProgramWalker.h"
#include "compiler/passes/RemoveRedundantOp.h"

#include <map>
#include <set>

namespace pto::testing {

std::optional<CompileResult> compileOn(const TensorGraph& graph, const nlohmann::ordered_json& passOptions,
                                       const TargetInfo& target, DiagnosticEngine& diags) {
  CompileSettings settings;
  settings.passOptions = passOptions;
  settings.projectFile = "pto-project.json";
  settings.target = target;
  return compileKernel(graph, settings, diags);
}

std::string summary(const Compilation& compilation) {
  std::string text;
  for (const Subgraph& subgraph : compilation.blocks.subgraphs) {
    text += describe(compilation, subgraph);
    if (!subgraph.memberStarts.empty()) {
      text += "  members";
      for (int start : subgraph.memberStarts) text += " " + std::to_string(start);
      text += "\n";
    }
  }
  return text;
}

namespace {

using Element = std::pair<TensorId, std::int64_t>;  // storage tensor, flat index

class VersionCheck {
public:
  explicit VersionCheck(const Compilation& compilation)
      : m_compilation(compilation), m_tiles(compilation.tiles), m_graph(compilation.tiles.graph) {}

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
  ::testing::AssertionResult checkStructure() {
    const BlockGraph& blocks = m_compilation.blocks;
    std::vector<int> seen(m_tiles.tileOps().size(), 0);
    TileOpId previousFirst = -1;
    for (const Subgraph& subgraph : blocks.subgraphs) {
      if (subgraph.ops.empty()) return ::testing::AssertionFailure() << "sg" << subgraph.id << " is empty";
      if (subgraph.ops.front() <= previousFirst)
        return ::testing::AssertionFailure() << "sg" << subgraph.id << " starts before the subgraph ahead of it";
      previousFirst = subgraph.ops.front();
      std::set<int> starts(subgraph.memberStarts.begin(), subgraph.memberStarts.end());
      for (std::size_t i = 0; i < subgraph.ops.size(); ++i) {
        TileOpId op = subgraph.ops[i];
        if (i && !starts.count(static_cast<int>(i)) && op <= subgraph.ops[i - 1])
          return ::testing::AssertionFailure() << "sg" << subgraph.id << " is unsorted within a member";
        ++seen[static_cast<std::size_t>(op)];
        if (blocks.subgraphOfTileOp[static_cast<std::size_t>(op)] != subgraph.id)
          return ::testing::AssertionFailure() << "subgraphOfTileOp[" << op << "] is wrong";
      }
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
  static std::vector<TileRegion> readsOf(const TileOp& op) {
    std::vector<TileRegion> reads;
    if (op.kind == TensorOpKind::View) return reads;
    reads = op.inputs;
    if (op.accumulate != TileAccumulate::None) reads.insert(reads.end(), op.outputs.begin(), op.outputs.end());
    return reads;
  }

  ::testing::AssertionResult walk(bool sequential) {
    // A task starts at its subgraph's earliest tensor op (tile op ids follow program order in a scope).
    std::vector<std::vector<SubgraphId>> startingAt(m_graph.ops().size());
    for (const Subgraph& subgraph : m_compilation.blocks.subgraphs) {
      TileOpId first = *std::min_element(subgraph.ops.begin(), subgraph.ops.end());
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
    std::map<Element, int> local;
    for (TileOpId id : subgraph.ops) {
      const TileOp& tile = m_tiles.tileOp(id);
      const std::vector<int>& expected = m_expected.at(key(id, bindings));
      std::size_t position = 0;
      for (const TileRegion& region : readsOf(tile))
        for (const Element& element : elements(region, bindings)) {
          int seen;
          if (auto found = local.find(element); found != local.end()) {
            seen = found->second;
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
                                                 << " as version " << seen << ", sequentially " << expected[position - 1];
        }
      if (tile.kind == TensorOpKind::View) continue;
      int version = versionOf(id, bindings);
      for (const TileRegion& region : tile.outputs)
        for (const Element& element : elements(region, bindings)) local[element] = version;
    }
    for (const TileRegion& region : subgraph.copyOuts)
      for (const Element& element : elements(region, bindings)) {
        auto found = local.find(element);
        if (found == local.end())
          return ::testing::AssertionFailure() << "sg" << subgraph.id << " copies out "
                                               << m_graph.tensor(element.first).name << " element " << element.second
                                               << ", which it never wrote";
        m_global[element] = found->second;
      }
    return ::testing::AssertionSuccess();
  }

  const Compilation& m_compilation;
  const TileGraph& m_tiles;
  const TensorGraph& m_graph;
  std::map<std::string, int> m_versions;
  std::map<std::string, std::vector<int>> m_expected;
  std::map<Element, int> m_sequentialMemory;
  std::map<Element, int> m_global;
};

} // namespace

::testing::AssertionResult runsLikeSequential(const Compilation& compilation) { return VersionCheck(compilation).run(); }

} // namespace pto::testing
