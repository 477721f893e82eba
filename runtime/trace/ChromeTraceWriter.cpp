// Streaming Chrome trace-event JSON writer.
#include "runtime/trace/ChromeTraceWriter.h"

#include "core/AtomicFile.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <ostream>
#include <sstream>

namespace pto::trace {

std::string formatMicros(std::int64_t ns) {
  std::string text;
  // Work in unsigned so INT64_MIN does not overflow on negation.
  auto magnitude = ns < 0 ? std::uint64_t(0) - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  if (ns < 0) text += '-';
  text += std::to_string(magnitude / 1000);
  text += '.';
  std::uint64_t fraction = magnitude % 1000;
  text += static_cast<char>('0' + fraction / 100);
  text += static_cast<char>('0' + fraction / 10 % 10);
  text += static_cast<char>('0' + fraction % 10);
  return text;
}

namespace {

void writeJsonString(std::ostream& out, std::string_view text) {
  out << '"';
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
    case '"': out << "\\\""; break;
    case '\\': out << "\\\\"; break;
    case '\n': out << "\\n"; break;
    case '\r': out << "\\r"; break;
    case '\t': out << "\\t"; break;
    default:
      if (c < 0x20) {
        static constexpr char kHex[] = "0123456789abcdef";
        out << "\\u00" << kHex[c >> 4] << kHex[c & 15];
      } else {
        out << ch;
      }
    }
  }
  out << '"';
}

void writeDouble(std::ostream& out, double value) {
  if (!std::isfinite(value)) {  // JSON has no inf/nan
    out << "null";
    return;
  }
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.write(buffer, result.ptr - buffer);
}

class Writer {
public:
  Writer(const Trace& trace, std::ostream& out) : m_trace(trace), m_out(out) {}

  void write() {
    m_out << "{\"traceEvents\":[\n";
    writeMetadata();
    for (std::size_t t = 0; t < m_trace.tasks().size(); ++t) writeTask(static_cast<TaskIndex>(t));
    writeFlows();
    writeCounters();
    m_out << "\n],\"displayTimeUnit\":\"ns\"}\n";
  }

private:
  void beginEvent() {
    if (!m_first) m_out << ",\n";
    m_first = false;
  }

  void writeMetadata() {
    beginEvent();
    m_out << R"({"ph":"M","name":"process_name","pid":)" << kMachineViewPid << R"(,"args":{"name":"Machine View"}})";
    for (std::size_t lane = 0; lane < m_trace.lanes().size(); ++lane) {
      beginEvent();
      m_out << R"({"ph":"M","name":"thread_name","pid":)" << kMachineViewPid << ",\"tid\":" << lane << R"(,"args":{"name":)";
      writeJsonString(m_out, m_trace.str(m_trace.lanes()[lane].name));
      m_out << "}}";
      beginEvent();
      m_out << R"({"ph":"M","name":"thread_sort_index","pid":)" << kMachineViewPid << ",\"tid\":" << lane
            << R"(,"args":{"sort_index":)" << m_trace.lanes()[lane].sortIndex << "}}";
    }
  }

