// The Memory dock, offscreen, on the softmax example: after a run it shows the fullest subgraph's map;
// selecting a task in the swimlane shows that task's, with one box per buffer the kernel's tile shapes give
// (per task 4 column tiles of x loaded, x - max, exp and the quotient, plus the row max and the row sum: 18,
// worked out from kernel.py's (1, 4, 1, 64) tiles of a 256-wide row), every one of them found under the
// mouse; a rerun keeps the selected task's map; and a trace file, which has no compilation, says so
// instead of showing a stale map.
#include "app/studio/MainWindow.h"
#include "app/studio/MemoryMapController.h"
#include "runtime/trace/ChromeTraceWriter.h"
#include "StudioTestSupport.h"
#include "widgets/MemoryMapView.h"
#include "widgets/SwimlaneView.h"

#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using pto::studio::MainWindow;

class MemoryMapGuiTest : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void selectingATaskShowsItsBuffers() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    MainWindow window;
    window.resize(1500, 950);
    window.show();
    QSignalSpy finished(&window, &MainWindow::runFinished);
    QVERIFY(pto::testing::createAndRun(window, finished, dir.filePath(QStringLiteral("softmax")), QStringLiteral("softmax")));
    QVERIFY(finished.first().first().toBool());
    window.showView(MainWindow::View::Memory);
    pto::widgets::MemoryMapView* view = window.memoryMap();
    QVERIFY(view->isVisible());
    // With nothing selected: the subgraph that fills its memory most.
    QTRY_VERIFY_WITH_TIMEOUT(view->map() != nullptr, 10000);
    QVERIFY(!view->map()->task);

    window.swimlane()->selectTask(5, true);
    QTRY_VERIFY_WITH_TIMEOUT(view->map() && view->map()->task && view->map()->task->task == 5, 10000);
    const pto::MemoryMap& map = *view->map();
    QCOMPARE(map.coreType, std::string("AIV"));
    QCOMPARE(map.spaces.size(), std::size_t(1));
    QCOMPARE(view->boxCount(), 18);

    // Every box answers the mouse: a scan of the view finds each buffer once at least.
    std::set<const pto::MemoryMapBuffer*> found;
    for (int y = 0; y < view->height(); y += 2)
      for (int x = 0; x < view->width(); x += 2)
        if (const pto::MemoryMapBuffer* buffer = view->bufferAt(QPointF(x, y))) found.insert(buffer);
    QCOMPARE(found.size(), std::size_t(18));
    const pto::MemoryMapBuffer& first = map.spaces[0].buffers[0];
    const QString tip = pto::widgets::MemoryMapView::describe(map.spaces[0], first);
    QVERIFY2(tip.contains(QStringLiteral("kernel.py:14")) && tip.contains(QStringLiteral("UB offset 0")), qPrintable(tip));

    // A rerun keeps the task's map: the swimlane drops its selection with the old trace, the dock does not.
    const auto* before = view->map();
    finished.clear();
    window.runProject();
    QVERIFY(finished.wait(60000));
    QTRY_VERIFY_WITH_TIMEOUT(view->map() && view->map() != before, 10000);
    QVERIFY(view->map()->task);
    QCOMPARE(view->map()->task->task, 5);
    QCOMPARE(view->boxCount(), 18);

    // A swimlane file has no compilation: the view says so rather than keep the run's map.
    const QString traceFile = dir.filePath(QStringLiteral("trace.json"));
    std::string error;
    QVERIFY(pto::trace::writeChromeTraceFile(window.swimlane()->traceIndex()->trace(), traceFile.toStdString(), error));
    QSignalSpy loaded(&window, &MainWindow::traceLoaded);
    QVERIFY(window.open(traceFile));
    QVERIFY(loaded.wait(10000));
    QTRY_VERIFY_WITH_TIMEOUT(!view->map(), 10000);
    QVERIFY(view->message().contains(QStringLiteral("run the project")));
  }
};

QTEST_MAIN(MemoryMapGuiTest)
#include "MemoryMapGuiTest.moc"
