// Chrome trace-event JSON import, built on JsonEventStream.
#include "runtime/trace/ChromeTraceReader.h"

#include "runtime/trace/ChromeTraceWriter.h"
#include "runtime/trace/JsonEventStream.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <unordered_map>

namespace pto::trace {

std::optional<std::int64_t> microsTextToNs(std::string_view text) {
  // Fast exact path: -?digits(.digits)? with a modest integer part.
  std::size_t i = 0;
  bool negative = i < text.size() && text[i] == '-';
  if (negative) ++i;
  std::size_t intStart = i;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
  std::size_t intDigits = i - intStart;
  if (intDigits > 0 && intDigits <= 15 && (i == text.size() || text[i] == '.')) {
    std::int64_t ns = 0;
    for (std::size_t k = intStart; k < intStart + intDigits; ++k) ns = ns * 10 + (text[k] - '0');
    ns *= 1000;
    if (i < text.size()) {
      ++i;
      std::int64_t scale = 100;
      bool roundUp = false;
      for (std::size_t k = 0; i + k < text.size(); ++k) {
        char c = text[i + k];
        if (c < '0' || c > '9') return std::nullopt;
        if (k < 3) ns += (c - '0') * scale, scale /= 10;
        else if (k == 3) roundUp = c >= '5';
      }
      if (roundUp) ++ns;
    }
    return negative ? -ns : ns;
  }
  std::string copy(text);
  char* end = nullptr;
  double micros = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(micros) || std::fabs(micros) > 9.0e15) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(micros * 1000.0));
}

namespace {

// Thrown by the reader's checks; turned into the one diagnostic.
struct EventError {
  std::uint64_t offset;
  std::string message;
  int line = 0;
  int column = 0;
};

// Thrown when the progress callback asks to cancel.
struct ReadCancelled {};

struct FlowEnd {
  LaneIndex lane = 0;
  std::int64_t tsNs = 0;
  std::uint64_t offset = 0;
  std::uint32_t eventIndex = 0;
  int line = 0;
  int column = 0;
  bool bindEnclosing = true;  // "s", and "f" with "bp":"e"
};

struct PendingFlow {
  FlowEnd end;
  bool isStart = true;
};

std::optional<std::int64_t> integerOf(const JsonValue& value) {
  std::string_view text = value.text;
  if (value.kind != JsonValue::Kind::Number && value.kind != JsonValue::Kind::String) return std::nullopt;
  std::int64_t result = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), result);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) return std::nullopt;
  return result;
}

// a + b, or nullopt when the sum leaves int64 (times near ±9.2e18 ns).
std::optional<std::int64_t> checkedSum(std::int64_t a, std::int64_t b) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  if ((b > 0 && a > kMax - b) || (b < 0 && a < kMin - b)) return std::nullopt;
  return a + b;
}

// Trace::addTask keeps at most this many pipe intervals and args per task.
constexpr std::size_t kMaxPerTask = std::numeric_limits<std::uint16_t>::max();

bool isDigits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

class Reader {
public:
  Reader(std::istream& in, const TraceReadProgress& progress) : m_stream(in), m_progress(progress) {}

  Trace read() {
    m_stream.skipWhitespace();
    int first = m_stream.peek();
    if (first == '[') {
      readEventArray();
    } else if (first == '{') {
      m_stream.get();
      bool sawEvents = false;
      if (!m_stream.accept('}')) {
        for (;;) {
          std::string key;
          m_stream.skipWhitespace();
          if (m_stream.peek() != '"') m_stream.fail("expected a member name, got " + m_stream.describeNext());
          m_stream.readString(key);
          m_stream.expect(':', "':' after member name");
          if (key == "traceEvents") {
            m_stream.skipWhitespace();
            if (m_stream.peek() != '[') m_stream.fail("expected '[' to start \"traceEvents\", got " + m_stream.describeNext());
            readEventArray();
            sawEvents = true;
            if (m_stoppedEarly) break;
          } else {
            m_stream.skipValue();  // displayTimeUnit, metadata, …
          }
          if (m_stream.accept('}')) break;
          m_stream.expect(',', "',' or '}' in object");
        }
      }
      if (!sawEvents) m_stream.failAt(0, "the trace object has no \"traceEvents\" array");
    } else {
      m_stream.fail("expected '{' or '[' at the start of a trace, got " + m_stream.describeNext());
    }
    if (!m_stoppedEarly && !m_stream.atEnd())
      m_stream.fail("expected end of file after the trace, got " + m_stream.describeNext());
    resolveFlows();
    return std::move(m_trace);
  }

