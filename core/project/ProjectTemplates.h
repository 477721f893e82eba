// New projects start as a copy of a bundled example (resources/examples):
// `pto new DIR --example NAME` and the IDE's File > New project both call
// this, so a new project is always one that compiles and runs.
#pragma once

#include "core/Diagnostics.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pto {

// Folders holding the bundled examples, searched in this order:
//   1. ../share/pto-studio/examples beside the running executable (installed
//      and build trees both have this layout);
//   2. resources/examples of the source tree this was built from.
// Folders that do not exist are left out.
std::vector<std::filesystem::path> exampleSearchPath();

struct ExampleProject {
  std::string name;                // the folder name, e.g. "softmax"
  std::string description;         // the project's "description", may be empty
  std::filesystem::path directory;
};

// Every example on the search path (a folder holding pto-project.json),
// sorted by name; the first folder that has a name wins.
std::vector<ExampleProject> availableExamples();

// Copies example `exampleName` into `destination`, which must not exist or
// be an empty folder, and renames the project after the destination folder.
// The examples it uses ("uses_examples", transitively) are copied into
// folders of their names inside it, so the copy runs on its own.
// Returns the new pto-project.json. Errors (unknown example with the list of
// names, destination not empty, copy failures) are reported at `destination`.
std::optional<std::filesystem::path> createProjectFromExample(const std::string& exampleName,
                                                              const std::filesystem::path& destination,
                                                              DiagnosticEngine& diags);

} // namespace pto
