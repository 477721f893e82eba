// Machine files: the search path, and validation into a MachineDescription.
#include "npusim/MachineFile.h"

#include "core/InstallPaths.h"

#include "core/AtomicFile.h"
#include "core/json/JsonReader.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <limits>
#include <set>
#include <sstream>
#include <type_traits>

namespace pto {

namespace {

using Json = nlohmann::ordered_json;

// "calibration" is the provenance `pto calibrate` writes (traces, factors,
// residuals): kept for the reader of the file, not read by the simulator.
constexpr std::array<std::string_view, 14> kTopLevelKeys = {
    "schema_version", "description", "notes",  "sources",       "cores",    "clock_ghz",  "scheduler",
    "buffers",        "paths",       "cube",   "vector",        "global_memory", "l2_cache", "calibration"};
constexpr std::array<std::string_view, 2> kCoreKeys = {"aic", "aiv"};
constexpr std::array<std::string_view, 8> kSchedulerKeys = {"aicpu_count",       "dispatch_cycles",
                                                            "resolve_cycles",    "completion_cycles",
                                                            "device_task_submit_cycles", "stitch_cycles",
                                                            "core_task_slots",   "threads_own_cores"};
constexpr std::array<std::string_view, 3> kPathKeys = {"peak_gib_per_s", "saturation_bytes", "run_ns"};
constexpr std::array<std::string_view, 2> kCubeKeys = {"instruction_overhead_cycles", "dtypes"};
constexpr std::array<std::string_view, 4> kCubeRateKeys = {"macs_per_cycle", "m0", "k0", "n0"};
constexpr std::array<std::string_view, 3> kVectorKeys = {"bytes_per_cycle", "startup_cycles", "cost_factors"};
constexpr std::array<std::string_view, 3> kMemoryKeys = {"hbm_bytes", "bandwidth_tb_per_s", "efficiency"};
constexpr std::array<std::string_view, 6> kL2Keys = {"bytes",          "line_bytes",         "hit_latency_cycles",
                                                     "miss_penalty_cycles", "bandwidth_tb_per_s", "retained_share"};
constexpr std::array<std::string_view, 3> kSourceKeys = {"kind", "source", "fitted_on"};
constexpr std::array<std::string_view, 4> kSourceKinds = {"spec", "microbenchmark", "vendor model", "fit"};

// Paths every chip the compiler targets has: without them no kernel could
// load its inputs or store its outputs.
constexpr std::array<DataPath, 6> kRequiredPaths = {DataPath::GmToL1,  DataPath::GmToUb,  DataPath::L1ToL0A,
                                                    DataPath::L1ToL0B, DataPath::L0CToGm, DataPath::UbToGm};

// Plausible ranges: orders of magnitude beyond any chip in both directions
// (A2: 1.85 GHz, 24 cube cores, 512 KiB L1, 64 GB HBM, 135 GiB/s GM->L1,
// 200-cycle dispatch), and tight enough that the cost formulas and the
// simulator's sums over millions of tasks stay inside 64-bit integers. A
// value outside is a typo or a unit mistake: refused here, with the range,
// rather than overflowing in the simulator.
constexpr std::int64_t kMaxCores = 4096;
constexpr std::int64_t kMaxAicpus = 64;  // as runtime_options.launch_sched_aicpu_num
constexpr std::int64_t kMaxCycles = 1'000'000'000;
constexpr std::int64_t kMaxBytes = std::int64_t{1} << 44;  // 16 TiB
constexpr std::int64_t kMaxFractalDim = 4096;              // m0, k0, n0: 16 or 32 on real chips
constexpr std::int64_t kMaxMacsPerCycle = std::int64_t{1} << 20;
struct NumberRange {
  double min;
  double max;
};
constexpr NumberRange kClockGHz{1e-3, 1e3};
constexpr NumberRange kRate{1e-2, 1e6};  // GiB/s, TB/s, bytes per cycle
constexpr NumberRange kCostFactor{1e-2, 1e2};
constexpr NumberRange kBytesRange{0.0, static_cast<double>(kMaxBytes)};
constexpr double kMinEfficiency = 1e-3;
constexpr NumberRange kShare{1e-3, 1.0};
constexpr NumberRange kRunNs{1e-3, 1e4};  // ns per contiguous run of a GM load

// On-chip buffers appear in the file as "<memory>_bytes"; GM's size is
// "global_memory.hbm_bytes".
std::vector<MemoryKind> onChipMemories() {
  std::vector<MemoryKind> kinds;
  for (std::size_t i = 0; i < kMemoryKindCount; ++i)
    if (static_cast<MemoryKind>(i) != MemoryKind::GM) kinds.push_back(static_cast<MemoryKind>(i));
  return kinds;
}

std::string bufferKey(MemoryKind kind) { return std::string(name(kind)) + "_bytes"; }

template <typename T> std::string joined(const std::vector<T>& items, std::string_view separator = ", ") {
  std::ostringstream out;
  for (std::size_t i = 0; i < items.size(); ++i) out << (i ? separator : "") << items[i];
  return out.str();
}

// Validates one parsed machine file. Like ProjectReader: every read reports
// its own problem and the reader continues, so one load shows them all.
class MachineReader : private JsonReader {
public:
  MachineReader(std::string_view text, std::filesystem::path file, DiagnosticEngine& diags)
      : JsonReader(text, std::move(file), diags) {}

