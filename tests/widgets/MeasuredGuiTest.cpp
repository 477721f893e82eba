// A measured trace beside the run (issue 32), offscreen: the calibration
// example is run, a "measured" trace is made from that run's swimlane with
// every compute task 1.5 times as long (so the expected errors are known
// here, not taken from the code under test), and compared: the trace shows
// beneath the run on one time axis, both coloured by error (compute > 25 %
// longer, the rest within 3 %), the Measured dock lists the ten largest
// mismatches (the compute tasks first, +50 %), a click selects the task in
// both swimlanes, and closing restores the run's own colours.
// MismatchListModel runs under QAbstractItemModelTester.
#include "StudioGuiTestCase.h"
#include "app/studio/MainWindow.h"
#include "runtime/trace/ChromeTraceWriter.h"
#include "widgets/MeasuredPanel.h"
#include "widgets/SwimlanePane.h"
#include "widgets/SwimlaneView.h"
#include "widgets/models/MismatchListModel.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

namespace {

using pto::studio::MainWindow;
using pto::widgets::ErrorClass;
using pto::widgets::MismatchListModel;

// The run's swimlane with the tasks labelled `stretched` `factor` times as long.
pto::trace::Trace stretchedCopy(const pto::trace::Trace& run, std::string_view stretched, double factor) {
  pto::trace::Trace copy;
  for (const pto::trace::Lane& lane : run.lanes()) copy.addLane(run.str(lane.name), lane.sortIndex);
  for (pto::trace::TaskIndex t = 0; t < run.tasks().size(); ++t) {
    pto::trace::Task task = run.tasks()[t];
    task.name = copy.intern(run.str(task.name));
    task.label = copy.intern(run.str(task.label));
    task.sourceFile = task.inputs = task.outputs = pto::trace::kEmptyString;
    if (run.str(run.tasks()[t].label) == stretched)
      task.endNs = task.startNs + static_cast<std::int64_t>(static_cast<double>(task.durNs()) * factor);
    std::vector<pto::trace::TaskArg> args;
    for (const pto::trace::TaskArg& arg : run.args(t))
      args.push_back({copy.intern(run.str(arg.key)), copy.intern(run.str(arg.value)), arg.raw});
    copy.addTask(task, {}, args);
  }
  copy.finalize();
  return copy;
}

} // namespace

class MeasuredGuiTest : public pto::testing::StudioGuiTestCase {
  Q_OBJECT

private Q_SLOTS:
  void aMeasuredTraceShowsBeneathTheRunColouredByErrorWithItsLargestMismatches() {
    MainWindow window;
    window.setAutoRun(false);
    window.resize(1500, 950);
    window.show();
    QVERIFY(window.createProject(QStringLiteral("calibration"), m_dir->filePath(QStringLiteral("calibration"))));
    QSignalSpy finished(&window, &MainWindow::runFinished);
    window.runProject();
    QVERIFY(finished.wait(120000));
    QVERIFY(finished.first().first().toBool());

    const auto runTrace = window.lastRun().trace;
    QVERIFY(runTrace);
    const std::string measuredFile = m_dir->filePath(QStringLiteral("merged_swimlane.json")).toStdString();
    std::string error;
    QVERIFY(pto::trace::writeChromeTraceFile(stretchedCopy(runTrace->trace(), "compute", 1.5), measuredFile, error));

    QSignalSpy shown(&window, &MainWindow::comparisonShown);
    QVERIFY(window.compareWithMeasured(QString::fromStdString(measuredFile)));
    QVERIFY(shown.wait(60000));

    // Both swimlanes, one time axis, both in the error colours.
    pto::widgets::SwimlanePane* pane = window.swimlanePane();
    pto::widgets::SwimlaneView* measured = pane->comparisonView();
    QVERIFY(measured->isVisible());
    QCOMPARE(measured->traceIndex()->trace().tasks().size(), runTrace->trace().tasks().size());
    QCOMPARE(pane->view()->colorMode(), pto::widgets::SwimlaneColorMode::Error);
    QCOMPARE(measured->colorMode(), pto::widgets::SwimlaneColorMode::Error);
    QCOMPARE(measured->visibleStartNs(), pane->view()->visibleStartNs());
    QCOMPARE(measured->visibleEndNs(), pane->view()->visibleEndNs());
    const auto& indexA = pane->view()->traceIndex();
    QVERIFY(indexA->hasErrors());
    for (pto::trace::TaskIndex t = 0; t < indexA->trace().tasks().size(); ++t) {
      const bool compute = indexA->trace().str(indexA->trace().tasks()[t].label) == "compute";
      QCOMPARE(indexA->errorClass(t), compute ? ErrorClass::MuchLonger : ErrorClass::Close);
      QCOMPARE(measured->traceIndex()->errorClass(t), compute ? ErrorClass::MuchLonger : ErrorClass::Close);
    }

    // The largest mismatches: the eight compute tasks first, each +50 % (1 ns rounding aside).
    MismatchListModel* model = window.measuredPanel()->model();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model->rowCount(), 10);
    for (int row = 0; row < 8; ++row) {
      QCOMPARE(model->rows()[static_cast<std::size_t>(row)].label, std::string("compute"));
      QVERIFY(std::abs(model->index(row, 0).data(MismatchListModel::ErrorRole).toDouble() - 0.5) < 0.01);
    }
    QCOMPARE(model->index(0, MismatchListModel::ErrorColumn).data().toString().left(3), QStringLiteral("+50"));

