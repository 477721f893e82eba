// writeFileAtomically: a regular file is replaced whole, keeping its mode; a
// device or a pipe (`pto tune --json /dev/null`, a FIFO a script reads) is
// written in place and stays what it is (renaming over /dev/null as root had
// made it a regular file that every later `> /dev/null` wrote into).
#include "core/AtomicFile.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace pto {
namespace {

namespace fs = std::filesystem;

fs::path freshFolder() {
  std::string pattern = (fs::temp_directory_path() / "pto-atomic-XXXXXX").string();
  const char* made = ::mkdtemp(pattern.data());
  return made ? fs::path(made) : fs::path();
}

TEST(AtomicFile, ReplacesARegularFileWholeAndKeepsItsMode) {
  const fs::path folder = freshFolder();
  ASSERT_FALSE(folder.empty());
  const fs::path file = folder / "script.sh";
  { std::ofstream(file) << "old contents, longer than the new ones\n"; }
  fs::permissions(file, fs::perms::owner_all);
  std::string error;
  ASSERT_TRUE(writeFileAtomically(file, "new\n", error)) << error;
  std::string contents;
  ASSERT_TRUE(readFile(file, contents, error)) << error;
  EXPECT_EQ(contents, "new\n");
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::all, fs::perms::owner_all);
  EXPECT_EQ(std::distance(fs::directory_iterator(folder), fs::directory_iterator()), 1) << "a temporary was left";
  fs::remove_all(folder);
}

TEST(AtomicFile, WritesToDevNullInPlaceAndLeavesItADevice) {
  std::string error;
  ASSERT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_TRUE(writeFileAtomically("/dev/null", "{\"points\": []}\n", error)) << error;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  std::string contents;
  ASSERT_TRUE(readFile("/dev/null", contents, error)) << error;
  EXPECT_EQ(contents, "");
}

TEST(AtomicFile, WritesToAFifoInPlaceForItsReader) {
  const fs::path folder = freshFolder();
  ASSERT_FALSE(folder.empty());
  const fs::path fifo = folder / "results";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The reader is there first (as a script's `cat results` would be), opened
  // without blocking, so the write needs no second thread; had the FIFO been
  // replaced, the reader would find nothing rather than wait forever.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  std::string error;
  EXPECT_TRUE(writeFileAtomically(fifo, "through the pipe\n", error)) << error;
  EXPECT_TRUE(fs::is_fifo(fifo));
  char buffer[64] = {};
  const ssize_t got = ::read(reader, buffer, sizeof buffer);
  ::close(reader);
  EXPECT_EQ(std::string(buffer, got > 0 ? static_cast<std::size_t>(got) : 0), "through the pipe\n");
  fs::remove_all(folder);
}

} // namespace
} // namespace pto
