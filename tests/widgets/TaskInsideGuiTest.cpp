// The Inside task dock, offscreen, on the softmax example: after a run it
// shows the run's longest task; selecting another task in the swimlane shows
// that one, each pipe a row whose instruction slices take exactly the busy
// cycles the swimlane's pipe intervals give that pipe (to a cycle per
// interval: the intervals are rounded outwards), and a slice is found under
// the mouse with its instruction and kernel line in the tooltip.
#include "app/studio/MainWindow.h"
#include "StudioGuiTestCase.h"
#include "StudioTestSupport.h"
#include "widgets/SwimlaneView.h"
#include "widgets/TaskInsideView.h"

#include <QSignalSpy>
#include <QTest>

#include <cmath>
#include <map>

using pto::studio::MainWindow;

class TaskInsideGuiTest : public pto::testing::StudioGuiTestCase {
  Q_OBJECT

private Q_SLOTS:
  void selectingATaskShowsItsPipes() {
    MainWindow window;
    window.resize(1500, 950);
    window.show();
    QSignalSpy finished(&window, &MainWindow::runFinished);
    QVERIFY(pto::testing::createAndRun(window, finished, m_dir->filePath(QStringLiteral("softmax")), QStringLiteral("softmax")));
    QVERIFY(finished.first().first().toBool());
    window.showView(MainWindow::View::InsideTask);
    pto::widgets::TaskInsideView* view = window.taskInside();
    QVERIFY(view->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(view->inside() != nullptr, 30000);

    window.swimlane()->selectTask(5, true);
    QTRY_VERIFY2_WITH_TIMEOUT(view->inside() && view->inside()->task == 5, qPrintable(view->message()), 30000);
    const pto::TaskInside& inside = *view->inside();
    QCOMPARE(inside.core.substr(0, 3), std::string("AIV"));
    QVERIFY(view->sliceCount() > 0);

    // The swimlane's pipe rows of task 5, from the trace.
    const pto::trace::Trace& trace = window.swimlane()->traceIndex()->trace();
    std::map<std::string, std::pair<double, int>> swimlaneBusy;  // cycles, intervals
    for (const auto& interval : trace.pipes(5)) {
      auto& [cycles, intervals] = swimlaneBusy[std::string(trace.str(interval.pipe))];
      cycles += static_cast<double>(interval.endNs - interval.startNs) * inside.clockGHz;
      ++intervals;
    }
    for (const pto::InsidePipe& pipe : inside.pipes) {
      if (pipe.instructions == 0) continue;
      const auto& [cycles, intervals] = swimlaneBusy[pipe.pipe];
      // Each interval is rounded outwards to whole cycles (< 2 cycles) and to nanoseconds (< 2 cycles at a2's clock).
      QVERIFY2(intervals > 0 && std::abs(pipe.busyCycles - cycles) <= 4.0 * intervals,
               qPrintable(QStringLiteral("%1: %2 vs %3").arg(QString::fromStdString(pipe.pipe)).arg(pipe.busyCycles).arg(cycles)));
    }

    // A slice under the mouse: scan the first pipe's row.
    const pto::InsideSlice* found = nullptr;
    QString pipe;
    for (int x = 0; x < view->width() && !found; ++x)
      for (int y = 0; y < view->height() && !found; y += 3)
        if (const pto::InsideSlice* slice = view->sliceAt(QPointF(x, y), &pipe); slice && !slice->wait) found = slice;
    QVERIFY(found != nullptr);
    const QString tip = pto::widgets::TaskInsideView::describe(inside, pipe, *found);
    QVERIFY2(tip.contains(QString::fromStdString(found->mnemonic)) && tip.contains(QStringLiteral("kernel.py:")),
             qPrintable(tip));
  }
};

QTEST_MAIN(TaskInsideGuiTest)
#include "TaskInsideGuiTest.moc"
