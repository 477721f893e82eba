#include "core/project/ProjectTemplates.h"

#include "core/project/FolderTrust.h"

#include "core/InstallPaths.h"
#include "core/json/JsonReader.h"
#include "core/project/ProjectFile.h"

#include <algorithm>
#include <set>

namespace pto {
namespace fs = std::filesystem;

std::vector<fs::path> exampleSearchPath() {
  return existingFolders({sharedDataFolder("examples"), fs::path(PTO_EXAMPLES_SOURCE_DIR)});
}

std::vector<ExampleProject> availableExamples() {
  std::vector<ExampleProject> examples;
  std::set<std::string> seen;
  for (const fs::path& folder : exampleSearchPath()) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
      fs::path projectFile = entry.path() / kProjectFileName;
      std::string name = entry.path().filename().string();
      if (!fs::is_regular_file(projectFile, ec) || !seen.insert(name).second) continue;
      ExampleProject example{name, {}, entry.path()};
      DiagnosticEngine quiet;
      if (auto project = loadProject(projectFile, quiet); project && project->document.contains("description") &&
                                                          project->document["description"].is_string())
        example.description = project->document["description"].get<std::string>();
      examples.push_back(std::move(example));
    }
  }
  std::sort(examples.begin(), examples.end(),
            [](const ExampleProject& a, const ExampleProject& b) { return a.name < b.name; });
  return examples;
}

namespace {

// An example's folder copied to `destination` (created), all but its run ledger.
bool copyExampleFolder(const fs::path& example, const fs::path& destination, std::error_code& ec) {
  fs::create_directories(destination, ec);
  for (const auto& entry : fs::directory_iterator(example, ec)) {
    if (entry.path().filename() == ".pto") continue;
    fs::copy(entry.path(), destination / entry.path().filename(), fs::copy_options::recursive, ec);
    if (ec) return false;
  }
  return !ec;
}

} // namespace

std::optional<fs::path> createProjectFromExample(const std::string& exampleName, const fs::path& destination,
                                                 DiagnosticEngine& diags) {
  SourceLocation where{destination.string()};
  std::vector<ExampleProject> examples = availableExamples();
  auto example = std::find_if(examples.begin(), examples.end(),
                              [&](const ExampleProject& candidate) { return candidate.name == exampleName; });
  if (example == examples.end()) {
    std::vector<std::string> names;
    std::string list;
    for (const ExampleProject& candidate : examples) {
      names.push_back(candidate.name);
      list += (list.empty() ? "" : ", ") + candidate.name;
    }
    return diags.error(where) << "no example named '" << exampleName << "'" << suggestion(exampleName, names)
                              << "; the examples are: " << (list.empty() ? "(none found)" : list);
  }
  std::error_code ec;
  if (fs::exists(destination, ec) && !(fs::is_directory(destination, ec) && fs::is_empty(destination, ec)))
    return diags.error(where) << "the destination already exists and is not an empty folder; choose a new folder "
                                 "name so nothing there is overwritten";
  fs::create_directories(destination, ec);
  if (ec) return diags.error(where) << "cannot create the project folder: " << ec.message();
  // Everything but the example's run ledger (.pto/: the example's runs, not the new project's).
  if (!copyExampleFolder(example->directory, destination, ec))
    return diags.error(where) << "cannot copy the example " << example->directory.string() << ": " << ec.message();

  // The project takes the folder's name, so two projects made from one
  // example are told apart in the title bar and recent files.
  fs::path projectFile = destination / kProjectFileName;
  std::optional<OperatorProject> project = loadProject(projectFile, diags);
  if (!project) return std::nullopt;
  // The examples it loads files from (and those they load), each into a
  // folder of its name inside the copy, where the example's Python looks
  // when the examples folder is not beside it: the copy is self-contained.
  std::vector<std::string> pending = project->usedExamples;
  std::set<std::string> copied;
  while (!pending.empty()) {
    const std::string name = pending.back();
    pending.pop_back();
    if (name == exampleName || !copied.insert(name).second) continue;
    auto used = std::find_if(examples.begin(), examples.end(),
                             [&](const ExampleProject& candidate) { return candidate.name == name; });
    if (used == examples.end())
      return diags.error(where) << "the example '" << exampleName << "' uses the example '" << name
                                << "', which is not installed beside it; reinstall PTO Studio";
    if (!copyExampleFolder(used->directory, destination / name, ec))
      return diags.error(where) << "cannot copy the example " << used->directory.string() << ": " << ec.message();
    DiagnosticEngine quiet;
    if (auto usedProject = loadProject(used->directory / kProjectFileName, quiet))
      pending.insert(pending.end(), usedProject->usedExamples.begin(), usedProject->usedExamples.end());
  }
  fs::path absolute = fs::absolute(destination, ec);
  std::string folderName = (absolute.filename().empty() ? absolute.parent_path() : absolute).filename().string();
  project->name = folderName;
  if (!saveProject(*project, diags, projectFile)) return std::nullopt;
  // Its Python is the bundled example's, which is trusted: so is the copy.
  if (std::string error; !trustFolder(destination, error))
    diags.warning(where) << "the new project could not be marked trusted (" << error
                         << "); trust it with `pto trust " << destination.string() << "` before running it";
  return projectFile;
}

} // namespace pto