    // A click selects the task in the measured swimlane and its twin in the run's.
    QTableView* table = window.measuredPanel()->table();
    const QModelIndex first = model->index(0, 0);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(first).center());
    const auto measuredTask = static_cast<pto::trace::TaskIndex>(first.data(MismatchListModel::MeasuredTaskRole).toULongLong());
    const auto simulatedTask = static_cast<pto::trace::TaskIndex>(first.data(MismatchListModel::SimulatedTaskRole).toULongLong());
    QCOMPARE(measured->selectedTask(), measuredTask);
    QCOMPARE(pane->view()->selectedTask(), simulatedTask);

    // Closing: one swimlane again, in the run's own colours.
    window.closeRunComparison();
    QVERIFY(!measured->isVisible());
    QCOMPARE(pane->view()->colorMode(), pto::widgets::SwimlaneColorMode::Label);
    QVERIFY(!pane->view()->traceIndex()->hasErrors());
  }

  void anotherKernelsTraceIsRefusedInTheDock() {
    MainWindow window;
    window.setAutoRun(false);
    window.show();
    QVERIFY(window.createProject(QStringLiteral("calibration"), m_dir->filePath(QStringLiteral("calibration"))));
    QSignalSpy finished(&window, &MainWindow::runFinished);
    window.runProject();
    QVERIFY(finished.wait(120000));
    // A trace of one task with a label the kernel does not have.
    pto::trace::Trace other;
    pto::trace::Task task;
    task.lane = other.addLane("AIV_0", 0);
    task.label = other.intern("softmax");
    task.endNs = 1000;
    other.addTask(task);
    other.finalize();
    const std::string file = m_dir->filePath(QStringLiteral("other.json")).toStdString();
    std::string error;
    QVERIFY(pto::trace::writeChromeTraceFile(other, file, error));
    QSignalSpy shown(&window, &MainWindow::comparisonShown);
    QVERIFY(window.compareWithMeasured(QString::fromStdString(file)));
    QVERIFY(shown.wait(60000));
    QVERIFY(window.measuredPanel()->caption()->text().contains(QStringLiteral("looks like another kernel's")));
    QCOMPARE(window.measuredPanel()->model()->rowCount(), 0);
    QVERIFY(!window.swimlanePane()->comparisonView()->isVisible());
  }
};

QTEST_MAIN(MeasuredGuiTest)
#include "MeasuredGuiTest.moc"
