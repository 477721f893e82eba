// Helpers for the tuning engine's tests: example projects traced once, small
// projects written to a temporary folder, and compiling a project with other
// tile settings (the independent cross-check of the buffer check).
#pragma once

#include "analysis/tuning/TileSites.h"
#include "compiler/ir/TargetInfo.h"
#include "core/Diagnostics.h"
#include "core/project/OperatorProject.h"

#include <filesystem>
#include <string>

namespace pto::testing {

struct TracedProject {
  OperatorProject project;
  TensorGraph graph;
  Bindings bindings;
};

// resources/examples/<name>, loaded and traced (fails the test on error).
const TracedProject& example(const std::string& name);
// A project in a fresh temporary folder: `kernel` is kernel.py, `projectJson` pto-project.json.
TracedProject writeAndTrace(const std::string& folderName, const std::string& kernel, const std::string& projectJson);

// Compiles `traced` with `tileSettings` instead of the project's; the error messages ("" when it compiles).
std::string compileErrors(const TracedProject& traced, const nlohmann::ordered_json& tileSettings,
                          const nlohmann::ordered_json& passOptions = nlohmann::ordered_json::object());

const TileSite& siteByKey(const std::vector<TileSite>& sites, TileSection section, const std::string& key);

// The default A2 target the compiler uses.
TargetInfo a2();

} // namespace pto::testing
