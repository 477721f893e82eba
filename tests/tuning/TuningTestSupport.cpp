// Implementation of the tuning test helpers.
#include "TuningTestSupport.h"

#include "analysis/run/ProjectRun.h"
#include "compiler/frontend/ProjectTrace.h"
#include "compiler/passes/Pipeline.h"
#include "core/project/ProjectFile.h"
#include "npusim/MachineFile.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

namespace pto::testing {
namespace {

TracedProject traceAt(const std::filesystem::path& folder) {
  DiagnosticEngine diags;
  TracedProject traced;
  auto project = loadProject(folder, diags);
  EXPECT_TRUE(project) << folder << ": cannot load";
  if (!project) return traced;
  auto graph = traceProject(*project, diags);
  EXPECT_TRUE(graph) << folder << ": cannot trace";
  if (!graph) return traced;
  traced.project = *project;
  traced.graph = *graph;
  traced.bindings = projectDimBindings(traced.project, traced.graph);
  return traced;
}

} // namespace

const TracedProject& example(const std::string& name) {
  static std::map<std::string, TracedProject> cache;
  auto found = cache.find(name);
  if (found != cache.end()) return found->second;
  return cache[name] = traceAt(std::filesystem::path(PTO_SOURCE_DIR) / "resources" / "examples" / name);
}

TracedProject writeAndTrace(const std::string& folderName, const std::string& kernel, const std::string& projectJson) {
  std::filesystem::path folder = std::filesystem::temp_directory_path() / ("pto-tuning-" + folderName);
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "kernel.py") << kernel;
  std::ofstream(folder / "pto-project.json") << projectJson;
  return traceAt(folder);
}

std::string compileErrors(const TracedProject& traced, const nlohmann::ordered_json& tileSettings,
                          const nlohmann::ordered_json& passOptions) {
  OperatorProject project = traced.project;
  project.tileSettings = tileSettings;
  project.passOptions = passOptions;
  DiagnosticEngine diags;
  std::vector<HostTensor> shapes;
  for (const KernelArgument& arg : project.args) shapes.emplace_back(arg.dtype, Shape(*project.concreteShape(arg)));
  auto settings = compileSettingsFor(project, traced.graph, shapes, diags);
  if (!settings) return "no settings";
  auto compiled = compileKernel(traced.graph, std::move(*settings), diags);
  std::string text;
  for (const Diagnostic& diagnostic : diags.diagnostics())
    if (diagnostic.severity == Severity::Error) text += diagnostic.message + "\n";
  if (!compiled && text.empty()) text = "failed without a message";
  return text;
}

const TileSite& siteByKey(const std::vector<TileSite>& sites, TileSection section, const std::string& key) {
  for (const TileSite& site : sites)
    if (site.section == section && site.key == key) return site;
  static const TileSite none;
  ADD_FAILURE() << "no " << name(section) << " site " << key;
  return none;
}

TargetInfo a2() {
  DiagnosticEngine diags;
  auto machine = findMachine("a2", diags, SourceLocation{});
  EXPECT_TRUE(machine);
  return machine ? machine->targetInfo() : TargetInfo{};
}

} // namespace pto::testing
