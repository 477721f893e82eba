// The operator project (`pto-project.json`): the kernel, its arguments and
// how to fill them, the machine, and every tuning setting. This is the file
// the IDE opens and saves and the unit every `pto` command works on.
#pragma once

#include "core/Bindings.h"
#include "core/DataType.h"
#include "core/SourceLocation.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace pto {

// How an argument's initial values are made. Random kinds are deterministic
// for a given seed on every machine (the generator is ours, not the C++
// library's, whose distributions differ between implementations).
struct UniformInit {
  double low = 0.0;
  double high = 1.0;
  std::uint64_t seed = 0;
  friend bool operator==(const UniformInit&, const UniformInit&) = default;
};
struct NormalInit {
  double mean = 0.0;
  double std = 1.0;
  std::uint64_t seed = 0;
  friend bool operator==(const NormalInit&, const NormalInit&) = default;
};
struct ZerosInit {
  friend bool operator==(const ZerosInit&, const ZerosInit&) = default;
};
// 0, 1, 2, ... in C order (wrapping as the dtype wraps).
struct ArangeInit {
  friend bool operator==(const ArangeInit&, const ArangeInit&) = default;
};
// Values from a .npy file; `path` is relative to the project folder.
struct NpyInit {
  std::string path;
  friend bool operator==(const NpyInit&, const NpyInit&) = default;
};
// Values written in the project file, in C order (a flat or nested list):
// small index tensors such as sequence lengths and block tables, whose
// values shape the schedule. Their count must equal the element count.
struct ValuesInit {
  std::vector<double> values;
  friend bool operator==(const ValuesInit&, const ValuesInit&) = default;
};
using InitSpec = std::variant<UniformInit, NormalInit, ZerosInit, ArangeInit, NpyInit, ValuesInit>;
std::string_view initKindName(const InitSpec& init);

// One dimension of an argument's shape in the project file: a number, or the
// name of a binding (`"B"` with `"bindings": {"B": 32}`).
struct ProjectDim {
  std::int64_t value = 0;
  std::string symbol;  // empty for a plain number
  friend bool operator==(const ProjectDim&, const ProjectDim&) = default;
};

struct KernelArgument {
  std::string name;
  std::vector<ProjectDim> shape;
  DataType dtype = DataType::Fp32;
  InitSpec init = ZerosInit{};
  friend bool operator==(const KernelArgument&, const KernelArgument&) = default;
};

// An output passes when |actual - expected| <= atol + rtol * |expected|
// elementwise (numpy's allclose).
struct Tolerance {
  double rtol = 0.0;
  double atol = 0.0;
  friend bool operator==(const Tolerance&, const Tolerance&) = default;
};
// What an output of this dtype is held to when the project says nothing.
Tolerance defaultTolerance(DataType dtype);

// Where an output's expected values come from.
struct GoldenSource {
  bool fromReference = true;  // the reference interpreter (default)
  std::string npyPath;        // relative to the project folder, when not fromReference
  friend bool operator==(const GoldenSource&, const GoldenSource&) = default;
};

struct OperatorProject {
  std::string name;
  std::string source;  // kernel .py, relative to the project folder
  std::string entry;   // the jit kernel's function name
  std::vector<KernelArgument> args;
  std::string machine = "a2";
  Bindings bindings;
  std::map<std::string, GoldenSource> golden;   // keyed by argument name
  std::map<std::string, Tolerance> tolerance;   // keyed by argument name
  // An output's comparison rule when the project names one ("tolerance": {NAME: {"rule": ...}}):
  // "allclose", "exact", "quantized" or "topk" (analysis/simulation/OutputRules.h).
  std::map<std::string, std::string> compareRules;

  // Tuning settings. Their schemas belong to the compiler and runtime; the
  // loader checks their outer shape, and keeps them as JSON so that settings
  // it does not know survive a load/save round trip.
  nlohmann::ordered_json tileSettings = nlohmann::ordered_json::object();
  nlohmann::ordered_json passOptions = nlohmann::ordered_json::object();
  nlohmann::ordered_json runtimeOptions = nlohmann::ordered_json::object();
  nlohmann::ordered_json partitionOverrides = nlohmann::ordered_json::array();
  // Where each partition_overrides entry starts in the file (same order), so
  // the compiler can point at the entry it rejects.
  std::vector<SourceLocation> partitionOverrideLocations;
  // Where the values of "machine", "pass_options", "runtime_options" and each
  // tile setting ("tile_settings.vec.DEFAULT", "tile_settings.cube.gemm")
  // start, for diagnostics the engine layers raise about them (unknown
  // machine, bad runtime option, a clamped tile); see locationOf.
  std::map<std::string, SourceLocation> settingLocations;
  nlohmann::ordered_json tune = nlohmann::ordered_json::object();
  // "uses_examples": bundled examples whose files this one's Python loads
  // (from beside it in the examples folder, or from inside it in a copy
  // `pto new` made, which copies them too).
  std::vector<std::string> usedExamples;

  // Where the project was loaded from: the pto-project.json path and its folder.
  std::filesystem::path file;
  // "." for a project file named without a folder ("x.pto-project.json"), so
  // that callers can resolve, trust and list it like any other folder.
  std::filesystem::path directory() const {
    std::filesystem::path parent = file.parent_path();
    return parent.empty() ? std::filesystem::path(".") : parent;
  }
  // The line of a top-level setting's value, or the file when it is absent.
  SourceLocation locationOf(const std::string& key) const;
  std::filesystem::path sourcePath() const { return directory() / source; }
  std::filesystem::path resolve(const std::string& relative) const { return directory() / relative; }

  const KernelArgument* findArgument(std::string_view argName) const;
  // The concrete shape of an argument: symbols replaced by their bindings.
  // nullopt when a symbol has no binding (the loader reports that).
  std::optional<std::vector<std::int64_t>> concreteShape(const KernelArgument& arg) const;
  // The project's tolerance for this output, else the dtype's default.
  Tolerance toleranceFor(const KernelArgument& arg) const;

  // The document this project was read from; saving writes the model back
  // into it so that key order and keys this version does not know are kept.
  nlohmann::ordered_json document = nlohmann::ordered_json::object();
};

} // namespace pto
