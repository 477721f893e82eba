// `pto report --by-line`: the run's busy time per kernel line
// (analysis/report/LineCost.h) as a table on stdout and as JSON.
#pragma once

#include <nlohmann/json.hpp>

namespace pto {
struct OperatorProject;
struct ProjectRunResult;
} // namespace pto

namespace pto::cli {

// The "by_line" object of the JSON report; with `print`, the table too:
// per line its share of busy time, AIC and AIV cycles, busiest pipes, tasks,
// instructions and the line's text.
nlohmann::ordered_json reportByLine(const OperatorProject& project, const ProjectRunResult& run, bool print);

} // namespace pto::cli
