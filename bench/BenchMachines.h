// The machine the engine benchmarks run on: the bundled A2 description.
#pragma once

#include "core/Diagnostics.h"
#include "npusim/MachineFile.h"

#include <filesystem>

namespace pto {

inline MachineDescription a2Machine() {
  DiagnosticEngine diags;
  return *loadMachine(std::filesystem::path(PTO_SOURCE_DIR) / "resources" / "machines" / "a2.json", diags);
}

} // namespace pto
