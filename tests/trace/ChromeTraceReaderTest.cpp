// Import: PyPTO's merged_swimlane.json, round trips through the writer,
// exact diagnostics for malformed input, and memory on large files.
#include "runtime/trace/ChromeTraceReader.h"

#include "HeapCounter.h"
#include "SampleTrace.h"
#include "runtime/trace/ChromeTraceWriter.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <tuple>

namespace pto::trace {
namespace {

using EdgeSet = std::set<std::pair<std::int64_t, std::int64_t>>;

EdgeSet edgesById(const Trace& trace) {
  EdgeSet edges;
  for (std::size_t t = 0; t < trace.tasks().size(); ++t)
    for (TaskIndex producer : trace.predecessors(static_cast<TaskIndex>(t)))
      edges.emplace(trace.tasks()[producer].id, trace.tasks()[t].id);
  return edges;
}

std::optional<Trace> readText(const std::string& text, DiagnosticEngine& diags) {
  std::istringstream in(text);
  return readChromeTrace(in, diags, "t.json");
}

// The one error a malformed text produces, as "file:line:col: error: message".
std::string errorOf(const std::string& text) {
  DiagnosticEngine diags;
  std::optional<Trace> trace = readText(text, diags);
  EXPECT_FALSE(trace);
  EXPECT_EQ(diags.errorCount(), 1u);
  if (diags.diagnostics().empty()) return "(no diagnostic)";
  const Diagnostic& d = diags.diagnostics().front();
  return d.location.str() + ": " + d.message;
}

TEST(ChromeTraceReader, MicrosecondTextBecomesExactNanoseconds) {
  EXPECT_EQ(microsTextToNs("0"), 0);
  EXPECT_EQ(microsTextToNs("12.345"), 12345);
  EXPECT_EQ(microsTextToNs("-1.5"), -1500);
  EXPECT_EQ(microsTextToNs("2.0005"), 2001);  // rounded at the fourth digit
  EXPECT_EQ(microsTextToNs("1e3"), 1000000);
  EXPECT_EQ(microsTextToNs("1e300"), std::nullopt);
}

TEST(ChromeTraceReader, ImportsPyPtoMergedSwimlane) {
  std::ifstream in(std::string(PTO_TRACE_FIXTURE_DIR) + "/merged_swimlane.json", std::ios::binary);
  ASSERT_TRUE(in);
  DiagnosticEngine diags;
  std::optional<Trace> trace = readChromeTrace(in, diags, "merged_swimlane.json");
  ASSERT_TRUE(trace) << diags.format(diags.diagnostics().front());
  EXPECT_TRUE(diags.diagnostics().empty());

  ASSERT_EQ(trace->lanes().size(), 4u);
  std::vector<std::tuple<std::string, LaneKind, int>> lanes;
  for (const Lane& lane : trace->lanes()) lanes.emplace_back(trace->str(lane.name), lane.kind, lane.sortIndex);
  EXPECT_EQ(lanes, (std::vector<std::tuple<std::string, LaneKind, int>>{{"AIC_0", LaneKind::Aic, 2},
                                                                         {"AIC_1", LaneKind::Aic, 3},
                                                                         {"AIV_0", LaneKind::Aiv, 0},
                                                                         {"AIV_1", LaneKind::Aiv, 1}}));

  // (taskId, lane, startNs, endNs, seq, subgraph, label) exactly as written in the fixture.
  using Row = std::tuple<std::int64_t, std::string, std::int64_t, std::int64_t, int, int, std::string>;
  std::set<Row> expected = {
      {1000, "AIV_0", 0, 2000, 0, 0, "load"},        {1001, "AIV_1", 0, 2500, 1, 0, "load"},
      {1006, "AIC_0", 1000, 5000, 6, 2, "qk"},       {1007, "AIC_1", 1000, 5500, 7, 2, "qk"},
      {1002, "AIV_0", 2500, 4000, 2, 1, "softmax"},  {1003, "AIV_1", 4000, 6000, 3, 1, "softmax"},
      {1004, "AIV_0", 6500, 7500, 4, 1, "softmax"},  {1005, "AIV_1", 7750, 8250, 5, 1, "softmax"},
      {1008, "AIC_0", 8500, 11500, 8, 3, "pv"},      {1009, "AIC_1", 8500, 11750, 9, 3, "pv"},
      {1010, "AIV_0", 12000, 12750, 10, 4, "store"}, {1011, "AIV_1", 12000, 12750, 11, 4, "store"}};
  std::set<Row> actual;
  for (const Task& task : trace->tasks())
    actual.emplace(task.id, std::string(trace->str(trace->lanes()[task.lane].name)), task.startNs, task.endNs, task.seq,
                   task.subgraph, std::string(trace->str(task.label)));
  EXPECT_EQ(actual, expected);

  EXPECT_EQ(edgesById(*trace), (EdgeSet{{1000, 1002}, {1001, 1003}, {1002, 1003}, {1003, 1004}, {1003, 1005},
                                         {1004, 1005}, {1005, 1008}, {1006, 1008}, {1005, 1009}, {1007, 1009},
                                         {1008, 1010}, {1009, 1011}}));

  // PyPTO's own args are kept, in order, with numbers as raw JSON.
  const Task& exp = trace->tasks()[5];
  ASSERT_EQ(exp.id, 1003);
  EXPECT_EQ(trace->str(exp.name), "3-softmax-exp-0-1(softmax)");
  std::vector<std::tuple<std::string, std::string, bool>> args;
  for (const TaskArg& arg : trace->args(5)) args.emplace_back(trace->str(arg.key), trace->str(arg.value), arg.raw);
  EXPECT_EQ(args, (std::vector<std::tuple<std::string, std::string, bool>>{{"color", "#e15759", false},
                                                                            {"event-hint", "set V", false},
                                                                            {"ioperand-hint", "t1,m0", false},
                                                                            {"ooperand-hint", "e0", false}}));
  const Task& qk = trace->tasks()[2];
  ASSERT_EQ(qk.id, 1006);
  EXPECT_EQ(trace->str(trace->args(2).back().key), "hashOrder-hint");
  EXPECT_EQ(trace->str(trace->args(2).back().value), "17");
  EXPECT_TRUE(trace->args(2).back().raw);

  ASSERT_EQ(trace->counters().size(), 3u);
  EXPECT_EQ(trace->str(trace->counters()[0].name), "ReadyCount_AIV");
  EXPECT_EQ(trace->counters()[0].samples, (std::vector<CounterSample>{{0, 2}, {2500, 1}}));
}

// The fixture itself obeys the spec: every flow pair references existing
// slices, "s" inside its producer, "f" with "bp":"e" at a slice start.
TEST(ChromeTraceReader, FixtureFlowPairsReferenceExistingSlices) {
  std::ifstream in(std::string(PTO_TRACE_FIXTURE_DIR) + "/merged_swimlane.json");
  nlohmann::json json = nlohmann::json::parse(in);
  std::map<int, std::vector<std::pair<double, double>>> slices;
  std::map<int, nlohmann::json> starts, finishes;
  for (const auto& event : json["traceEvents"]) {
    if (event["ph"] == "X") slices[event["tid"]].emplace_back(event["ts"], event["ts"].get<double>() + event["dur"].get<double>());
    if (event["ph"] == "s") {
      ASSERT_TRUE(starts.emplace(event["id"], event).second);
    }
    if (event["ph"] == "f") {
      ASSERT_TRUE(finishes.emplace(event["id"], event).second);
    }
  }
  ASSERT_EQ(starts.size(), 12u);
  for (const auto& [id, s] : starts) {
    ASSERT_TRUE(finishes.count(id));
    const auto& f = finishes[id];
    EXPECT_EQ(f["bp"], "e") << id;
    int inside = 0, startsAt = 0;
    for (auto [begin, end] : slices[s["tid"]]) inside += s["ts"].get<double>() >= begin && s["ts"].get<double>() < end;
    for (auto [begin, end] : slices[f["tid"]]) startsAt += f["ts"].get<double>() == begin;
    EXPECT_EQ(inside, 1) << "flow " << id;
    EXPECT_EQ(startsAt, 1) << "flow " << id;
  }
}

TEST(ChromeTraceReader, RoundTripKeepsTasksLanesDependenciesAndCounters) {
  Trace original = testing::sampleTrace();
  std::ostringstream out;
  writeChromeTrace(original, out);
  DiagnosticEngine diags;
  std::optional<Trace> copy = readText(out.str(), diags);
  ASSERT_TRUE(copy) << diags.format(diags.diagnostics().front());

  ASSERT_EQ(copy->lanes().size(), original.lanes().size());
  for (std::size_t i = 0; i < original.lanes().size(); ++i) {
    EXPECT_EQ(copy->str(copy->lanes()[i].name), original.str(original.lanes()[i].name));
    EXPECT_EQ(copy->lanes()[i].kind, original.lanes()[i].kind);
    EXPECT_EQ(copy->lanes()[i].sortIndex, original.lanes()[i].sortIndex);
    EXPECT_EQ(copy->lanes()[i].tasksByStart, original.lanes()[i].tasksByStart);
  }
  ASSERT_EQ(copy->tasks().size(), original.tasks().size());
  auto text = [](const Trace& trace, StringId id) { return std::string(trace.str(id)); };
  for (TaskIndex t = 0; t < original.tasks().size(); ++t) {
    const Task& a = original.tasks()[t];
    const Task& b = copy->tasks()[t];
    SCOPED_TRACE("task " + std::to_string(a.id));
    EXPECT_EQ(std::tie(a.id, a.seq, a.subgraph, a.lane, a.dispatchNs, a.startNs, a.endNs, a.sourceLine),
              std::tie(b.id, b.seq, b.subgraph, b.lane, b.dispatchNs, b.startNs, b.endNs, b.sourceLine));
    EXPECT_EQ(text(original, a.name), text(*copy, b.name));
    EXPECT_EQ(text(original, a.label), text(*copy, b.label));
    EXPECT_EQ(text(original, a.sourceFile), text(*copy, b.sourceFile));
    EXPECT_EQ(text(original, a.inputs), text(*copy, b.inputs));
    EXPECT_EQ(text(original, a.outputs), text(*copy, b.outputs));
    ASSERT_EQ(original.pipes(t).size(), copy->pipes(t).size());
    for (std::size_t p = 0; p < original.pipes(t).size(); ++p) {
      EXPECT_EQ(original.pipes(t)[p].startNs, copy->pipes(t)[p].startNs);
      EXPECT_EQ(original.pipes(t)[p].endNs, copy->pipes(t)[p].endNs);
      EXPECT_EQ(text(original, original.pipes(t)[p].pipe), text(*copy, copy->pipes(t)[p].pipe));
    }
    ASSERT_EQ(original.args(t).size(), copy->args(t).size());
    for (std::size_t k = 0; k < original.args(t).size(); ++k) {
      EXPECT_EQ(text(original, original.args(t)[k].key), text(*copy, copy->args(t)[k].key));
      EXPECT_EQ(text(original, original.args(t)[k].value), text(*copy, copy->args(t)[k].value));
      EXPECT_EQ(original.args(t)[k].raw, copy->args(t)[k].raw);
    }
    EXPECT_EQ(std::vector<TaskIndex>(original.predecessors(t).begin(), original.predecessors(t).end()),
              std::vector<TaskIndex>(copy->predecessors(t).begin(), copy->predecessors(t).end()));
  }
  ASSERT_EQ(copy->counters().size(), original.counters().size());
  for (std::size_t c = 0; c < original.counters().size(); ++c) {
    EXPECT_EQ(text(original, original.counters()[c].name), text(*copy, copy->counters()[c].name));
    EXPECT_EQ(original.counters()[c].samples, copy->counters()[c].samples);
  }
}

TEST(ChromeTraceReader, AcceptsBareArrayAndFlowWithoutBindingPoint) {
  // Without "bp":"e" an "f" binds to the next slice starting at or after ts.
  DiagnosticEngine diags;
  std::optional<Trace> trace = readText(R"([
    {"ph":"X","name":"a","pid":1,"tid":7,"ts":0,"dur":1,"args":{"taskId":1}},
    {"ph":"X","name":"b","pid":1,"tid":8,"ts":3,"dur":1,"args":{"taskId":2}},
    {"ph":"s","id":"0x1","pid":1,"tid":7,"ts":0.5},
    {"ph":"f","id":"0x1","pid":1,"tid":8,"ts":2},
    {"ph":"B","name":"ignored","pid":1,"tid":8,"ts":9}])",
                                        diags);
  ASSERT_TRUE(trace);
  EXPECT_EQ(edgesById(*trace), (EdgeSet{{1, 2}}));
  EXPECT_EQ(trace->str(trace->lanes()[0].name), "tid 7");
  ASSERT_EQ(diags.diagnostics().size(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].message, "ignored 1 'B'/'E' events: only complete ('X') events become tasks");
}

