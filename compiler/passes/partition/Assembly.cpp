// GraphPartition, splitting groups for parallelism, ordering each scope's
// parts, and assembling the scopes into the block graph.
#include "compiler/passes/partition/Partitioner.h"

#include "compiler/ir/ExecuteGraph.h"
#include "compiler/ir/TensorGraphJson.h"
#include "compiler/passes/AllocateBuffers.h"
#include "compiler/passes/RemoveRedundantOp.h"
#include "core/SymbolicSimplify.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <forward_list>
#include <functional>
#include <queue>
#include <span>

namespace pto::partition {

// pg_parallel_lower_bound: splits the largest groups along their outputs.
// An op belongs to the outputs it (transitively) feeds inside its group;
// ops feeding several output chunks form the shared head. Inside the group
// edges then run head -> chunk only; a split that would make any edge run
// backwards in first-op order is undone.
void Partitioner::splitForParallelism(std::vector<std::int32_t>& partOf, std::vector<bool>& pinned) {
  std::size_t opCount = partOf.size();
  std::vector<std::vector<std::int32_t>> members(pinned.size());
  for (std::size_t v = 0; v < opCount; ++v) members[static_cast<std::size_t>(partOf[v])].push_back(static_cast<std::int32_t>(v));
  std::vector<std::int32_t> firstOf;
  for (const auto& ops : members) firstOf.push_back(ops.front());
  std::vector<std::int32_t> order(members.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int32_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    return members[static_cast<std::size_t>(a)].size() > members[static_cast<std::size_t>(b)].size();
  });
  std::vector<std::vector<std::int32_t>> successors(opCount);
  for (std::size_t v = 0; v < opCount; ++v)
    for (std::int32_t p = m_predStart[v]; p < m_predStart[v + 1]; ++p) {
      auto& list = successors[static_cast<std::size_t>(m_preds[static_cast<std::size_t>(p)].from)];
      if (list.empty() || list.back() != static_cast<std::int32_t>(v)) list.push_back(static_cast<std::int32_t>(v));
    }
  auto part = [&](std::int32_t v) { return partOf[static_cast<std::size_t>(v)]; };
  constexpr std::int32_t kShared = -1;
  std::vector<std::int32_t> chunk(opCount, kShared);
  for (std::int32_t id : order) {
    if (static_cast<std::int64_t>(pinned.size()) >= m_options.parallelLowerBound) break;
    const std::vector<std::int32_t>& ops = members[static_cast<std::size_t>(id)];
    if (pinned[static_cast<std::size_t>(id)] || ops.size() < 2) continue;
    auto inside = [&](std::int32_t v, auto&& visit) {
      for (std::int32_t w : successors[static_cast<std::size_t>(v)])
        if (part(w) == id) visit(w);
    };
    std::vector<std::int32_t> sinks;
    for (std::int32_t v : ops) {
      bool sink = true;
      inside(v, [&](std::int32_t) { sink = false; });
      if (sink) sinks.push_back(v);
    }
    if (sinks.size() < 2) continue;
    std::int64_t wanted = m_options.parallelLowerBound - static_cast<std::int64_t>(pinned.size()) + 1;
    auto chunks = std::min<std::int64_t>(static_cast<std::int64_t>(sinks.size()), wanted);
    for (std::size_t s = 0; s < sinks.size(); ++s)
      chunk[static_cast<std::size_t>(sinks[s])] =
          static_cast<std::int32_t>(static_cast<std::int64_t>(s) * chunks / static_cast<std::int64_t>(sinks.size()));
    for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
      std::int32_t label = chunk[static_cast<std::size_t>(*it)];
      bool first = true;
      inside(*it, [&](std::int32_t w) {
        label = first || label == chunk[static_cast<std::size_t>(w)] ? chunk[static_cast<std::size_t>(w)] : kShared;
        first = false;
      });
      chunk[static_cast<std::size_t>(*it)] = label;
    }
    // The head keeps the group's number (or the first chunk does); other chunks get new ones.
    std::size_t before = pinned.size();
    bool numberUsed = false;
    for (std::int32_t v : ops) numberUsed = numberUsed || chunk[static_cast<std::size_t>(v)] == kShared;
    std::vector<std::int32_t> numberOfChunk(static_cast<std::size_t>(chunks), -1);
    for (std::int32_t v : ops) {
      std::int32_t c = chunk[static_cast<std::size_t>(v)];
      if (c == kShared) continue;
      std::int32_t& number = numberOfChunk[static_cast<std::size_t>(c)];
      if (number < 0) {
        number = numberUsed ? static_cast<std::int32_t>(pinned.size()) : id;
        if (numberUsed) {
          pinned.push_back(false);
          firstOf.push_back(v);
        }
        numberUsed = true;
      }
      partOf[static_cast<std::size_t>(v)] = number;
    }
    firstOf[static_cast<std::size_t>(id)] = INT32_MAX;
    for (std::int32_t v : ops)
      if (part(v) == id) firstOf[static_cast<std::size_t>(id)] = std::min(firstOf[static_cast<std::size_t>(id)], v);
    bool forward = true;
    for (std::int32_t v : ops)
      for (std::int32_t w : successors[static_cast<std::size_t>(v)])
        if (part(w) != part(v) && firstOf[static_cast<std::size_t>(part(v))] >= firstOf[static_cast<std::size_t>(part(w))])
          forward = false;
    for (std::int32_t v : ops)
      for (std::int32_t p = m_predStart[static_cast<std::size_t>(v)]; p < m_predStart[static_cast<std::size_t>(v) + 1]; ++p) {
        std::int32_t u = m_preds[static_cast<std::size_t>(p)].from;
        if (part(u) != part(v) && firstOf[static_cast<std::size_t>(part(u))] >= firstOf[static_cast<std::size_t>(part(v))])
          forward = false;
      }
    // A read produced partly in its op's new part and partly in the head
    // would be loaded from GM before its own part stores the rest (see place).
    for (std::int32_t v : ops) {
      std::map<std::int32_t, std::pair<int, int>> producersOfRead;  // read -> (in v's part, all)
      for (std::int32_t p = m_predStart[static_cast<std::size_t>(v)]; p < m_predStart[static_cast<std::size_t>(v) + 1]; ++p) {
        const Pred& pred = m_preds[static_cast<std::size_t>(p)];
        if (pred.read < 0) continue;
        auto& [mine, all] = producersOfRead[pred.read];
        mine += part(pred.from) == part(v) ? 1 : 0;
        ++all;
      }
      for (const auto& [read, counts] : producersOfRead)
        if (counts.first > 0 && counts.first < counts.second) forward = false;
    }
    if (!forward) {
      for (std::int32_t v : ops) partOf[static_cast<std::size_t>(v)] = id;
      firstOf[static_cast<std::size_t>(id)] = ops.front();
      pinned.resize(before);
      firstOf.resize(before);
    }
  }
}

