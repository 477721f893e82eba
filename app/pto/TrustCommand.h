// Folder trust on the command line (core/project/FolderTrust): the commands
// that run a project's kernel refuse a folder the user has not trusted, and
// `pto trust` grants, revokes and lists trust.
#pragma once

#include "core/Diagnostics.h"
#include "core/project/OperatorProject.h"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace pto::cli {

// --trust, added to every command that runs kernels (with --timeout and
// --max-elements). One pto process runs one command, so the flag is kept
// process-wide rather than threaded through each command's options.
void addTrustOption(CLI::App& command);

// loadProject, then refuses (nullopt, with an error at the project file
// saying how to trust it) a project whose folder is not trusted and was not
// given --trust or PTO_TRUST=1.
std::optional<OperatorProject> loadTrustedProject(const std::string& path, DiagnosticEngine& diags);

// The same check for a folder of Python that is not a project (pto validate
// --suite); the error is reported at `file`. False when refused.
bool requireTrustedFolder(const std::filesystem::path& folder, const std::filesystem::path& file, DiagnosticEngine& diags);

} // namespace pto::cli
