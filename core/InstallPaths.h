// Where an installed or built PTO Studio finds its own files: beside the
// running executable (`../share/pto-studio/<name>`, the layout of both the
// build tree and an installation), then the source tree it was built from.
// Machine files, bundled examples and the Python package all look here.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

namespace pto {

// The running executable's folder (from /proc/self/exe), or the current
// folder when that cannot be read.
std::filesystem::path executableDirectory();

// `<executable folder>/../share/pto-studio/<name>`.
std::filesystem::path sharedDataFolder(std::string_view name);

// The candidates that are folders, normalised, each once, in order.
std::vector<std::filesystem::path> existingFolders(const std::vector<std::filesystem::path>& candidates);

} // namespace pto
