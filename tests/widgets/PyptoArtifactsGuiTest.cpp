// PyPTO's own artifacts opened in the IDE (issue 35 item 6): pass dumps in
// the Graphs tab, a health report in the Health dock, a core trace in the
// swimlane, a broken file refused with its place. The files are the
// hand-written ones of tests/data/pypto_artifacts; the counts are theirs,
// worked out by hand (tests/analysis/PyptoArtifactsTest.cpp).
#include "StudioGuiTestCase.h"
#include "analysis/irviews/PassSteps.h"
#include "app/studio/MainWindow.h"
#include "runtime/trace/Trace.h"
#include "widgets/GraphWorkbench.h"
#include "widgets/HealthPanel.h"
#include "widgets/IrGraphView.h"
#include "widgets/SwimlaneView.h"
#include "widgets/models/TraceIndex.h"

#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>

using pto::studio::MainWindow;

namespace {
const QString kData = QStringLiteral(PTO_SOURCE_DIR "/tests/data/pypto_artifacts/");
}

class PyptoArtifactsGuiTest : public pto::testing::StudioGuiTestCase {
  Q_OBJECT

private Q_SLOTS:
  void passDumpsOpenInTheGraphsTab() {
    MainWindow window;
    window.resize(1200, 800);
    window.show();
    QSignalSpy loaded(&window, &MainWindow::traceLoaded);
    QVERIFY(window.open(kData + QStringLiteral("passes")));
    QVERIFY(loaded.wait(10000));
    pto::widgets::GraphWorkbench& graphs = *window.graphs();
    QTRY_VERIFY_WITH_TIMEOUT(graphs.history() != nullptr, 10000);
    QCOMPARE(graphs.history()->steps.size(), std::size_t{3});
    QCOMPARE(graphs.passList()->topLevelItemCount(), 3);
    // The last pass shows first, at a level it dumped (no tile graph in CodegenPreproc's folder: block).
    QCOMPARE(graphs.level(), pto::GraphLevel::Block);
    QTRY_VERIFY_WITH_TIMEOUT(graphs.view()->graphLayout() && graphs.view()->graphLayout()->graph->nodes.size() == 3, 10000);
    graphs.setLevel(pto::GraphLevel::Tile);
    graphs.selectStep(1);  // GraphPartition: 10 tile ops in 2 subgraphs
    QTRY_VERIFY_WITH_TIMEOUT(graphs.view()->graphLayout() && graphs.view()->graphLayout()->graph->nodes.size() == 10, 10000);
    QCOMPARE(graphs.view()->graphLayout()->graph->clusters.size(), std::size_t{2});
    graphs.selectStep(0);  // ExpandFunction dumped no block graph: the view says so
    graphs.setLevel(pto::GraphLevel::Block);
    QTRY_VERIFY_WITH_TIMEOUT(!window.busy() && !graphs.view()->graphLayout(), 10000);
    graphs.selectStep(2);
    graphs.setLevel(pto::GraphLevel::Execute);  // two CALLs, not the (absent) run's task graph
    QTRY_VERIFY_WITH_TIMEOUT(graphs.view()->graphLayout() && graphs.view()->graphLayout()->graph->nodes.size() == 2, 10000);
    QVERIFY(!graphs.showingTaskGraph());
  }

  void healthReportOpensInTheHealthDock() {
    MainWindow window;
    QSignalSpy loaded(&window, &MainWindow::traceLoaded);
    QVERIFY(window.open(kData + QStringLiteral("After_030_OoOSchedule_TENSOR_softmax_2_LEAF_program_id_00_155_Block_Graph_Health_Report.json")));
    QVERIFY(loaded.wait(10000));
    QString text = window.health()->text();
    QVERIFY2(text.contains(QStringLiteral("totalCycles\t5120")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("PIPE_V_Usage_Rate\t50.0")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("[0].spillTensorMagic\t22")), qPrintable(text));
  }

  void coreTraceOpensInTheSwimlane() {
    MainWindow window;
    QSignalSpy loaded(&window, &MainWindow::traceLoaded);
    QVERIFY(window.open(kData + QStringLiteral("trace_core3.json")));
    QVERIFY(loaded.wait(10000));
    QVERIFY(window.swimlane()->traceIndex());
    const pto::trace::Trace& trace = window.swimlane()->traceIndex()->trace();
    QCOMPARE(trace.tasks().size(), std::size_t{5});
    QCOMPARE(trace.lanes().size(), std::size_t{4});
    QVERIFY(trace.findLane("core3 VECTOR").has_value());
  }

  void brokenReportIsRefusedWithItsPlace() {
    MainWindow window;
    QSignalSpy failed(&window, &MainWindow::openFailed);
    QVERIFY(window.open(kData + QStringLiteral("broken_TileGraphHealthReport.json")));
    QVERIFY(failed.wait(10000));
    QVERIFY2(failed.front().front().toString().contains(QStringLiteral("broken_TileGraphHealthReport.json:4:")),
             qPrintable(failed.front().front().toString()));
  }
};

QTEST_MAIN(PyptoArtifactsGuiTest)
#include "PyptoArtifactsGuiTest.moc"
