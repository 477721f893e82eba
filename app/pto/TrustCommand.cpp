// `pto trust` and the trust check of the commands that run kernels.
#include "app/pto/TrustCommand.h"

#include "app/pto/Command.h"
#include "app/pto/CommandOutput.h"
#include "core/project/FolderTrust.h"
#include "core/project/ProjectFile.h"

#include <cstdio>
#include <iostream>

namespace pto::cli {
namespace {

bool& trustRequested() {
  static bool requested = false;
  return requested;
}

struct TrustOptions {
  std::string folder = ".";
  bool revoke = false;
  bool list = false;
  std::string jsonTarget;
};

const char* reasonName(TrustReason reason) {
  switch (reason) {
  case TrustReason::NotTrusted: return "not trusted";
  case TrustReason::Granted: return "trusted";
  case TrustReason::Bundled: return "bundled example";
  case TrustReason::Environment: return "PTO_TRUST";
  }
  return "not trusted";
}

int runTrust(const TrustOptions& options) {
  std::filesystem::path folder = options.folder;
  // A project file names its folder.
  if (std::filesystem::is_regular_file(folder)) folder = folder.parent_path();
  nlohmann::ordered_json report = {{"store", trustStorePath().string()}};
  if (options.list) {
    nlohmann::ordered_json folders = nlohmann::ordered_json::array();
    for (const auto& trusted : trustedFolders()) {
      folders.push_back(trusted.string());
      if (options.jsonTarget != "-") std::printf("%s\n", trusted.string().c_str());
    }
    if (options.jsonTarget != "-" && folders.empty()) std::printf("no folders are trusted (%s)\n", trustStorePath().c_str());
    report["trusted_folders"] = folders;
    return options.jsonTarget.empty() || writeJsonReport(options.jsonTarget, report) ? kExitOk : kExitUserError;
  }
  if (!std::filesystem::is_directory(folder)) {
    std::fprintf(stderr, "%s: error: no such folder\n", folder.string().c_str());
    return kExitUserError;
  }
  std::string error;
  if (!(options.revoke ? revokeFolderTrust(folder, error) : trustFolder(folder, error))) {
    std::fprintf(stderr, "%s: error: cannot update the trust store\n", error.c_str());
    return kExitUserError;
  }
  TrustReason now = folderTrust(folder);
  std::filesystem::path shown = std::filesystem::absolute(folder).lexically_normal();
  if (options.jsonTarget != "-") {
    if (!options.revoke) std::printf("trusted %s: pto and pto-studio run the projects in it\n", shown.c_str());
    else if (now == TrustReason::NotTrusted) std::printf("no longer trusted: %s\n", shown.c_str());
    else std::printf("revoked, but %s is still trusted (%s)\n", shown.c_str(), reasonName(now));
  }
  report["folder"] = shown.string();
  report["trust"] = reasonName(now);
  return options.jsonTarget.empty() || writeJsonReport(options.jsonTarget, report) ? kExitOk : kExitUserError;
}

} // namespace

void addTrustOption(CLI::App& command) {
  command.add_flag_callback("--trust", [] { trustRequested() = true; },
                            "Run the project's Python even if its folder is not trusted (see pto trust)");
}

namespace {

bool refuseUntrusted(const std::filesystem::path& directory, const std::filesystem::path& file, const std::string& python,
                     DiagnosticEngine& diags) {
  if (trustRequested() || isFolderTrusted(directory)) return true;
  std::filesystem::path folder = std::filesystem::absolute(directory).lexically_normal();
  return diags.error(SourceLocation{file.string()})
         << "this folder is not trusted, and running it runs its Python (" << python << "). If you trust it, run `pto trust "
         << folder.string() << "` once, or pass --trust (or set PTO_TRUST=1) for this command";
}

} // namespace

std::optional<OperatorProject> loadTrustedProject(const std::string& path, DiagnosticEngine& diags) {
  std::optional<OperatorProject> project = loadProject(path, diags);
  if (!project || !refuseUntrusted(project->directory(), project->file, project->source, diags)) return std::nullopt;
  return project;
}

bool requireTrustedFolder(const std::filesystem::path& folder, const std::filesystem::path& file, DiagnosticEngine& diags) {
  return refuseUntrusted(folder, file, "the suite's kernels", diags);
}

void registerTrustCommand(CLI::App& app, CommandRegistry& registry) {
  auto options = std::make_shared<TrustOptions>();
  CLI::App* command = app.add_subcommand(
      "trust", "Trust a folder, so that pto and pto-studio run the projects in it (their Python code)");
  command->add_option("FOLDER", options->folder, "The folder (or a project file in it); default: the current folder")
      ->capture_default_str();
  command->add_flag("--revoke", options->revoke, "Stop trusting the folder");
  command->add_flag("--list", options->list, "List the trusted folders");
  command->add_option("--json", options->jsonTarget, "Also write a JSON report to FILE ('-' for stdout)")
      ->type_name("FILE");
  runWhenChosen(*command, registry, options, runTrust);
}

} // namespace pto::cli
