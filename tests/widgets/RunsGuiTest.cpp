// The Runs dock (issue 15), offscreen: a copy of the softmax example run
// twice with vec_nbuffer_setting softmax 1 then 8 (through the settings
// document, as the tuning panel edits it) is listed with the makespans the
// ledger holds (read here with RunLedger, not through the panel), the trend
// plot has a point per run and a click on one selects its run; comparing
// shows the older run's swimlane beneath the current one with its task count
// and captions, the two views keep one time axis through zoom and pan, and
// selecting a task in one selects its match in the other, and closing
// returns to the single swimlane. RunListModel runs under
// QAbstractItemModelTester.
#include "analysis/ledger/RunLedger.h"
#include "StudioGuiTestCase.h"
#include "app/studio/MainWindow.h"
#include "widgets/ProjectSettingsDocument.h"
#include "widgets/QCustomPlot.h"
#include "widgets/RunsPanel.h"
#include "widgets/SwimlanePane.h"
#include "widgets/SwimlaneView.h"
#include "widgets/models/RunListModel.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTreeView>

#include <cmath>

namespace {

using pto::studio::MainWindow;
using pto::widgets::RunListModel;

// The runs of the project in `folder`, newest first, read from its ledger directly.
std::vector<pto::RunRow> ledgerRows(const QString& folder) {
  pto::DiagnosticEngine diags;
  auto ledger = pto::RunLedger::open(folder.toStdString(), diags);
  if (!ledger) return {};
  auto rows = ledger->list(diags);
  return rows ? *rows : std::vector<pto::RunRow>{};
}

// Runs the open project with pass_options.vec_nbuffer_setting.softmax = `nbuffer`.
bool runWithNbuffer(MainWindow& window, int nbuffer) {
  window.settings()->setPassOption(QStringLiteral("vec_nbuffer_setting"), nlohmann::ordered_json{{"softmax", nbuffer}});
  QSignalSpy finished(&window, &MainWindow::runFinished);
  QSignalSpy listed(&window, &MainWindow::runsLoaded);
  window.runProject();
  if (!finished.wait(120000) || !finished.first().first().toBool()) return false;
  return listed.count() > 0 || listed.wait(20000);
}

} // namespace

