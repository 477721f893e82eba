// File > Open recent, kept in QSettings.
#include "app/studio/RecentFilesController.h"

#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace pto::studio {

RecentFilesController::RecentFilesController(QMenu* menu, QObject* parent) : QObject(parent), m_menu(menu) {
  rebuildMenu();
}

QStringList RecentFilesController::files() const {
  return QSettings().value(QStringLiteral("recentFiles")).toStringList();
}

void RecentFilesController::add(const QString& path) {
  QStringList recent = files();
  QString absolute = QFileInfo(path).absoluteFilePath();
  recent.removeAll(absolute);
  recent.prepend(absolute);
  while (recent.size() > kMaxFiles) recent.removeLast();
  QSettings().setValue(QStringLiteral("recentFiles"), recent);
  rebuildMenu();
}

void RecentFilesController::rebuildMenu() {
  m_menu->clear();
  QStringList recent = files();
  for (const QString& path : recent) m_menu->addAction(path, this, [this, path] { Q_EMIT openRequested(path); });
  m_menu->setEnabled(!recent.isEmpty());
}

} // namespace pto::studio
