// Reading, validating and saving `pto-project.json`.
#pragma once

#include "core/Diagnostics.h"
#include "core/project/OperatorProject.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace pto {

class JsonReader;
struct KeyPath;

inline constexpr std::string_view kProjectFileName = "pto-project.json";

// `path` may be the project folder or the project file itself. Returns the
// file path, or an error diagnostic when neither exists.
std::optional<std::filesystem::path> findProjectFile(const std::filesystem::path& path, DiagnosticEngine& diags);

// Loads and validates a project. Every problem found is reported (not just
// the first): errors with file:line:column and the key path
// (`args[1].shape[0]: expected an integer, got "a"`), warnings for unknown
// keys. Returns nullopt when there was any error.
std::optional<OperatorProject> loadProject(const std::filesystem::path& path, DiagnosticEngine& diags);

// The same on text already in memory (an unsaved editor buffer); `file` is
// the name diagnostics use and the folder relative paths resolve against.
std::optional<OperatorProject> parseProject(std::string_view text, const std::filesystem::path& file,
                                            DiagnosticEngine& diags);

// The project as JSON text: the document it was read from with the model's
// values written back, so key order and unknown keys survive; two-space
// indentation, short arrays on one line.
std::string serializeProject(const OperatorProject& project);

// Writes serializeProject() atomically to `file` (project.file when empty).
bool saveProject(const OperatorProject& project, DiagnosticEngine& diags, const std::filesystem::path& file = {});

// Checks the form of a `tile_settings` value at `path` of the document
// `reader` reads, as loadProject does (a tuned-config import reuses it):
// {"vec": {KEY: [dims]}, "cube": {KEY: {"m", "k", "n", "enable_split_k"}}}.
// Reports every problem; false when there was an error.
bool checkTileSettings(const nlohmann::ordered_json& value, const KeyPath& path, JsonReader& reader);

} // namespace pto
