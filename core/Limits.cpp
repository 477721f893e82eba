// Reading the limits' environment variables.
#include "core/Limits.h"

#include <charconv>
#include <cstdlib>
#include <cstring>

namespace pto {

std::int64_t limitValue(const ResourceLimit& limit) {
  const char* text = std::getenv(limit.variable);
  if (!text || !*text) return limit.defaultValue;
  std::int64_t value = 0;
  auto [end, error] = std::from_chars(text, text + std::strlen(text), value);
  // A malformed value keeps the default: the error that follows names the variable and its value.
  if (error != std::errc() || *end != '\0' || value <= 0) return limit.defaultValue;
  return value;
}

std::string limitExceeded(const ResourceLimit& limit) {
  std::string text = "more than the limit of " + std::to_string(limitValue(limit)) + " " + limit.what + " (" +
                     limit.variable + "); raise it with " + limit.variable + "=N";
  const char* set = std::getenv(limit.variable);
  if (set && *set && limitValue(limit) == limit.defaultValue && std::to_string(limit.defaultValue) != set)
    text += std::string(" (its value '") + set + "' is not a positive integer)";
  return text;
}

} // namespace pto
