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

// One subgraph per paragraph:
//   sg2 scope 1 AIV program 0 [pinned]
//     ops #8 amax, #9 amax
//     in x[b:b + 1, 0:4, 0:1, 0:64]; ...      ("in -" when none)
//     out y[...]; ...                          ("out -" when none)
std::string describe(const Compilation& compilation, const Subgraph& subgraph);
std::string describeAll(const Compilation& compilation);

} // namespace pto::testing
