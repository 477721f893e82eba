// Helpers for the partition tests: building kernels op by op, compiling them with pass options, and the
// compact text of a block graph that the structure tests compare with.
#pragma once

#include "tests/support/KernelBuilding.h"
#include "compiler/ir/TensorGraphBuilder.h"
#include "compiler/passes/Pipeline.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace pto::testing {

// Runs the pipeline with `passOptions`; nullopt when it fails, with the messages in `errors` (or, without
// `errors`, a test failure that shows them).
std::optional<CompileResult> compileWith(const TensorGraph& graph, const nlohmann::ordered_json& passOptions,
                                         std::string* errors = nullptr);

// describeAll of `graph` compiled by compileWith, or the compiler's messages when it fails.
std::string partitionOf(const TensorGraph& graph,
                        const nlohmann::ordered_json& passOptions = nlohmann::ordered_json::object());

// One subgraph per paragraph:
//   sg2 scope 1 AIV program 0 [pinned]
//     ops #8 amax, #9 amax
//     in x[b:b + 1, 0:4, 0:1, 0:64]; ...      ("in -" when none)
//     out y[...]; ...                          ("out -" when none)
std::string describe(const Compilation& compilation, const Subgraph& subgraph);
std::string describeAll(const Compilation& compilation);

// The contract every block graph keeps, checked element by element. Each tile op execution writes a new
// version into the elements it writes; a sequential walk records which version each read must see. The block
// graph then runs as the runtime runs it: a subgraph's task where the walk reaches its earliest tensor op, its
// ops in `ops` order reading what the subgraph wrote before (on chip) or else what its copy-ins loaded from
// global memory; its copy-outs store what it wrote. Every read must see the sequential version, data stays on
// chip only along the core paths the machine has (`cubeVectorMayShare`: cube results may feed vector ops on
// chip), and the arguments must end as sequentially. Also: every tile op in exactly one subgraph, subgraphs in
// first-op order, ops ascending within each member (each merged member), one core type per subgraph unless
// the machine shares.
::testing::AssertionResult runsLikeSequential(const Compilation& compilation, bool cubeVectorMayShare = false);

} // namespace pto::testing
