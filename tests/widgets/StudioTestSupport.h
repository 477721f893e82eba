// What the main-window GUI tests share: a window on a new project made from
// a bundled example and run once, the way a user starts.
#pragma once

#include "app/studio/MainWindow.h"

#include <QSignalSpy>
#include <QString>

#include <fstream>
#include <sstream>
#include <string>

namespace pto::testing {

// Turns auto-run off (so every run in a test is one the test started),
// makes `folder` a new project from `example` and runs it once. False when
// the project cannot be made or the run does not end within `timeoutMs`.
// `finished` spies on window.runFinished, so the test can wait for later runs.
inline bool createAndRun(studio::MainWindow& window, QSignalSpy& finished, const QString& folder,
                         const QString& example = QStringLiteral("muls_add_matmul_rowsum"), int timeoutMs = 60000) {
  window.setAutoRun(false);
  if (!window.createProject(example, folder)) return false;
  window.runProject();
  return finished.wait(timeoutMs);
}

// The same in a window shown at 1500 x 950, the size the graph tests lay out in.
inline bool showCreateAndRun(studio::MainWindow& window, QSignalSpy& finished, const QString& folder) {
  window.resize(1500, 950);
  window.show();
  return createAndRun(window, finished, folder);
}

// The whole of a text file, as its bytes ("" when it cannot be read).
inline std::string readFile(const QString& path) {
  std::ifstream in(path.toStdString());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace pto::testing