  std::optional<MachineDescription> read(const Json& document) {
    std::size_t errorsBefore = diags().errorCount();
    MachineDescription machine;
    machine.file = file();
    machine.name = file().stem().string();

    if (!readTopLevelObject(document, "a machine file", kTopLevelKeys)) return std::nullopt;
    const KeyPath root;

    if (auto version = readRequiredInteger(document, root / "schema_version")) {
      if (*version != kMachineSchemaVersion)
        error(root / "schema_version") << "unsupported schema version " << *version << "; this build reads version "
                                       << kMachineSchemaVersion;
      machine.schemaVersion = static_cast<int>(*version);
    }
    readRequiredString(document, root / "description", machine.description);
    if (const Json* notes = member(document, root / "notes")) readNotes(*notes, root / "notes", machine);
    if (const Json* cores = requiredObject(document, root / "cores", kCoreKeys)) {
      machine.aicCores = readCount(*cores, root / "cores" / "aic", kMaxCores);
      machine.aivCores = readCount(*cores, root / "cores" / "aiv", kMaxCores);
    }
    machine.clockGHz = readPositiveNumber(document, root / "clock_ghz", kClockGHz);
    if (const Json* scheduler = requiredObject(document, root / "scheduler", kSchedulerKeys))
      readScheduler(*scheduler, root / "scheduler", machine.scheduler);
    if (const Json* buffers = required(document, root / "buffers")) readBuffers(*buffers, root / "buffers", machine);
    if (const Json* paths = required(document, root / "paths")) readPaths(*paths, root / "paths", machine);
    if (const Json* cube = requiredObject(document, root / "cube", kCubeKeys)) readCube(*cube, root / "cube", machine);
    if (const Json* vector = requiredObject(document, root / "vector", kVectorKeys))
      readVector(*vector, root / "vector", machine.vector);
    if (const Json* memory = requiredObject(document, root / "global_memory", kMemoryKeys))
      readGlobalMemory(*memory, root / "global_memory", machine);
    if (const Json* l2 = requiredObject(document, root / "l2_cache", kL2Keys)) {
      KeyPath path = root / "l2_cache";
      machine.l2.bytes = readPositiveInteger(*l2, path / "bytes", kMaxBytes);
      machine.l2.lineBytes = readPositiveInteger(*l2, path / "line_bytes", kMaxBytes);
      machine.l2.hitLatencyCycles = readNonNegativeInteger(*l2, path / "hit_latency_cycles", kMaxCycles);
      machine.l2.missPenaltyCycles = readNonNegativeInteger(*l2, path / "miss_penalty_cycles", kMaxCycles);
      // Optional: a file without them has an unlimited L2 that keeps all of its capacity.
      if (member(*l2, path / "bandwidth_tb_per_s"))
        machine.l2.bandwidthTBps = readPositiveNumber(*l2, path / "bandwidth_tb_per_s", kRate);
      if (member(*l2, path / "retained_share")) {
        machine.l2.retainedShare = readPositiveNumber(*l2, path / "retained_share", kShare);
        if (machine.l2.retainedShare > 1.0)
          error(path / "retained_share") << "must be at most 1, got " << machine.l2.retainedShare;
      }
    }
    if (const Json* sources = member(document, root / "sources")) readSources(*sources, root / "sources", machine);

    if (diags().errorCount() > errorsBefore) return std::nullopt;
    return machine;
  }

private:
  // The member as an object whose keys are checked against `known`; nullptr
  // (after reporting) when it is missing or not an object.
  const Json* requiredObject(const Json& object, const KeyPath& path, std::span<const std::string_view> known) {
    const Json* value = required(object, path);
    if (!value || !expectType(*value, path, Json::value_t::object)) return nullptr;
    warnUnknownKeys(*value, path, known);
    return value;
  }

