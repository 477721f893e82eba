// Reading measured swimlanes: Chrome trace JSON and PyPTO's L1 profile with
// its topology (formats in MeasuredTrace.h).
#include "analysis/calibration/MeasuredTrace.h"

#include "runtime/trace/ChromeTraceReader.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace pto {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::string readPrefix(const fs::path& file, std::size_t bytes) {
  std::ifstream in(file, std::ios::binary);
  std::string text(bytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(bytes));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

// A PyPTO L1 profile is a JSON array of per-core objects with "blockIdx";
// a Chrome trace is an object with "traceEvents" or an array of events.
bool looksLikeL1Profile(const fs::path& file) {
  if (file.filename().string().rfind("tilefwk_L1_prof_data", 0) == 0) return true;
  const std::string head = readPrefix(file, 4096);
  const std::size_t first = head.find_first_not_of(" \t\r\n");
  return first != std::string::npos && head[first] == '[' && head.find("\"blockIdx\"") != std::string::npos &&
         head.find("\"ph\"") == std::string::npos;
}

std::optional<MeasuredTrace> readChrome(const fs::path& file, const MeasuredTraceOptions& options,
                                        DiagnosticEngine& diags) {
  std::ifstream in(file, std::ios::binary);
  auto trace = trace::readChromeTrace(in, diags, file.string());
  if (!trace)
    return diags.note(SourceLocation{file.string()})
           << "pto calibrate reads PyPTO's merged_swimlane.json, its tilefwk_L1_prof_data*.json (with dyn_topo.txt and "
              "program.json beside it) or a `pto run --trace` file";
  MeasuredTrace measured;
  measured.file = file;
  measured.format = MeasuredFormat::ChromeTrace;
  const trace::StringId loopKey = trace->intern("loop");
  std::size_t otherLanes = 0;
  for (trace::TaskIndex index = 0; index < trace->tasks().size(); ++index) {
    const trace::Task& task = trace->tasks()[index];
    const trace::Lane& lane = trace->lanes()[task.lane];
    const std::string laneName(trace->str(lane.name));
    // PyPTO's converter puts tasks the topology lists but the profile lacks
    // on a "Fake Core_0" lane, one tick long: not measurements.
    if (laneName.rfind("Fake", 0) == 0) {
      measured.missingFromProfile.push_back(std::to_string(task.seq) + "-" + std::to_string(task.id));
      continue;
    }
    if (lane.kind != trace::LaneKind::Aic && lane.kind != trace::LaneKind::Aiv) {
      ++otherLanes;
      continue;
    }
    MeasuredTask entry;
    entry.seq = task.seq;
    entry.taskId = task.id;
    entry.subgraph = task.subgraph;
    entry.label = std::string(trace->str(task.label));
    for (const trace::TaskArg& arg : trace->args(index))
      if (arg.key == loopKey) entry.loop = std::string(trace->str(arg.value));
    entry.lane = laneName;
    entry.startUs = static_cast<double>(task.startNs) * 1e-3 * options.timeScale;
    entry.endUs = static_cast<double>(task.endNs) * 1e-3 * options.timeScale;
    measured.tasks.push_back(std::move(entry));
  }
  if (otherLanes > 0)
    measured.notes.push_back(std::to_string(otherLanes) + " events on lanes other than AIC_<n>/AIV_<n> left out");
  return measured;
}

