// A kernel called from a Python script (`import pypto`, then kernel(x, y)):
// compiled for a machine, simulated, checked against the reference
// interpreter, its outputs written back. The `pypto` extension module
// registers this as the frontend's KernelRunner; pypto.last_run() returns the
// report.
//
// Machine and mode come from the environment, since PyPTO's jit options
// have no key for them: PTO_MACHINE (default a2) and PTO_MODE (functional,
// the default, or timing — then the outputs come from the compiled tile graph
// on the CPU, as with `pto run`, since the simulator leaves the data alone).
//
// A kernel the compiler or simulator cannot take (a construct not supported
// yet) still runs: its outputs come from the reference interpreter and the
// report says `"simulated": false` with the reason (`simulation_error`),
// which the Python side raises as a RuntimeWarning; its outputs carry
// `"checked": false` (there is nothing independent to compare them with). Errors in the kernel
// itself are caught earlier, when it is traced.
#pragma once

#include "compiler/ir/TensorGraph.h"
#include "core/Diagnostics.h"
#include "core/HostTensor.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace pto {

// See KernelRunner in compiler/frontend/KernelRunner.h for the contract.
std::optional<nlohmann::ordered_json> runKernelCall(const TensorGraph& graph, std::vector<HostTensor>& arguments,
                                                    const nlohmann::ordered_json& jitOptions, DiagnosticEngine& diags);

} // namespace pto
