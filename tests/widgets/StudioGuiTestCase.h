// The base of the QtTest classes that drive the IDE's windows: settings and
// caches in QStandardPaths' test locations, and a new empty folder for every
// test function.
#pragma once

#include <QObject>
#include <QTemporaryDir>

#include <memory>

namespace pto::testing {

class StudioGuiTestCase : public QObject {
  Q_OBJECT

protected:
  // Test mode before any window exists: no test reads or writes the developer's settings.
  StudioGuiTestCase();

  // Replaces m_dir with a new empty folder (the last one is removed); false when none can be made. The
  // init() slot calls it; a test class with an init() of its own calls it there.
  bool makeScratchFolder();

  // The running test function's folder.
  std::unique_ptr<QTemporaryDir> m_dir;

private Q_SLOTS:
  void init();
};

} // namespace pto::testing
