// Helpers for the merge tests: compiling on a given machine and a text summary of merged subgraphs (the
// check against sequential execution, runsLikeSequential, is PartitionTestSupport.h's).
#pragma once

#include "PartitionTestSupport.h"

namespace pto::testing {

// Runs the pipeline with `passOptions` on `target`, ForwardAssemble included; nullopt on failure.
std::optional<CompileResult> compileOn(const TensorGraph& graph, const nlohmann::ordered_json& passOptions,
                                       const TargetInfo& target, DiagnosticEngine& diags);

// describe() of every subgraph, with a "members" line (positions in ops where members start) for merged ones.
std::string summary(const Compilation& compilation);

} // namespace pto::testing
