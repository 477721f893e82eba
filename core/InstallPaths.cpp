#include "core/InstallPaths.h"

#include <algorithm>

namespace pto {
namespace fs = std::filesystem;

fs::path executableDirectory() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path() : self.parent_path();
}

fs::path sharedDataFolder(std::string_view name) {
  return executableDirectory().parent_path() / "share" / "pto-studio" / name;
}

std::vector<fs::path> existingFolders(const std::vector<fs::path>& candidates) {
  std::vector<fs::path> folders;
  for (const fs::path& folder : candidates) {
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) continue;
    fs::path normal = fs::weakly_canonical(folder, ec);
    if (ec) normal = folder.lexically_normal();
    if (std::find(folders.begin(), folders.end(), normal) == folders.end()) folders.push_back(std::move(normal));
  }
  return folders;
}

} // namespace pto
