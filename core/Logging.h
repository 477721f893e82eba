// Logging setup shared by `pto` and `pto-studio` (spdlog, to stderr).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pto {

// Sets the global log level from, in order of precedence, `levelFromCommandLine`
// (--log-level) and the PTO_LOG environment variable; quiet ("warn") otherwise.
// Returns false with a message in `error` for a level name that does not exist.
bool initLogging(const std::optional<std::string>& levelFromCommandLine, std::string& error);

// The accepted level names, for help texts: "trace, debug, info, warn, error, off".
std::string_view logLevelNames();

} // namespace pto
