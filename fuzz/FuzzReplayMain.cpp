// Runs a fuzz target's LLVMFuzzerTestOneInput once on each file of the
// folders (or the files) named on the command line, without libFuzzer: the
// seed corpus and every input that once crashed (fuzz/regressions/<name>/)
// become an ordinary test of every build, gcc included.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

// Dot files keep empty folders in git (.gitkeep) and are not inputs.
bool isInput(const fs::directory_entry& entry) {
  return entry.is_regular_file() && !entry.path().filename().string().starts_with(".");
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: " << argv[0] << " FOLDER_OR_FILE...\n"
              << "Runs the fuzz target once on every file given or found in the folders.\n";
    return 2;
  }
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const fs::path given = argv[i];
    std::error_code error;
    if (fs::is_directory(given, error)) {
      std::vector<fs::path> found;
      for (const fs::directory_entry& entry : fs::recursive_directory_iterator(given))
        if (isInput(entry)) found.push_back(entry.path());
      // Sorted, so a failing run replays in the same order everywhere.
      std::sort(found.begin(), found.end());
      inputs.insert(inputs.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(given, error)) {
      inputs.push_back(given);
    } else {
      std::cerr << given.string() << ": no such file or folder\n";
      return 2;
    }
  }
  if (inputs.empty()) {
    std::cerr << "no inputs found: a seed corpus must not be empty\n";
    return 2;
  }
  for (const fs::path& input : inputs) {
    std::ifstream in(input, std::ios::binary);
    if (!in) {
      std::cerr << input.string() << ": cannot read\n";
      return 2;
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Printed first, so the log of a crash names the input that caused it.
    std::cout << "replaying " << input.string() << " (" << bytes.size() << " bytes)" << std::endl;
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::cout << "replayed " << inputs.size() << " inputs: no crash\n";
  return 0;
}
