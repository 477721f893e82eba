// Loading, validating and saving operator projects.
#include "core/project/ProjectFile.h"

#include "core/AtomicFile.h"
#include "core/json/JsonPrinter.h"
#include "core/json/JsonReader.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>

namespace pto {

using Json = nlohmann::ordered_json;

namespace {

// Keys of the project file, in the order a new file is written.
constexpr std::array<std::string_view, 16> kTopLevelKeys = {
    "name",        "source",       "entry",          "args",            "machine",
    "bindings",    "golden",       "tolerance",      "tile_settings",   "pass_options",
    "runtime_options", "partition_overrides", "tune", "description", "uses_examples", "$schema"};

constexpr std::array<std::string_view, 6> kInitKinds = {"uniform", "normal", "zeros", "arange", "npy", "values"};

bool isIdentifier(std::string_view text) {
  if (text.empty() || !(std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_')) return false;
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

void readPositiveDims(const Json& value, const KeyPath& path, std::size_t minCount, std::size_t maxCount,
                      JsonReader& reader) {
  if (!reader.expectType(value, path, Json::value_t::array)) return;
  if (value.size() < minCount || value.size() > maxCount) {
    reader.error(path) << "expected " << minCount << (minCount == maxCount ? "" : " to " + std::to_string(maxCount))
                       << " dimensions, got " << value.size();
    return;
  }
  for (std::size_t i = 0; i < value.size(); ++i)
    if (auto number = reader.readInteger(value[i], path / i); number && *number <= 0)
      reader.error(path / i) << "a tile dimension must be positive, got " << *number;
}

} // namespace

// Tile settings: {"vec": {KEY: [dims...]}, "cube": {KEY: {"m": [mL0, mL1],
// "k": [kL0, kL1] or [kL0, kAL1, kBL1], "n": [nL0, nL1], "enable_split_k": bool}}}
// where KEY is "DEFAULT", a semantic label, or a call site "kernel.py:12".
// Only the form is checked here; the compiler checks them against the
// machine's buffers and each op's rank.
bool checkTileSettings(const Json& value, const KeyPath& path, JsonReader& reader) {
  if (!reader.expectType(value, path, Json::value_t::object)) return false;
  std::size_t errorsBefore = reader.diags().errorCount();
  for (const auto& [section, entries] : value.items()) {
    KeyPath sectionPath = path / section;
    if (section != "vec" && section != "cube") {
      reader.warning(sectionPath) << "unknown tile-setting kind '" << section << "'; expected \"vec\" or \"cube\"";
      continue;
    }
    if (!reader.expectType(entries, sectionPath, Json::value_t::object)) continue;
    for (const auto& [key, setting] : entries.items()) {
      KeyPath settingPath = sectionPath / key;
      if (section == "vec") {
        readPositiveDims(setting, settingPath, 1, 8, reader);
        continue;
      }
      if (!reader.expectType(setting, settingPath, Json::value_t::object)) continue;
      for (std::string_view axis : {"m", "k", "n"})
        if (const Json* dims = reader.required(setting, settingPath / axis))
          readPositiveDims(*dims, settingPath / axis, 2, axis == "k" ? 3 : 2, reader);
      if (const Json* splitK = reader.member(setting, settingPath / "enable_split_k"); splitK && !splitK->is_boolean())
        reader.error(settingPath / "enable_split_k") << "expected true or false, got " << describe(*splitK);
    }
  }
  return reader.diags().errorCount() == errorsBefore;
}

namespace {

// Validates a parsed document into an OperatorProject, reporting every
// problem with its location; the generic checks (types, required and unknown
// keys) come from JsonReader, the project's own rules live here.
class ProjectReader : private JsonReader {
public:
  ProjectReader(std::string_view text, std::filesystem::path file, DiagnosticEngine& diags)
      : JsonReader(text, std::move(file), diags) {}

  std::optional<OperatorProject> read(Json document) {
    std::size_t errorsBefore = diags().errorCount();
    OperatorProject project;
    project.file = file();

    if (!readTopLevelObject(document, "the project file", kTopLevelKeys)) return std::nullopt;
    const KeyPath root;

    readRequiredString(document, root / "name", project.name);
    if (readRequiredString(document, root / "source", project.source)) checkSourceFile(project, root / "source");
    if (readRequiredString(document, root / "entry", project.entry) && !isIdentifier(project.entry))
      error(root / "entry") << "'" << project.entry << "' is not a Python function name";
    if (auto bindings = member(document, root / "bindings")) readBindings(*bindings, root / "bindings", project);
    if (auto args = required(document, root / "args")) readArguments(*args, root / "args", project);
    if (auto machine = member(document, root / "machine")) readString(*machine, root / "machine", project.machine);
    if (auto golden = member(document, root / "golden")) readGolden(*golden, root / "golden", project);
    if (auto tolerance = member(document, root / "tolerance"))
      readTolerances(*tolerance, root / "tolerance", project);
    if (auto tiles = member(document, root / "tile_settings"))
      readTileSettings(*tiles, root / "tile_settings", project);
    readOpaque(document, root / "pass_options", Json::value_t::object, project.passOptions);
    readOpaque(document, root / "runtime_options", Json::value_t::object, project.runtimeOptions);
    readOpaque(document, root / "partition_overrides", Json::value_t::array, project.partitionOverrides);
    for (std::size_t i = 0; i < project.partitionOverrides.size(); ++i)
      project.partitionOverrideLocations.push_back(valueLocation(root / "partition_overrides" / i));
    readOpaque(document, root / "tune", Json::value_t::object, project.tune);
    if (auto uses = member(document, root / "uses_examples")) readUsedExamples(*uses, root / "uses_examples", project);
    for (const char* key : {"machine", "pass_options", "runtime_options"})
      if (member(document, root / key)) project.settingLocations[key] = valueLocation(root / key);
    for (const auto& [section, entries] : project.tileSettings.items())
      if (entries.is_object())
        for (const auto& [key, value] : entries.items())
          project.settingLocations["tile_settings." + section + "." + key] = valueLocation(root / "tile_settings" / section / key);

    if (diags().errorCount() > errorsBefore) return std::nullopt;
    project.document = std::move(document);
    return project;
  }

private:
  // Example folder names, as `pto new` finds them beside this example.
  void readUsedExamples(const Json& value, const KeyPath& path, OperatorProject& project) {
    if (!value.is_array()) {
      error(path) << "expected an array of example names, e.g. [\"sparse_flash_attention\"]";
      return;
    }
    for (std::size_t i = 0; i < value.size(); ++i) {
      const Json& name = value[i];
      const std::string text = name.is_string() ? name.get<std::string>() : std::string();
      if (text.empty() || text.find_first_of("/\\") != std::string::npos || text == "." || text == "..")
        error(path / i) << "expected the folder name of an example (no path), e.g. \"sparse_flash_attention\"";
      else
        project.usedExamples.push_back(text);
    }
  }

  void readOpaque(const Json& document, const KeyPath& path, Json::value_t type, Json& out) {
    if (const Json* value = member(document, path); value && expectType(*value, path, type)) out = *value;
  }

  void checkSourceFile(const OperatorProject& project, const KeyPath& path) {
    std::error_code ec;
    std::filesystem::path kernel = project.sourcePath();
    if (!std::filesystem::is_regular_file(kernel, ec))
      error(path) << "kernel file '" << project.source << "' not found (looked in "
                  << project.directory().string() << ")";
  }

  void readBindings(const Json& value, const KeyPath& path, OperatorProject& project) {
    if (!expectType(value, path, Json::value_t::object)) return;
    for (const auto& [symbol, bound] : value.items()) {
      KeyPath entry = path / symbol;
      if (!isIdentifier(symbol)) {
        error(entry) << "'" << symbol << "' is not a valid dimension name";
        continue;
      }
      auto number = readInteger(bound, entry);
      if (!number || *number <= 0) {
        if (number) error(entry) << "a dimension must be positive, got " << *number;
        m_badBindings.insert(symbol);  // reported here; the shapes using it say nothing more
        continue;
      }
      project.bindings[symbol] = *number;
    }
  }

  void readArguments(const Json& value, const KeyPath& path, OperatorProject& project) {
    if (!expectType(value, path, Json::value_t::array)) return;
    if (value.empty()) {
      error(path) << "a kernel needs at least one tensor argument";
      return;
    }
    std::set<std::string> names;
    for (std::size_t i = 0; i < value.size(); ++i) {
      KeyPath argPath = path / i;
      const Json& entry = value[i];
      project.settingLocations["args[" + std::to_string(i) + "]"] = valueLocation(argPath);
      if (!expectType(entry, argPath, Json::value_t::object)) continue;
      static constexpr std::array<std::string_view, 4> kArgKeys = {"name", "shape", "dtype", "init"};
      warnUnknownKeys(entry, argPath, kArgKeys);

      KernelArgument arg;
      if (readRequiredString(entry, argPath / "name", arg.name)) {
        if (!isIdentifier(arg.name)) error(argPath / "name") << "'" << arg.name << "' is not a Python identifier";
        else if (!names.insert(arg.name).second)
          error(argPath / "name") << "argument name '" << arg.name << "' is used twice";
      }
      if (const Json* shape = required(entry, argPath / "shape")) readShape(*shape, argPath / "shape", project, arg);
      if (const Json* dtype = required(entry, argPath / "dtype")) {
        std::string text;
        if (readString(*dtype, argPath / "dtype", text)) {
          if (auto parsed = parseDataType(text)) arg.dtype = *parsed;
          else error(argPath / "dtype") << "unknown dtype \"" << text << "\"; expected one of " << dataTypeNameList();
        }
      }
      if (const Json* init = member(entry, argPath / "init")) readInit(*init, argPath / "init", project, arg);
      project.args.push_back(std::move(arg));
    }
  }

  void readShape(const Json& value, const KeyPath& path, const OperatorProject& project, KernelArgument& arg) {
    if (!expectType(value, path, Json::value_t::array)) return;
    std::int64_t elements = 1;
    bool known = true;
    for (std::size_t d = 0; d < value.size(); ++d) {
      KeyPath dimPath = path / d;
      const Json& dim = value[d];
      ProjectDim parsed;
      if (dim.is_string()) {
        parsed.symbol = dim.get<std::string>();
        auto bound = project.bindings.find(parsed.symbol);
        if (bound == project.bindings.end()) {
          if (!m_badBindings.count(parsed.symbol))
            error(dimPath) << "dimension '" << parsed.symbol << "' has no value; add it to \"bindings\", e.g. \"bindings\": {\""
                         << parsed.symbol << "\": 32}";
          known = false;
        } else {
          parsed.value = bound->second;
        }
      } else if (auto number = readInteger(dim, dimPath)) {
        if (*number <= 0) {
          error(dimPath) << "a dimension must be positive, got " << *number;
          known = false;
        }
        parsed.value = *number;
      } else {
        known = false;
      }
      if (known && parsed.value > 0) {
        // Refuse shapes whose element count cannot be represented at all; the
        // engine applies its own (configurable) size limit later.
        if (elements > std::numeric_limits<std::int64_t>::max() / parsed.value) {
          error(path) << "shape has more than 2^63 elements";
          known = false;
        } else {
          elements *= parsed.value;
        }
      }
      arg.shape.push_back(std::move(parsed));
    }
  }

  void readInit(const Json& value, const KeyPath& path, const OperatorProject& project, KernelArgument& arg) {
    if (!expectType(value, path, Json::value_t::object)) return;
    std::string kind;
    if (!readRequiredString(value, path / "kind", kind)) return;
    auto knownKeys = [&](std::initializer_list<std::string_view> keys) {
      for (const auto& [key, member] : value.items())
        if (key != "kind" && std::find(keys.begin(), keys.end(), key) == keys.end())
          warning(path / key) << "'" << key << "' does not apply to init kind '" << kind << "' and is ignored";
    };
    auto seedOf = [&]() -> std::uint64_t {
      const Json* seed = member(value, path / "seed");
      if (!seed) return 0;
      auto number = readInteger(*seed, path / "seed");
      if (number && *number < 0) error(path / "seed") << "a seed must not be negative, got " << *number;
      return number && *number > 0 ? static_cast<std::uint64_t>(*number) : 0;
    };
    if (kind == "uniform") {
      knownKeys({"low", "high", "seed"});
      UniformInit init;
      auto low = readRequiredNumber(value, path / "low");
      auto high = readRequiredNumber(value, path / "high");
      init.seed = seedOf();
      if (low && high && !(*low < *high))
        error(path / "high") << "high (" << *high << ") must be greater than low (" << *low << ")";
      init.low = low.value_or(0.0);
      init.high = high.value_or(1.0);
      arg.init = init;
    } else if (kind == "normal") {
      knownKeys({"mean", "std", "seed"});
      NormalInit init;
      auto mean = readRequiredNumber(value, path / "mean");
      auto deviation = readRequiredNumber(value, path / "std");
      init.seed = seedOf();
      if (deviation && !(*deviation > 0.0)) error(path / "std") << "std must be positive, got " << *deviation;
      init.mean = mean.value_or(0.0);
      init.std = deviation.value_or(1.0);
      arg.init = init;
    } else if (kind == "zeros") {
      knownKeys({});
      arg.init = ZerosInit{};
    } else if (kind == "arange") {
      knownKeys({});
      arg.init = ArangeInit{};
    } else if (kind == "npy") {
      knownKeys({"path"});
      NpyInit init;
      if (readRequiredString(value, path / "path", init.path)) checkDataFile(project, init.path, path / "path");
      arg.init = init;
    } else if (kind == "values") {
      knownKeys({"values"});
      ValuesInit init;
      if (const Json* values = member(value, path / "values")) readValues(*values, path / "values", init.values);
      else error(path) << "init kind \"values\" needs \"values\": a list of numbers in C order";
      arg.init = std::move(init);
    } else {
      error(path / "kind") << "unknown init kind \"" << kind << "\"; expected one of uniform, normal, zeros, arange, npy, values"
                           << suggestion(kind, kInitKinds);
    }
  }

  // Numbers of a flat or nested list, in C order.
  void readValues(const Json& value, const KeyPath& path, std::vector<double>& values) {
    if (value.is_array()) {
      for (std::size_t i = 0; i < value.size(); ++i) readValues(value[i], path / i, values);
      return;
    }
    if (auto number = readNumber(value, path)) values.push_back(*number);
  }

  void checkDataFile(const OperatorProject& project, const std::string& relative, const KeyPath& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(project.resolve(relative), ec))
      error(path) << "file '" << relative << "' not found next to the project";
  }

  void readGolden(const Json& value, const KeyPath& path, OperatorProject& project) {
    if (!expectType(value, path, Json::value_t::object)) return;
    for (const auto& [argName, source] : value.items()) {
      KeyPath entry = path / argName;
      checkArgumentName(project, argName, entry);
      std::string text;
      if (!readString(source, entry, text)) continue;
      GoldenSource golden;
      if (text != "reference") {
        golden.fromReference = false;
        golden.npyPath = text;
        if (!text.ends_with(".npy")) {
          error(entry) << "expected \"reference\" or the path of a .npy file, got \"" << text << "\"";
          continue;
        }
        checkDataFile(project, text, entry);
      }
      project.golden[argName] = golden;
    }
  }

  void readTolerances(const Json& value, const KeyPath& path, OperatorProject& project) {
    if (!expectType(value, path, Json::value_t::object)) return;
    for (const auto& [argName, entry] : value.items()) {
      KeyPath entryPath = path / argName;
      checkArgumentName(project, argName, entryPath);
      if (!expectType(entry, entryPath, Json::value_t::object)) continue;
      const KernelArgument* arg = project.findArgument(argName);
      Tolerance tolerance = arg ? defaultTolerance(arg->dtype) : Tolerance{};
      for (const auto& [key, number] : entry.items()) {
        KeyPath keyPath = entryPath / key;
        if (key == "rule") {
          // Which rule judges the output (analysis/simulation/OutputRules.h); the run chooses one when absent.
          if (!expectType(number, keyPath, Json::value_t::string)) continue;
          const std::string rule = number.get<std::string>();
          if (rule != "allclose" && rule != "exact" && rule != "quantized" && rule != "topk") {
            error(keyPath) << "unknown rule '" << rule << "'; one of \"allclose\", \"exact\", \"quantized\" "
                              "(integers within one step), \"topk\" (each row's indices as a set)";
            continue;
          }
          project.compareRules[argName] = rule;
          continue;
        }
        if (key != "rtol" && key != "atol") {
          warning(keyPath) << "unknown key '" << key << "'; a tolerance has \"rtol\", \"atol\" and \"rule\"";
          continue;
        }
        auto parsed = readNumber(number, keyPath);
        if (!parsed) continue;
        if (*parsed < 0.0 || !std::isfinite(*parsed)) {
          error(keyPath) << "must be a non-negative number, got " << *parsed;
          continue;
        }
        (key == "rtol" ? tolerance.rtol : tolerance.atol) = *parsed;
      }
      project.tolerance[argName] = tolerance;
    }
  }

  void readTileSettings(const Json& value, const KeyPath& path, OperatorProject& project) {
    if (!checkTileSettings(value, path, *this)) return;
    project.tileSettings = value;
  }

  void checkArgumentName(const OperatorProject& project, const std::string& argName, const KeyPath& path) {
    if (project.findArgument(argName)) return;
    std::vector<std::string> names;
    for (const KernelArgument& arg : project.args) names.push_back(arg.name);
    warning(path) << "no argument named '" << argName << "'" << suggestion(argName, names);
  }

  std::set<std::string> m_badBindings;  // bindings given with a bad value (already reported)
};

// --- writing ---------------------------------------------------------------

Json shapeToJson(const std::vector<ProjectDim>& shape) {
  Json dims = Json::array();
  for (const ProjectDim& dim : shape) dims.push_back(dim.symbol.empty() ? Json(dim.value) : Json(dim.symbol));
  return dims;
}

// Writes `init` into `object`, keeping the object's own key order and any
// keys this version does not know.
void writeInit(const InitSpec& init, Json& object) {
  Json fresh = Json::object();
  fresh["kind"] = std::string(initKindName(init));
  std::visit(
      [&](const auto& spec) {
        using T = std::decay_t<decltype(spec)>;
        if constexpr (std::is_same_v<T, UniformInit>) {
          fresh["low"] = spec.low;
          fresh["high"] = spec.high;
          fresh["seed"] = spec.seed;
        } else if constexpr (std::is_same_v<T, NormalInit>) {
          fresh["mean"] = spec.mean;
          fresh["std"] = spec.std;
          fresh["seed"] = spec.seed;
        } else if constexpr (std::is_same_v<T, NpyInit>) {
          fresh["path"] = spec.path;
        } else if constexpr (std::is_same_v<T, ValuesInit>) {
          Json values = Json::array();
          for (double v : spec.values) {
            // Integers stay integers in the file (index tensors are read by people).
            if (v == std::floor(v) && std::fabs(v) < 9.0e15) values.push_back(static_cast<std::int64_t>(v));
            else values.push_back(v);
          }
          fresh["values"] = std::move(values);
        }
      },
      init);
  if (!object.is_object() || object.value("kind", "") != fresh["kind"]) {
    object = fresh;
    return;
  }
  // A seed of 0 that the file never spelled out stays implicit.
  for (auto& [key, value] : fresh.items()) {
    if (key == "seed" && value == 0 && !object.contains("seed")) continue;
    // Keep the file's spelling of numbers that did not change (1 vs 1.0).
    if (object.contains(key) && object[key].is_number() && value.is_number() &&
        object[key].get<double>() == value.get<double>())
      continue;
    object[key] = value;
  }
}

// Sets `key` to `value`, keeping its place; optional keys with their default
// value are only written if the file already had them.
void setMember(Json& document, const std::string& key, const Json& value, bool isDefault) {
  if (isDefault && !document.contains(key)) return;
  if (document.contains(key) && document[key] == value) return;
  document[key] = value;
}

} // namespace

std::optional<std::filesystem::path> findProjectFile(const std::filesystem::path& path, DiagnosticEngine& diags) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    std::filesystem::path file = path / kProjectFileName;
    if (std::filesystem::is_regular_file(file, ec)) return file;
    return diags.error(SourceLocation{path.string()}) << "no " << kProjectFileName
                                                      << " in this folder; pass a project folder or its "
                                                      << kProjectFileName << " file";
  }
  if (std::filesystem::is_regular_file(path, ec)) return path;
  return diags.error(SourceLocation{path.string()}) << "no such project file or folder";
}

std::optional<OperatorProject> loadProject(const std::filesystem::path& path, DiagnosticEngine& diags) {
  auto file = findProjectFile(path, diags);
  if (!file) return std::nullopt;
  std::string text;
  std::string reason;
  if (!readFile(*file, text, reason))
    return diags.error(SourceLocation{file->string()}) << "cannot read the project file: " << reason;
  return parseProject(text, *file, diags);
}

std::optional<OperatorProject> parseProject(std::string_view text, const std::filesystem::path& file,
                                            DiagnosticEngine& diags) {
  auto document = parseJsonDocument(text, file, diags,
                                    "the project file is empty; a project is a JSON object with at least \"name\", "
                                    "\"source\", \"entry\" and \"args\"");
  if (!document) return std::nullopt;
  return ProjectReader(text, file, diags).read(std::move(*document));
}

std::string serializeProject(const OperatorProject& project) {
  Json document = project.document.is_object() ? project.document : Json::object();
  setMember(document, "name", project.name, false);
  setMember(document, "source", project.source, false);
  setMember(document, "entry", project.entry, false);

  Json args = document.contains("args") && document["args"].is_array() ? document["args"] : Json::array();
  Json newArgs = Json::array();
  for (std::size_t i = 0; i < project.args.size(); ++i) {
    const KernelArgument& arg = project.args[i];
    Json entry = i < args.size() && args[i].is_object() ? args[i] : Json::object();
    setMember(entry, "name", arg.name, false);
    setMember(entry, "shape", shapeToJson(arg.shape), false);
    // Keep the user's dtype spelling ("fp32") when it still means the same type.
    bool sameDtype = entry.contains("dtype") && entry["dtype"].is_string() &&
                     parseDataType(entry["dtype"].get<std::string>()) == arg.dtype;
    if (!sameDtype) entry["dtype"] = std::string(name(arg.dtype));
    bool defaultInit = std::holds_alternative<ZerosInit>(arg.init);
    if (!(defaultInit && !entry.contains("init"))) writeInit(arg.init, entry["init"]);
    newArgs.push_back(std::move(entry));
  }
  setMember(document, "args", newArgs, false);
  setMember(document, "machine", project.machine, project.machine == "a2");

  Json bindings = Json::object();
  for (const auto& [symbol, value] : project.bindings) bindings[symbol] = value;
  setMember(document, "bindings", bindings, project.bindings.empty());

  Json golden = Json::object();
  for (const auto& [argName, source] : project.golden)
    golden[argName] = source.fromReference ? std::string("reference") : source.npyPath;
  setMember(document, "golden", golden, project.golden.empty());

  Json tolerance = document.contains("tolerance") && document["tolerance"].is_object() ? document["tolerance"] : Json::object();
  for (const auto& [argName, value] : project.tolerance) {
    Json& entry = tolerance[argName];
    if (!entry.is_object()) entry = Json::object();
    const KernelArgument* arg = project.findArgument(argName);
    Tolerance defaults = arg ? defaultTolerance(arg->dtype) : Tolerance{};
    auto write = [&](const char* key, double number, double fallback) {
      if (entry.contains(key) && entry[key].is_number() && entry[key].get<double>() == number) return;
      if (!entry.contains(key) && number == fallback) return;
      entry[key] = number;
    };
    write("rtol", value.rtol, defaults.rtol);
    write("atol", value.atol, defaults.atol);
    if (auto rule = project.compareRules.find(argName); rule != project.compareRules.end()) entry["rule"] = rule->second;
    else entry.erase("rule");
  }
  for (auto it = tolerance.begin(); it != tolerance.end();)
    it = project.tolerance.count(it.key()) ? std::next(it) : tolerance.erase(it);
  setMember(document, "tolerance", tolerance, project.tolerance.empty());

  setMember(document, "tile_settings", project.tileSettings, project.tileSettings.empty());
  setMember(document, "pass_options", project.passOptions, project.passOptions.empty());
  setMember(document, "runtime_options", project.runtimeOptions, project.runtimeOptions.empty());
  setMember(document, "partition_overrides", project.partitionOverrides, project.partitionOverrides.empty());
  setMember(document, "tune", project.tune, project.tune.empty());
  return printJson(document);
}

bool saveProject(const OperatorProject& project, DiagnosticEngine& diags, const std::filesystem::path& file) {
  std::filesystem::path target = file.empty() ? project.file : file;
  std::string reason;
  if (!writeFileAtomically(target, serializeProject(project), reason))
    return diags.error(SourceLocation{target.string()}) << "cannot save the project: " << reason
                                                        << "; the previous file is unchanged";
  return true;
}

} // namespace pto
