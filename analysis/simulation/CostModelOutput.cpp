#include "analysis/simulation/CostModelOutput.h"

#include "runtime/trace/ChromeTraceWriter.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <mutex>
#include <sstream>
#include <system_error>

namespace pto {
namespace fs = std::filesystem;

namespace {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// output_20261125_041503_123456_4242_myhost: PyPTO's run folder name.
std::string runFolderName() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
  std::tm local{};
  localtime_r(&seconds, &local);
  char host[256] = "unknown-host";
  if (gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "unknown-host");
  std::ostringstream name;
  name << "output_" << std::put_time(&local, "%Y%m%d_%H%M%S") << '_' << std::setw(6) << std::setfill('0') << micros
       << '_' << getpid() << '_' << host;
  return name.str();
}

bool writeTextAtomically(const fs::path& file, const std::string& text, std::string& error) {
  const fs::path temporary = file.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) {
      error = temporary.string() + ": cannot write";
      return false;
    }
  }
  std::error_code code;
  fs::rename(temporary, file, code);
  if (code) error = file.string() + ": " + code.message();
  return !code;
}

} // namespace

fs::path costModelBaseFolder() {
  if (std::string dir = environment("TILE_FWK_OUTPUT_DIR"); !dir.empty()) return dir;
  if (std::string work = environment("ASCEND_WORK_PATH"); !work.empty()) return fs::path(work) / "pypto";
  return "output";
}

std::optional<fs::path> processRunFolder(std::string& error) {
  static std::mutex mutex;
  static std::optional<fs::path> folder;
  std::lock_guard lock(mutex);
  if (folder) return folder;
  const fs::path candidate = fs::absolute(costModelBaseFolder()) / runFolderName();
  std::error_code code;
  fs::create_directories(candidate, code);
  if (code) {
    error = candidate.string() + ": cannot create the simulator output folder (" + code.message() +
            "); set TILE_FWK_OUTPUT_DIR to a writable folder or PTO_SIM_OUTPUT=0 to write none";
    return std::nullopt;
  }
  folder = candidate;
  return folder;
}

std::optional<fs::path> writeCostModelOutput(const trace::Trace& trace, const nlohmann::ordered_json& report,
                                             std::string& error) {
  auto runFolder = processRunFolder(error);
  if (!runFolder) return std::nullopt;
  const fs::path folder = *runFolder / kCostModelFolderName;
  std::error_code code;
  fs::create_directories(folder, code);
  if (code) {
    error = folder.string() + ": " + code.message();
    return std::nullopt;
  }
  if (!trace::writeChromeTraceFile(trace, folder / kMergedSwimlaneName, error)) return std::nullopt;
  if (!writeTextAtomically(folder / "pto_report.json", report.dump(2) + "\n", error)) return std::nullopt;
  return folder;
}

std::optional<fs::path> findSwimlane(const fs::path& path) {
  std::error_code code;
  if (fs::is_regular_file(path, code)) return path;
  if (!fs::is_directory(path, code)) return std::nullopt;
  for (const fs::path& candidate : {path / kMergedSwimlaneName, path / kCostModelFolderName / kMergedSwimlaneName})
    if (fs::is_regular_file(candidate, code)) return candidate;
  // PyPTO's `output` folder: the newest run folder that holds a swimlane.
  std::optional<fs::path> newest;
  fs::file_time_type newestTime{};
  for (const fs::directory_entry& entry : fs::directory_iterator(path, code)) {
    if (!entry.is_directory(code) || entry.path().filename().string().rfind("output_", 0) != 0) continue;
    const fs::path candidate = entry.path() / kCostModelFolderName / kMergedSwimlaneName;
    if (!fs::is_regular_file(candidate, code)) continue;
    const auto time = fs::last_write_time(candidate, code);
    if (!newest || time > newestTime) {
      newest = candidate;
      newestTime = time;
    }
  }
  return newest;
}

} // namespace pto
