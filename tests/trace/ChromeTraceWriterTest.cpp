// Export: checked against the spec with an independent JSON parser
// (nlohmann's DOM is fine for a small file).
#include "runtime/trace/ChromeTraceWriter.h"

#include "SampleTrace.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <sstream>

namespace pto::trace {
namespace {

nlohmann::json exported(const Trace& trace) {
  std::ostringstream out;
  writeChromeTrace(trace, out);
  return nlohmann::json::parse(out.str());
}

TEST(ChromeTraceWriter, FormatsMicrosecondsExactly) {
  EXPECT_EQ(formatMicros(0), "0.000");
  EXPECT_EQ(formatMicros(1), "0.001");
  EXPECT_EQ(formatMicros(12345), "12.345");
  EXPECT_EQ(formatMicros(-1500), "-1.500");
  EXPECT_EQ(formatMicros(INT64_MIN), "-9223372036854775.808");
}

TEST(ChromeTraceWriter, WritesMachineViewLanesAndTaskArgs) {
  Trace trace = testing::sampleTrace();
  nlohmann::json json = exported(trace);
  const auto& events = json.at("traceEvents");
  std::map<int, std::string> laneNames;
  std::map<int, int> sortIndex;
  int completes = 0;
  bool sawProcess = false;
  for (const auto& event : events) {
    if (event["ph"] == "M" && event["name"] == "process_name") sawProcess = event["args"]["name"] == "Machine View";
    if (event["ph"] == "M" && event["name"] == "thread_name") laneNames[event["tid"]] = event["args"]["name"];
    if (event["ph"] == "M" && event["name"] == "thread_sort_index") sortIndex[event["tid"]] = event["args"]["sort_index"];
    if (event["ph"] == "X") ++completes;
  }
  EXPECT_TRUE(sawProcess);
  EXPECT_EQ(laneNames, (std::map<int, std::string>{{0, "AIC_0"}, {1, "AIV_0"}, {2, "AIV_1"}}));
  EXPECT_EQ(sortIndex, (std::map<int, int>{{0, 0}, {1, 1}, {2, 2}}));
  EXPECT_EQ(completes, 6);

  // The third task as written by hand from sampleTrace(): 4.2 µs for 0.923 µs.
  const nlohmann::json* exp0 = nullptr;
  for (const auto& event : events)
    if (event["ph"] == "X" && event["args"]["taskId"] == 102) exp0 = &event;
  ASSERT_TRUE(exp0);
  EXPECT_EQ((*exp0)["name"], "2-attn-exp-1-2(softmax)");
  EXPECT_EQ((*exp0)["tid"], 1);
  EXPECT_DOUBLE_EQ((*exp0)["ts"].get<double>(), 4.2);
  EXPECT_DOUBLE_EQ((*exp0)["dur"].get<double>(), 0.923);
  const auto& args = (*exp0)["args"];
  EXPECT_EQ(args["seqNo"], 2);
  EXPECT_EQ(args["subgraph"], 51);
  EXPECT_EQ(args["label"], "softmax");
  EXPECT_EQ(args["source"], "kernels/attn \"v2\".py:112");
  EXPECT_EQ(args["inputs"], "q[0:64,0:128]");
  EXPECT_EQ(args["outputs"], "s[0:64]");
  EXPECT_DOUBLE_EQ(args["dispatchTs"].get<double>(), 3.95);
  EXPECT_EQ(args["color"], "#ff8800");
  EXPECT_FALSE(args.contains("event-hint"));  // ids divisible by 3 carry only "color"
  EXPECT_FALSE(args.contains("pipes"));  // even ids carry no pipe intervals

  // Task 101 carries pipes and a raw-JSON extra arg.
  for (const auto& event : events) {
    if (event["ph"] != "X" || event["args"]["taskId"] != 101) continue;
    EXPECT_EQ(event["args"]["pipes"], "MTE2@1.600+1.250;V@1.601+2.499");
    EXPECT_EQ(event["args"]["event-hint"], nlohmann::json::parse(R"({"wait":[1,2]})"));
  }
}

// Every dependency is one s/f pair with its own id; "s" lies inside the
// producer on the producer's lane, "f" has "bp":"e" at the consumer's start.
TEST(ChromeTraceWriter, FlowPairsBindToProducerAndConsumer) {
  Trace trace = testing::sampleTrace();
  nlohmann::json json = exported(trace);
  struct Slice { int tid; double ts; double end; std::int64_t id; };
  std::vector<Slice> slices;
  std::map<std::uint64_t, nlohmann::json> starts;
  std::map<std::uint64_t, nlohmann::json> finishes;
  for (const auto& event : json["traceEvents"]) {
    if (event["ph"] == "X")
      slices.push_back({event["tid"], event["ts"], event["ts"].get<double>() + event["dur"].get<double>(), event["args"]["taskId"]});
    if (event["ph"] == "s") {
      EXPECT_TRUE(starts.emplace(event["id"], event).second) << "reused s id " << event["id"];
    }
    if (event["ph"] == "f") {
      EXPECT_TRUE(finishes.emplace(event["id"], event).second) << "reused f id " << event["id"];
    }
  }
  ASSERT_EQ(starts.size(), trace.edgeCount());
  ASSERT_EQ(finishes.size(), trace.edgeCount());
  std::set<std::pair<std::int64_t, std::int64_t>> edges;
  constexpr double kTol = 1e-9;  // µs
  for (const auto& [id, s] : starts) {
    ASSERT_TRUE(finishes.count(id)) << id;
    const nlohmann::json& f = finishes[id];
    EXPECT_EQ(f["bp"], "e");
    EXPECT_EQ(s["cat"], "dep");
    const Slice* producer = nullptr;
    const Slice* consumer = nullptr;
    for (const Slice& slice : slices) {
      double ts = s["ts"];
      bool inside = slice.tid == s["tid"] && ts >= slice.ts - kTol && (ts < slice.end - kTol || slice.ts == slice.end);
      if (inside) producer = &slice;
      if (slice.tid == f["tid"] && std::abs(slice.ts - f["ts"].get<double>()) < kTol) consumer = &slice;
    }
    ASSERT_TRUE(producer && consumer) << "flow " << id;
    edges.emplace(producer->id, consumer->id);
  }
  EXPECT_EQ(edges, (std::set<std::pair<std::int64_t, std::int64_t>>{
                       {100, 101}, {101, 102}, {101, 103}, {103, 104}, {102, 105}, {104, 105}}));
}

TEST(ChromeTraceWriter, WritesReadyCountCounters) {
  nlohmann::json json = exported(testing::sampleTrace());
  std::map<std::string, std::vector<std::pair<double, double>>> counters;
  for (const auto& event : json["traceEvents"])
    if (event["ph"] == "C") counters[event["name"]].emplace_back(event["ts"], event["args"]["value"]);
  ASSERT_EQ(counters.size(), 3u);
  EXPECT_EQ(counters["ReadyCount_AIV"], (std::vector<std::pair<double, double>>{{0, 0.5}, {1.6, 0.5}, {4.2, 0.5}, {5.2, 0.5}}));
  EXPECT_EQ(counters["ReadyCount_AIC"].size(), 4u);
  EXPECT_EQ(counters["ReadyCount_Total"].size(), 4u);
}

} // namespace
} // namespace pto::trace
