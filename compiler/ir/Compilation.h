// What the pass pipeline works on: the traced program, the settings it is
// compiled with, and each IR level as the passes build it.
#pragma once

#include "compiler/ir/BlockGraph.h"
#include "compiler/ir/ExecuteGraph.h"
#include "compiler/ir/PtoProgram.h"
#include "compiler/ir/TargetInfo.h"
#include "compiler/ir/TileGraph.h"
#include "core/Diagnostics.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace pto {

struct CompileSettings {
  // Values of the kernel's dynamic dims (from the actual arguments).
  Bindings bindings;
  // The project's tile_settings and pass_options (docs/project-format.md).
  nlohmann::ordered_json tileSettings = nlohmann::ordered_json::object();
  nlohmann::ordered_json passOptions = nlohmann::ordered_json::object();
  // The project's partition_overrides (ApplyPartitionOverrides) and where
  // each entry starts in the project file (same order; may be shorter when
  // the settings were not read from a file).
  nlohmann::ordered_json partitionOverrides = nlohmann::ordered_json::array();
  std::vector<SourceLocation> partitionOverrideLocations;
  // Where those settings came from, for diagnostics about them: the file,
  // and where a setting's value starts in it, keyed as
  // OperatorProject::settingLocations ("tile_settings.cube.gemm"); settings
  // not read from a file have none, and diagnostics then name the file.
  std::string projectFile;
  std::map<std::string, SourceLocation> settingLocations;
  // Where `key`'s value starts ("pass_options"), else the file.
  SourceLocation locationOf(const std::string& key) const {
    auto found = settingLocations.find(key);
    return found != settingLocations.end() ? found->second : SourceLocation{projectFile, 0, 0};
  }
  // The machine's buffers and data paths.
  TargetInfo target;
};

struct Compilation {
  CompileSettings settings;
  TileGraph tiles;    // its `graph` member holds the Tensor graph being compiled
  BlockGraph blocks;  // filled by GraphPartition and the passes after it
  std::vector<PtoProgram> programs;  // by programId: LowerToPto, OoOSchedule, InsertSync
  ExecuteGraph tasks; // filled by BuildExecuteGraph, the last pass
};

} // namespace pto