  bool stoppedEarly() const { return m_stoppedEarly; }

  std::uint32_t eventIndex() const { return m_eventIndex; }
  bool inEvent() const { return m_inEvent; }
  std::size_t ignoredDurationEvents() const { return m_ignoredBE; }

private:
  void readEventArray() {
    m_stream.get();  // '['
    if (m_stream.accept(']')) return;
    for (;;) {
      m_inEvent = true;
      readEvent();
      m_inEvent = false;
      ++m_eventIndex;
      if (m_progress && m_eventIndex % kEventsPerProgress == 0) {
        TraceReadStep step = m_progress(m_stream.offset(), m_trace.taskCount());
        if (step == TraceReadStep::Cancel) throw ReadCancelled{};
        if (step == TraceReadStep::Stop) {
          m_stoppedEarly = true;
          return;
        }
      }
      if (m_stream.accept(']')) return;
      m_stream.expect(',', "',' or ']' after an event");
    }
  }

  [[noreturn]] void failEvent(const std::string& message) const {
    throw EventError{m_eventOffset, message, m_eventLine, m_eventColumn};
  }
  [[noreturn]] void failFlow(const FlowEnd& end, const std::string& message) {
    m_eventIndex = end.eventIndex;
    throw EventError{end.offset, message, end.line, end.column};
  }

  const JsonValue* field(std::string_view key) const {
    for (std::size_t i = 0; i < m_memberCount; ++i)
      if (m_members[i].key == key) return &m_members[i].value;
    return nullptr;
  }
  const JsonValue* arg(std::string_view key) const {
    for (std::size_t i = 0; i < m_argCount; ++i)
      if (m_args[i].key == key) return &m_args[i].value;
    return nullptr;
  }

  // How errors name a member of the event and one of its args.
  static std::string fieldName(std::string_view key) { return "field '" + std::string(key) + "'"; }
  static std::string argName(std::string_view key) { return "args." + std::string(key); }
  [[noreturn]] void failKind(const std::string& what, std::string_view expected, const JsonValue& value) const {
    failEvent(what + " must be " + std::string(expected) + ", got " + std::string(name(value.kind)));
  }

  // A string's text, "" when the value is absent; `nameOf(key)` names it in the error.
  std::string_view stringText(const JsonValue* value, std::string_view key,
                              std::string (*nameOf)(std::string_view)) const {
    if (!value) return {};
    if (value->kind != JsonValue::Kind::String) failKind(nameOf(key), "a string", *value);
    return value->text;
  }
  std::string_view stringField(std::string_view key) const { return stringText(field(key), key, fieldName); }
  std::string_view stringArg(std::string_view key) const { return stringText(arg(key), key, argName); }

  std::int64_t requireMicros(std::string_view key) const {
    const JsonValue* value = field(key);
    if (!value) failEvent("'" + m_phase + "' event has no '" + std::string(key) + "' field");
    if (value->kind != JsonValue::Kind::Number) failKind(fieldName(key), "a number", *value);
    auto ns = microsTextToNs(value->text);
    if (!ns) failEvent(fieldName(key) + " is out of range: " + value->text);
    return *ns;
  }

  // pid or tid as text; numbers and strings are both accepted.
  std::string idText(std::string_view key) const {
    const JsonValue* value = field(key);
    if (!value) return "0";
    if (value->kind != JsonValue::Kind::Number && value->kind != JsonValue::Kind::String)
      failKind(fieldName(key), "a number or a string", *value);
    return value->text;
  }