// Orders the parts of a scope topologically (smallest first op first when
// several are ready) and fills `parts`.
bool Partitioner::orderParts(const std::vector<std::int32_t>& partOf, const std::vector<bool>& pinned, std::vector<Part>& parts) {
  std::size_t count = pinned.size();
  // Each part's ops, ascending, as one array: members [memberStart[i],
  // memberStart[i + 1]) are part i's (a list per part was an allocation per
  // part, most of them for a single op).
  std::vector<std::int32_t> memberStart(count + 1, 0), members(partOf.size());
  for (std::int32_t part : partOf) ++memberStart[static_cast<std::size_t>(part) + 1];
  for (std::size_t i = 0; i < count; ++i) memberStart[i + 1] += memberStart[i];
  {
    std::vector<std::int32_t> next(memberStart.begin(), memberStart.end() - 1);
    for (std::size_t v = 0; v < partOf.size(); ++v)
      members[static_cast<std::size_t>(next[static_cast<std::size_t>(partOf[v])]++)] = static_cast<std::int32_t>(v);
  }
  auto firstOp = [&](std::size_t part) { return members[static_cast<std::size_t>(memberStart[part])]; };
  std::vector<std::pair<std::int32_t, std::int32_t>> edges;
  for (std::size_t v = 0; v < partOf.size(); ++v)
    for (std::int32_t p = m_predStart[v]; p < m_predStart[v + 1]; ++p) {
      std::int32_t from = partOf[static_cast<std::size_t>(m_preds[static_cast<std::size_t>(p)].from)];
      if (from != partOf[v]) edges.emplace_back(from, partOf[v]);
    }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  std::vector<std::int32_t> waiting(count, 0), edgeStart(count + 1, 0);
  for (const auto& [from, to] : edges) {
    ++waiting[static_cast<std::size_t>(to)];
    ++edgeStart[static_cast<std::size_t>(from) + 1];
  }
  for (std::size_t i = 0; i < count; ++i) edgeStart[i + 1] += edgeStart[i];
  using Ready = std::pair<std::int32_t, std::int32_t>;  // first op, part
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
  for (std::size_t i = 0; i < count; ++i)
    if (waiting[i] == 0) ready.emplace(firstOp(i), static_cast<std::int32_t>(i));
  while (!ready.empty()) {
    const auto at = static_cast<std::size_t>(ready.top().second);
    ready.pop();
    Part part;
    part.pinned = pinned[at];
    part.ops.reserve(static_cast<std::size_t>(memberStart[at + 1] - memberStart[at]));
    for (std::int32_t m = memberStart[at]; m < memberStart[at + 1]; ++m) {
      const std::int32_t v = members[static_cast<std::size_t>(m)];
      part.ops.push_back(m_ops[static_cast<std::size_t>(v)]);
      if (coreOf(v) == CoreType::AIC) part.coreType = CoreType::AIC;
    }
    parts.push_back(std::move(part));
    for (std::int32_t e = edgeStart[at]; e < edgeStart[at + 1]; ++e) {
      std::int32_t to = edges[static_cast<std::size_t>(e)].second;
      if (--waiting[static_cast<std::size_t>(to)] == 0) ready.emplace(firstOp(static_cast<std::size_t>(to)), to);
    }
  }
  if (parts.size() != count)
    return m_diags.error(m_graph.kernelLocation)
           << "internal error: GraphPartition made subgraphs that depend on each other in a cycle";
  return true;
}

