// The trust store: {"trusted_folders": ["/abs/folder", ...]}, written atomically.
#include "core/project/FolderTrust.h"

#include "core/AtomicFile.h"
#include "core/project/ProjectTemplates.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>

namespace pto {
namespace fs = std::filesystem;
namespace {

// Absolute, with links resolved where the folder exists, so that one folder
// reached by two paths is one decision.
fs::path normalFolder(const fs::path& folder) {
  std::error_code error;
  fs::path absolute = fs::absolute(folder, error);
  if (error) absolute = folder;
  fs::path canonical = fs::weakly_canonical(absolute, error);
  return (error ? absolute : canonical).lexically_normal();
}

bool isInside(const fs::path& folder, const fs::path& root) {
  auto [rootEnd, folderIt] = std::mismatch(root.begin(), root.end(), folder.begin(), folder.end());
  // "/a/b/" has an empty last element: a trailing separator still counts as inside.
  return rootEnd == root.end() || (std::next(rootEnd) == root.end() && rootEnd->empty());
}

// The store's folders; false when the file exists but is not a store (it is
// then neither trusted from nor overwritten).
bool readStore(std::vector<fs::path>& folders, std::string& error) {
  folders.clear();
  fs::path store = trustStorePath();
  std::error_code missing;
  if (!fs::exists(store, missing)) return true;
  std::string text;
  if (!readFile(store, text, error)) {
    error = store.string() + ": " + error;
    return false;
  }
  nlohmann::json document = nlohmann::json::parse(text, nullptr, false);
  if (!document.is_object() || !document.contains("trusted_folders") || !document["trusted_folders"].is_array()) {
    error = store.string() + ": not a trust store (expected {\"trusted_folders\": [...]}); fix or delete it";
    return false;
  }
  for (const auto& folder : document["trusted_folders"])
    if (folder.is_string()) folders.emplace_back(folder.get<std::string>());
  return true;
}

bool writeStore(const std::vector<fs::path>& folders, std::string& error) {
  nlohmann::json list = nlohmann::json::array();
  for (const fs::path& folder : folders) list.push_back(folder.string());
  fs::path store = trustStorePath();
  std::error_code created;
  fs::create_directories(store.parent_path(), created);
  if (created) {
    error = store.parent_path().string() + ": " + created.message();
    return false;
  }
  if (!writeFileAtomically(store, nlohmann::json{{"trusted_folders", list}}.dump(2) + "\n", error)) {
    error = store.string() + ": " + error;
    return false;
  }
  return true;
}

} // namespace

fs::path trustStorePath() {
  const char* config = std::getenv("XDG_CONFIG_HOME");
  fs::path base;
  if (config && *config) base = config;
  else if (const char* home = std::getenv("HOME"); home && *home) base = fs::path(home) / ".config";
  else base = fs::temp_directory_path();
  return base / "pto-studio" / "trusted-folders.json";
}

bool trustGrantedByEnvironment() {
  const char* value = std::getenv("PTO_TRUST");
  if (!value) return false;
  std::string text = value;
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text == "1" || text == "yes" || text == "true";
}

TrustReason folderTrust(const fs::path& folder) {
  if (trustGrantedByEnvironment()) return TrustReason::Environment;
  fs::path wanted = normalFolder(folder);
  for (const fs::path& examples : exampleSearchPath())
    if (isInside(wanted, normalFolder(examples))) return TrustReason::Bundled;
  std::vector<fs::path> granted;
  std::string ignored;
  if (readStore(granted, ignored))
    for (const fs::path& root : granted)
      if (isInside(wanted, normalFolder(root))) return TrustReason::Granted;
  return TrustReason::NotTrusted;
}

bool trustFolder(const fs::path& folder, std::string& error) {
  std::vector<fs::path> granted;
  if (!readStore(granted, error)) return false;
  fs::path wanted = normalFolder(folder);
  if (std::find(granted.begin(), granted.end(), wanted) != granted.end()) return true;
  granted.push_back(wanted);
  return writeStore(granted, error);
}

bool revokeFolderTrust(const fs::path& folder, std::string& error) {
  std::vector<fs::path> granted;
  if (!readStore(granted, error)) return false;
  fs::path revoked = normalFolder(folder);
  std::erase_if(granted, [&](const fs::path& root) { return isInside(normalFolder(root), revoked); });
  return writeStore(granted, error);
}

std::vector<fs::path> trustedFolders() {
  std::vector<fs::path> granted;
  std::string ignored;
  readStore(granted, ignored);
  return granted;
}

} // namespace pto
