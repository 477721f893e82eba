// spdlog configuration: one stderr logger, level from flag or environment.
#include "core/Logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <array>
#include <cstdlib>

namespace pto {
namespace {

struct LevelName {
  std::string_view name;
  spdlog::level::level_enum level;
};
constexpr std::array<LevelName, 7> kLevels = {{{"trace", spdlog::level::trace},
                                               {"debug", spdlog::level::debug},
                                               {"info", spdlog::level::info},
                                               {"warn", spdlog::level::warn},
                                               {"warning", spdlog::level::warn},
                                               {"error", spdlog::level::err},
                                               {"off", spdlog::level::off}}};

} // namespace

std::string_view logLevelNames() { return "trace, debug, info, warn, error, off"; }

bool initLogging(const std::optional<std::string>& levelFromCommandLine, std::string& error) {
  std::string requested;
  std::string origin;
  if (levelFromCommandLine) {
    requested = *levelFromCommandLine;
    origin = "--log-level";
  } else if (const char* fromEnvironment = std::getenv("PTO_LOG"); fromEnvironment && *fromEnvironment) {
    requested = fromEnvironment;
    origin = "PTO_LOG";
  }
  spdlog::level::level_enum level = spdlog::level::warn;
  if (!requested.empty()) {
    bool found = false;
    for (const LevelName& entry : kLevels) {
      if (entry.name == requested) {
        level = entry.level;
        found = true;
      }
    }
    if (!found) {
      error = origin + ": unknown log level '" + requested + "'; use one of " + std::string(logLevelNames());
      return false;
    }
  }
  // Log lines go to stderr so that `--json -` output on stdout stays parseable.
  auto logger = spdlog::get("pto");
  if (!logger) logger = spdlog::stderr_color_mt("pto");
  logger->set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(level);
  return true;
}

} // namespace pto
