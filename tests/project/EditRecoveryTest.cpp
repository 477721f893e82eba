// The recovery file (core/project/EditRecovery) and the atomic writes it and
// every save rely on: round trips, paths that survive moving the project,
// what differs from disk, unreadable files left for the user, and
// writeFileAtomically keeping permissions and symbolic links.
#include "core/AtomicFile.h"
#include "core/project/EditRecovery.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace pto {
namespace {

namespace fs = std::filesystem;

class EditRecoveryTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_folder = fs::temp_directory_path() / ("pto-recovery-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_folder);
    fs::create_directories(m_folder);
  }
  void TearDown() override { fs::remove_all(m_folder); }

  void write(const fs::path& file, const std::string& text) { std::ofstream(file, std::ios::binary) << text; }
  std::string read(const fs::path& file) {
    std::string text;
    std::string error;
    EXPECT_TRUE(readFile(file, text, error)) << error;
    return text;
  }

  fs::path m_folder;
};

TEST_F(EditRecoveryTest, RoundTripsWithPathsRelativeToTheProject) {
  EditRecovery recovery;
  recovery.editor = RecoveredFile{m_folder / "kernel.py", "x = 1\n\"quoted\" \\ \xe2\x9c\x93\n"};
  recovery.project = RecoveredFile{m_folder / "pto-project.json", "{\"name\": \"p\"}\n"};
  std::string error;
  ASSERT_TRUE(writeEditRecovery(m_folder, recovery, error)) << error;
  EXPECT_NE(read(recoveryFilePath(m_folder)).find("\"file\": \"kernel.py\""), std::string::npos);

  // The project moved: the recovery follows it.
  fs::path moved = m_folder.string() + "-moved";
  fs::remove_all(moved);
  fs::rename(m_folder, moved);
  DiagnosticEngine diags;
  std::optional<EditRecovery> read = readEditRecovery(moved, diags);
  fs::rename(moved, m_folder);
  ASSERT_TRUE(read) << (diags.diagnostics().empty() ? "" : diags.diagnostics()[0].message);
  ASSERT_TRUE(read->editor);
  EXPECT_EQ(read->editor->file, moved / "kernel.py");
  EXPECT_EQ(read->editor->text, recovery.editor->text);
  ASSERT_TRUE(read->project);
  EXPECT_EQ(read->project->text, recovery.project->text);
  EXPECT_EQ(read->writerPid, ::getpid());
  EXPECT_EQ(read->writtenAt.size(), std::string("2026-11-27T03:00:00Z").size());
}

TEST_F(EditRecoveryTest, NoFileIsNoRecoveryAndRemovingTwiceIsFine) {
  DiagnosticEngine diags;
  EXPECT_FALSE(readEditRecovery(m_folder, diags));
  EXPECT_FALSE(diags.hasErrors());
  removeEditRecovery(m_folder);
  removeEditRecovery(m_folder);
}

TEST_F(EditRecoveryTest, SetAsideRecoveriesAreKeptApartAndListedNewestFirst) {
  std::string error;
  EXPECT_TRUE(setAsideEditRecovery(m_folder, error).empty());  // nothing to set aside
  EXPECT_FALSE(error.empty());
  std::vector<fs::path> aside;
  for (const char* text : {"first\n", "second\n"}) {
    EditRecovery recovery;
    recovery.editor = RecoveredFile{m_folder / "kernel.py", text};
    ASSERT_TRUE(writeEditRecovery(m_folder, recovery, error)) << error;
    aside.push_back(setAsideEditRecovery(m_folder, error));
    ASSERT_FALSE(aside.back().empty()) << error;
    EXPECT_FALSE(fs::exists(recoveryFilePath(m_folder)));  // out of the autosave's way
  }
  EXPECT_NE(aside[0], aside[1]);  // the same second, still two files
  std::vector<fs::path> listed = setAsideEditRecoveries(m_folder);
  ASSERT_EQ(listed.size(), 2u);
  DiagnosticEngine diags;
  std::optional<EditRecovery> newest = readEditRecoveryFile(listed[0], m_folder, diags);
  ASSERT_TRUE(newest && newest->editor);
  EXPECT_EQ(newest->editor->text, "second\n");
  EXPECT_EQ(newest->editor->file, m_folder / "kernel.py");  // still relative to the project, not to .pto/recovered
}

