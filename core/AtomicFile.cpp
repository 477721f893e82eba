// Implementation of atomic writes and whole-file reads.
#include "core/AtomicFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <random>
#include <unistd.h>

namespace pto {

namespace {

// Writes all of `contents` to `fd`; false with the reason in `error`.
bool writeAll(int fd, std::string_view contents, std::string& error) {
  const char* data = contents.data();
  std::size_t remaining = contents.size();
  while (remaining > 0) {
    ssize_t written = ::write(fd, data, remaining);
    if (written < 0) {
      if (errno == EINTR) continue;
      error = std::strerror(errno);
      return false;
    }
    data += written;
    remaining -= static_cast<std::size_t>(written);
  }
  return true;
}

bool writeInPlace(const std::filesystem::path& target, std::string_view contents, std::string& error) {
  int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    error = std::strerror(errno);
    return false;
  }
  const bool written = writeAll(fd, contents, error);
  if (::close(fd) != 0 && written) {
    error = std::strerror(errno);
    return false;
  }
  return written;
}

} // namespace

bool writeFileAtomically(const std::filesystem::path& path, std::string_view contents, std::string& error) {
  std::filesystem::path target = path;
  // Through a symbolic link to the file it names: the link stays a link.
  std::error_code linkError;
  if (std::filesystem::is_symlink(target, linkError)) {
    std::filesystem::path resolved = std::filesystem::canonical(target, linkError);
    if (!linkError) target = resolved;
  }
  // A device, a pipe or a socket (`--json /dev/null`, `/dev/stdout`, a FIFO a
  // script reads) is written in place: renaming a file over it would replace
  // the node itself (as root, /dev/null would become a regular file).
  struct stat existing {};
  const bool exists = ::stat(target.c_str(), &existing) == 0;
  if (exists && !S_ISREG(existing.st_mode) && !S_ISDIR(existing.st_mode)) return writeInPlace(target, contents, error);
  std::filesystem::path directory = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::random_device entropy;
  std::filesystem::path temporary =
      directory / ("." + target.filename().string() + ".tmp" + std::to_string(entropy() % 1000000u));

  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = std::strerror(errno);
    return false;
  }
  // The new file keeps the old one's permissions (an executable script stays executable).
  if (exists) (void)::fchmod(fd, existing.st_mode & 07777);
  if (!writeAll(fd, contents, error)) {
    ::close(fd);
    ::unlink(temporary.c_str());
    return false;
  }
  // fsync before rename: otherwise a power cut can leave an empty file under the old name.
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    error = std::strerror(errno);
    ::unlink(temporary.c_str());
    return false;
  }
  if (std::rename(temporary.c_str(), target.c_str()) != 0) {
    error = std::strerror(errno);
    ::unlink(temporary.c_str());
    return false;
  }
  return true;
}

bool readFile(const std::filesystem::path& path, std::string& contents, std::string& error) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    error = "is a directory";
    return false;
  }
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) {
    error = std::strerror(errno);
    return false;
  }
  contents.clear();
  char buffer[65536];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, file)) > 0) contents.append(buffer, got);
  bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) {
    error = "read error";
    return false;
  }
  return true;
}

} // namespace pto
