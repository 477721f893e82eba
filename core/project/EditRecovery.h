// Unsaved edits kept beside a project so that a crash, a kill or a power cut
// loses at most the last second of work. The IDE writes them (atomically)
// to PROJECT_FOLDER/.pto/recovery.json shortly after each edit and removes
// the file when the edits are saved or deliberately discarded; on opening
// the project again it offers what the file holds back.
#pragma once

#include "core/Diagnostics.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pto {

struct RecoveredFile {
  std::filesystem::path file;  // absolute
  std::string text;            // the whole unsaved text
};

struct EditRecovery {
  std::string writtenAt;  // ISO 8601 UTC, when the edits were autosaved
  std::int64_t writerPid = 0;
  // The editor's unsaved text (the kernel, usually).
  std::optional<RecoveredFile> editor;
  // The project file as it would be saved with the unsaved settings.
  std::optional<RecoveredFile> project;

  bool empty() const { return !editor && !project; }
};

// PROJECT_FOLDER/.pto/recovery.json
std::filesystem::path recoveryFilePath(const std::filesystem::path& projectFolder);

// Writes `recovery` atomically (the previous recovery file stays whole if
// this fails); relative paths inside are relative to the project folder so
// that a moved or copied project still recovers. False with the reason.
bool writeEditRecovery(const std::filesystem::path& projectFolder, const EditRecovery& recovery, std::string& error);

// The recovery file of `projectFolder`; nullopt when there is none, or with
// an error in `diags` when it cannot be read (the file is then left alone
// for the user to inspect: it may be their only copy of the work).
std::optional<EditRecovery> readEditRecovery(const std::filesystem::path& projectFolder, DiagnosticEngine& diags);

// Reads one recovery file (the current one or one set aside); relative
// paths inside are resolved against `projectFolder`.
std::optional<EditRecovery> readEditRecoveryFile(const std::filesystem::path& file,
                                                 const std::filesystem::path& projectFolder, DiagnosticEngine& diags);

// Removes the recovery file (no error when there is none).
void removeEditRecovery(const std::filesystem::path& projectFolder);

// A recovery that is offered to the user is first moved out of the way of
// the new session's autosaves, into PROJECT_FOLDER/.pto/recovered/, and
// stays there until the user restores or discards it: an offer that is
// ignored, or a second crash, loses nothing. Returns the new path, or an
// empty path with the reason in `error` (the file then stays where it was).
std::filesystem::path setAsideEditRecovery(const std::filesystem::path& projectFolder, std::string& error);

// The recoveries set aside and not yet restored or discarded, newest first.
std::vector<std::filesystem::path> setAsideEditRecoveries(const std::filesystem::path& projectFolder);

// The parts of `recovery` that differ from the files on disk: a recovery of
// edits that were saved after all (a crash between the save and the
// clean-up) holds nothing to offer.
EditRecovery unsavedPartsOf(const EditRecovery& recovery);

} // namespace pto
