// The base of the IDE's QtTest classes (see the header).
#include "StudioGuiTestCase.h"

#include <QStandardPaths>
#include <QTest>

namespace pto::testing {

StudioGuiTestCase::StudioGuiTestCase() { QStandardPaths::setTestModeEnabled(true); }

bool StudioGuiTestCase::makeScratchFolder() {
  m_dir = std::make_unique<QTemporaryDir>();
  return m_dir->isValid();
}

void StudioGuiTestCase::init() { QVERIFY(makeScratchFolder()); }

} // namespace pto::testing
