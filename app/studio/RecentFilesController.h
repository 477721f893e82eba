// RecentFilesController: File > Open recent. Remembers the projects and
// traces opened (QSettings "recentFiles", newest first, at most eight, each
// once) and lists them in the menu it is given; choosing one asks the window
// to open it.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

class QMenu;

namespace pto::studio {

class RecentFilesController : public QObject {
  Q_OBJECT
public:
  explicit RecentFilesController(QMenu* menu, QObject* parent = nullptr);

  // `path` was opened: it goes to the top of the list (as an absolute path).
  void add(const QString& path);
  QStringList files() const;

  static constexpr int kMaxFiles = 8;

Q_SIGNALS:
  void openRequested(const QString& path);

private:
  void rebuildMenu();

  QMenu* m_menu;
};

} // namespace pto::studio