  // Range checks report at the value and return 0 so the caller can go on;
  // the load fails anyway because an error was recorded.
  enum class Sign { Positive, NonNegative };
  // A required integer (std::int64_t) or number (double) of the given sign;
  // nullopt (after reporting) when it is missing or of the wrong sign.
  template <class T>
  std::optional<T> readSigned(const Json& object, const KeyPath& path, Sign sign) {
    std::optional<T> value;
    if constexpr (std::is_integral_v<T>) value = readRequiredInteger(object, path);
    else value = readRequiredNumber(object, path);
    if (!value) return std::nullopt;
    if (sign == Sign::Positive ? !(*value > T{}) : !(*value >= T{})) {
      error(path) << (sign == Sign::Positive ? "must be positive, got " : "must not be negative, got ") << *value;
      return std::nullopt;
    }
    return value;
  }
  std::int64_t readPositiveInteger(const Json& object, const KeyPath& path, std::int64_t max) {
    auto value = readSigned<std::int64_t>(object, path, Sign::Positive);
    return value ? atMost(*value, max, path) : 0;
  }
  std::int64_t readNonNegativeInteger(const Json& object, const KeyPath& path, std::int64_t max) {
    auto value = readSigned<std::int64_t>(object, path, Sign::NonNegative);
    return value ? atMost(*value, max, path) : 0;
  }
  std::int64_t atMost(std::int64_t value, std::int64_t max, const KeyPath& path) {
    if (value > max) {
      error(path) << "must be at most " << max << ", got " << value;
      return 0;
    }
    return value;
  }
  int readCount(const Json& object, const KeyPath& path, std::int64_t max) {
    static_assert(kMaxCores <= std::numeric_limits<int>::max() && kMaxAicpus <= std::numeric_limits<int>::max());
    return static_cast<int>(readPositiveInteger(object, path, max));
  }
  double readPositiveNumber(const Json& object, const KeyPath& path, NumberRange range) {
    auto value = readSigned<double>(object, path, Sign::Positive);
    return value ? inRange(*value, range, path) : 0.0;
  }
  double readNonNegativeNumber(const Json& object, const KeyPath& path, NumberRange range) {
    auto value = readSigned<double>(object, path, Sign::NonNegative);
    return value ? inRange(*value, range, path) : 0.0;
  }
  double inRange(double value, NumberRange range, const KeyPath& path) {
    if (value < range.min) {
      error(path) << "must be at least " << range.min << ", got " << value;
      return 0.0;
    }
    if (value > range.max) {
      error(path) << "must be at most " << range.max << ", got " << value;
      return 0.0;
    }
    return value;
  }

  void readNotes(const Json& value, const KeyPath& path, MachineDescription& machine) {
    if (!expectType(value, path, Json::value_t::array)) return;
    for (std::size_t i = 0; i < value.size(); ++i) {
      std::string note;
      if (readString(value[i], path / i, note)) machine.notes.push_back(std::move(note));
    }
  }

