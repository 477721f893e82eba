// Groups of an IR graph, built once, and what is visible of it for a set of
// open groups (see GroupStructure.h and IrGraph.h).
#include "analysis/irviews/GroupStructure.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>

namespace pto {

namespace {

// The group a node belongs to under `grouping`, as a key and a noun for titles.
std::string groupKeyOf(const IrGraph& graph, const IrGraphNode& node, GraphGrouping grouping) {
  switch (grouping) {
  case GraphGrouping::None: return {};
  case GraphGrouping::Subgraph:
    if (node.cluster >= 0) return graph.clusters[static_cast<std::size_t>(node.cluster)].key;
    if (node.subgraph >= 0) return "sg" + std::to_string(node.subgraph);
    return {};
  case GraphGrouping::TensorOp: return node.tensorOp >= 0 ? "op:" + std::to_string(node.tensorOp) : std::string();
  case GraphGrouping::Scope: return node.scope >= 0 ? "scope:" + std::to_string(node.scope) : std::string();
  case GraphGrouping::Label: return "label:" + node.label;
  case GraphGrouping::Structure: return {};  // nested: see structureGroups
  }
  return {};
}

std::string nodeNoun(GraphLevel level, std::size_t count) {
  const char* noun = level == GraphLevel::Tensor  ? "op"
                     : level == GraphLevel::Execute ? "task"
                                                     : "tile op";
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

// " in 6 subgraphs" when a group's members run in more than one.
std::string subgraphsPhrase(const IrGraph& graph, const VisibleGroup& group) {
  std::set<std::int64_t> subgraphs;
  for (int member : group.members) subgraphs.insert(graph.nodes[static_cast<std::size_t>(member)].subgraph);
  subgraphs.erase(-1);
  return subgraphs.size() > 1 ? " in " + std::to_string(subgraphs.size()) + " subgraphs" : std::string();
}

std::string groupTitle(const IrGraph& graph, const VisibleGroup& group, GraphGrouping grouping) {
  const IrGraphNode& first = graph.nodes[static_cast<std::size_t>(group.members.front())];
  const std::string where = subgraphsPhrase(graph, group);
  std::string label = first.label.empty() ? std::string("(no label)") : first.label;
  switch (grouping) {
  case GraphGrouping::Subgraph:
    return (first.cluster >= 0 ? graph.clusters[static_cast<std::size_t>(first.cluster)].title
                               : "sg" + std::to_string(first.subgraph) + " '" + label + "'");
  case GraphGrouping::TensorOp:
    return first.kind + " '" + label + "'" + (first.line > 0 ? " · line " + std::to_string(first.line) : "") + where;
  case GraphGrouping::Scope: return "loop scope " + std::to_string(first.scope) + where;
  case GraphGrouping::Label: return label + where;
  case GraphGrouping::None:
  case GraphGrouping::Structure: break;
  }
  return label;
}

// Structure grouping: each node's groups from the outside in, as
// (grouping, key) — its label, one level per dotted part ("mla" holds
// "mla.q_down": how kernels name their stages); its subgraph (else, on a
// tile level, its tensor op); inside a subgraph its tensor op.
std::vector<std::pair<GraphGrouping, std::string>> structurePath(const IrGraph& graph, const IrGraphNode& node) {
  std::vector<std::pair<GraphGrouping, std::string>> path;
  const std::string label = groupKeyOf(graph, node, GraphGrouping::Label);  // "label:" + the label
  for (std::size_t dot = label.find('.'); dot != std::string::npos; dot = label.find('.', dot + 1))
    path.emplace_back(GraphGrouping::Label, label.substr(0, dot));
  path.emplace_back(GraphGrouping::Label, label);
  std::string subgraph = groupKeyOf(graph, node, GraphGrouping::Subgraph);
  std::string op = graph.level == GraphLevel::Tensor ? std::string() : groupKeyOf(graph, node, GraphGrouping::TensorOp);
  if (!subgraph.empty()) path.emplace_back(GraphGrouping::Subgraph, path.back().second + "/" + subgraph);
  if (!op.empty()) path.emplace_back(GraphGrouping::TensorOp, path.back().second + "/" + op);
  return path;
}

// A label level's title: its (dotted part of the) label and where it runs.
std::string labelGroupTitle(const IrGraph& graph, const VisibleGroup& group) {
  std::string title = group.key.substr(std::string_view("label:").size());
  return (title.empty() ? std::string("(no label)") : title) + subgraphsPhrase(graph, group);
}

// Structure grouping: every group of every level, with the group around
// each and whether it opens by itself: when it has one member, when it is
// the only group at its level inside its parent, or (below the labels) when
// its parent is small enough to show in full.
void structureGroups(const IrGraph& graph, GroupStructure& structure) {
  const std::size_t n = graph.nodes.size();
  // Every group key interned once: a node's path is a list of key ids, so
  // the loops below hash integers, not the path strings.
  std::unordered_map<std::string, int> idOfKey;
  std::vector<const std::string*> keyOf;
  std::vector<GraphGrouping> kindOfKey;
  std::vector<std::vector<int>> rawPaths(n);
  // Each group's children in order of appearance, by parent slot (0: the
  // top level, id + 1: key id): a group with more than kMostChildrenShown
  // gets a level of parts between it and them, so opening it never asks for
  // a picture of a thousand boxes.
  std::vector<std::unordered_map<int, int>> childOrder(1);
  for (std::size_t i = 0; i < n; ++i) {
    // Neighbouring tile ops mostly share a tensor op, so a path is the one before.
    if (i > 0) {
      const IrGraphNode &node = graph.nodes[i], &before = graph.nodes[i - 1];
      if (node.tensorOp == before.tensorOp && node.cluster == before.cluster && node.subgraph == before.subgraph &&
          node.label == before.label) {
        rawPaths[i] = rawPaths[i - 1];
        continue;
      }
    }
    int parentSlot = 0;
    for (auto& [kind, key] : structurePath(graph, graph.nodes[i])) {
      auto [slot, added] = idOfKey.emplace(std::move(key), static_cast<int>(keyOf.size()));
      if (added) {
        keyOf.push_back(&slot->first);
        kindOfKey.push_back(kind);
        childOrder.emplace_back();
      }
      auto& order = childOrder[static_cast<std::size_t>(parentSlot)];
      order.emplace(slot->second, static_cast<int>(order.size()));
      rawPaths[i].push_back(slot->second);
      parentSlot = slot->second + 1;
    }
  }
  std::vector<VisibleGroup>& groups = structure.groups;
  std::vector<int> groupOfKey(keyOf.size(), -1);
  std::map<std::pair<int, int>, int> groupOfPart;  // (parent slot, part) -> group
  std::unordered_map<int, std::string> partTitle;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<int>& path = structure.pathOf[i];
    int parent = -1;
    // Enters the group in `group` (made with `key` when -1); returns it when new, else -1.
    auto enter = [&](int& group, GraphGrouping kind, const std::string& key) {
      const bool added = group < 0;
      if (added) {
        group = static_cast<int>(groups.size());
        VisibleGroup made;
        made.key = key;
        made.depth = static_cast<int>(path.size());
        groups.push_back(std::move(made));
        structure.parentOf.push_back(parent);
        structure.kindOf.push_back(kind);
      }
      groups[static_cast<std::size_t>(group)].members.push_back(static_cast<int>(i));
      path.push_back(group);
      parent = group;
      return added ? group : -1;
    };
    int parentSlot = 0;
    for (int id : rawPaths[i]) {
      const auto& siblings = childOrder[static_cast<std::size_t>(parentSlot)];
      const int count = static_cast<int>(siblings.size());
      const GraphGrouping kind = kindOfKey[static_cast<std::size_t>(id)];
      if (count > static_cast<int>(kMostChildrenShown)) {
        const int parts = (count + static_cast<int>(kMostChildrenShown) - 1) / static_cast<int>(kMostChildrenShown);
        const int perPart = (count + parts - 1) / parts;
        const int part = siblings.at(id) / perPart;
        const int first = part * perPart + 1, last = std::min(count, (part + 1) * perPart);
        const std::string parentKey = parentSlot == 0 ? std::string() : *keyOf[static_cast<std::size_t>(parentSlot - 1)];
        auto [partGroup, unseen] = groupOfPart.emplace(std::make_pair(parentSlot, part), -1);
        const int added = enter(partGroup->second, GraphGrouping::None,
                                unseen ? parentKey + (parentKey.empty() ? "" : "/") + "part:" + std::to_string(part) : std::string());
        if (added >= 0)
          partTitle[added] = std::string(kind == GraphGrouping::Subgraph ? "subgraphs " : kind == GraphGrouping::TensorOp ? "ops " : "labels ") +
                             std::to_string(first) + "-" + std::to_string(last) + " of " + std::to_string(count);
      }
      enter(groupOfKey[static_cast<std::size_t>(id)], kind, *keyOf[static_cast<std::size_t>(id)]);
      parentSlot = id + 1;
    }
  }
  std::vector<int> children(groups.size(), 0);
  int topLevel = 0;
  for (std::size_t g = 0; g < groups.size(); ++g)
    structure.parentOf[g] < 0 ? ++topLevel : ++children[static_cast<std::size_t>(structure.parentOf[g])];
  structure.opensByItself.resize(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    VisibleGroup& group = groups[g];
    const int parent = structure.parentOf[g];
    const bool alone = parent < 0 ? topLevel == 1 : children[static_cast<std::size_t>(parent)] == 1;
    const bool smallParent = parent >= 0 && groups[static_cast<std::size_t>(parent)].members.size() <= kOpenInnerGroupsUpTo;
    structure.opensByItself[g] = group.members.size() == 1 || alone || smallParent;
    const GraphGrouping kind = structure.kindOf[g];
    group.title = kind == GraphGrouping::None    ? partTitle[static_cast<int>(g)]
                  : kind == GraphGrouping::Label ? labelGroupTitle(graph, group)
                                                 : groupTitle(graph, group, kind);
  }
}

// One level of groups (by subgraph, tensor op, scope or label), in order of
// their first node.
void flatGroups(const IrGraph& graph, GroupStructure& structure) {
  std::unordered_map<std::string, int> index;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    std::string key = groupKeyOf(graph, graph.nodes[i], structure.grouping);
    if (key.empty()) continue;
    auto [slot, added] = index.emplace(key, static_cast<int>(structure.groups.size()));
    if (added) structure.groups.push_back({key, {}, {}, false});
    structure.groups[static_cast<std::size_t>(slot->second)].members.push_back(static_cast<int>(i));
    structure.pathOf[i].push_back(slot->second);
  }
  for (VisibleGroup& group : structure.groups) {
    group.title = groupTitle(graph, group, structure.grouping);
    structure.parentOf.push_back(-1);
    structure.kindOf.push_back(structure.grouping);
    structure.opensByItself.push_back(group.members.size() == 1);
  }
}

// The items' edges, one per pair of items with the graph's edges between
// them counted, in (from, to) order.
std::vector<VisibleEdge> itemEdges(const IrGraph& graph, const std::vector<int>& itemOf) {
  std::vector<std::uint64_t> pairs;
  pairs.reserve(graph.edges.size());
  for (const IrGraphEdge& edge : graph.edges) {
    const int from = itemOf[static_cast<std::size_t>(edge.from)], to = itemOf[static_cast<std::size_t>(edge.to)];
    if (from < 0 || to < 0 || from == to) continue;
    pairs.push_back(static_cast<std::uint64_t>(from) << 32 | static_cast<std::uint32_t>(to));
  }
  std::sort(pairs.begin(), pairs.end());
  std::vector<VisibleEdge> edges;
  for (std::size_t i = 0; i < pairs.size();) {
    std::size_t next = i;
    while (next < pairs.size() && pairs[next] == pairs[i]) ++next;
    edges.push_back({static_cast<int>(pairs[i] >> 32), static_cast<int>(pairs[i] & 0xffffffffu), static_cast<int>(next - i)});
    i = next;
  }
  return edges;
}

} // namespace