  LaneIndex laneOf() {
    std::string pid = idText("pid");
    std::string tid = idText("tid");
    std::string key = pid + '\x1f' + tid;
    if (auto found = m_laneByKey.find(key); found != m_laneByKey.end()) return found->second;
    auto sortIndex = static_cast<std::int32_t>(m_trace.lanes().size());
    LaneIndex lane = m_trace.addLane(isDigits(tid) ? "tid " + tid : tid, sortIndex);
    m_laneByKey.emplace(std::move(key), lane);
    return lane;
  }

  void readEvent() {
    m_stream.skipWhitespace();
    m_eventOffset = m_stream.offset();
    m_eventLine = m_stream.line();
    m_eventColumn = m_stream.column();
    if (m_stream.peek() != '{') m_stream.fail("expected an event object, got " + m_stream.describeNext());
    m_stream.get();
    m_memberCount = 0;
    m_argCount = 0;
    if (!m_stream.accept('}')) {
      for (;;) {
        m_stream.skipWhitespace();
        if (m_stream.peek() != '"') m_stream.fail("expected a member name, got " + m_stream.describeNext());
        if (m_memberCount == m_members.size()) m_members.emplace_back();
        JsonMember& member = m_members[m_memberCount];
        m_stream.readString(member.key);
        m_stream.expect(':', "':' after member name");
        m_stream.skipWhitespace();
        member.offset = m_stream.offset();
        if (member.key == "args" && m_stream.peek() == '{') {
          m_stream.readObject(m_args, m_argCount);
        } else {
          m_stream.readValue(member.value);
          if (member.key == "args") failKind(fieldName("args"), "an object", member.value);
          ++m_memberCount;
        }
        if (m_stream.accept('}')) break;
        m_stream.expect(',', "',' or '}' in object");
      }
    }
    const JsonValue* phase = field("ph");
    if (!phase) failEvent("event has no 'ph' field");
    m_phase = stringText(phase, "ph", fieldName);
    if (m_phase == "X") onComplete();
    else if (m_phase == "M") onMetadata();
    else if (m_phase == "C") onCounter();
    else if (m_phase == "s" || m_phase == "f") onFlow();
    else if (m_phase == "B" || m_phase == "E") ++m_ignoredBE;
    // Other phases (instant, async, flow steps "t", …) carry no swimlane data.
  }

  void onMetadata() {
    std::string_view metaName = stringField("name");
    if (metaName == "thread_name") {
      const JsonValue* laneName = arg("name");
      if (!laneName || laneName->kind != JsonValue::Kind::String)
        failEvent("'thread_name' metadata needs a string args.name");
      m_trace.renameLane(laneOf(), laneName->text);
    } else if (metaName == "thread_sort_index") {
      const JsonValue* index = arg("sort_index");
      auto value = index ? integerOf(*index) : std::nullopt;
      if (!value) failEvent("'thread_sort_index' metadata needs an integer args.sort_index");
      m_trace.setLaneSortIndex(laneOf(), static_cast<std::int32_t>(*value));
    }
  }

  std::int32_t integerArg(std::string_view key, std::int32_t fallback) const {
    const JsonValue* value = arg(key);
    if (!value) return fallback;
    auto integer = integerOf(*value);
    if (!integer) failKind(argName(key), "an integer", *value);
    return static_cast<std::int32_t>(*integer);
  }

  // "MTE2@10.000+1.200;V@11.200+1.800" as the writer emits it; false if not.
  bool parsePipes(std::string_view text) {
    m_pipeScratch.clear();
    while (!text.empty()) {
      std::size_t end = text.find(';');
      std::string_view item = text.substr(0, end);
      std::size_t at = item.find('@');
      std::size_t plus = item.find('+', at == std::string_view::npos ? 0 : at);
      if (at == std::string_view::npos || plus == std::string_view::npos) return false;
      auto start = microsTextToNs(item.substr(at + 1, plus - at - 1));
      auto dur = microsTextToNs(item.substr(plus + 1));
      std::optional<std::int64_t> endNs = start && dur ? checkedSum(*start, *dur) : std::nullopt;
      if (!endNs) return false;
      m_pipeScratch.push_back(PipeInterval{*start, *endNs, m_trace.intern(item.substr(0, at))});
      text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    }
    return true;
  }