  // "sources": {"global_memory.efficiency": {"kind": "fit", "source": "...", "fitted_on": ["case", ...]}, ...}
  void readSources(const Json& value, const KeyPath& path, MachineDescription& machine) {
    if (!expectType(value, path, Json::value_t::object)) return;
    for (const auto& [key, entry] : value.items()) {
      const KeyPath at = path / key;
      if (!expectType(entry, at, Json::value_t::object)) continue;
      warnUnknownKeys(entry, at, kSourceKeys);
      ParameterSource source;
      readRequiredString(entry, at / "kind", source.kind);
      readRequiredString(entry, at / "source", source.source);
      if (!source.kind.empty() &&
          std::find(kSourceKinds.begin(), kSourceKinds.end(), source.kind) == kSourceKinds.end())
        error(at / "kind") << "must be one of \"spec\", \"microbenchmark\", \"vendor model\" or \"fit\", got \""
                           << source.kind << "\"";
      if (const Json* cases = member(entry, at / "fitted_on")) {
        if (expectType(*cases, at / "fitted_on", Json::value_t::array))
          for (std::size_t i = 0; i < cases->size(); ++i) {
            std::string name;
            if (readString((*cases)[i], at / "fitted_on" / i, name)) source.fittedOn.push_back(std::move(name));
          }
      }
      if (source.kind == "fit" && source.fittedOn.empty())
        error(at) << "a fitted figure must name the validation cases it was fitted on (\"fitted_on\")";
      machine.sources.emplace_back(key, std::move(source));
    }
  }

  // Costs may be 0 (to ask "what if dispatch were free?"), the thread count may not.
  void readScheduler(const Json& object, const KeyPath& path, SchedulerCosts& scheduler) {
    scheduler.aicpuCount = readCount(object, path / "aicpu_count", kMaxAicpus);
    scheduler.dispatchCycles = readNonNegativeInteger(object, path / "dispatch_cycles", kMaxCycles);
    scheduler.resolveCycles = readNonNegativeInteger(object, path / "resolve_cycles", kMaxCycles);
    scheduler.completionCycles = readNonNegativeInteger(object, path / "completion_cycles", kMaxCycles);
    scheduler.deviceTaskSubmitCycles = readNonNegativeInteger(object, path / "device_task_submit_cycles", kMaxCycles);
    scheduler.stitchCycles = readNonNegativeInteger(object, path / "stitch_cycles", kMaxCycles);
    // Optional (1 when absent): how many tasks the scheduler may hand one core, the running one included.
    if (member(object, path / "core_task_slots")) {
      scheduler.coreTaskSlots = static_cast<int>(readPositiveInteger(object, path / "core_task_slots", 2));
    }
    // Optional (false when absent): whether each thread serves only its own section of the cores.
    if (const Json* owns = member(object, path / "threads_own_cores")) {
      if (expectType(*owns, path / "threads_own_cores", Json::value_t::boolean)) scheduler.threadsOwnCores = owns->get<bool>();
    }
  }

  void readBuffers(const Json& object, const KeyPath& path, MachineDescription& machine) {
    if (!expectType(object, path, Json::value_t::object)) return;
    std::vector<std::string> keys;
    for (MemoryKind kind : onChipMemories()) keys.push_back(bufferKey(kind));
    keys.push_back("granularity_bytes");
    std::vector<std::string_view> known(keys.begin(), keys.end());
    warnUnknownKeys(object, path, known);

    for (MemoryKind kind : onChipMemories())
      machine.capacities[static_cast<std::size_t>(kind)] = readPositiveInteger(object, path / bufferKey(kind), kMaxBytes);
    machine.allocationGranularityBytes = readPositiveInteger(object, path / "granularity_bytes", kMaxBytes);

    std::int64_t granularity = machine.allocationGranularityBytes;
    for (MemoryKind kind : onChipMemories()) {
      std::int64_t bytes = machine.capacityBytes(kind);
      if (granularity > 0 && bytes > 0 && bytes % granularity != 0)
        error(path / bufferKey(kind)) << "must be a multiple of " << path.display << ".granularity_bytes ("
                                      << granularity << "), got " << bytes;
    }
    // Every operand reaches L0A/L0B through L1 and a finished L0C tile may go
    // back to L1: an L1 smaller than an L0 buffer describes no real chip and
    // would make the tiler's L1-level shapes smaller than its L0 ones.
    std::int64_t l1 = machine.capacityBytes(MemoryKind::L1);
    for (MemoryKind l0 : {MemoryKind::L0A, MemoryKind::L0B, MemoryKind::L0C}) {
      std::int64_t bytes = machine.capacityBytes(l0);
      if (l1 > 0 && bytes > 0 && l1 < bytes)
        error(path / bufferKey(MemoryKind::L1)) << "must be at least " << path.display << "." << bufferKey(l0)
                                                << " (" << bytes << "), got " << l1;
    }
  }

