// Which folders' Python may run. Opening a project runs its kernel, which is
// arbitrary Python: a project someone sent, or a repository just cloned, must
// not run before the user says so. Trust is per folder and covers the
// folders inside it; the decisions live in one file that pto-studio and pto
// share, $XDG_CONFIG_HOME/pto-studio/trusted-folders.json (by default under
// ~/.config), and either program can grant or revoke them. The bundled
// examples are trusted (they ship with the program), as are projects made
// from them by `pto new` or File > New project, which add their folder.
// PTO_TRUST=1 trusts every folder: for CI and scripts that run their own
// projects.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace pto {

std::filesystem::path trustStorePath();

enum class TrustReason {
  NotTrusted,
  Granted,      // the folder or one above it is in the trust store
  Bundled,      // inside the bundled examples
  Environment,  // PTO_TRUST=1
};

// Whether the Python of the project in `folder` may run, and why.
TrustReason folderTrust(const std::filesystem::path& folder);
inline bool isFolderTrusted(const std::filesystem::path& folder) { return folderTrust(folder) != TrustReason::NotTrusted; }
// PTO_TRUST is set to 1 (or "yes"/"true").
bool trustGrantedByEnvironment();

// Adds `folder` (made absolute and canonical) to the store; false with the
// reason when the store cannot be written.
bool trustFolder(const std::filesystem::path& folder, std::string& error);
// Removes `folder` from the store (it and the folders inside it that were
// granted separately). Bundled examples and PTO_TRUST stay trusted.
bool revokeFolderTrust(const std::filesystem::path& folder, std::string& error);
// The folders the store trusts, as written.
std::vector<std::filesystem::path> trustedFolders();

} // namespace pto
