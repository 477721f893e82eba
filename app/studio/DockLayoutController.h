// DockLayoutController: the window's docks and their layout. Puts each panel
// in its dock in the default arrangement, keeps that default for View > Reset
// layout, restores and saves the user's layout, and sizes the docks when a
// view is brought forward. The window makes and wires the panels.
#pragma once

#include "app/studio/StudioView.h"

#include <QByteArray>
#include <QList>
#include <QObject>

class QAction;
class QDockWidget;
class QMainWindow;
class QTimer;
class QWidget;

namespace pto::studio {

class DockLayoutController : public QObject {
  Q_OBJECT
public:
  // The version of the saved layout: bump when docks change, so old saved
  // layouts are ignored. 8: the centre keeps half the window (older versions
  // saved layouts that squeezed it).
  static constexpr int kLayoutVersion = 8;
  enum class Dock { Source, Summary, Details, Tuning, Health, Problems, Runs, Measured, Advice, Memory, InsideTask };
  // The content of each dock.
  struct Panels {
    QWidget* source = nullptr;
    QWidget* summary = nullptr;
    QWidget* details = nullptr;
    QWidget* tuning = nullptr;
    QWidget* health = nullptr;
    QWidget* problems = nullptr;
    QWidget* runs = nullptr;
    QWidget* measured = nullptr;
    QWidget* advice = nullptr;
    QWidget* memory = nullptr;
    QWidget* insideTask = nullptr;
  };

  // Source on the left; Summary, Health, Advice, Runs and Measured tabbed
  // above Task details, Memory and Tuning on the right; Problems below, hidden until
  // a run reports something.
  DockLayoutController(QMainWindow* window, const Panels& panels);

  QDockWidget* dock(Dock which) const;
  // Shows the dock and puts it on top of its tab group.
  void raise(Dock which);
  // The docks' show/hide actions, in the View menu's order.
  QList<QAction*> toggleActions() const;

  // Takes the window's layout as it is now as the default (call once the
  // window is complete), then puts back the geometry and layout saved on the
  // last quit (a layout saved by an older version is ignored).
  void restoreSaved();
  // Saves the geometry and layout for the next start (on quitting): the
  // centre is given half the window first, and a layout that cannot give
  // it that is not saved (the next start has the default).
  void save();
  // View > Reset layout.
  void resetToDefault();
  // Dock sizes for a view brought forward (see MainWindow::showView):
  // fractions of the window, so each view reads the same at any size.
  void arrange(StudioView view);
  // The swimlane or graph in the centre keeps at least half the window's
  // width: when the docks beside it take more, the left and right docks
  // give it back in proportion to their widths (as far as their minimum
  // widths allow). Done after each view's arrangement and whenever a dock
  // shows.
  void keepCentreHalf();
  // Whether the centre has at least half the window's width.
  bool centreHasHalf() const;

private:
  QDockWidget* add(QWidget* content, const QString& title, const QString& name, Qt::DockWidgetArea area);
  // On the right, a tab beside `beside`.
  QDockWidget* addBeside(QDockWidget* beside, QWidget* content, const QString& title, const QString& name);

  QMainWindow* m_window;
  QDockWidget* m_source = nullptr;
  QDockWidget* m_summary = nullptr;
  QDockWidget* m_details = nullptr;
  QDockWidget* m_tuning = nullptr;
  QDockWidget* m_health = nullptr;
  QDockWidget* m_problems = nullptr;
  QDockWidget* m_runs = nullptr;
  QDockWidget* m_measured = nullptr;
  QDockWidget* m_advice = nullptr;
  QDockWidget* m_memory = nullptr;
  QDockWidget* m_insideTask = nullptr;
  // The width the docked, shown docks of `area` take (tabs behind others
  // are moved out of the window and do not count).
  int areaWidth(Qt::DockWidgetArea area, QDockWidget** first = nullptr) const;

  QByteArray m_defaultLayout;
  QTimer* m_keepCentreTimer = nullptr;  // coalesces the docks' showing and hiding into one check
};

} // namespace pto::studio