TEST(ChromeTraceReader, TruncatedFileNamesOffsetAndEvent) {
  std::string text = R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":0,"ts":1.0,"dur":2.0},{"ph":"X","na)";
  EXPECT_EQ(errorOf(text), "t.json:1:" + std::to_string(text.size() + 1) + ": traceEvents[1] at byte " +
                               std::to_string(text.size()) + ": unterminated string: expected '\"', got end of file");
  std::string afterEvent = R"([{"ph":"X","name":"a","pid":1,"tid":0,"ts":1.0,"dur":2.0})";
  EXPECT_EQ(errorOf(afterEvent), "t.json:1:" + std::to_string(afterEvent.size() + 1) + ": byte " +
                                     std::to_string(afterEvent.size()) + ": expected ',' or ']' after an event, got end of file");
}

TEST(ChromeTraceReader, MissingFieldNamesTheEvent) {
  std::string text = "[\n{\"ph\":\"M\",\"name\":\"thread_name\",\"tid\":0,\"args\":{\"name\":\"AIC_0\"}},\n"
                     "  {\"ph\":\"X\",\"name\":\"a\",\"tid\":0,\"ts\":1.0}\n]";
  std::size_t offset = text.find("{\"ph\":\"X\"");
  EXPECT_EQ(errorOf(text), "t.json:3:3: traceEvents[1] at byte " + std::to_string(offset) + ": 'X' event has no 'dur' field");
  EXPECT_EQ(errorOf(R"([{"name":"a"}])"), "t.json:1:2: traceEvents[0] at byte 1: event has no 'ph' field");
}

