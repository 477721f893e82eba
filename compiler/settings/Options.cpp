// The option declaration type, and the runtime's declarations.
#include "compiler/settings/Options.h"

#include "core/EnumNames.h"

namespace pto {

std::string_view name(OptionScope scope) { return scope == OptionScope::Pass ? "pass_options" : "runtime_options"; }

constexpr auto kOptionTypeNames = enumNames<OptionType>({
    {OptionType::Int, "int"}, {OptionType::Bool, "bool"}, {OptionType::Enum, "enum"},
    {OptionType::MergeSetting, "merge-setting"}, {OptionType::List, "list"}, {OptionType::LabelMap, "label-map"}});

std::string_view name(OptionType type) { return kOptionTypeNames.name(type); }

OptionInfo declareOption(std::string name, OptionScope scope, OptionType type, nlohmann::ordered_json defaultValue,
                         std::string defaultText, std::string summary, std::string readBy) {
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

OptionInfo OptionInfo::range(std::int64_t low, std::int64_t high) && {
  minimum = low;
  maximum = high;
  return std::move(*this);
}

OptionInfo OptionInfo::choose(std::vector<OptionChoice> list) && {
  minimum = list.front().value;
  maximum = list.back().value;
  choices = std::move(list);
  return std::move(*this);
}

std::int64_t OptionInfo::defaultInteger() const {
  return defaultValue.is_number_integer() ? defaultValue.get<std::int64_t>() : 0;
}

const OptionInfo* findDeclaration(const std::vector<OptionInfo>& declarations, std::string_view name) {
  for (const OptionInfo& info : declarations)
    if (info.name == name) return &info;
  return nullptr;
}

const std::vector<OptionInfo>& runtimeOptionDeclarations() {
  static const std::vector<OptionInfo> declarations = [] {
    const auto R = OptionScope::Runtime;
    std::vector<OptionInfo> list;
    list.push_back(declareOption("device_sched_mode", R, OptionType::Enum, 0, "0 (shared FIFO)",
                                 "How ready tasks are handed to cores: one shared queue, per-core affinity, fair "
                                 "sharing, or both.",
                                 "runtime scheduler")
                       .choose({{0, "shared FIFO"}, {1, "affinity"}, {2, "fair"}, {3, "affinity + fair"}}));
    list.push_back(declareOption("stitch_function_max_num", R, OptionType::Int, 128, "128 (PyPTO's default)",
                                 "Loop-body calls (root functions) per device task; device tasks run one at a "
                                 "time, so more lets more of the loop overlap and pays fewer stitches.",
                                 "runtime scheduler")
                       .range(1, 1 << 20));
    list.push_back(declareOption("launch_sched_aicpu_num", R, OptionType::Int, nullptr, "the machine's AICPU count",
                                 "Scheduler threads (AICPUs) dispatching tasks to cores; too few and cores wait for "
                                 "work.",
                                 "runtime scheduler")
                       .range(1, 64));
    return list;
  }();
  return declarations;
}

} // namespace pto
