// Simulator-mode outputs where PyPTO's own tools look for them. In its
// simulator run mode PyPTO writes a cost-model folder per process,
//   <base>/output_<YYYYmmdd_HHMMSS>_<microseconds>_<pid>_<host>/
//       CostModelSimulationOutput/merged_swimlane.json
// with <base> = $TILE_FWK_OUTPUT_DIR, else $ASCEND_WORK_PATH/pypto, else
// ./output. PTO Studio writes the same swimlane (Chrome trace JSON in
// PyPTO's merged_swimlane layout, so PyPTO's viewer and Perfetto open it) and
// beside it pto_report.json, the run's report as `pto run --json` writes it.
// `pto-studio` opens any of these folders directly.
#pragma once

#include "runtime/trace/Trace.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace pto {

inline constexpr const char* kCostModelFolderName = "CostModelSimulationOutput";
inline constexpr const char* kMergedSwimlaneName = "merged_swimlane.json";

// The base folder PyPTO would use, from the environment (see above).
std::filesystem::path costModelBaseFolder();

// This process's run folder, created on first use (one per process, as in
// PyPTO); later calls return the same folder. nullopt with `error` when it
// cannot be created.
std::optional<std::filesystem::path> processRunFolder(std::string& error);

// Writes <run folder>/CostModelSimulationOutput/{merged_swimlane.json,
// pto_report.json} (each atomically; a later kernel call in the same process
// replaces them, as PyPTO's do). Returns the CostModelSimulationOutput folder,
// or nullopt with `error`.
std::optional<std::filesystem::path> writeCostModelOutput(const trace::Trace& trace,
                                                          const nlohmann::ordered_json& report, std::string& error);

// The swimlane a path names for opening: the file itself when it is a .json
// file; in a folder, its merged_swimlane.json, or CostModelSimulationOutput's,
// or — for PyPTO's `output` folder holding several run folders — the newest
// run folder's. nullopt when there is none.
std::optional<std::filesystem::path> findSwimlane(const std::filesystem::path& path);

} // namespace pto
