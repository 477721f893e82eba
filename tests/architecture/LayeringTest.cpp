// Enforces DESIGN.md's dependency direction by reading the sources: the
// engine includes no Qt, and no folder includes one further up the table.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Include {
  std::string file;
  int line;
  std::string target;
};

bool isSourceFile(const fs::path& path) {
  static const std::set<std::string> kExtensions = {".h", ".hpp", ".cpp", ".cc", ".inl", ".in"};
  return kExtensions.count(path.extension().string()) > 0;
}

std::vector<Include> includesUnder(const std::string& folder) {
  static const std::regex kInclude(R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])");
  std::vector<Include> found;
  fs::path root = fs::path(PTO_SOURCE_DIR) / folder;
  if (!fs::exists(root)) return found;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || !isSourceFile(entry.path())) continue;
    std::ifstream in(entry.path());
    std::string text;
    int lineNumber = 0;
    while (std::getline(in, text)) {
      ++lineNumber;
      std::smatch match;
      if (std::regex_search(text, match, kInclude))
        found.push_back({fs::relative(entry.path(), PTO_SOURCE_DIR).string(), lineNumber, match[1]});
    }
  }
  return found;
}

bool isQtHeader(const std::string& target) {
  // <QString>, <QtCore/QObject>, <qcustomplot.h>, <Qsci/qsciscintilla.h>
  return std::regex_search(target, std::regex(R"(^(Q[A-Za-z]|Qt[A-Za-z]*/|Qsci/|qcustomplot))"));
}

TEST(Layering, EngineIncludesNoQt) {
  for (const char* folder : {"core", "compiler", "npusim", "runtime", "analysis"})
    for (const Include& include : includesUnder(folder))
      EXPECT_FALSE(isQtHeader(include.target))
          << include.file << ":" << include.line << " includes <" << include.target
          << ">; the engine must stay free of Qt (DESIGN.md, layers)";
}

TEST(Layering, IncludesPointDownTheLayerTable) {
  // folder -> project folders it may include from (DESIGN.md, "Layers and folders").
  const std::map<std::string, std::set<std::string>> allowed = {
      {"core", {"core"}},
      {"compiler", {"core", "compiler"}},
      {"npusim", {"core", "compiler", "npusim", "runtime"}},
      {"runtime", {"core", "compiler", "runtime"}},
      {"analysis", {"core", "compiler", "npusim", "runtime", "analysis"}},
      {"widgets", {"core", "compiler", "npusim", "runtime", "analysis", "widgets"}},
  };
  const std::set<std::string> projectFolders = {"core", "compiler", "npusim", "runtime", "analysis", "widgets", "app"};
  for (const auto& [folder, mayInclude] : allowed) {
    for (const Include& include : includesUnder(folder)) {
      std::string top = include.target.substr(0, include.target.find('/'));
      if (include.target.find('/') == std::string::npos || !projectFolders.count(top)) continue;
      EXPECT_TRUE(mayInclude.count(top)) << include.file << ":" << include.line << " includes \"" << include.target
                                         << "\"; " << folder << "/ must not depend on " << top << "/";
    }
  }
}

TEST(Layering, PythonStaysOutOfQtCode) {
  // Qt's `slots`/`signals` macros break Python's headers: the GUI layers
  // reach Python only through engine functions.
  for (const char* folder : {"widgets", "app"})
    for (const Include& include : includesUnder(folder))
      EXPECT_TRUE(include.target.find("pybind11") == std::string::npos && include.target != "Python.h")
          << include.file << ":" << include.line << " includes <" << include.target << "> in a Qt layer";
}

TEST(Layering, TheCheckerSeesTheSources) {
  // Guards the tests above against passing because they read nothing.
  EXPECT_GT(includesUnder("core").size(), 10u);
  EXPECT_TRUE(isQtHeader("QString"));
  EXPECT_TRUE(isQtHeader("QtWidgets/QWidget"));
  EXPECT_FALSE(isQtHeader("queue"));
}

} // namespace
