// Option declarations: every pass option and runtime option PTO Studio reads,
// declared once where it is read (a pass declares its own in its info record,
// compiler/passes/Pipeline.h; the runtime's are below), with its type,
// default, range and a one-line explanation for a kernel engineer. The option
// catalog the tuning panel and `pto settings` show, `pto passes --list`, the
// options table of docs/project-format.md and the Python frontend's option
// checks (pypto/_options.py) are all made from these declarations.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

enum class OptionScope : unsigned char { Pass, Runtime };  // pass_options / runtime_options
std::string_view name(OptionScope scope);                  // "pass_options", "runtime_options"
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
  std::int64_t minimum = 0, maximum = 0;  // Int, Enum
  std::vector<OptionChoice> choices;      // Enum
  std::vector<std::string> values;        // List: the allowed names (passes that can be disabled)

  // Declarations read as they are written: option(...).range(1, 64).
  OptionInfo range(std::int64_t low, std::int64_t high) &&;
  OptionInfo choose(std::vector<OptionChoice> list) &&;
  // The default of an Int or Enum option (0 when it has none).
  std::int64_t defaultInteger() const;
};

OptionInfo declareOption(std::string name, OptionScope scope, OptionType type, nlohmann::ordered_json defaultValue,
                         std::string defaultText, std::string summary, std::string readBy);

// The first declaration named `name` in `declarations`, or nullptr.
const OptionInfo* findDeclaration(const std::vector<OptionInfo>& declarations, std::string_view name);

// What runtime_options may hold: the runtime scheduler's settings.
const std::vector<OptionInfo>& runtimeOptionDeclarations();

} // namespace pto
