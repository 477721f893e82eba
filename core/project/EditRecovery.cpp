// The recovery file: a small JSON document written atomically.
#include "core/project/EditRecovery.h"

#include "core/AtomicFile.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>
#include <system_error>
#include <unistd.h>

namespace pto {
namespace {

constexpr const char* kFormat = "pto-studio-recovery";
constexpr int kVersion = 1;

std::string utcNow() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

nlohmann::json fileJson(const std::filesystem::path& projectFolder, const RecoveredFile& file) {
  std::error_code ignored;
  std::filesystem::path relative = std::filesystem::relative(file.file, projectFolder, ignored);
  bool inside = !relative.empty() && *relative.begin() != "..";
  return {{"file", (inside ? relative : file.file).generic_string()}, {"text", file.text}};
}

std::optional<RecoveredFile> fileFromJson(const std::filesystem::path& projectFolder, const nlohmann::json& value) {
  if (!value.is_object() || !value.contains("file") || !value["file"].is_string() || !value.contains("text") ||
      !value["text"].is_string())
    return std::nullopt;
  std::filesystem::path file = value["file"].get<std::string>();
  if (file.is_relative()) file = projectFolder / file;
  return RecoveredFile{file.lexically_normal(), value["text"].get<std::string>()};
}

bool matchesDisk(const RecoveredFile& file) {
  std::string onDisk;
  std::string ignored;
  if (!readFile(file.file, onDisk, ignored)) return false;
  if (onDisk == file.text) return true;
  // The project file is rewritten on save, so a hand-formatted one with the
  // same settings matches by content, not by bytes.
  if (file.file.extension() != ".json") return false;
  nlohmann::json saved = nlohmann::json::parse(onDisk, nullptr, false);
  return !saved.is_discarded() && saved == nlohmann::json::parse(file.text, nullptr, false);
}

} // namespace

std::filesystem::path recoveryFilePath(const std::filesystem::path& projectFolder) {
  return projectFolder / ".pto" / "recovery.json";
}

bool writeEditRecovery(const std::filesystem::path& projectFolder, const EditRecovery& recovery, std::string& error) {
  nlohmann::json document = {{"format", kFormat},
                             {"version", kVersion},
                             {"written_at", recovery.writtenAt.empty() ? utcNow() : recovery.writtenAt},
                             {"pid", recovery.writerPid != 0 ? recovery.writerPid : static_cast<std::int64_t>(::getpid())}};
  if (recovery.editor) document["editor"] = fileJson(projectFolder, *recovery.editor);
  if (recovery.project) document["project"] = fileJson(projectFolder, *recovery.project);
  std::filesystem::path path = recoveryFilePath(projectFolder);
  std::error_code created;
  std::filesystem::create_directories(path.parent_path(), created);
  if (created) {
    error = path.parent_path().string() + ": " + created.message();
    return false;
  }
  if (!writeFileAtomically(path, document.dump(1) + "\n", error)) {
    error = path.string() + ": " + error;
    return false;
  }
  return true;
}

std::optional<EditRecovery> readEditRecovery(const std::filesystem::path& projectFolder, DiagnosticEngine& diags) {
  return readEditRecoveryFile(recoveryFilePath(projectFolder), projectFolder, diags);
}

std::optional<EditRecovery> readEditRecoveryFile(const std::filesystem::path& path,
                                                 const std::filesystem::path& projectFolder, DiagnosticEngine& diags) {
  std::error_code missing;
  if (!std::filesystem::exists(path, missing)) return std::nullopt;
  std::string text;
  std::string reason;
  if (!readFile(path, text, reason)) return diags.error(SourceLocation{path.string()}) << "cannot read the recovered edits: " << reason;
  nlohmann::json document = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!document.is_object() || document.value("format", "") != kFormat)
    return diags.error(SourceLocation{path.string()})
           << "not a PTO Studio recovery file (it is kept; move it away once you have looked at it)";
  if (!document["version"].is_number_integer() || document["version"].get<int>() > kVersion)
    return diags.error(SourceLocation{path.string()}) << "written by a newer PTO Studio (version "
                                                      << document["version"].dump() << "); open the project there";
  EditRecovery recovery;
  recovery.writtenAt = document.value("written_at", "");
  if (document["pid"].is_number_integer()) recovery.writerPid = document["pid"].get<std::int64_t>();
  if (document.contains("editor")) recovery.editor = fileFromJson(projectFolder, document["editor"]);
  if (document.contains("project")) recovery.project = fileFromJson(projectFolder, document["project"]);
  return recovery;
}

void removeEditRecovery(const std::filesystem::path& projectFolder) {
  std::error_code ignored;
  std::filesystem::remove(recoveryFilePath(projectFolder), ignored);
}

std::filesystem::path setAsideEditRecovery(const std::filesystem::path& projectFolder, std::string& error) {
  std::filesystem::path folder = projectFolder / ".pto" / "recovered";
  std::error_code failed;
  std::filesystem::create_directories(folder, failed);
  if (failed) {
    error = folder.string() + ": " + failed.message();
    return {};
  }
  // Names sort oldest to newest: the time, then a sequence number for more
  // than one in a second. Only the holder of the project's lock sets aside,
  // so no other process races for a name.
  std::string stamp = utcNow();
  std::erase_if(stamp, [](char c) { return c == '-' || c == ':'; });
  std::filesystem::path aside;
  for (int sequence = 0; aside.empty() && sequence < 1000; ++sequence) {
    char suffix[8];
    std::snprintf(suffix, sizeof suffix, "-%03d", sequence);
    std::filesystem::path candidate = folder / ("recovery-" + stamp + suffix + ".json");
    if (!std::filesystem::exists(candidate, failed)) aside = candidate;
  }
  // rename() replaces its target: never pick a name that holds a recovery.
  if (aside.empty()) {
    error = folder.string() + ": already holds 1000 recoveries from this second; move some away";
    return {};
  }
  std::filesystem::rename(recoveryFilePath(projectFolder), aside, failed);
  if (failed) {
    error = recoveryFilePath(projectFolder).string() + ": cannot move it to " + aside.string() + ": " + failed.message();
    return {};
  }
  return aside;
}

std::vector<std::filesystem::path> setAsideEditRecoveries(const std::filesystem::path& projectFolder) {
  std::vector<std::filesystem::path> found;
  std::error_code failed;
  for (const auto& entry : std::filesystem::directory_iterator(projectFolder / ".pto" / "recovered", failed)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("recovery-") && entry.path().extension() == ".json") found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end(), std::greater<>());
  return found;
}

EditRecovery unsavedPartsOf(const EditRecovery& recovery) {
  EditRecovery unsaved = recovery;
  if (unsaved.editor && matchesDisk(*unsaved.editor)) unsaved.editor.reset();
  if (unsaved.project && matchesDisk(*unsaved.project)) unsaved.project.reset();
  return unsaved;
}

} // namespace pto
