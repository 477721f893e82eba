// Fuzzes the tuned-config importer (applyTunedConfig: `pto import-config` and
// the IDE's import) against the softmax example: any bytes are applied or
// give located errors; a config with an error leaves the project untouched,
// and a project a config was applied to exports (tunedConfig) to a config
// that applies again.
#include "FuzzSupport.h"

#include "analysis/simulation/TunedConfig.h"
#include "core/project/ProjectFile.h"

#include <filesystem>

namespace {

// Loaded once: the fuzzer's time goes to the importer, not to the project.
const pto::OperatorProject& softmaxProject() {
  static const pto::OperatorProject project = [] {
    pto::DiagnosticEngine diags;
    std::optional<pto::OperatorProject> loaded =
        pto::loadProject(std::filesystem::path(PTO_SOURCE_DIR) / "resources" / "examples" / "softmax", diags);
    if (!loaded) pto::fuzz::fail("cannot load the softmax example the tuned configs apply to", diags);
    return std::move(*loaded);
  }();
  return project;
}

bool sameSettings(const pto::OperatorProject& a, const pto::OperatorProject& b) {
  return a.machine == b.machine && a.tileSettings == b.tileSettings && a.passOptions == b.passOptions &&
         a.runtimeOptions == b.runtimeOptions && a.partitionOverrides == b.partitionOverrides;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pto;
  constexpr fuzz::OutcomeRules kRules{.exactlyOneError = false, .diagnosticsHaveLines = true};
  const OperatorProject& original = softmaxProject();

  OperatorProject project = original;
  DiagnosticEngine diags;
  const bool applied = applyTunedConfig(fuzz::asText(data, size), "fuzz_tuned.json", project, diags);
  fuzz::checkOutcome("applyTunedConfig", applied, diags, kRules);
  if (!applied) {
    if (!sameSettings(project, original)) fuzz::fail("a tuned config with errors changed the project", diags);
    return 0;
  }

  const std::string exported = tunedConfig(project).dump(2);
  OperatorProject again = original;
  DiagnosticEngine againDiags;
  if (!applyTunedConfig(exported, "exported_tuned.json", again, againDiags))
    fuzz::fail("the export of an applied tuned config does not apply:\n" + exported, againDiags);
  if (!sameSettings(again, project))
    fuzz::fail("exporting and applying a tuned config again gave other settings", againDiags);
  return 0;
}