// ---- all scopes ----
// The structure of a subgraph as text: equal text, same program.
void Partitioner::canonicalForm(const Subgraph& subgraph, std::string& text, std::vector<CanonicalSlot>& slots) {
  // Called once per subgraph, so it appends in place (one subgraph's text
  // made of temporaries cost more than partitioning it), into storage the
  // caller keeps from one subgraph to the next.
  text.assign(subgraph.coreType == CoreType::AIC ? "C" : "V");
  auto number = [&text](std::int64_t value) {
    char digits[24];
    text.append(digits, static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, value).ptr - digits));
  };
  slots.clear();  // in order of first use: a slot's number is its index
  std::forward_list<RegionBox> viewBoxes;  // boxes of view tile ops' regions, made here (no allocation when none)
  auto region = [&](const TileRegion& r, const RegionBox* box) {
    if (!box) box = &viewBoxes.emplace_front(boxOf(r));
    std::size_t slot = 0;
    while (slot < slots.size() && slots[slot].tensor != box->tensor) ++slot;
    text += " s";
    number(static_cast<std::int64_t>(slot));
    if (slot == slots.size()) {
      slots.push_back(CanonicalSlot{box->tensor, box, &r});
      text += ':';
      text += name(m_graph.tensor(box->tensor).dtype);
      text += '[';
      for (std::int64_t dim : m_tiles.shapeOf(box->tensor)) {
        number(dim);
        text += ',';
      }
      text += ']';
    }
    const CanonicalSlot& first = slots[slot];
    text += '@';
    for (std::size_t d = 0; d < r.shape.size(); ++d) {
      if (d < box->rank && box->symbol[d] == first.box->symbol[d]) {
        number(box->lo[d] - first.box->lo[d]);
      } else {
        TileRegion here = resolveViews(m_graph, r), there = resolveViews(m_graph, *first.region);
        text += '(';
        text += simplify(here.offsets[d] - there.offsets[d]).str();
        text += ')';
      }
      text += ':';
      number(r.shape[d]);
      text += ',';
    }
    // A program evaluates its tiles' valid parts per task from the first subgraph's expressions
    // (FunctionalCore), so only subgraphs with the same expressions share one.
    if (!r.valid.empty()) {
      text += 'v';
      text += shapeString(r.valid);
    }
  };
  for (TileOpId id : subgraph.ops) {
    const TileOp& op = m_tiles.tileOp(id);
    auto o = static_cast<std::size_t>(id);
    bool boxed = op.kind != TensorOpKind::View;
    text += '\n';
    text += name(op.kind);
    text += ' ';
    text += name(op.accumulate);
    text += " [";
    for (std::int64_t dim : op.tileShape) {
      number(dim);
      text += ',';
    }
    text += "] {";
    for (const auto& [key, value] : op.attrs) {
      text += key;
      text += '=';
      text += attributeToJson(value).dump();
      text += ';';
    }
    text += "} in";
    for (std::size_t k = 0; k < op.inputs.size(); ++k)
      region(op.inputs[k], boxed ? &m_readBoxes[m_readBoxStart[o] + k] : nullptr);
    text += " out";
    for (std::size_t k = 0; k < op.outputs.size(); ++k)
      region(op.outputs[k], boxed ? &m_writeBoxes[m_writeBoxStart[o] + k] : nullptr);
  }
}