GroupStructure groupStructure(const IrGraph& graph, GraphGrouping grouping) {
  GroupStructure structure;
  structure.grouping = grouping;
  structure.pathOf.resize(graph.nodes.size());
  if (grouping == GraphGrouping::Structure) structureGroups(graph, structure);
  else if (grouping != GraphGrouping::None) flatGroups(graph, structure);
  return structure;
}

VisibleGraphOptions defaultVisibleOptions(const IrGraph& graph) {
  VisibleGraphOptions options;
  if (graph.nodes.size() > kExpandAllUpTo) options.grouping = GraphGrouping::Structure;
  return options;
}

VisibleGraph visibleGraph(const IrGraph& graph, const VisibleGraphOptions& options) {
  return visibleGraph(graph, options, groupStructure(graph, options.grouping));
}

VisibleGraph visibleGraph(const IrGraph& graph, const VisibleGraphOptions& options, const GroupStructure& structure) {
  VisibleGraph visible;
  const std::size_t n = graph.nodes.size();
  visible.groups = structure.groups;
  for (std::size_t g = 0; g < visible.groups.size(); ++g) {
    VisibleGroup& group = visible.groups[g];
    group.expanded = options.expandAll || structure.opensByItself[g] || options.expanded.count(group.key) > 0;
  }
  // Per node: the collapsed group that stands for it (-1: it shows itself)
  // and the open group double-clicking its frame closes. Nested: a node's
  // open subgraph; outside one, the innermost open group that was more than
  // its single member.
  const bool nested = structure.grouping == GraphGrouping::Structure;
  std::vector<int> groupOf(n, -1), openGroupOf(n, -1);
  for (std::size_t i = 0; i < n; ++i) {
    bool inSubgraph = false;
    for (int group : structure.pathOf[i]) {
      const VisibleGroup& g = visible.groups[static_cast<std::size_t>(group)];
      if (!g.expanded) {
        groupOf[i] = group;
        break;
      }
      if (!nested || structure.kindOf[static_cast<std::size_t>(group)] == GraphGrouping::Subgraph) {
        openGroupOf[i] = group;
        inSubgraph = true;
      } else if (!inSubgraph && g.members.size() > 1) {
        openGroupOf[i] = group;
      }
    }
  }
  auto openGroupKey = [&](std::size_t node) {
    return openGroupOf[node] < 0 ? std::string() : visible.groups[static_cast<std::size_t>(openGroupOf[node])].key;
  };
  // Items: each node of an expanded group (or of none), one per collapsed group.
  std::vector<int> itemOf(n, -1);
  std::vector<int> itemOfGroup(visible.groups.size(), -1);
  for (std::size_t i = 0; i < n; ++i) {
    int group = groupOf[i];
    if (group >= 0 && !visible.groups[static_cast<std::size_t>(group)].expanded) {
      int& item = itemOfGroup[static_cast<std::size_t>(group)];
      if (item < 0) {
        item = static_cast<int>(visible.items.size());
        const VisibleGroup& g = visible.groups[static_cast<std::size_t>(group)];
        VisibleItem entry;
        entry.group = group;
        entry.key = "group:" + g.key;
        entry.title = g.title;
        entry.detail = nodeNoun(graph.level, g.members.size()) + " · double-click to expand";
        entry.openGroup = openGroupKey(i);
        // A tensor op's group inside an open subgraph stays in its frame.
        if (g.depth == 2) entry.cluster = graph.nodes[i].cluster;
        visible.items.push_back(std::move(entry));
      }
      visible.items[static_cast<std::size_t>(item)].members.push_back(static_cast<int>(i));
      itemOf[i] = item;
      continue;
    }
    const IrGraphNode& node = graph.nodes[i];
    VisibleItem entry;
    entry.node = static_cast<int>(i);
    entry.cluster = node.cluster;
    entry.key = node.key;
    entry.title = node.title;
    entry.detail = node.detail;
    entry.members = {static_cast<int>(i)};
    entry.openGroup = openGroupKey(i);
    itemOf[i] = static_cast<int>(visible.items.size());
    visible.items.push_back(std::move(entry));
  }
  if (visible.items.size() > options.neighbourhoodAbove) {
    // Neighbourhood mode: breadth-first from the focus, both directions.
    int focus = options.focusNode >= 0 && static_cast<std::size_t>(options.focusNode) < n ? itemOf[static_cast<std::size_t>(options.focusNode)] : 0;
    std::vector<std::vector<int>> adjacent(visible.items.size());
    for (const IrGraphEdge& edge : graph.edges) {
      int from = itemOf[static_cast<std::size_t>(edge.from)], to = itemOf[static_cast<std::size_t>(edge.to)];
      if (from == to) continue;
      adjacent[static_cast<std::size_t>(from)].push_back(to);
      adjacent[static_cast<std::size_t>(to)].push_back(from);
    }
    std::vector<int> distance(visible.items.size(), -1);
    std::deque<int> queue{focus};
    distance[static_cast<std::size_t>(focus)] = 0;
    std::size_t kept = 1;
    while (!queue.empty() && kept < options.neighbourhoodAbove) {
      int item = queue.front();
      queue.pop_front();
      if (distance[static_cast<std::size_t>(item)] >= options.hops) continue;
      for (int next : adjacent[static_cast<std::size_t>(item)])
        if (distance[static_cast<std::size_t>(next)] < 0 && kept < options.neighbourhoodAbove) {
          distance[static_cast<std::size_t>(next)] = distance[static_cast<std::size_t>(item)] + 1;
          queue.push_back(next);
          ++kept;
        }
    }
    std::vector<int> renumber(visible.items.size(), -1);
    std::vector<VisibleItem> kept_items;
    for (std::size_t i = 0; i < visible.items.size(); ++i)
      if (distance[i] >= 0) {
        renumber[i] = static_cast<int>(kept_items.size());
        kept_items.push_back(std::move(visible.items[i]));
      }
    visible.items = std::move(kept_items);
    for (std::size_t i = 0; i < n; ++i) {
      itemOf[i] = itemOf[i] < 0 ? -1 : renumber[static_cast<std::size_t>(itemOf[i])];
      if (itemOf[i] < 0) ++visible.hiddenNodes;
    }
    visible.neighbourhood = true;
  }
  visible.edges = itemEdges(graph, itemOf);
  visible.itemOfNode = std::move(itemOf);
  return visible;
}

} // namespace pto
