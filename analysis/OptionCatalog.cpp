// Implementation of the option catalog.
#include "analysis/OptionCatalog.h"

#include "analysis/Simulation.h"
#include "compiler/passes/GraphPartition.h"
#include "compiler/passes/OoOSchedule.h"
#include "compiler/passes/Pipeline.h"
#include "compiler/passes/SubgraphMerge.h"

namespace pto {
namespace {

using Json = nlohmann::ordered_json;

OptionInfo option(std::string name, OptionScope scope, OptionType type, Json defaultValue, std::string defaultText,
                  std::string summary, std::string readBy) {
  OptionInfo info;
  info.name = std::move(name);
  info.scope = scope;
  info.type = type;
  info.defaultValue = std::move(defaultValue);
  info.defaultText = std::move(defaultText);
  info.summary = std::move(summary);
  info.readBy = std::move(readBy);
  return info;
}

OptionInfo integer(OptionInfo info, std::int64_t minimum, std::int64_t maximum) {
  info.minimum = minimum;
  info.maximum = maximum;
  return info;
}

OptionInfo choices(OptionInfo info, std::vector<OptionChoice> list) {
  info.minimum = list.front().value;
  info.maximum = list.back().value;
  info.choices = std::move(list);
  return info;
}

std::vector<OptionInfo> makeCatalog() {
  const auto P = OptionScope::Pass;
  const auto R = OptionScope::Runtime;
  std::vector<OptionInfo> list;
  OptionInfo disable = option("disable_pass", P, OptionType::List, Json::array(), "none",
                              "Passes to skip, to see what each one buys (only optional passes can be skipped).",
                              "the pass runner");
  for (const PassInfo& pass : tilePipeline())
    if (!pass.required) disable.values.emplace_back(pass.name);
  list.push_back(std::move(disable));
  list.push_back(option("enable_pass_verify", P, OptionType::Bool, false, "false",
                        "After every pass, execute its result on the project's data and stop at the first pass "
                        "that leaves the golden's tolerance (slow; for hunting miscompiles).",
                        "the pass runner"));
  list.push_back(integer(option("mg_copyin_upper_bound", P, OptionType::Int, std::int64_t{100} << 20,
                                "104857600 (100 MiB, as PyPTO)",
                                "Largest global-memory copy-in one fused subgraph may gather, in bytes; lower it to "
                                "cut big fusions into more, smaller tasks (a matmul's k-chain cut this way "
                                "accumulates through global memory).",
                                "GraphPartition"),
                         1, std::int64_t{1} << 40));
  list.push_back(integer(option("pg_parallel_lower_bound", P, OptionType::Int, 1, "1 (off)",
                                "Split a loop body's largest subgraphs along independent outputs until it has at "
                                "least this many, to keep more cores busy.",
                                "GraphPartition"),
                         1, std::int64_t{1} << 20));
  list.push_back(option("sg_set_scope", P, OptionType::LabelMap, Json::object(), "none",
                        "Pin the ops of these semantic labels into one subgraph per id: {\"label\": id} or "
                        "[\"label\", ...].",
                        "GraphPartition"));
  list.push_back(option("machine_has_l0c_to_ub", P, OptionType::Bool, nullptr, "the machine's (a2: false)",
                        "What-if: pretend the cube's L0C can feed the vector unit's UB directly, so matmul results "
                        "stay on chip.",
                        "GraphPartition"));
  list.push_back(option("vec_nbuffer_setting", P, OptionType::MergeSetting, nullptr, "absent: no merging",
                        "Vector subgraphs per task: N, or {\"DEFAULT\": N, \"<label>\": N}; {} = automatic "
                        "(subgraphs / vector cores). Fewer, longer tasks overlap copy-in with compute.",
                        "NBufferMerge"));
  list.push_back(option("cube_l1_reuse_setting", P, OptionType::MergeSetting, nullptr, "absent: no merging",
                        "Cube subgraphs that load the same A or B panel merged into one task, so L1 loads it once.",
                        "L1CopyInReuseMerge"));
  list.push_back(option("cube_nbuffer_setting", P, OptionType::MergeSetting, nullptr, "absent: no merging",
                        "Cube subgraphs per task, as vec_nbuffer_setting does for the vector cores.",
                        "L1CopyInReuseMerge"));
  list.push_back(choices(option("ooo_sched_mode", P, OptionType::Enum, 1, "1 (list scheduling)",
                                "Instruction order inside a task: list scheduling overlaps the pipes (next tile's "
                                "copy-in while this one computes).",
                                "OoOSchedule"),
                         {{0, "keep program order"}, {1, "list scheduling"}}));
  list.push_back(choices(option("device_sched_mode", R, OptionType::Enum, 0, "0 (shared FIFO)",
                                "How ready tasks are handed to cores: one shared queue, per-core affinity, fair "
                                "sharing, or both.",
                                "runtime scheduler"),
                         {{0, "shared FIFO"}, {1, "affinity"}, {2, "fair"}, {3, "affinity + fair"}}));
  list.push_back(integer(option("stitch_function_max_num", R, OptionType::Int, 128, "128 (PyPTO's default)",
                                "Loop iterations submitted as one device task; more amortises launch cost, fewer "
                                "starts work sooner.",
                                "runtime scheduler"),
                         1, 1 << 20));
  list.push_back(integer(option("launch_sched_aicpu_num", R, OptionType::Int, nullptr, "the machine's AICPU count",
                                "Scheduler threads (AICPUs) dispatching tasks to cores; too few and cores wait for "
                                "work.",
                                "runtime scheduler"),
                         1, 64));
  return list;
}

std::string messages(const DiagnosticEngine& diags) {
  std::string text;
  for (const Diagnostic& diagnostic : diags.diagnostics()) {
    if (diagnostic.severity == Severity::Note) continue;
    if (!text.empty()) text += "; ";
    text += diagnostic.message;
  }
  return text;
}

} // namespace

std::string_view name(OptionType type) {
  switch (type) {
  case OptionType::Int: return "int";
  case OptionType::Bool: return "bool";
  case OptionType::Enum: return "enum";
  case OptionType::MergeSetting: return "merge-setting";
  case OptionType::List: return "list";
  case OptionType::LabelMap: return "label-map";
  }
  return "int";
}

const std::vector<OptionInfo>& optionCatalog() {
  static const std::vector<OptionInfo> catalog = makeCatalog();
  return catalog;
}

const OptionInfo* findOption(std::string_view name, OptionScope scope) {
  for (const OptionInfo& info : optionCatalog())
    if (info.name == name && info.scope == scope) return &info;
  return nullptr;
}

std::string validateOption(OptionScope scope, std::string_view optionName, const nlohmann::ordered_json& value,
                           const TensorGraph* graph) {
  const std::string key(optionName);
  DiagnosticEngine diags;
  if (scope == OptionScope::Runtime) {
    if (!findOption(key, scope)) return "runtime_options." + key + " is not an option PTO Studio's runtime reads";
    Json options = {{key, value}};
    runtimeSettingsFrom(options, SourceLocation{}, diags);
    return messages(diags);
  }
  const OptionInfo* info = findOption(key, scope);
  if (!info) return "pass_options." + key + " is not an option PTO Studio's compiler reads";
  CompileSettings settings;
  settings.passOptions = Json{{key, value}};
  switch (info->type) {
  case OptionType::MergeSetting: {
    TensorGraph empty;
    readMergeCountSetting(settings, graph ? *graph : empty, key.c_str(), diags);
    break;
  }
  case OptionType::List:
    disabledPassesFrom(settings.passOptions, SourceLocation{}, diags);
    break;
  default:
    if (key == "ooo_sched_mode") checkOoOScheduleOptions(settings, diags);
    else if (key == "enable_pass_verify") {
      // The runner turns verification on only for `true`; say so rather than ignore a typo silently.
      if (!value.is_boolean()) return "pass_options.enable_pass_verify must be true or false, got " + value.dump();
    } else checkGraphPartitionOptions(settings, diags);
    break;
  }
  return messages(diags);
}

} // namespace pto
