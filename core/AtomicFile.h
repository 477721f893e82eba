// Writing files so that a crash or a full disk never leaves a half-written one.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace pto {

// Writes `contents` to a temporary file beside `path`, flushes it, then
// renames it over `path`. On failure returns false, leaves any existing file
// untouched, and puts the reason in `error` (e.g. "permission denied").
bool writeFileAtomically(const std::filesystem::path& path, std::string_view contents, std::string& error);

// Reads a whole file; false with the reason in `error` when it cannot.
bool readFile(const std::filesystem::path& path, std::string& contents, std::string& error);

} // namespace pto