  void onComplete() {
    Task task;
    task.startNs = requireMicros("ts");
    std::int64_t durNs = requireMicros("dur");
    if (durNs < 0) failEvent("field 'dur' is negative");
    std::optional<std::int64_t> endNs = checkedSum(task.startNs, durNs);
    if (!endNs) failEvent("'ts' + 'dur' is out of range: the task would end after 2^63 ns (292 years)");
    task.endNs = *endNs;
    task.lane = laneOf();
    std::string_view taskName = stringField("name");
    task.name = m_trace.intern(taskName);

    // PyPTO names tasks "seq-func-op-rootIdx-psgId(label)".
    std::string_view nameLabel;
    std::int32_t nameSeq = 0;
    std::int32_t nameSubgraph = -1;
    if (std::size_t open = taskName.rfind('('); open != std::string_view::npos && taskName.back() == ')') {
      nameLabel = taskName.substr(open + 1, taskName.size() - open - 2);
      std::string_view stem = taskName.substr(0, open);
      std::size_t firstDash = stem.find('-');
      std::size_t lastDash = stem.rfind('-');
      if (firstDash != std::string_view::npos && lastDash != firstDash) {
        std::string_view seqText = stem.substr(0, firstDash);
        std::string_view psgText = stem.substr(lastDash + 1);
        if (isDigits(seqText) && isDigits(psgText) && seqText.size() < 9 && psgText.size() < 9) {
          nameSeq = std::stoi(std::string(seqText));
          nameSubgraph = std::stoi(std::string(psgText));
        }
      }
    }

    const JsonValue* taskId = arg("taskId");
    if (taskId) {
      auto id = integerOf(*taskId);
      if (!id) failKind(argName("taskId"), "an integer", *taskId);
      task.id = *id;
    } else {
      task.id = m_completeCount;
    }
    task.seq = integerArg("seqNo", nameSeq);
    task.subgraph = integerArg("subgraph", nameSubgraph);
    const JsonValue* label = arg("label");
    task.label = m_trace.intern(label ? stringArg("label") : nameLabel);
    std::string_view source = stringArg("source");
    if (std::size_t colon = source.rfind(':'); colon != std::string_view::npos && isDigits(source.substr(colon + 1)) &&
                                                source.size() - colon - 1 < 9) {
      task.sourceFile = m_trace.intern(source.substr(0, colon));
      task.sourceLine = std::stoi(std::string(source.substr(colon + 1)));
    } else {
      task.sourceFile = m_trace.intern(source);
    }
    task.inputs = m_trace.intern(stringArg("inputs"));
    task.outputs = m_trace.intern(stringArg("outputs"));
    task.dispatchNs = task.startNs;
    if (const JsonValue* dispatch = arg("dispatchTs")) {
      auto ns = dispatch->kind == JsonValue::Kind::Number ? microsTextToNs(dispatch->text) : std::nullopt;
      if (!ns) failKind(argName("dispatchTs"), "a number", *dispatch);
      task.dispatchNs = *ns;
    }

    static constexpr std::string_view kTaskArgs[] = {"taskId", "seqNo", "subgraph", "label", "source",
                                                     "inputs", "outputs", "dispatchTs"};
    static constexpr std::string_view kEventFields[] = {"ph", "name", "pid", "tid", "ts", "dur"};
    m_pipeScratch.clear();
    m_argScratch.clear();
    bool pipesParsed = false;
    for (std::size_t i = 0; i < m_argCount; ++i) {
      const JsonMember& member = m_args[i];
      if (std::find(std::begin(kTaskArgs), std::end(kTaskArgs), member.key) != std::end(kTaskArgs)) continue;
      if (member.key == "pipes" && member.value.kind == JsonValue::Kind::String && !pipesParsed &&
          parsePipes(member.value.text)) {
        pipesParsed = true;
        continue;
      }
      keepArg(member);
    }
    if (!pipesParsed) m_pipeScratch.clear();
    for (std::size_t i = 0; i < m_memberCount; ++i)
      if (std::find(std::begin(kEventFields), std::end(kEventFields), m_members[i].key) == std::end(kEventFields))
        keepArg(m_members[i]);
    if (m_pipeScratch.size() > kMaxPerTask)
      failEvent("args.pipes lists " + std::to_string(m_pipeScratch.size()) + " intervals; a task holds at most " +
                std::to_string(kMaxPerTask));
    if (m_argScratch.size() > kMaxPerTask)
      failEvent("the event has " + std::to_string(m_argScratch.size()) +
                " fields and args besides the task's own; a task keeps at most " + std::to_string(kMaxPerTask));
    m_trace.addTask(task, m_pipeScratch, m_argScratch);
    ++m_completeCount;
  }

