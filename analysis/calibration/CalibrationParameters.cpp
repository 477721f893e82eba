// The calibration parameter list and applying factors to a machine file.
#include "analysis/calibration/CalibrationParameters.h"

#include "npusim/MachineFile.h"

#include <algorithm>
#include <cmath>

namespace pto {

namespace {

// Bounds: a factor of 4 either way covers the public sources' spread for
// every figure (HBM 1.2-1.6 TB/s, path peaks from one cost-model table,
// AICPU costs from one config) with room; a real chip further off than that
// points at a modelling gap, which a bigger factor would only hide.
// The default set is one figure per kind of work, each of which a kernel
// with cube, vector and many tasks constrains on its own: the cube cores'
// loads, HBM, the AICPU's dispatch, the vector unit. The others overlap one
// of them in most traces (every path of a task adds to its duration alike;
// vector start-up and bytes per cycle differ only across instruction sizes;
// the AICPU's resolve and completion costs act like dispatch), so fitting
// them needs a trace whose tasks tell them apart: name them with
// --parameters, and read the "not constrained" status the fit reports.
constexpr CalibrationParameter kParameters[] = {
    {"paths.gm_to_l1.peak_gib_per_s", 0.25, 4.0, true, "GM->L1 copy engine peak (cube cores' loads)"},
    {"global_memory.bandwidth_tb_per_s", 0.25, 4.0, true, "HBM bandwidth shared by all cores"},
    {"scheduler.dispatch_cycles", 0.25, 4.0, true, "AICPU cycles to hand a ready task to a core"},
    {"vector.bytes_per_cycle", 0.25, 4.0, true, "vector unit bytes per cycle (add class)"},
    {"paths.gm_to_ub.peak_gib_per_s", 0.25, 4.0, false, "GM->UB copy engine peak (vector cores' loads)"},
    {"paths.ub_to_gm.peak_gib_per_s", 0.25, 4.0, false, "UB->GM copy engine peak (vector cores' stores)"},
    {"paths.l0c_to_gm.peak_gib_per_s", 0.25, 4.0, false, "L0C->GM fixpipe peak (cube cores' stores)"},
    {"vector.startup_cycles", 0.25, 4.0, false, "vector instruction start-up cycles"},
    {"cube.instruction_overhead_cycles", 0.25, 4.0, false, "cycles per matmul instruction besides the fractals"},
    {"scheduler.completion_cycles", 0.25, 4.0, false, "AICPU cycles to notice a finished task"},
    {"scheduler.resolve_cycles", 0.25, 4.0, false, "AICPU cycles to release a finished task's consumers"},
    {"paths.l1_to_l0a.peak_gib_per_s", 0.25, 4.0, false, "L1->L0A path peak"},
    {"paths.l1_to_l0b.peak_gib_per_s", 0.25, 4.0, false, "L1->L0B path peak"},
    {"paths.gm_to_l1.saturation_bytes", 0.25, 4.0, false, "GM->L1 start-up, in bytes at peak rate"},
    {"paths.gm_to_ub.saturation_bytes", 0.25, 4.0, false, "GM->UB start-up, in bytes at peak rate"},
    {"global_memory.efficiency", 0.5, 1.25, false, "sustained fraction of the HBM bandwidth (at most 1)"},
    {"l2_cache.bandwidth_tb_per_s", 0.25, 4.0, false, "L2 ports' rate shared by every GM transfer"},
};

nlohmann::ordered_json::json_pointer pointerOf(std::string_view key) {
  std::string pointer = "/" + std::string(key);
  std::replace(pointer.begin(), pointer.end(), '.', '/');
  return nlohmann::ordered_json::json_pointer(pointer);
}

} // namespace

std::span<const CalibrationParameter> calibrationParameters() { return kParameters; }

const CalibrationParameter* findCalibrationParameter(std::string_view key) {
  for (const CalibrationParameter& parameter : kParameters)
    if (parameter.key == key) return &parameter;
  return nullptr;
}

const nlohmann::ordered_json* machineFigure(const nlohmann::ordered_json& machineJson, std::string_view key) {
  const auto pointer = pointerOf(key);
  if (!machineJson.contains(pointer)) return nullptr;
  const nlohmann::ordered_json& value = machineJson.at(pointer);
  return value.is_number() ? &value : nullptr;
}

nlohmann::ordered_json scaledMachineJson(const nlohmann::ordered_json& base,
                                         std::span<const CalibrationParameter* const> parameters,
                                         std::span<const double> factors) {
  nlohmann::ordered_json scaled = base;
  for (std::size_t i = 0; i < parameters.size() && i < factors.size(); ++i) {
    const auto pointer = pointerOf(parameters[i]->key);
    if (!scaled.contains(pointer) || !scaled.at(pointer).is_number()) continue;
    nlohmann::ordered_json& value = scaled.at(pointer);
    const double moved = value.get<double>() * factors[i];
    if (value.is_number_integer())
      value = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::llround(moved)));
    else
      value = moved;
  }
  return scaled;
}

std::optional<MachineDescription> scaledMachine(const nlohmann::ordered_json& base, const std::filesystem::path& file,
                                                std::span<const CalibrationParameter* const> parameters,
                                                std::span<const double> factors, DiagnosticEngine& diags) {
  return parseMachine(scaledMachineJson(base, parameters, factors).dump(), file, diags);
}

} // namespace pto