  void readPaths(const Json& object, const KeyPath& path, MachineDescription& machine) {
    if (!expectType(object, path, Json::value_t::object)) return;
    std::vector<std::string_view> known;
    for (std::size_t i = 0; i < kDataPathCount; ++i) known.push_back(name(static_cast<DataPath>(i)));
    warnUnknownKeys(object, path, known);
    for (std::size_t i = 0; i < kDataPathCount; ++i) {
      DataPath dataPath = static_cast<DataPath>(i);
      KeyPath entryPath = path / name(dataPath);
      bool isRequired = std::find(kRequiredPaths.begin(), kRequiredPaths.end(), dataPath) != kRequiredPaths.end();
      const Json* entry = isRequired ? required(object, entryPath) : member(object, entryPath);
      if (!entry || !expectType(*entry, entryPath, Json::value_t::object)) continue;
      warnUnknownKeys(*entry, entryPath, kPathKeys);
      PathRate rate;
      rate.peakGiBps = readPositiveNumber(*entry, entryPath / "peak_gib_per_s", kRate);
      rate.saturationBytes = readNonNegativeNumber(*entry, entryPath / "saturation_bytes", kBytesRange);
      if (member(*entry, entryPath / "run_ns")) {
        if (source(dataPath) != MemoryKind::GM)
          error(entryPath / "run_ns") << "is a cost of loads from global memory; path " << name(dataPath)
                                      << " does not read it";
        else rate.runNs = readPositiveNumber(*entry, entryPath / "run_ns", kRunNs);
      }
      machine.paths[i] = rate;
    }
  }

  void readCube(const Json& object, const KeyPath& path, MachineDescription& machine) {
    machine.cubeOverheadCycles = readNonNegativeInteger(object, path / "instruction_overhead_cycles", kMaxCycles);
    KeyPath dtypesPath = path / "dtypes";
    const Json* dtypes = required(object, dtypesPath);
    if (!dtypes || !expectType(*dtypes, dtypesPath, Json::value_t::object)) return;
    for (const auto& [key, entry] : dtypes->items()) {
      KeyPath entryPath = dtypesPath / key;
      std::optional<DataType> dtype = parseDataType(key);
      if (!dtype) {
        warning(entryPath) << "unknown dtype '" << key << "' is ignored; expected one of " << dataTypeNameList();
        continue;
      }
      if (!expectType(entry, entryPath, Json::value_t::object)) continue;
      warnUnknownKeys(entry, entryPath, kCubeRateKeys);
      CubeRate rate;
      rate.macsPerCycle = readPositiveInteger(entry, entryPath / "macs_per_cycle", kMaxMacsPerCycle);
      rate.m0 = readPositiveInteger(entry, entryPath / "m0", kMaxFractalDim);
      rate.k0 = readPositiveInteger(entry, entryPath / "k0", kMaxFractalDim);
      rate.n0 = readPositiveInteger(entry, entryPath / "n0", kMaxFractalDim);
      machine.cube[static_cast<std::size_t>(*dtype)] = rate;
    }
    // fp16 is what every matmul kernel uses; a cube without it is a typo.
    if (!machine.cube[static_cast<std::size_t>(DataType::Fp16)])
      error(dtypesPath) << "the cube must list \"" << name(DataType::Fp16) << "\"";
  }

  void readVector(const Json& object, const KeyPath& path, VectorUnit& vector) {
    vector.bytesPerCycle = readPositiveNumber(object, path / "bytes_per_cycle", kRate);
    vector.startupCycles = readNonNegativeInteger(object, path / "startup_cycles", kMaxCycles);
    KeyPath factorsPath = path / "cost_factors";
    const Json* factors = required(object, factorsPath);
    if (!factors || !expectType(*factors, factorsPath, Json::value_t::object)) return;
    std::vector<std::string_view> known;
    for (std::size_t i = 0; i < kVectorOpClassCount; ++i) known.push_back(name(static_cast<VectorOpClass>(i)));
    warnUnknownKeys(*factors, factorsPath, known);
    for (std::size_t i = 0; i < kVectorOpClassCount; ++i)
      vector.costFactors[i] =
          readPositiveNumber(*factors, factorsPath / name(static_cast<VectorOpClass>(i)), kCostFactor);
  }

