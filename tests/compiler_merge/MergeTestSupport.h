// Helpers for the merge tests: compiling on a given machine, a text summary of merged subgraphs, and the
// block graph run subgraph by subgraph against sequential execution (element versions).
#pragma once

#include "PartitionTestSupport.h"

namespace pto::testing {

// Runs the pipeline with `passOptions` on `target`, ForwardAssemble included; nullopt on failure.
std::optional<CompileResult> compileOn(const TensorGraph& graph, const nlohmann::ordered_json& passOptions,
                                       const TargetInfo& target, DiagnosticEngine& diags);

// describe() of every subgraph, with a "members" line (positions in ops where members start) for merged ones.
std::string summary(const Compilation& compilation);

// The contract every merged block graph keeps, checked element by element. Each tile op execution writes a
// new version into the elements it writes; a sequential walk records which version each read must see. The
// block graph then runs as the runtime runs it: a subgraph's task where the walk reaches its first tensor op
// (subgraphs starting at one op in id order), its ops in `ops` order reading what the subgraph wrote before
// (on chip) or else what its copy-ins loaded from global memory; its copy-outs store what it wrote. Every
// read must see the sequential version and the arguments must end as sequentially. Also: every tile op in
// exactly one subgraph, first tile ops ascending with the ids, ops ascending within each member.
::testing::AssertionResult runsLikeSequential(const Compilation& compilation);

} // namespace pto::testing
