// The window's small controllers on their own, offscreen: File > Open recent
// (RecentFilesController) and the dock layout (DockLayoutController). The
// controllers that run jobs are driven through the main window by the other
// GUI tests.
#include "app/studio/DockLayoutController.h"
#include "app/studio/RecentFilesController.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>

#include <memory>

using pto::studio::DockLayoutController;
using pto::studio::RecentFilesController;

namespace {

// A window with a placeholder for every panel, laid out by its controller.
struct DockedWindow {
  QMainWindow window;
  std::unique_ptr<DockLayoutController> docks;

  DockedWindow() {
    window.setCentralWidget(new QLabel(QStringLiteral("centre")));
    DockLayoutController::Panels panels;
    for (QWidget** panel : {&panels.source, &panels.summary, &panels.details, &panels.tuning, &panels.health,
                            &panels.problems, &panels.runs, &panels.measured, &panels.advice, &panels.memory})
      *panel = new QLabel;
    docks = std::make_unique<DockLayoutController>(&window, panels);
    window.resize(1500, 900);
    docks->restoreSaved();
    window.show();
  }
  QDockWidget* dock(DockLayoutController::Dock which) const { return docks->dock(which); }
};

} // namespace

class StudioControllersGuiTest : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void init() {
    QSettings().remove(QStringLiteral("recentFiles"));
    QSettings().remove(QStringLiteral("window"));  // no layout from an earlier run
  }

  // Newest first, each file once, at most eight; the menu lists them and
  // choosing one asks for it to be opened.
  void recentFilesKeepTheNewestEightOnce() {
    QMenu menu;
    RecentFilesController recent(&menu);
    QVERIFY(!menu.isEnabled());  // nothing opened yet
    for (int i = 0; i < 10; ++i) recent.add(QStringLiteral("/tmp/project%1/pto-project.json").arg(i));
    recent.add(QStringLiteral("/tmp/project5/pto-project.json"));
    const QStringList files = recent.files();
    QCOMPARE(files.size(), RecentFilesController::kMaxFiles);
    QCOMPARE(files.front(), QStringLiteral("/tmp/project5/pto-project.json"));
    QCOMPARE(files.count(QStringLiteral("/tmp/project5/pto-project.json")), 1);
    QCOMPARE(files.back(), QStringLiteral("/tmp/project2/pto-project.json"));  // 0 and 1 fell off
    QVERIFY(menu.isEnabled());
    QCOMPARE(menu.actions().size(), RecentFilesController::kMaxFiles);
    QSignalSpy opened(&recent, &RecentFilesController::openRequested);
    menu.actions().at(1)->trigger();
    QCOMPARE(opened.size(), 1);
    QCOMPARE(opened.front().front().toString(), QStringLiteral("/tmp/project9/pto-project.json"));
    // A relative path is remembered as an absolute one.
    recent.add(QStringLiteral("trace.json"));
    QVERIFY(QFileInfo(recent.files().front()).isAbsolute());
  }

  // Every panel gets its dock, the View menu lists them in a fixed order, and
  // Reset layout puts back what the user closed.
  void docksHaveTheirPlaceAndResetBringsThemBack() {
    using Dock = DockLayoutController::Dock;
    DockedWindow first;
    QVERIFY(QTest::qWaitForWindowExposed(&first.window));
    DockLayoutController& docks = *first.docks;
    QMainWindow& window = first.window;

    QStringList order;
    for (QAction* action : docks.toggleActions()) order << action->text();
    QCOMPARE(order, (QStringList{"Source", "Task details", "Memory", "Inside task", "Tuning", "Summary", "Health", "Advice",
                                 "Runs", "Measured", "Problems"}));
    QCOMPARE(window.dockWidgetArea(docks.dock(Dock::Source)), Qt::LeftDockWidgetArea);
    QCOMPARE(window.dockWidgetArea(docks.dock(Dock::Problems)), Qt::BottomDockWidgetArea);
    QVERIFY(!docks.dock(Dock::Problems)->isVisible());  // until a run reports something
    // The run's pictures share the summary's place, as tabs.
    QVERIFY(window.tabifiedDockWidgets(docks.dock(Dock::Summary)).contains(docks.dock(Dock::Runs)));

    docks.dock(Dock::Source)->close();
    docks.raise(Dock::Problems);
    QVERIFY(docks.dock(Dock::Problems)->isVisible());
    docks.resetToDefault();
    QVERIFY(docks.dock(Dock::Source)->isVisible());
    QVERIFY(!docks.dock(Dock::Problems)->isVisible());

    // The layout saved on quitting comes back in the next window.
    docks.dock(Dock::Source)->close();
    docks.save();
    DockedWindow next;
    QVERIFY(QTest::qWaitForWindowExposed(&next.window));
    QVERIFY(!next.dock(Dock::Source)->isVisible());
  }

  // Issue 35: the centre keeps half the window. A dock that shows gives it
  // back what a wide column took; a layout is saved with the centre given
  // half first; and a layout saved by an older version (which could squeeze
  // the centre) is not restored: the default comes back instead.
  void theCentreKeepsHalfTheWindow() {
    using Dock = DockLayoutController::Dock;
    auto centreHasHalf = [](QMainWindow& window) {
      QApplication::processEvents();
      QApplication::processEvents();  // the check a dock's showing queues
      return 2 * window.centralWidget()->width() >= window.width();
    };
    auto squeeze = [](DockedWindow& docked) {  // as a drag of the right column's edge would
      docked.window.resizeDocks({docked.dock(Dock::Summary)}, {1000}, Qt::Horizontal);
      QApplication::processEvents();
      return 2 * docked.window.centralWidget()->width() < docked.window.width();
    };
    {
      DockedWindow docked;
      QVERIFY(QTest::qWaitForWindowExposed(&docked.window));
      QVERIFY(centreHasHalf(docked.window));  // the default
      QVERIFY(squeeze(docked));
      docked.dock(Dock::Runs)->toggleViewAction()->trigger();  // closed, then opened from the View menu
      docked.dock(Dock::Runs)->toggleViewAction()->trigger();
      QVERIFY(docked.dock(Dock::Runs)->isVisible());
      QVERIFY(centreHasHalf(docked.window));
      // Saved squeezed, with the Source dock closed: that comes back, the squeeze does not.
      QVERIFY(squeeze(docked));
      docked.dock(Dock::Source)->close();
      docked.docks->save();
    }
    {
      DockedWindow docked;
      QVERIFY(QTest::qWaitForWindowExposed(&docked.window));
      QVERIFY(centreHasHalf(docked.window));
      QVERIFY(!docked.dock(Dock::Source)->isVisible());
      // A squeezed layout as the version before saved it.
      QVERIFY(squeeze(docked));
      QSettings().setValue(QStringLiteral("window/state"), docked.window.saveState(DockLayoutController::kLayoutVersion - 1));
    }
    DockedWindow restored;
    QVERIFY(QTest::qWaitForWindowExposed(&restored.window));
    QVERIFY(centreHasHalf(restored.window));
    QVERIFY(restored.dock(Dock::Source)->isVisible());  // the default, not the older layout
  }
};

QTEST_MAIN(StudioControllersGuiTest)
#include "StudioControllersGuiTest.moc"