  void readGlobalMemory(const Json& object, const KeyPath& path, MachineDescription& machine) {
    machine.capacities[static_cast<std::size_t>(MemoryKind::GM)] =
        readPositiveInteger(object, path / "hbm_bytes", kMaxBytes);
    machine.memory.bandwidthTBps = readPositiveNumber(object, path / "bandwidth_tb_per_s", kRate);
    if (auto efficiency = readRequiredNumber(object, path / "efficiency")) {
      if (!(*efficiency > 0.0 && *efficiency <= 1.0))
        error(path / "efficiency") << "must be greater than 0 and at most 1, got " << *efficiency;
      else if (*efficiency < kMinEfficiency)
        error(path / "efficiency") << "must be at least " << kMinEfficiency << ", got " << *efficiency;
      else machine.memory.efficiency = *efficiency;
    }
  }
};

std::vector<std::filesystem::path> splitSearchPath(std::string_view text) {
  std::vector<std::filesystem::path> folders;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = std::min(text.find(':', start), text.size());
    if (end > start) folders.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return folders;
}

} // namespace

std::optional<MachineDescription> loadMachine(const std::filesystem::path& file, DiagnosticEngine& diags) {
  std::string text;
  std::string reason;
  if (!readFile(file, text, reason))
    return diags.error(SourceLocation{file.string()}) << "cannot read the machine file: " << reason;
  return parseMachine(text, file, diags);
}

std::optional<MachineDescription> parseMachine(std::string_view text, const std::filesystem::path& file,
                                               DiagnosticEngine& diags) {
  auto document = parseJsonDocument(text, file, diags,
                                    "the machine file is empty; a machine is a JSON object with \"schema_version\", "
                                    "\"cores\", \"clock_ghz\", \"buffers\", \"paths\" and the other keys of "
                                    "resources/machines/a2.json");
  if (!document) return std::nullopt;
  return MachineReader(text, file, diags).read(*document);
}

std::vector<std::filesystem::path> machineSearchPath() {
  std::vector<std::filesystem::path> candidates;
  if (const char* fromEnvironment = std::getenv("PTO_MACHINES_PATH"))
    for (std::filesystem::path& folder : splitSearchPath(fromEnvironment)) candidates.push_back(std::move(folder));
  candidates.push_back(sharedDataFolder("machines"));
  candidates.emplace_back(PTO_MACHINES_SOURCE_DIR);
  return existingFolders(candidates);
}

std::vector<std::string> availableMachines() {
  std::set<std::string> names;
  for (const std::filesystem::path& folder : machineSearchPath()) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec))
      if (entry.path().extension() == ".json" && entry.is_regular_file(ec)) names.insert(entry.path().stem().string());
  }
  return {names.begin(), names.end()};
}

std::optional<MachineDescription> findMachine(const std::string& name, DiagnosticEngine& diags,
                                              const SourceLocation& requestedAt,
                                              const std::filesystem::path& relativeTo) {
  std::error_code ec;
  if (name.ends_with(".json")) {
    std::filesystem::path file = name;
    if (file.is_relative() && !relativeTo.empty()) file = relativeTo / file;
    if (!std::filesystem::is_regular_file(file, ec)) {
      DiagnosticBuilder missing = diags.error(requestedAt);
      missing << "machine file '" << name << "' not found";
      if (file.string() != name) missing << " (looked for " << file.string() << ")";
      return missing;
    }
    return loadMachine(file, diags);
  }
  std::vector<std::filesystem::path> folders = machineSearchPath();
  for (const std::filesystem::path& folder : folders) {
    std::filesystem::path file = folder / (name + ".json");
    if (std::filesystem::is_regular_file(file, ec)) return loadMachine(file, diags);
  }
  std::vector<std::string> names = availableMachines();
  DiagnosticBuilder builder = diags.error(requestedAt);
  builder << "unknown machine '" << name << "'" << suggestion(name, names);
  if (names.empty()) builder << "; no machine files were found";
  else builder << "; available machines: " << joined(names);
  for (const std::filesystem::path& folder : folders)
    builder.note(SourceLocation{folder.string()}, "searched this folder for " + name + ".json");
  if (folders.empty())
    builder.note(SourceLocation{}, "no machine folder exists; set PTO_MACHINES_PATH to a folder of machine files");
  return builder;
}

} // namespace pto
