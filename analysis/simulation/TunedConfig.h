// Tuned configuration: the settings a user tuned in a project (tile shapes,
// pass options, runtime options, partition overrides, machine) as a JSON
// file of their own, to keep, share, diff, or apply to another copy of the
// project (`pto export-config`, `pto import-config`, the IDE's export).
//
// The file (docs/project-format.md, "Tuned config"):
//   {"format": "pto-tuned-config", "version": 1, "project": NAME,
//    "machine": M, "tile_settings": {...}, "pass_options": {...},
//    "runtime_options": {...}, "partition_overrides": [...],
//    "measured": {"makespan_us": T, "machine": M, "mode": "timing"}}
// "measured" is a note of what the settings gave when exported from a run;
// importing ignores it.
#pragma once

#include "core/Diagnostics.h"
#include "core/project/OperatorProject.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace pto {

inline constexpr std::string_view kTunedConfigFormat = "pto-tuned-config";
inline constexpr int kTunedConfigVersion = 1;

// What the settings gave, when the export follows a run.
struct TunedConfigMeasurement {
  double makespanUs = 0.0;
  std::string machine;  // the machine simulated
  std::string mode;     // "timing" or "functional"
};

// The project's tuned settings as a tuned-config document (keys in the order
// above; settings the project leaves empty are written empty, so importing
// the file resets them).
nlohmann::ordered_json tunedConfig(const OperatorProject& project,
                                   const std::optional<TunedConfigMeasurement>& measured = std::nullopt);

// Applies a tuned-config document to `project`: every setting the document
// has replaces the project's; settings it lacks stay. The document is checked
// first — types, the tile-settings form, runtime option ranges, the machine
// name (it must be on the machine search path) — and every problem is
// reported at `file`:line:column of `text` with its key path; unknown keys
// are warnings. Nothing is changed unless there is no error. Returns false
// on error.
bool applyTunedConfig(std::string_view text, const std::filesystem::path& file, OperatorProject& project,
                      DiagnosticEngine& diags);

// Reads `file` and applies it as above; an unreadable file is an error.
bool applyTunedConfigFile(const std::filesystem::path& file, OperatorProject& project, DiagnosticEngine& diags);

} // namespace pto
