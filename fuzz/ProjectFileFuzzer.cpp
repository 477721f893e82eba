// Fuzzes the project loader (parseProject, what `pto` and the IDE run on
// every pto-project.json): any bytes give a project or located errors, and a
// project that loads saves (serializeProject) to text that loads again.
#include "FuzzSupport.h"

#include "core/project/ProjectFile.h"

#include <filesystem>

namespace {

// Inside a real example folder, so that "source": "kernel.py" names a file
// that exists and well-formed inputs load all the way.
const std::filesystem::path& projectFile() {
  static const std::filesystem::path file =
      std::filesystem::path(PTO_SOURCE_DIR) / "resources" / "examples" / "softmax" / "pto-project.json";
  return file;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pto;
  constexpr fuzz::OutcomeRules kRules{.exactlyOneError = false, .diagnosticsHaveLines = true};

  DiagnosticEngine diags;
  std::optional<OperatorProject> project = parseProject(fuzz::asText(data, size), projectFile(), diags);
  fuzz::checkOutcome("parseProject", project.has_value(), diags, kRules);
  if (!project) return 0;

  const std::string saved = serializeProject(*project);
  DiagnosticEngine reloadDiags;
  if (!parseProject(saved, projectFile(), reloadDiags))
    fuzz::fail("a project that loaded does not load again after serializeProject:\n" + saved, reloadDiags);
  return 0;
}
