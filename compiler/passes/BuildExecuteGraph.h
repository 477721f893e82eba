// BuildExecuteGraph: every execution of a subgraph becomes a task, linked to
// the earlier tasks whose global-memory accesses it must follow.
//
// Pre:  `compilation.blocks` holds the scopes and subgraphs (GraphPartition,
//       GenerateMoveOp): every tile op belongs to one subgraph, the tensor ops
//       of a subgraph's tile ops lie in the subgraph's scope, and
//       copyIns/copyOuts are global-memory regions whose offsets may use the
//       dynamic dims and the indices of the loops around the scope. Regions
//       on views are resolved onto their storage here.
// Post: `compilation.tasks` holds the Execute graph (ExecuteGraph.h):
//       - the program is walked (walkProgram) with the compilation's
//         bindings; a subgraph's task is made when the walk reaches the first
//         tensor op of its scope that owns one of its tile ops, and subgraphs
//         starting at the same op make their tasks in subgraph-id order, so
//         task ids are program order;
//       - reads/writes are copyIns/copyOuts with offsets evaluated for that
//         execution; loopIndices are the enclosing loops' index symbols and
//         values, outermost first (an unrolled body's run reports its first
//         iteration);
//       - a temporary made inside a loop body gets one instance per
//         iteration (ConcreteRegion::instance), unless a task outside that
//         loop touches it; instances never conflict, so iterations that share
//         no data are not ordered by a reused buffer;
//       - predecessors/successors: read-after-write, write-after-read and
//         write-after-write between overlapping boxes of one tensor, less the
//         edges other paths imply (computeTaskDependencies); edgeCount counts
//         them;
//       - barriers: where the walk entered a loop with submitBeforeLoop
//         (each entry: an inner loop's barrier stands once per outer
//         iteration), at the count of tasks made so far; none at 0 or at the
//         end, one per position; ordersData says whether an edge crosses it.
// Errors: an offset that cannot be evaluated is a user error at the kernel
//       line of the subgraph's first tile op; a block graph that breaks the
//       preconditions is an internal error.
// Cost: the walk plus near-linear dependency analysis; it polls nothing.
#pragma once

#include "compiler/ir/Compilation.h"

namespace pto {

bool buildExecuteGraph(Compilation& compilation, DiagnosticEngine& diags);

// Whether computeTaskDependencies stores an edge that a path through other
// tasks already implies (Kept is for measuring what the removal saves).
enum class ImpliedEdges { Removed, Kept };
// Links one search for an implied edge may inspect, and what each edge the
// index finds adds to its task's searches together (see below).
constexpr std::size_t kImpliedEdgeSearchLinks = 128;
constexpr std::size_t kImpliedEdgeLinksPerEdge = 16;

// Fills every task's predecessors and successors (ascending, unique) and
// `graph.edgeCount` from the tasks' reads and writes, replacing what was
// there. Tasks must be numbered 0, 1, ... in program order, and the regions
// of one tensor must all have that tensor's rank; empty boxes (a size <= 0)
// touch nothing. Every conflicting pair of tasks ends up ordered, directly or
// through other tasks; every edge joins two conflicting tasks.
//
// Implied edges (Removed): a predecessor p of t is dropped when a search back
// from another kept predecessor q of t reaches p, i.e. p -> ... -> q -> t
// orders p before t anyway. Each search inspects at most
// kImpliedEdgeSearchLinks links, and a task's searches together at most that
// plus kImpliedEdgeLinksPerEdge per edge the index found for it, so the
// result is the exact transitive reduction whenever no search needs more (in
// particular whenever the graph ends up with at most kImpliedEdgeSearchLinks
// edges); past that, some implied edges stay. Only an edge whose implying
// path was seen is dropped.
//
// Index: per tensor, boxes are grouped into size classes (the power of two
// at or above the box's extent, per dim; past 8 classes a new size joins the
// tightest coarser class) and each class keeps a hash grid whose cells are
// that size, so a box occupies at most 2 cells per dim and a query visits,
// per class, the cells it covers (or the class's boxes when there are
// fewer). Identical boxes share one entry that keeps only its last writer
// and the readers since; an entry wholly covered by a later write is
// dropped, since that write orders everything before it. The boxes of a
// per-iteration instance are forgotten after the last task that touches it
// (nothing can conflict with them later), so the index holds the instances
// in flight rather than every iteration's. Cost is about linear in accesses
// plus edges when a tensor's boxes come in few sizes (the tiles of a
// kernel); boxes of arbitrary sizes cost more per access. The removal of
// implied edges adds at most kImpliedEdgeSearchLinks link visits per task
// plus kImpliedEdgeLinksPerEdge per edge the index found.
void computeTaskDependencies(ExecuteGraph& graph, ImpliedEdges implied = ImpliedEdges::Removed);

} // namespace pto