// The text of a JSON hash (program.json writes them as strings or numbers).
std::string hashText(const Json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

// program.json: root function hash -> operation magic -> semantic label.
std::optional<std::map<std::string, std::map<std::int64_t, std::string>>> readProgramLabels(const fs::path& file,
                                                                                          DiagnosticEngine& diags) {
  std::ifstream in(file);
  Json program = Json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (program.is_discarded() || !program.is_object() || !program.contains("functions") ||
      !program["functions"].is_array())
    return diags.error(SourceLocation{file.string()})
           << "not a PyPTO program.json: expected {\"functions\": [...]} (the file PyPTO writes beside "
              "tilefwk_L1_prof_data.json); remove it or replace it with the one from the same run";
  std::map<std::string, std::map<std::int64_t, std::string>> labels;
  for (const Json& function : program["functions"]) {
    if (!function.is_object() || !function.contains("hash") || !function.contains("operations") ||
        !function["operations"].is_array())
      continue;
    auto& operations = labels[hashText(function["hash"])];
    for (const Json& operation : function["operations"]) {
      if (!operation.is_object() || !operation.contains("opmagic") || !operation["opmagic"].is_number_integer()) continue;
      const Json* label = operation.contains("semantic_label") ? &operation["semantic_label"] : nullptr;
      if (label && label->is_object() && label->contains("label") && (*label)["label"].is_string())
        operations[operation["opmagic"].get<std::int64_t>()] = (*label)["label"].get<std::string>();
    }
  }
  return labels;
}

struct TopologyTask {
  std::string label;
};

// dyn_topo.txt with program.json: (seq, taskId) -> label. The columns are
// PyPTO's: seqNo, taskId, rootIndex, rootHash, opMagic, leafIndex, funcHash,
// coreType, psgId, wrapId, successors...
std::optional<std::map<std::pair<std::int64_t, std::int64_t>, TopologyTask>> readTopology(const fs::path& topoFile,
                                                                                          const fs::path& programFile,
                                                                                          DiagnosticEngine& diags) {
  auto labels = readProgramLabels(programFile, diags);
  if (!labels) return std::nullopt;
  std::ifstream in(topoFile);
  std::map<std::pair<std::int64_t, std::int64_t>, TopologyTask> tasks;
  std::string line;
  int lineNumber = 0;
  while (std::getline(in, line)) {
    ++lineNumber;
    if (line.empty() || std::isalpha(static_cast<unsigned char>(line[0]))) continue;  // a header
    std::vector<std::int64_t> fields;
    std::stringstream items(line);
    std::string item;
    bool ok = true;
    while (std::getline(items, item, ',')) {
      const std::size_t first = item.find_first_not_of(" \t\r");
      if (first == std::string::npos) continue;
      try {
        std::size_t used = 0;
        fields.push_back(std::stoll(item.substr(first), &used));
      } catch (const std::exception&) {
        ok = false;
      }
    }
    if (!ok || fields.size() < 10)
      return diags.error(SourceLocation{topoFile.string(), lineNumber})
             << "expected at least 10 comma-separated integers (seqNo, taskId, rootIndex, rootHash, opMagic, leafIndex, "
                "funcHash, coreType, psgId, wrapId, successors...), got '"
             << line << "'; use the dyn_topo.txt PyPTO wrote in the same output folder";
    TopologyTask task;
    const auto function = labels->find(std::to_string(fields[3]));
    if (function != labels->end()) {
      const auto operation = function->second.find(fields[4]);
      if (operation != function->second.end()) task.label = operation->second;
    }
    tasks[{fields[0], fields[1]}] = task;
  }
  return tasks;
}

std::optional<std::int64_t> integerAt(const Json& object, const char* key) {
  if (!object.contains(key)) return std::nullopt;
  const Json& value = object[key];
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number_float()) return static_cast<std::int64_t>(value.get<double>());
  return std::nullopt;
}

std::optional<MeasuredTrace> readL1Profile(const fs::path& file, const MeasuredTraceOptions& options,
                                           DiagnosticEngine& diags) {
  const SourceLocation where{file.string()};
  std::ifstream in(file);
  Json cores;
  try {
    cores = Json::parse(in);
  } catch (const Json::parse_error& error) {
    return diags.error(where) << "not valid JSON at byte " << error.byte
                              << ": a tilefwk_L1_prof_data file is the JSON array PyPTO writes on the chip; "
                                 "copy it again from the run's output folder";
  }
  if (!cores.is_array())
    return diags.error(where) << "expected a JSON array of cores ({blockIdx, coreType, tasks}), got a "
                              << cores.type_name();
  MeasuredTrace measured;
  measured.file = file;
  measured.format = MeasuredFormat::PyptoL1Profile;
  const double usPerTick = options.timeScale / options.counterMHz;
  for (std::size_t c = 0; c < cores.size(); ++c) {
    const Json& core = cores[c];
    const std::string at = "[" + std::to_string(c) + "]";
    auto block = core.is_object() ? integerAt(core, "blockIdx") : std::nullopt;
    if (!block || !core.contains("tasks") || !core["tasks"].is_array())
      return diags.error(where) << at << ": expected a core {\"blockIdx\": <int>, \"coreType\": \"AIC\"|\"AIV\", "
                                         "\"tasks\": [...]}, got "
                                << core.dump().substr(0, 80);
    const std::string coreType =
        core.contains("coreType") && core["coreType"].is_string() ? core["coreType"].get<std::string>() : "Core";
    const std::string lane = (coreType.find("AIC") != std::string::npos   ? std::string("AIC")
                              : coreType.find("AIV") != std::string::npos ? std::string("AIV")
                                                                          : coreType) +
                             "_" + std::to_string(*block);
    const Json& tasks = core["tasks"];
    for (std::size_t t = 0; t < tasks.size(); ++t) {
      const Json& task = tasks[t];
      const std::string taskAt = at + ".tasks[" + std::to_string(t) + "]";
      auto taskId = task.is_object() ? integerAt(task, "taskId") : std::nullopt;
      auto start = task.is_object() ? integerAt(task, "execStart") : std::nullopt;
      auto end = task.is_object() ? integerAt(task, "execEnd") : std::nullopt;
      if (!taskId || !start || !end)
        return diags.error(where) << taskAt << ": expected {\"seqNo\", \"subGraphId\", \"taskId\", \"execStart\", "
                                               "\"execEnd\"} with integer values, got "
                                  << task.dump().substr(0, 120);
      const std::int64_t startTicks = start.value_or(0), endTicks = end.value_or(0);
      if (endTicks < startTicks)
        return diags.error(where) << taskAt << ": execEnd " << endTicks << " is before execStart " << startTicks
                                  << "; the profile is damaged, record it again";
      MeasuredTask entry;
      entry.seq = integerAt(task, "seqNo").value_or(0);
      entry.taskId = *taskId;
      entry.subgraph = static_cast<int>(integerAt(task, "subGraphId").value_or(-1));
      entry.lane = lane;
      entry.startUs = static_cast<double>(startTicks) * usPerTick;
      entry.endUs = static_cast<double>(endTicks) * usPerTick;
      measured.tasks.push_back(std::move(entry));
    }
  }
  const fs::path folder = file.parent_path();
  const fs::path topoFile = folder / "dyn_topo.txt", programFile = folder / "program.json";
  if (fs::exists(topoFile) && fs::exists(programFile)) {
    auto topology = readTopology(topoFile, programFile, diags);
    if (!topology) return std::nullopt;
    std::set<std::pair<std::int64_t, std::int64_t>> profiled;
    for (MeasuredTask& task : measured.tasks) {
      profiled.insert({task.seq, task.taskId});
      const auto found = topology->find({task.seq, task.taskId});
      if (found != topology->end()) task.label = found->second.label;
    }
    for (const auto& [key, task] : *topology)
      if (!profiled.count(key)) measured.missingFromProfile.push_back(std::to_string(key.first) + "-" + std::to_string(key.second));
    measured.notes.push_back("labels from " + topoFile.filename().string() + " and " + programFile.filename().string());
  } else {
    measured.notes.push_back("no dyn_topo.txt and program.json beside it: tasks carry no semantic label, so they are "
                             "matched by subgraph id only");
  }
  return measured;
}

} // namespace

