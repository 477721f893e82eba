// Finding, reading and validating machine files (resources/machines/*.json).
#pragma once

#include "core/Diagnostics.h"
#include "npusim/MachineDescription.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

// The schema version this build reads; a file with another one is refused.
inline constexpr int kMachineSchemaVersion = 1;

// Loads and validates a machine file. Every problem is reported, not just the
// first: errors (missing keys, wrong types, values out of range, buffer sizes
// that contradict each other, a listed path with no rate) and warnings
// (unknown keys, with a suggestion) carry file:line:column and the key path.
// Returns nullopt when there was any error. The machine's name is the file stem.
std::optional<MachineDescription> loadMachine(const std::filesystem::path& file, DiagnosticEngine& diags);

// The same on text in memory (an unsaved editor buffer); `file` names it.
std::optional<MachineDescription> parseMachine(std::string_view text, const std::filesystem::path& file,
                                               DiagnosticEngine& diags);

// Folders searched for <name>.json, in this order:
//   1. each folder in $PTO_MACHINES_PATH (':'-separated), for the user's own machines;
//   2. ../share/pto-studio/machines beside the running executable (installed
//      and build trees both have this layout);
//   3. resources/machines of the source tree this was built from.
// Folders that do not exist are left out.
std::vector<std::filesystem::path> machineSearchPath();

// Names of every machine file on the search path, sorted, without duplicates.
std::vector<std::string> availableMachines();

// Resolves a machine name ("a2") on the search path, the first folder that
// has it winning, and loads it. A name ending in ".json" is taken as a file
// path instead, relative to `relativeTo` when given (a project's machine
// file is relative to the project's folder, not to where pto runs). An
// unknown name is an error at `requestedAt` (e.g. the project's "machine"
// value) listing the available names, with a note per folder searched.
std::optional<MachineDescription> findMachine(const std::string& name, DiagnosticEngine& diags,
                                              const SourceLocation& requestedAt,
                                              const std::filesystem::path& relativeTo = {});

} // namespace pto
