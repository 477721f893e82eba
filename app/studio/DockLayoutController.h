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
class QWidget;

namespace pto::studio {

class DockLayoutController : public QObject {
  Q_OBJECT
public:
  enum class Dock { Source, Summary, Details, Tuning, Health, Problems, Runs, Measured, Advice, Memory };
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
  // last quit (a layout saved by an older set of docks is ignored).
  void restoreSaved();
  // Saves the geometry and layout for the next start (on quitting).
  void save();
  // View > Reset layout.
  void resetToDefault();
  // Dock sizes for a view brought forward (see MainWindow::showView):
  // fractions of the window, so each view reads the same at any size.
  void arrange(StudioView view);

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
  QByteArray m_defaultLayout;
};

} // namespace pto::studio