std::string_view name(MeasuredFormat format) {
  return format == MeasuredFormat::ChromeTrace ? "chrome-trace" : "pypto-l1-prof";
}

trace::Trace swimlaneOf(const MeasuredTrace& measured) {
  trace::Trace swimlane;
  std::map<std::string, trace::LaneIndex> lanes;
  for (const MeasuredTask& task : measured.tasks)
    if (!lanes.count(task.lane)) lanes[task.lane] = swimlane.addLane(task.lane, 0);
  swimlane.reserveTasks(measured.tasks.size(), 0);
  const trace::StringId loopKey = swimlane.intern("loop");
  for (const MeasuredTask& task : measured.tasks) {
    trace::Task entry;
    entry.id = task.taskId;
    entry.seq = static_cast<std::int32_t>(task.seq);
    entry.subgraph = task.subgraph;
    entry.label = swimlane.intern(task.label);
    entry.name = swimlane.intern((task.label.empty() ? std::string("task") : task.label) + " (" + std::to_string(task.seq) +
                                 "-" + std::to_string(task.taskId) + ")");
    entry.startNs = std::llround(task.startUs * 1000.0);
    entry.endNs = std::llround(task.endUs * 1000.0);
    entry.dispatchNs = entry.startNs;
    entry.lane = lanes.at(task.lane);
    std::vector<trace::TaskArg> args;
    if (!task.loop.empty()) args.push_back({loopKey, swimlane.intern(task.loop), false});
    swimlane.addTask(entry, {}, args);
  }
  swimlane.finalize();
  return swimlane;
}

double pyptoCounterMHzFor(const std::string& machineName) { return machineName.rfind("950", 0) == 0 ? 1000.0 : 50.0; }

std::optional<MeasuredTrace> readMeasuredTrace(const fs::path& file, const MeasuredTraceOptions& options,
                                               DiagnosticEngine& diags) {
  const SourceLocation where{file.string()};
  std::error_code error;
  if (!fs::is_regular_file(file, error))
    return diags.error(where) << "no such file: give a merged_swimlane.json, a tilefwk_L1_prof_data*.json or a "
                                 "`pto run --trace` file";
  auto measured = looksLikeL1Profile(file) ? readL1Profile(file, options, diags) : readChrome(file, options, diags);
  if (!measured) return std::nullopt;
  if (measured->tasks.empty())
    return diags.error(where) << "no tasks on AIC_<n>/AIV_<n> lanes: not a swimlane of a kernel run; give PyPTO's "
                                 "merged_swimlane.json or tilefwk_L1_prof_data*.json";
  return measured;
}

} // namespace pto
