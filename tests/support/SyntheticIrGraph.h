// A hand-built tile graph for the graph views' tests: `clusters` subgraphs of
// `perCluster` ops ("add #N", labels "even" and "odd" by subgraph, loop scope
// c / 10), chained: every op feeds the next, so each subgraph feeds the next.
// Tensor ops are left unset (-1); a test that needs them sets them.
#pragma once

#include "analysis/irviews/IrGraph.h"

#include <string>

namespace pto::test {

inline IrGraph chainedClusters(int clusters, int perCluster) {
  IrGraph graph;
  graph.level = GraphLevel::Tile;
  for (int c = 0; c < clusters; ++c) {
    IrGraphCluster cluster;
    cluster.id = c;
    cluster.key = "sg:" + std::to_string(c);
    cluster.title = "sg" + std::to_string(c);
    for (int i = 0; i < perCluster; ++i) {
      IrGraphNode node;
      node.id = c * perCluster + i;
      node.key = "op" + std::to_string(node.id);
      node.kind = "add";
      node.title = "add #" + std::to_string(node.id);
      node.label = c % 2 ? "odd" : "even";
      node.cluster = c;
      node.subgraph = c;
      node.scope = c / 10;
      node.tileIndex = i;
      cluster.nodes.push_back(static_cast<int>(graph.nodes.size()));
      if (!graph.nodes.empty())
        graph.edges.push_back({static_cast<int>(graph.nodes.size()) - 1, static_cast<int>(graph.nodes.size())});
      graph.nodes.push_back(node);
    }
    graph.clusters.push_back(cluster);
  }
  return graph;
}

} // namespace pto::test
