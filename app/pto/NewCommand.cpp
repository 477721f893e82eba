// `pto new DIR [--example NAME]`: start a project as a copy of a bundled
// example (with the examples it uses inside it); `pto new --list` names the
// examples.
#include "app/pto/Command.h"
#include "app/pto/CommandOutput.h"

#include "core/project/ProjectFile.h"
#include "core/project/ProjectTemplates.h"

#include <iostream>
#include <memory>

namespace pto::cli {
namespace {

struct NewOptions {
  std::string destination;
  std::string example = "softmax";
  bool list = false;
};

int runNew(const NewOptions& options) {
  if (options.list) {
    for (const ExampleProject& example : availableExamples())
      std::cout << example.name << (example.description.empty() ? "" : "  " + example.description) << "\n";
    return kExitOk;
  }
  if (options.destination.empty()) {
    std::cerr << "pto new: give the folder to create, e.g. 'pto new my_op --example softmax'\n";
    return kExitUsage;
  }
  DiagnosticEngine diags;
  auto projectFile = createProjectFromExample(options.example, options.destination, diags);
  printDiagnostics(diags);
  if (!projectFile) return kExitUserError;
  std::cout << "created " << projectFile->string() << " from the example '" << options.example << "'";
  DiagnosticEngine quiet;
  if (auto project = loadProject(*projectFile, quiet); project && !project->usedExamples.empty()) {
    std::string names;
    for (const std::string& name : project->usedExamples) names += (names.empty() ? "" : ", ") + name;
    std::cout << ", with the examples it uses (" << names << ") in folders inside it";
  }
  std::cout << "\nrun it: pto run " << options.destination << "\n";
  return kExitOk;
}

} // namespace

void registerNewCommand(CLI::App& app, CommandRegistry& registry) {
  auto options = std::make_shared<NewOptions>();
  CLI::App* command = app.add_subcommand("new", "Create a project folder as a copy of a bundled example");
  command->add_option("DIR", options->destination, "The folder to create (must not exist, or be empty)");
  command->add_option("--example", options->example, "The example to copy (default softmax; --list names them)")
      ->type_name("NAME");
  command->add_flag("--list", options->list, "List the bundled examples and exit");
  runWhenChosen(*command, registry, options, runNew);
}

} // namespace pto::cli
