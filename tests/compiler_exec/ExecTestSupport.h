// Helpers for the Execute graph's tests: kernels built with TensorGraphBuilder, compiled by the pipeline and
// given a hand-made block graph (one subgraph per tile op), and the brute-force dependency checker the
// dependency index is compared with.
#pragma once

#include "tests/support/KernelBuilding.h"
#include "compiler/ir/TensorGraphBuilder.h"
#include "compiler/ir/Compilation.h"
#include "core/Diagnostics.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pto::testing {

// compileKernel (ExpandFunction, RemoveRedundantOp) and then a block graph with one subgraph per tile op, in
// tile-op order: its scope is its tensor op's (collectScopes), AIC for matmul tiles and AIV for the rest,
// copyIns = the tile op's inputs plus its output when it accumulates, copyOuts = its outputs, label = the
// tensor op's kind name, program = the op kind. Fails the test (and returns an empty compilation) when
// compiling fails.
Compilation compileWithOneSubgraphPerTileOp(const TensorGraph& graph,
                                            const Bindings& bindings = {});
// Rebuilds blocks.subgraphOfTileOp from the subgraphs' op lists (after a test regroups tile ops).
void reindexSubgraphs(BlockGraph& blocks);

// True when the boxes overlap in every dim (same tensor, no empty size).
bool boxesOverlap(const ConcreteRegion& a, const ConcreteRegion& b);
// True when the two tasks access a common element and at least one of them writes it.
bool tasksConflict(const Task& a, const Task& b);

// The contract of an Execute graph's links, checked by brute force (O(n^2) pairs): predecessors ascending,
// unique and earlier; successors the mirror image; edgeCount their number; every edge between conflicting
// tasks; every conflicting pair ordered (the later task reachable from the earlier one).
::testing::AssertionResult dependenciesAreExact(const ExecuteGraph& graph);

// No stored edge a -> b is implied by a path a -> ... -> c -> b through another predecessor c of b (brute
// force over the graph's own reachability).
::testing::AssertionResult noEdgeIsImplied(const ExecuteGraph& graph);

// The order the tasks' reads and writes demand, from the accesses alone (O(n^2) pairs with tasksConflict, then
// bitset reachability), with implied pairs removed: per task, the earlier tasks it must follow and does not
// already follow through another one, ascending. The transitive reduction of a DAG is unique, so an exact
// dependency graph without implied edges has exactly these predecessors.
std::vector<std::vector<TaskId>> reducedConflictOrder(const ExecuteGraph& graph);

// The task ids whose subgraph is `subgraph`, ascending.
std::vector<TaskId> tasksOfSubgraph(const ExecuteGraph& graph, SubgraphId subgraph);

} // namespace pto::testing
