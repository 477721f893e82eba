// What the trace-format page promises of an exported Chrome/Perfetto trace,
// checked the same way wherever a test exports one: one complete slice ("X")
// per task, and one flow pair per dependency edge, a start ("s") and a
// finish ("f", bound to its enclosing slice with "bp": "e") under an id of
// its own.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>

namespace pto::testing {

inline ::testing::AssertionResult hasOneFlowPairPerEdge(const nlohmann::json& trace, std::int64_t tasks,
                                                         std::int64_t edges) {
  std::map<std::int64_t, int> starts, finishes;
  std::int64_t slices = 0;
  for (const nlohmann::json& event : trace["traceEvents"]) {
    const std::string phase = event["ph"];
    if (phase == "X") ++slices;
    if (phase == "s") ++starts[event["id"].get<std::int64_t>()];
    if (phase == "f") {
      ++finishes[event["id"].get<std::int64_t>()];
      if (event.value("bp", "") != "e") return ::testing::AssertionFailure() << "a flow finish without bp e";
    }
  }
  if (slices != tasks) return ::testing::AssertionFailure() << slices << " slices for " << tasks << " tasks";
  if (static_cast<std::int64_t>(starts.size()) != edges)
    return ::testing::AssertionFailure() << starts.size() << " flow ids for " << edges << " edges";
  if (starts != finishes) return ::testing::AssertionFailure() << "the flow starts and finishes differ";
  for (const auto& [id, count] : starts)
    if (count != 1) return ::testing::AssertionFailure() << "flow id " << id << " reused";
  return ::testing::AssertionSuccess();
}

} // namespace pto::testing