  void writeTask(TaskIndex index) {
    const Task& task = m_trace.tasks()[index];
    beginEvent();
    m_out << R"({"ph":"X","name":)";
    writeJsonString(m_out, m_trace.str(task.name));
    m_out << ",\"pid\":" << kMachineViewPid << ",\"tid\":" << task.lane << ",\"ts\":" << formatMicros(task.startNs)
          << ",\"dur\":" << formatMicros(task.durNs()) << ",\"args\":{\"taskId\":" << task.id
          << ",\"seqNo\":" << task.seq << ",\"subgraph\":" << task.subgraph << ",\"label\":";
    writeJsonString(m_out, m_trace.str(task.label));
    m_out << ",\"source\":";
    std::string source(m_trace.str(task.sourceFile));
    if (!source.empty() && task.sourceLine > 0) source += ":" + std::to_string(task.sourceLine);
    writeJsonString(m_out, source);
    m_out << ",\"inputs\":";
    writeJsonString(m_out, m_trace.str(task.inputs));
    m_out << ",\"outputs\":";
    writeJsonString(m_out, m_trace.str(task.outputs));
    m_out << ",\"dispatchTs\":" << formatMicros(task.dispatchNs);
    if (task.pipeCount > 0) {
      std::string pipes;
      for (const PipeInterval& interval : m_trace.pipes(index)) {
        if (!pipes.empty()) pipes += ';';
        pipes += m_trace.str(interval.pipe);
        pipes += '@' + formatMicros(interval.startNs) + '+' + formatMicros(interval.endNs - interval.startNs);
      }
      m_out << ",\"pipes\":";
      writeJsonString(m_out, pipes);
    }
    for (const TaskArg& arg : m_trace.args(index)) {
      m_out << ',';
      writeJsonString(m_out, m_trace.str(arg.key));
      m_out << ':';
      if (arg.raw)
        m_out << m_trace.str(arg.value);
      else
        writeJsonString(m_out, m_trace.str(arg.value));
    }
    m_out << "}}";
  }

  void writeFlows() {
    std::uint64_t flowId = 0;
    for (std::size_t consumer = 0; consumer < m_trace.tasks().size(); ++consumer) {
      const Task& to = m_trace.tasks()[consumer];
      for (TaskIndex producer : m_trace.predecessors(static_cast<TaskIndex>(consumer))) {
        const Task& from = m_trace.tasks()[producer];
        const std::int64_t sourceNs = flowSourceNs(producer);
        ++flowId;
        beginEvent();
        m_out << R"({"ph":"s","id":)" << flowId << R"(,"cat":"dep","name":"dep","pid":)" << kMachineViewPid
              << ",\"tid\":" << from.lane << ",\"ts\":" << formatMicros(sourceNs) << '}';
        beginEvent();
        m_out << R"({"ph":"f","bp":"e","id":)" << flowId << R"(,"cat":"dep","name":"dep","pid":)" << kMachineViewPid
              << ",\"tid\":" << to.lane << ",\"ts\":" << formatMicros(to.startNs) << '}';
      }
    }
  }

  // Where the "s" of an edge from `producer` goes. Perfetto, and our reader
  // (Trace::enclosingTask), bind it to the innermost slice open at its time:
  // the producer's last nanosecond, unless a nested task covers it or more
  // finished tasks lie in between than the reader looks back over; then its
  // start, which always binds to a task starting with the producer, so the
  // written trace reads back.
  std::int64_t flowSourceNs(TaskIndex producer) const {
    const Task& from = m_trace.tasks()[producer];
    const std::int64_t lastNs = std::max(from.startNs, from.endNs - 1);
    if (m_trace.enclosingTask(from.lane, lastNs) == producer) return lastNs;
    return from.startNs;
  }

  void writeCounters() {
    for (const Counter& counter : m_trace.counters()) {
      for (const CounterSample& sample : counter.samples) {
        beginEvent();
        m_out << R"({"ph":"C","name":)";
        writeJsonString(m_out, m_trace.str(counter.name));
        m_out << ",\"pid\":" << kMachineViewPid << ",\"ts\":" << formatMicros(sample.tsNs) << R"(,"args":{"value":)";
        writeDouble(m_out, sample.value);
        m_out << "}}";
      }
    }
  }

  const Trace& m_trace;
  std::ostream& m_out;
  bool m_first = true;
};

} // namespace

void writeChromeTrace(const Trace& trace, std::ostream& out) { Writer(trace, out).write(); }

bool writeChromeTraceFile(const Trace& trace, const std::filesystem::path& file, std::string& error) {
  std::ostringstream text;
  writeChromeTrace(trace, text);
  return writeFileAtomically(file, text.str(), error);
}

} // namespace pto::trace
