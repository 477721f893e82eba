// Every pass option and runtime option the compiler and runtime read, for the
// tuning panel's typed editors and `pto settings`: the declarations of the
// passes (compiler/passes/Pipeline.h, each pass's info record) and of the
// runtime (compiler/settings/Options.h), in one list. validateOption() runs
// the same readers the passes and the runtime run, so its message is the one
// a compile or run would give.
#pragma once

#include "compiler/ir/TensorGraph.h"
#include "compiler/settings/Options.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace pto {

// Pass options first (the runner's, then in pipeline order), then runtime options.
const std::vector<OptionInfo>& optionCatalog();
const OptionInfo* findOption(std::string_view name, OptionScope scope);

// Empty when the compiler (pass options) or runtime accepts `value` for the
// option; otherwise the message it gives, without the file location (an
// error, or for disable_pass the warning). `graph` supplies the semantic
// labels merge settings may name; without one, label keys are rejected.
std::string validateOption(OptionScope scope, std::string_view name, const nlohmann::ordered_json& value,
                           const TensorGraph* graph = nullptr);

} // namespace pto