TEST_F(EditRecoveryTest, AnUnreadableRecoveryIsReportedAndKept) {
  fs::create_directories(m_folder / ".pto");
  write(recoveryFilePath(m_folder), "{ not json");
  DiagnosticEngine diags;
  EXPECT_FALSE(readEditRecovery(m_folder, diags));
  ASSERT_TRUE(diags.hasErrors());
  EXPECT_EQ(diags.diagnostics()[0].location.file, recoveryFilePath(m_folder).string());
  EXPECT_NE(diags.diagnostics()[0].message.find("it is kept"), std::string::npos);
  EXPECT_TRUE(fs::exists(recoveryFilePath(m_folder)));

  write(recoveryFilePath(m_folder), R"({"format": "pto-studio-recovery", "version": 99})");
  DiagnosticEngine newer;
  EXPECT_FALSE(readEditRecovery(m_folder, newer));
  ASSERT_TRUE(newer.hasErrors());
  EXPECT_NE(newer.diagnostics()[0].message.find("newer PTO Studio"), std::string::npos);
}

TEST_F(EditRecoveryTest, OnlyWhatDiffersFromDiskIsUnsaved) {
  write(m_folder / "kernel.py", "saved\n");
  write(m_folder / "pto-project.json", "{\n  \"name\": \"p\",   \"machine\": \"a2\"\n}\n");
  EditRecovery recovery;
  recovery.editor = RecoveredFile{m_folder / "kernel.py", "saved\n"};
  // Formatted differently, same content: saved.
  recovery.project = RecoveredFile{m_folder / "pto-project.json", R"({"machine": "a2", "name": "p"})"};
  EXPECT_TRUE(unsavedPartsOf(recovery).empty());
  recovery.editor->text = "edited\n";
  recovery.project->text = R"({"machine": "a3", "name": "p"})";
  EditRecovery unsaved = unsavedPartsOf(recovery);
  EXPECT_TRUE(unsaved.editor && unsaved.project);
  // A file that is gone cannot match.
  fs::remove(m_folder / "kernel.py");
  recovery.editor->text = "saved\n";
  EXPECT_TRUE(unsavedPartsOf(recovery).editor);
}

TEST_F(EditRecoveryTest, AtomicWritesKeepPermissionsAndLinks) {
  fs::path script = m_folder / "run.sh";
  write(script, "old\n");
  ASSERT_EQ(::chmod(script.c_str(), 0750), 0);
  std::string error;
  ASSERT_TRUE(writeFileAtomically(script, "new\n", error)) << error;
  struct stat status {};
  ASSERT_EQ(::stat(script.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 07777, 0750u);

  fs::path link = m_folder / "link.sh";
  fs::create_symlink(script, link);
  ASSERT_TRUE(writeFileAtomically(link, "through the link\n", error)) << error;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read(script), "through the link\n");
}

TEST_F(EditRecoveryTest, AFailedAtomicWriteLeavesTheOldFile) {
  fs::path file = m_folder / "kernel.py";
  write(file, "old\n");
  std::string error;
  // A folder in the way of the temporary file's rename target cannot be replaced by a file.
  fs::create_directories(m_folder / "folder");
  EXPECT_FALSE(writeFileAtomically(m_folder / "folder", "new\n", error));
  EXPECT_FALSE(error.empty());
  EXPECT_EQ(read(file), "old\n");
  // No temporary files left behind.
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(m_folder)) ++entries;
  EXPECT_EQ(entries, 2);
}

} // namespace
} // namespace pto