TEST(ChromeTraceReader, WrongTypeNamesTheField) {
  EXPECT_EQ(errorOf(R"([{"ph":"X","ts":"1.0","dur":1}])"),
            "t.json:1:2: traceEvents[0] at byte 1: field 'ts' must be a number, got a string");
  EXPECT_EQ(errorOf(R"([{"ph":"X","ts":1,"dur":1,"args":[1]}])"),
            "t.json:1:2: traceEvents[0] at byte 1: field 'args' must be an object, got an array");
  EXPECT_EQ(errorOf(R"([{"ph":"X","ts":1,"dur":1,"args":{"taskId":"t7"}}])"),
            "t.json:1:2: traceEvents[0] at byte 1: args.taskId must be an integer, got a string");
  EXPECT_EQ(errorOf(R"([{"ph":"X","ts":1,"dur":-1}])"), "t.json:1:2: traceEvents[0] at byte 1: field 'dur' is negative");
  EXPECT_EQ(errorOf("x"), "t.json:1:1: byte 0: expected '{' or '[' at the start of a trace, got 'x'");
  EXPECT_EQ(errorOf(R"({"events":[]})"), "t.json:1:1: byte 0: the trace object has no \"traceEvents\" array");
  EXPECT_EQ(errorOf(R"([{"ph":"X","ts":01}])"),
            "t.json:1:18: traceEvents[0] at byte 17: expected ',' or '}' in object, got '1'");
  EXPECT_EQ(errorOf("[] []"), "t.json:1:4: byte 3: expected end of file after the trace, got '['");
}