// programId of every subgraph (equal canonical form, equal program),
// numbered in subgraph-id order. Needs collectBoxes().
void Partitioner::assignProgramIds() {
  BlockGraph& blocks = m_compilation.blocks;
  std::unordered_map<std::string, int> programs;
  blocks.programCount = 0;
  std::string text;
  std::vector<CanonicalSlot> slots, earlierSlots;
  const Subgraph* earlier = nullptr;
  for (Subgraph& subgraph : blocks.subgraphs) {
    // Neighbours are mostly copies of one another (the tiles of a loop
    // body): comparing with the one before is much cheaper than printing.
    if (earlier && sameCanonicalForm(*earlier, subgraph, earlierSlots, slots)) {
      subgraph.programId = earlier->programId;
      earlier = &subgraph;
      continue;
    }
    canonicalForm(subgraph, text, slots);
    auto it = programs.find(text);
    if (it == programs.end()) it = programs.emplace(text, blocks.programCount++).first;
    subgraph.programId = it->second;
    earlier = &subgraph;
  }
}

// Whether canonicalForm prints `a` and `b` alike, decided without printing
// for the common case: tile ops without attributes or valid parts, not
// views, whose offsets differ by numbers. Anything else answers false (the
// caller prints both), so a true is always right.
bool Partitioner::sameCanonicalForm(const Subgraph& a, const Subgraph& b, std::vector<CanonicalSlot>& slotsA,
                                    std::vector<CanonicalSlot>& slotsB) {
  if (a.coreType != b.coreType || a.ops.size() != b.ops.size()) return false;
  slotsA.clear();
  slotsB.clear();
  auto slotOf = [](const std::vector<CanonicalSlot>& slots, TensorId tensor) {
    std::size_t slot = 0;
    while (slot < slots.size() && slots[slot].tensor != tensor) ++slot;
    return slot;
  };
  auto sameRegion = [&](const TileRegion& ra, const RegionBox& boxA, const TileRegion& rb, const RegionBox& boxB) {
    if (!ra.valid.empty() || !rb.valid.empty() || ra.shape != rb.shape) return false;
    const std::size_t slot = slotOf(slotsA, boxA.tensor);
    if (slot != slotOf(slotsB, boxB.tensor)) return false;
    if (slot == slotsA.size()) {
      if (boxA.tensor != boxB.tensor && (m_graph.tensor(boxA.tensor).dtype != m_graph.tensor(boxB.tensor).dtype ||
                                         m_tiles.shapeOf(boxA.tensor) != m_tiles.shapeOf(boxB.tensor)))
        return false;
      slotsA.push_back(CanonicalSlot{boxA.tensor, &boxA, &ra});
      slotsB.push_back(CanonicalSlot{boxB.tensor, &boxB, &rb});
    }
    const RegionBox& firstA = *slotsA[slot].box;
    const RegionBox& firstB = *slotsB[slot].box;
    for (std::size_t d = 0; d < ra.shape.size(); ++d) {
      if (d >= boxA.rank || d >= boxB.rank || boxA.symbol[d] != firstA.symbol[d] || boxB.symbol[d] != firstB.symbol[d])
        return false;
      if (boxA.lo[d] - firstA.lo[d] != boxB.lo[d] - firstB.lo[d]) return false;
    }
    return true;
  };
  for (std::size_t i = 0; i < a.ops.size(); ++i) {
    const TileOp& opA = m_tiles.tileOp(a.ops[i]);
    const TileOp& opB = m_tiles.tileOp(b.ops[i]);
    if (opA.kind != opB.kind || opA.kind == TensorOpKind::View || opA.accumulate != opB.accumulate ||
        !opA.attrs.empty() || !opB.attrs.empty() || opA.tileShape != opB.tileShape ||
        opA.inputs.size() != opB.inputs.size() || opA.outputs.size() != opB.outputs.size())
      return false;
    auto oa = static_cast<std::size_t>(a.ops[i]), ob = static_cast<std::size_t>(b.ops[i]);
    for (std::size_t k = 0; k < opA.inputs.size(); ++k)
      if (!sameRegion(opA.inputs[k], m_readBoxes[m_readBoxStart[oa] + k], opB.inputs[k],
                      m_readBoxes[m_readBoxStart[ob] + k]))
        return false;
    for (std::size_t k = 0; k < opA.outputs.size(); ++k)
      if (!sameRegion(opA.outputs[k], m_writeBoxes[m_writeBoxStart[oa] + k], opB.outputs[k],
                      m_writeBoxes[m_writeBoxStart[ob] + k]))
        return false;
  }
  return true;
}