  void keepArg(const JsonMember& member) {
    bool raw = member.value.kind != JsonValue::Kind::String;
    m_argScratch.push_back(TaskArg{m_trace.intern(member.key), m_trace.intern(member.value.text), raw});
  }

  void onCounter() {
    std::int64_t tsNs = requireMicros("ts");
    std::string counterName(stringField("name"));
    for (std::size_t i = 0; i < m_argCount; ++i) {
      const JsonValue& value = m_args[i].value;
      double number = 0;
      auto [ptr, ec] = std::from_chars(value.text.data(), value.text.data() + value.text.size(), number);
      if ((value.kind != JsonValue::Kind::Number && value.kind != JsonValue::Kind::String) || ec != std::errc() ||
          ptr != value.text.data() + value.text.size())
        failKind("counter value args." + m_args[i].key, "a number", value);
      // from_chars reads "nan" and "inf" in strings; JSON (and our export) has no such numbers.
      if (!std::isfinite(number))
        failEvent("counter value args." + m_args[i].key + " must be a finite number, got \"" + value.text + "\"");
      m_trace.addCounterSample(m_argCount == 1 ? counterName : counterName + "." + m_args[i].key, tsNs, number);
    }
  }

  void onFlow() {
    const JsonValue* id = field("id");
    if (!id) failEvent("flow '" + m_phase + "' event has no 'id' field");
    if (id->kind != JsonValue::Kind::Number && id->kind != JsonValue::Kind::String)
      failKind(fieldName("id"), "a number or a string", *id);
    FlowEnd end;
    end.tsNs = requireMicros("ts");
    end.lane = laneOf();
    end.offset = m_eventOffset;
    end.eventIndex = m_eventIndex;
    end.line = m_eventLine;
    end.column = m_eventColumn;
    bool isStart = m_phase == "s";
    if (!isStart) {
      const JsonValue* bindingPoint = field("bp");
      end.bindEnclosing = bindingPoint && bindingPoint->kind == JsonValue::Kind::String && bindingPoint->text == "e";
    }
    auto [found, inserted] = m_pendingFlows.try_emplace(id->text, PendingFlow{end, isStart});
    if (inserted) return;
    if (found->second.isStart == isStart)
      failEvent("flow id " + id->text + " has a second '" + m_phase + "' before its pair is complete (first at traceEvents[" +
                std::to_string(found->second.end.eventIndex) + "])");
    if (isStart)
      m_flows.push_back({end, found->second.end});
    else
      m_flows.push_back({found->second.end, end});
    m_pendingFlows.erase(found);
  }

  std::string where(const FlowEnd& end) const {
    return formatMicros(end.tsNs) + " µs on lane " + std::string(m_trace.str(m_trace.lanes()[end.lane].name));
  }