TEST(ChromeTraceReader, UnmatchedOrUnboundFlowsAreErrors) {
  std::string head = R"([{"ph":"X","name":"a","tid":0,"ts":0,"dur":1},)";
  std::string unmatched = head + R"({"ph":"s","id":7,"tid":0,"ts":0.5}])";
  EXPECT_EQ(errorOf(unmatched), "t.json:1:" + std::to_string(head.size() + 1) + ": traceEvents[1] at byte " +
                                    std::to_string(head.size()) + ": flow 's' with id 7 has no matching 'f'");
  std::string outside = head + R"({"ph":"s","id":7,"tid":0,"ts":1.5},{"ph":"f","bp":"e","id":7,"tid":0,"ts":0}])";
  EXPECT_EQ(errorOf(outside), "t.json:1:" + std::to_string(head.size() + 1) + ": traceEvents[1] at byte " +
                                  std::to_string(head.size()) + ": flow 's' at 1.500 µs on lane tid 0 is not inside any task");
  std::string reused = head + R"({"ph":"s","id":7,"tid":0,"ts":0.5},{"ph":"s","id":7,"tid":0,"ts":0.6}])";
  std::size_t second = reused.rfind("{\"ph\":\"s\"");
  EXPECT_EQ(errorOf(reused), "t.json:1:" + std::to_string(second + 1) + ": traceEvents[2] at byte " + std::to_string(second) +
                                 ": flow id 7 has a second 's' before its pair is complete (first at traceEvents[1])");
}