class RunsGuiTest : public pto::testing::StudioGuiTestCase {
  Q_OBJECT

private Q_SLOTS:
  void twoRunsAreListedPlottedAndComparedOnOneTimeAxis() {
    const QString folder = m_dir->filePath(QStringLiteral("softmax"));
    MainWindow window;
    window.setAutoRun(false);
    window.resize(1500, 950);
    window.show();
    QVERIFY(window.createProject(QStringLiteral("softmax"), folder));
    window.showView(MainWindow::View::Runs);

    QVERIFY(runWithNbuffer(window, 1));
    const double firstMakespanUs = window.lastRun().makespanUs;
    const std::int64_t firstId = window.lastRun().ledgerRunId;
    QVERIFY(firstId > 0);
    QVERIFY(runWithNbuffer(window, 8));
    const std::int64_t secondId = window.lastRun().ledgerRunId;
    QVERIFY(secondId > firstId);

    // The panel lists the ledger's two runs, newest first, with its makespans.
    const std::vector<pto::RunRow> rows = ledgerRows(folder);
    QCOMPARE(rows.size(), std::size_t(2));
    RunListModel* model = window.runs()->model();
    QTRY_COMPARE(model->rowCount(), 2);
    QTRY_VERIFY(model->index(0, 0).data(RunListModel::CurrentRole).toBool());  // listed after the second run
    for (int row = 0; row < 2; ++row) {
      QCOMPARE(model->idAt(row), rows[static_cast<std::size_t>(row)].id);
      QCOMPARE(model->index(row, 0).data(RunListModel::MakespanUsRole).toDouble(), rows[static_cast<std::size_t>(row)].makespanUs);
    }
    QCOMPARE(model->idAt(0), secondId);
    QVERIFY(model->index(0, 0).data(RunListModel::CurrentRole).toBool());
    // The ledger holds what the runs reported (to the µs text's precision, 1e-9 relative).
    QVERIFY(std::abs(rows[1].makespanUs - firstMakespanUs) <= 1e-9 * firstMakespanUs);
    QVERIFY(std::abs(rows[0].makespanUs - window.lastRun().makespanUs) <= 1e-9 * rows[0].makespanUs);
    // The settings column names the change from the run before.
    QString changed = model->index(0, RunListModel::ChangedColumn).data().toString();
    QVERIFY2(changed.contains(QStringLiteral("vec_nbuffer_setting.softmax 1 → 8")), qPrintable(changed));

    // The trend has a point per run; clicking the older one selects it.
    pto::widgets::RunsPanel* panel = window.runs();
    QCOMPARE(panel->trendPointCount(), 2);
    panel->trendPlot()->replot();
    panel->selectRun(secondId);
    QPointF older = panel->trendPointOf(firstId);
    QVERIFY(!older.isNull());
    QTest::mouseClick(panel->trendPlot(), Qt::LeftButton, {}, older.toPoint());
    QCOMPARE(panel->selectedRunId(), firstId);

    // Compare: B (the first run) beneath A (the current run).
    pto::widgets::SwimlanePane* pane = window.swimlanePane();
    QVERIFY(!pane->comparing());
    QSignalSpy shown(&window, &MainWindow::comparisonShown);
    QVERIFY(panel->compareButton()->isEnabled());
    QTest::mouseClick(panel->compareButton(), Qt::LeftButton);
    QVERIFY(shown.wait(20000));
    QVERIFY(pane->comparing());
    QCOMPARE(window.comparedRunId(), firstId);
    pto::widgets::SwimlaneView* a = pane->view();
    pto::widgets::SwimlaneView* b = pane->comparisonView();
    QVERIFY(b->isVisible());
    QVERIFY(b->traceIndex());
    QCOMPARE(b->traceIndex()->trace().tasks().size(), static_cast<std::size_t>(rows[1].tasks));
    QCOMPARE(a->traceIndex()->trace().tasks().size(), static_cast<std::size_t>(rows[0].tasks));
    const QString captionA = pane->captionA()->text();
    const QString captionB = pane->captionB()->text();
    QVERIFY2(captionA.contains(QStringLiteral("A: current run (%1 µs)").arg(rows[0].makespanUs, 0, 'f', 3)), qPrintable(captionA));
    QVERIFY2(captionB.contains(QStringLiteral("B: run #%1 (%2 µs)").arg(firstId).arg(rows[1].makespanUs, 0, 'f', 3)),
             qPrintable(captionB));
    const QString summary = panel->comparisonText();
    QVERIFY2(summary.contains(QStringLiteral("Makespan B − A")), qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("vec_nbuffer_setting")), qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("softmax")), qPrintable(summary));  // the label row

    // Selecting a task in B selects the same task (by identity) in A: the
    // first B task with a match (8 tiles per task in A, 1 in B: some of B's
    // tasks have no task of their own in A).
    const auto& tasksB = b->traceIndex()->trace();
    const auto& tasksA = a->traceIndex()->trace();
    pto::trace::TaskIndex matched = pto::trace::kNoTask;
    for (pto::trace::TaskIndex t = 0; t < tasksB.tasks().size() && matched == pto::trace::kNoTask; ++t) {
      b->selectTask(t, false);
      if (a->selectedTask() != pto::trace::kNoTask) matched = t;
    }
    QVERIFY(matched != pto::trace::kNoTask);
    QCOMPARE(tasksA.str(tasksA.tasks()[a->selectedTask()].label), tasksB.str(tasksB.tasks()[matched].label));
    QCOMPARE(b->selectedTask(), matched);
    a->selectTask(pto::trace::kNoTask, false);
    QCOMPARE(b->selectedTask(), pto::trace::kNoTask);
    a->fit();

    // One time axis: the two views are equally wide, show the same range
    // after a zoom in A and after a pan in B, and fit the longer run.
    QCOMPARE(a->width(), b->width());
    auto sameRange = [&] {
      double span = a->visibleEndNs() - a->visibleStartNs();
      return std::abs(a->visibleStartNs() - b->visibleStartNs()) <= 1e-9 * span &&
             std::abs(a->visibleEndNs() - b->visibleEndNs()) <= 1e-9 * span;
    };
    QVERIFY(sameRange());
    const double longer = std::max(a->traceIndex()->endNs(), b->traceIndex()->endNs());
    QVERIFY(a->visibleEndNs() >= longer);
    a->zoomBy(4.0);
    QVERIFY(sameRange());
    QVERIFY(b->visibleEndNs() - b->visibleStartNs() < longer / 3);
    b->setFocus();
    QTest::keyClick(b, Qt::Key_D);  // pan B right
    QVERIFY(sameRange());
    const double afterPan = a->visibleStartNs();
    QTest::keyClick(b, Qt::Key_A);
    QVERIFY(a->visibleStartNs() < afterPan);
    QVERIFY(sameRange());
    QVERIFY(b->visibleEndNs() - b->visibleStartNs() < longer / 3);

    // Close: the single swimlane again, on A's own time span.
    QTest::mouseClick(panel->closeButton(), Qt::LeftButton);
    QVERIFY(!pane->comparing());
    QVERIFY(!b->isVisible());
    QVERIFY(!pane->captionA()->isVisible());
    QCOMPARE(window.comparedRunId(), std::int64_t(0));
    QVERIFY(panel->comparisonText().isEmpty());
    QCOMPARE(a->state().coords.extentEndNs(), a->traceIndex()->endNs());
  }

  // Issue 35: a plain open runs the project and adds no ledger row; the
  // first recorded run after an open records the opening run before it when
  // the two differ (the run an edit is compared with); a Run records even
  // when it repeats a run; an open that repeats a recorded run shows it as
  // the current run. The rows are read with RunLedger, not the panel.
  void openingRecordsNoRunButRunDoes() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString folder = dir.filePath(QStringLiteral("softmax"));
    MainWindow window;
    window.setAutoRun(false);
    QVERIFY(window.createProject(QStringLiteral("softmax"), folder));  // auto-run off: opened, not run
    window.setAutoRun(true);
    QSignalSpy finished(&window, &MainWindow::runFinished);
    auto runFinishedWell = [&finished] { return finished.wait(60000) && finished.last().first().toBool(); };
    for (int open = 0; open < 2; ++open) {
      QVERIFY(window.open(folder));
      QVERIFY(runFinishedWell());
      QCOMPARE(ledgerRows(folder).size(), std::size_t(0));
      QCOMPARE(window.lastRun().ledgerRunId, std::int64_t(0));
    }
    const double openedMakespanUs = window.lastRun().makespanUs;

    // An edit's run: the opening run, then the edited one.
    window.settings()->setPassOption(QStringLiteral("vec_nbuffer_setting"), nlohmann::ordered_json{{"softmax", 8}});
    window.runProject();
    QVERIFY(runFinishedWell());
    std::vector<pto::RunRow> rows = ledgerRows(folder);
    QCOMPARE(rows.size(), std::size_t(2));
    QVERIFY(std::abs(rows[1].makespanUs - openedMakespanUs) <= 1e-9 * openedMakespanUs);
    const nlohmann::ordered_json::json_pointer nbuffer("/pass_options/vec_nbuffer_setting/softmax");
    QCOMPARE(rows[1].settings.value(nbuffer, 0), 0);
    QCOMPARE(rows[0].settings.value(nbuffer, 0), 8);
    QCOMPARE(window.lastRun().ledgerRunId, rows[0].id);

    // Run again, nothing changed: one row more.
    window.runProject();
    QVERIFY(runFinishedWell());
    rows = ledgerRows(folder);
    QCOMPARE(rows.size(), std::size_t(3));
    QCOMPARE(window.lastRun().ledgerRunId, rows[0].id);
    QVERIFY(window.save());

    // Opening the saved project again repeats the newest run: no row, and
    // that run is the current one in the Runs panel.
    QVERIFY(window.open(folder));
    QVERIFY(runFinishedWell());
    QCOMPARE(ledgerRows(folder).size(), std::size_t(3));
    QCOMPARE(window.lastRun().ledgerRunId, rows[0].id);
    QVERIFY(!window.lastRun().recorded);
    RunListModel* model = window.runs()->model();
    QTRY_COMPARE(model->rowCount(), 3);
    QTRY_VERIFY(model->index(0, 0).data(RunListModel::CurrentRole).toBool());
    window.setAutoRun(false);
  }

  void theRunListModelPassesTheModelTester() {
    pto::RunRow older;
    older.id = 1;
    older.makespanUs = 20.0;
    older.settings = {{"machine", "a2"}};
    pto::RunRow newer = older;
    newer.id = 2;
    newer.makespanUs = 12.5;
    newer.settings = {{"machine", "a3"}};
    RunListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setHistory(pto::runHistory({newer, older}, 2));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(1, RunListModel::AgainstCurrentColumn).data().toString(), QStringLiteral("machine a3 → a2")  /* current (a3) → this run (a2) */);
    QCOMPARE(model.index(0, RunListModel::DeltaColumn).data().toString(), QStringLiteral("-7.500 (-37.5%)"));
    model.setHistory({});
    QCOMPARE(model.rowCount(), 0);
  }
};

QTEST_MAIN(RunsGuiTest)
#include "RunsGuiTest.moc"
