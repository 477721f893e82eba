// Every pass option and runtime option the compiler and runtime read, for the
// tuning panel's typed editors and `pto settings`: name, type, default,
// allowed values, and a one-line explanation for a kernel engineer.
// validateOption() runs the same readers the passes and the runtime run, so
// its message is the one a compile or run would give.
#pragma once

#include "compiler/ir/TensorGraph.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

enum class OptionScope : unsigned char { Pass, Runtime };  // pass_options / runtime_options
enum class OptionType : unsigned char {
  Int,           // an integer in [minimum, maximum]
  Bool,          // true / false
  Enum,          // an integer, one of `choices`
  MergeSetting,  // a count N, or {"DEFAULT": N, "<label>": N, "func0_<program>": N}, or {} (automatic)
  List,          // a string or list of strings (disable_pass: pass names)
  LabelMap,      // {"<label>": id} or ["<label>", ...] (sg_set_scope)
};
std::string_view name(OptionType type);  // "int", "bool", "enum", "merge-setting", "list", "label-map"

struct OptionChoice {
  std::int64_t value = 0;
  std::string meaning;
};

struct OptionInfo {
  std::string name;
  OptionScope scope = OptionScope::Pass;
  OptionType type = OptionType::Int;
  nlohmann::ordered_json defaultValue;  // what an absent option means; null when it depends (see defaultText)
  std::string defaultText;              // the default as shown: "1 (list scheduling)", "the machine's AICPU count"
  std::string summary;                  // one line, for a kernel engineer
  std::string readBy;                   // the pass or runtime part that reads it
  std::int64_t minimum = 0, maximum = 0;  // Int
  std::vector<OptionChoice> choices;      // Enum
  std::vector<std::string> values;        // List: the allowed names (passes that can be disabled)
};

// Pass options first (in pipeline order), then runtime options.
const std::vector<OptionInfo>& optionCatalog();
const OptionInfo* findOption(std::string_view name, OptionScope scope);

// Empty when the compiler (pass options) or runtime accepts `value` for the
// option; otherwise the message it gives, without the file location (an
// error, or for disable_pass the warning). `graph` supplies the semantic
// labels merge settings may name; without one, label keys are rejected.
std::string validateOption(OptionScope scope, std::string_view name, const nlohmann::ordered_json& value,
                           const TensorGraph* graph = nullptr);

} // namespace pto