// Every prefix of a valid export is either a valid trace (the whole text)
// or exactly one error; deep nesting and garbage never crash.
TEST(ChromeTraceReader, EveryTruncationGivesOneErrorNeverACrash) {
  std::ostringstream out;
  writeChromeTrace(testing::sampleTrace(), out);
  std::string text = out.str();
  while (!text.empty() && (text.back() == '\n')) text.pop_back();
  for (std::size_t size = 0; size < text.size(); ++size) {
    DiagnosticEngine diags;
    std::optional<Trace> trace = readText(text.substr(0, size), diags);
    ASSERT_FALSE(trace) << size;
    ASSERT_EQ(diags.errorCount(), 1u) << size;
  }
  EXPECT_NE(errorOf("[{\"ph\":\"X\",\"args\":{\"a\":" + std::string(100000, '[')).find("nested deeper than 256"),
            std::string::npos);
  EXPECT_NE(errorOf(std::string("[\x01\xff]", 4)).find("byte 0x01"), std::string::npos);
}

std::string generatedTrace(std::size_t tasks, std::size_t lanes) {
  std::string text = "{\"traceEvents\":[\n";
  for (std::size_t lane = 0; lane < lanes; ++lane)
    text += R"({"ph":"M","name":"thread_name","pid":1,"tid":)" + std::to_string(lane) + R"(,"args":{"name":"AIV_)" +
            std::to_string(lane) + "\"}},\n";
  for (std::size_t i = 0; i < tasks; ++i) {
    std::string ts = formatMicros(static_cast<std::int64_t>(i / lanes) * 1000);
    text += R"({"ph":"X","name":")" + std::to_string(i % 7) + R"x(-f-op-0-1(op)","pid":1,"tid":)x" + std::to_string(i % lanes) +
            ",\"ts\":" + ts + R"(,"dur":0.900,"args":{"taskId":)" + std::to_string(i) + R"(,"seqNo":3,"color":"#e15759"}},)" + "\n";
  }
  // One dependency per task from the task one step earlier on the same lane.
  for (std::size_t i = lanes; i < tasks; ++i) {
    text += R"({"ph":"s","id":)" + std::to_string(i) + R"(,"pid":1,"tid":)" + std::to_string(i % lanes) + ",\"ts\":" +
            formatMicros(static_cast<std::int64_t>(i / lanes - 1) * 1000 + 899) + "},\n";
    text += R"({"ph":"f","bp":"e","id":)" + std::to_string(i) + R"(,"pid":1,"tid":)" + std::to_string(i % lanes) +
            ",\"ts\":" + formatMicros(static_cast<std::int64_t>(i / lanes) * 1000) + "},\n";
  }
  text += R"({"ph":"C","name":"ReadyCount_Total","pid":1,"ts":0,"args":{"value":1}}]})";
  return text;
}

// ~200k events read as a stream: the heap used while reading tracks the
// resulting Trace, not the text (which is never copied). The text is a
// stream over memory built before the baseline, not a file in /tmp: a
// 17 MB write there failed silently on a CI machine short of disk and the
// test then blamed the reader for a truncated file.
TEST(ChromeTraceReader, StreamingImportMemoryFollowsTheResult) {
  constexpr std::size_t kTasks = 70'000;
  constexpr std::size_t kLanes = 48;
  std::string text = generatedTrace(kTasks, kLanes);
  std::size_t textBytes = text.size();
  std::istringstream in(std::move(text));
  std::size_t events = kLanes + kTasks + 2 * (kTasks - kLanes) + 1;

  std::size_t before = testing::heapBytesInUse();
  testing::resetHeapPeak();
  DiagnosticEngine diags;
  std::optional<Trace> trace = readChromeTrace(in, diags, "generated.json");
  std::size_t peak = testing::heapPeakBytes() - before;
  std::size_t kept = testing::heapBytesInUse() - before;
  ASSERT_TRUE(trace) << diags.format(diags.diagnostics().front());
  ASSERT_EQ(trace->tasks().size(), kTasks);
  ASSERT_EQ(trace->edgeCount(), kTasks - kLanes);

  std::cout << "[ memory ] " << events << " events, text " << textBytes << " B; Trace::memoryBytes " << trace->memoryBytes()
            << " B (" << double(trace->memoryBytes()) / kTasks << " B/task); heap kept " << kept << " B, peak during import "
            << peak << " B\n";
  // The result itself: the struct-size bound plus interned strings.
  EXPECT_LE(trace->memoryBytes(), kTasks * (sizeof(Task) + sizeof(TaskIndex) * 2 + sizeof(TaskArg)) + (2 << 20));
  // Peak = result + transient per-edge flow records (2 × 40 B, in a vector
  // that doubles: up to three times that while it grows) — never the file.
  // (Vector doubling and shrink_to_fit copies make up the factor 3.)
  EXPECT_LE(peak, 3 * trace->memoryBytes() + (kTasks - kLanes) * 3 * 80 + (1 << 20));
}

} // namespace
} // namespace pto::trace
