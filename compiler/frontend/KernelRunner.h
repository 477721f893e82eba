// How a kernel called from Python executes. The frontend lives below the
// simulator in the layer table, so it only knows the reference interpreter;
// the extension module (app/python) registers the simulator's run here at
// import time, and a call then compiles and simulates the kernel.
#pragma once

#include "compiler/ir/TensorGraph.h"
#include "core/Diagnostics.h"
#include "core/HostTensor.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <vector>

namespace pto {

// Runs `graph` on `arguments` (inputs read, outputs written in place) with
// the kernel's jit options ({"runtime_options": {...}, "pass_options": {...},
// ...}) and returns the run's report (docs/cli.md, `pto run --json`), or
// nullopt with diagnostics when the run fails.
using KernelRunner = std::function<std::optional<nlohmann::ordered_json>(
    const TensorGraph& graph, std::vector<HostTensor>& arguments, const nlohmann::ordered_json& jitOptions,
    DiagnosticEngine& diags)>;

// Replaces the runner (an empty function restores the reference interpreter).
void setKernelRunner(KernelRunner runner);
const KernelRunner& kernelRunner();

} // namespace pto
