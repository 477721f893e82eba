// The machine-file figures `pto calibrate` may move, each by one global
// factor within stated bounds, and how a set of factors becomes a machine.
//
// A parameter is a dotted path to a number in a machine file
// (resources/machines/*.json); the list is data, so a new figure the
// simulator reads (an L2 bandwidth, say) becomes fittable by one line in
// CalibrationParameters.cpp. Factors multiply the base file's value; an
// integer field (cycles) is rounded to the nearest integer, at least 1.
#pragma once

#include "core/Diagnostics.h"
#include "npusim/MachineDescription.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

struct CalibrationParameter {
  std::string_view key;      // "paths.gm_to_l1.peak_gib_per_s"
  double minFactor = 1.0;    // bounds of the factor on the base value
  double maxFactor = 1.0;
  bool byDefault = false;    // fitted unless --parameters names others
  std::string_view meaning;  // one line for the report and the docs
};

// Every parameter calibration knows, the default set first.
std::span<const CalibrationParameter> calibrationParameters();
const CalibrationParameter* findCalibrationParameter(std::string_view key);

// The number at `key` in a machine file's JSON; nullptr when the file has
// no such number (a chip without that path).
const nlohmann::ordered_json* machineFigure(const nlohmann::ordered_json& machineJson, std::string_view key);

// `base` with each parameter's figure multiplied by its factor (`factors`
// parallel to `parameters`).
nlohmann::ordered_json scaledMachineJson(const nlohmann::ordered_json& base,
                                         std::span<const CalibrationParameter* const> parameters,
                                         std::span<const double> factors);

// The same, read into the description the simulator takes. nullopt with
// diagnostics when the scaled file is not a valid machine (it always is
// within the bounds; a hand-written --parameters list could break it).
std::optional<MachineDescription> scaledMachine(const nlohmann::ordered_json& base, const std::filesystem::path& file,
                                                std::span<const CalibrationParameter* const> parameters,
                                                std::span<const double> factors, DiagnosticEngine& diags);

} // namespace pto
