// Limits on what one kernel or one file may make, so that a slip (a tile
// shape of 1 on a big tensor, a loop bound of a billion, a trace from the
// wrong run) ends in an error that says which limit and how to raise it,
// not in memory running out. Each limit has a default sized for a
// workstation and an environment variable that changes it. The tensor-size
// limit is the tracer's --max-elements (docs/cli.md); docs/limits.md lists
// them all.
#pragma once

#include <cstdint>
#include <string>

namespace pto {

struct ResourceLimit {
  const char* what;      // "tile ops", as the error names it
  const char* variable;  // the environment variable that sets it
  std::int64_t defaultValue;
};

// Tile ops one compilation may make (ExpandFunction): about 1 KB each with
// their regions, so the default is a few GB at most.
inline constexpr ResourceLimit kTileOpLimit{"tile ops", "PTO_MAX_TILE_OPS", 4'000'000};
// Tasks one compilation may schedule (BuildExecuteGraph).
inline constexpr ResourceLimit kTaskLimit{"tasks", "PTO_MAX_TASKS", 2'000'000};
// Bytes of a swimlane trace file the IDE or pto reads.
inline constexpr ResourceLimit kTraceBytesLimit{"trace bytes", "PTO_MAX_TRACE_BYTES", std::int64_t{4} << 30};

// The limit in force: the environment variable when it holds a positive
// integer, else the default.
std::int64_t limitValue(const ResourceLimit& limit);

// "more than the limit of 4000000 tile ops (PTO_MAX_TILE_OPS); raise it with
// PTO_MAX_TILE_OPS=N"
std::string limitExceeded(const ResourceLimit& limit);

} // namespace pto