void Partitioner::numberPrograms() {
  collectBoxes();
  assignProgramIds();
}

PartitionRules Partitioner::rules() {
  classifyOps();
  collectBoxes();
  PartitionRules rules;
  std::size_t count = m_tiles.tileOps().size();
  rules.coreOf = m_core;
  rules.scopeOf.assign(count, kNoId);
  rules.segmentOf.assign(count, 0);
  for (const Scope& scope : m_compilation.blocks.scopes) {
    m_ops.clear();
    for (OpId op : scope.ops)
      for (TileOpId tile : m_tiles.tilesOf(op)) m_ops.push_back(tile);
    std::sort(m_ops.begin(), m_ops.end());
    buildEdges();
    for (std::size_t v = 0; v < m_ops.size(); ++v) {
      auto tile = static_cast<std::size_t>(m_ops[v]);
      rules.scopeOf[tile] = scope.id;
      rules.segmentOf[tile] = segmentOf(static_cast<std::int32_t>(v));
      for (std::int32_t p = m_predStart[v]; p < m_predStart[v + 1]; ++p) {
        const Pred& pred = m_preds[static_cast<std::size_t>(p)];
        TileOpId from = m_ops[static_cast<std::size_t>(pred.from)];
        // Preds are sorted by (from, read): merge the entries of one producer.
        if (!rules.edges.empty() && rules.edges.back().from == from && rules.edges.back().to == m_ops[v])
          rules.edges.back().data = rules.edges.back().data || pred.read >= 0;
        else
          rules.edges.push_back(TileOpEdge{from, m_ops[v], pred.read >= 0});
      }
    }
  }
  return rules;
}

bool Partitioner::assemble(std::vector<std::vector<Part>>& partsOfScope) {
  BlockGraph& blocks = m_compilation.blocks;
  blocks.subgraphOfTileOp.assign(m_tiles.tileOps().size(), kNoId);
  // Interleave the scopes' topological sequences by first tile op.
  using Head = std::pair<TileOpId, std::size_t>;  // first op of the next part, scope
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  std::vector<std::size_t> next(partsOfScope.size(), 0);
  // Room for every part at once: grown by doubling, the array of a 100k-subgraph
  // kernel was written afresh 18 times (60 MB of new pages at the last).
  std::size_t partCount = blocks.subgraphs.size();
  for (const std::vector<Part>& parts : partsOfScope) partCount += parts.size();
  blocks.subgraphs.reserve(partCount);
  for (std::size_t s = 0; s < partsOfScope.size(); ++s)
    if (!partsOfScope[s].empty()) heads.emplace(partsOfScope[s].front().ops.front(), s);
  while (!heads.empty()) {
    std::size_t s = heads.top().second;
    heads.pop();
    Part& part = partsOfScope[s][next[s]++];
    if (next[s] < partsOfScope[s].size()) heads.emplace(partsOfScope[s][next[s]].ops.front(), s);
    Subgraph subgraph;
    subgraph.id = static_cast<SubgraphId>(blocks.subgraphs.size());
    subgraph.scope = static_cast<ScopeId>(s);
    subgraph.coreType = part.coreType;
    subgraph.ops = std::move(part.ops);
    subgraph.pinned = part.pinned;
    subgraph.label = m_graph.op(m_tiles.tileOp(subgraph.ops.front()).tensorOp).label;
    for (TileOpId op : subgraph.ops) blocks.subgraphOfTileOp[static_cast<std::size_t>(op)] = subgraph.id;
    blocks.subgraphs.push_back(std::move(subgraph));
  }
  assignProgramIds();
  for (std::size_t op = 0; op < blocks.subgraphOfTileOp.size(); ++op)
    if (blocks.subgraphOfTileOp[op] == kNoId)
      return m_diags.error(m_graph.kernelLocation)
             << "internal error: tile op #" << op << " is in no scope, so GraphPartition put it in no subgraph";
  return true;
}

} // namespace pto::partition
