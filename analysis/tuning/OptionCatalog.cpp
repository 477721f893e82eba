// Implementation of the option catalog.
#include "analysis/tuning/OptionCatalog.h"

#include "analysis/simulation/Simulation.h"
#include "compiler/passes/Pipeline.h"

namespace pto {
namespace {

using Json = nlohmann::ordered_json;

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

const std::vector<OptionInfo>& optionCatalog() {
  static const std::vector<OptionInfo> catalog = [] {
    std::vector<OptionInfo> list = passOptionDeclarations();
    const std::vector<OptionInfo>& runtime = runtimeOptionDeclarations();
    list.insert(list.end(), runtime.begin(), runtime.end());
    return list;
  }();
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
  const TensorGraph empty;
  if (!checkPassOption(key, value, graph ? *graph : empty, diags))
    return "pass_options." + key + " is not an option PTO Studio's compiler reads";
  return messages(diags);
}

} // namespace pto
