// PassHistory: a project compiled with the IR kept after every pass, for the
// IDE's pass viewer and graph views (what `pto passes` prints, as data).
// With `enable_pass_verify` the kernel also runs after each pass and the
// first pass whose result leaves the golden is marked.
#pragma once

#include "analysis/irviews/PassSteps.h"
#include "core/Diagnostics.h"
#include "core/project/OperatorProject.h"
#include "compiler/ir/TensorGraph.h"
#include "compiler/passes/Pipeline.h"

#include <nlohmann/json.hpp>

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pto {

// FinalIr: compile once and keep the IR after the last pass only (one
// snapshot instead of one per changed pass: for a kernel of thousands of
// tile ops, most of the time). EveryPass: a snapshot per pass, and pass
// verify when the project asks for it.
enum class PassHistoryDepth { FinalIr, EveryPass };

// `traced`: the kernel already traced from `sourceText` (a run's graph):
// compiled as it is, without running the kernel's Python again.
PassHistory compilePassHistory(const OperatorProject& project, const std::optional<std::string>& sourceText,
                               const std::function<bool()>& cancelled,
                               PassHistoryDepth depth = PassHistoryDepth::EveryPass,
                               std::shared_ptr<const TensorGraph> traced = nullptr);

// The history a finished run already holds (PassHistoryDepth::FinalIr): its
// traced graph, its passes' records and the final IR of its compilation, so
// the graph views show the run's own graphs without tracing or compiling
// again. The passes have no snapshots; compilePassHistory with `traced` adds them.
PassHistory passHistoryOfRun(std::shared_ptr<const TensorGraph> traced, const CompileResult& compiled);

// Whether `overrides` (a whole partition_overrides array) compiles for the
// project: empty when it does, else the compiler's reason (cycle, order,
// cube/vector data path, buffer capacity with bytes, a name that matches
// nothing). Compiles only up to ApplyPartitionOverrides.
std::string partitionOverridesProblem(const OperatorProject& project, const TensorGraph& traced,
                                      const nlohmann::ordered_json& overrides);

} // namespace pto