  void resolveFlows() {
    // A read stopped early keeps the dependencies whose both ends it read.
    if (m_stoppedEarly) m_pendingFlows.clear();
    if (!m_pendingFlows.empty()) {
      const std::pair<const std::string, PendingFlow>* first = nullptr;
      for (const auto& entry : m_pendingFlows)
        if (!first || entry.second.end.eventIndex < first->second.end.eventIndex) first = &entry;
      failFlow(first->second.end, std::string("flow '") + (first->second.isStart ? "s" : "f") + "' with id " +
                                                     first->first + " has no matching '" +
                                                     (first->second.isStart ? "f" : "s") + "'");
    }
    m_trace.finalize();
    for (const auto& [start, finish] : m_flows) {
      TaskIndex producer = m_trace.enclosingTask(start.lane, start.tsNs);
      if (producer == kNoTask && m_stoppedEarly) continue;
      if (producer == kNoTask) failFlow(start, "flow 's' at " + where(start) + " is not inside any task");
      TaskIndex consumer = finish.bindEnclosing ? m_trace.enclosingTask(finish.lane, finish.tsNs)
                                                : m_trace.nextTaskStartingAt(finish.lane, finish.tsNs);
      if (consumer == kNoTask && m_stoppedEarly) continue;
      if (consumer == kNoTask) failFlow(finish, "flow 'f' at " + where(finish) + " binds to no task");
      m_trace.addDependency(producer, consumer);
    }
    std::vector<std::pair<FlowEnd, FlowEnd>>().swap(m_flows);
    m_trace.finalize();
  }

  static constexpr std::uint32_t kEventsPerProgress = 4096;

  JsonEventStream m_stream;
  const TraceReadProgress& m_progress;
  bool m_stoppedEarly = false;
  Trace m_trace;
  std::unordered_map<std::string, LaneIndex> m_laneByKey;
  std::unordered_map<std::string, PendingFlow> m_pendingFlows;
  std::vector<std::pair<FlowEnd, FlowEnd>> m_flows;  // (s, f)
  std::vector<JsonMember> m_members;
  std::vector<JsonMember> m_args;
  std::size_t m_memberCount = 0;
  std::size_t m_argCount = 0;
  std::vector<PipeInterval> m_pipeScratch;
  std::vector<TaskArg> m_argScratch;
  std::string m_phase;
  std::uint64_t m_eventOffset = 0;
  int m_eventLine = 0;
  int m_eventColumn = 0;
  std::uint32_t m_eventIndex = 0;
  std::int64_t m_completeCount = 0;
  std::size_t m_ignoredBE = 0;
  bool m_inEvent = false;
};

} // namespace

std::optional<Trace> readChromeTrace(std::istream& in, DiagnosticEngine& diags, const std::string& fileName,
                                     const TraceReadProgress& progress) {
  Reader reader(in, progress);
  auto prefix = [&](std::uint64_t offset, bool inEvent) {
    std::string text = inEvent ? "traceEvents[" + std::to_string(reader.eventIndex()) + "] at " : std::string();
    return text + "byte " + std::to_string(offset) + ": ";
  };
  try {
    Trace trace = reader.read();
    if (reader.ignoredDurationEvents() > 0)
      diags.warning(SourceLocation{fileName, 0, 0})
          << "ignored " << reader.ignoredDurationEvents()
          << " 'B'/'E' events: only complete ('X') events become tasks";
    return trace;
  } catch (const ReadCancelled&) {
    return std::nullopt;  // asked for by the caller, who knows
  } catch (const JsonStreamError& error) {
    return diags.error(SourceLocation{fileName, error.line, error.column}) << prefix(error.offset, reader.inEvent())
                                                                           << error.what();
  } catch (const EventError& error) {
    // Event checks run after the event is read: the location is the event's start.
    return diags.error(SourceLocation{fileName, error.line, error.column}) << prefix(error.offset, true) << error.message;
  }
}

} // namespace pto::trace
