// The Graphs tab, offscreen: every level of muls_add_matmul_rowsum lays out
// (off the GUI thread), the pass list steps through all 13 passes with the
// diff marks of each, and dragging the MulS tile of one scale_add subgraph
// onto another moves MulS and Add of that tile (one label, one line) into
// it: the override is saved in the project, the rerun has one task fewer
// (the tile arithmetic of kernel.py: 4 scale_add + 1 matmul + 2 rowsum tasks
// become 3 + 1 + 2), and Undo brings the 7 tasks back. An illegal target
// (the matmul's cube subgraph) is refused with the compiler's reason.
#include "widgets/GraphWorkbench.h"
#include "app/studio/MainWindow.h"
#include "StudioGuiTestCase.h"
#include "StudioTestSupport.h"
#include "widgets/IrGraphView.h"
#include "widgets/TaskGraphView.h"
#include "widgets/ProjectSettingsDocument.h"
#include "widgets/SwimlaneView.h"

#include <QComboBox>
#include <QListWidget>
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <QTreeWidget>
#include <QUndoStack>

#include <map>
#include <vector>
#include <thread>

class GraphWorkbenchGuiTest : public pto::testing::StudioGuiTestCase {
  Q_OBJECT

  // Waits until the workbench shows a layout of `level` and nothing is pending.
  bool waitForLayout(pto::studio::MainWindow& window, pto::GraphLevel level) {
    auto* graphs = window.graphs();
    for (int i = 0; i < 600; ++i) {
      const auto* layout = graphs->view()->graphLayout();
      if (!window.busy() && layout && layout->graph && layout->graph->level == level) return true;
      QTest::qWait(50);
    }
    return false;
  }

  std::size_t taskCount(pto::studio::MainWindow& window) {
    return window.swimlane()->traceIndex()->trace().tasks().size();
  }

  // The example made a project in a shown window, run once and its tile graph laid out: the graph's view,
  // or null when the run or the layout did not come.
  pto::widgets::IrGraphView* runAndShowTheTileGraph(pto::studio::MainWindow& window, QSignalSpy& finished) {
    if (!pto::testing::showCreateAndRun(window, finished, m_dir->filePath(QStringLiteral("op")))) return nullptr;
    window.showGraphLevel(pto::GraphLevel::Tile);
    return waitForLayout(window, pto::GraphLevel::Tile) ? window.graphs()->view() : nullptr;
  }

private Q_SLOTS:
  void everyLevelLaysOutOffTheGuiThreadAndThePassesStep() {
    pto::studio::MainWindow window;
    QSignalSpy finished(&window, &pto::studio::MainWindow::runFinished);
    QVERIFY(pto::testing::showCreateAndRun(window, finished, m_dir->filePath(QStringLiteral("op"))));
    auto* graphs = window.graphs();
    for (pto::GraphLevel level : {pto::GraphLevel::Tensor, pto::GraphLevel::Tile, pto::GraphLevel::Block}) {
      window.showGraphLevel(level);
      QVERIFY2(waitForLayout(window, level), pto::name(level).data());
      const auto* layout = graphs->view()->graphLayout();
      QVERIFY(!layout->items.empty());
      QVERIFY(layout->laidOutOn != std::this_thread::get_id());  // dot ran on a worker
    }
    // The tensor graph: muls, add, matmul, sum (and the assemble into out).
    window.showGraphLevel(pto::GraphLevel::Tensor);
    QVERIFY(waitForLayout(window, pto::GraphLevel::Tensor));
    QVERIFY(graphs->view()->graphLayout()->graph->nodes.size() >= 4);

    // Every pass, with its marks: the view marks exactly the nodes the pass added or changed.
    window.showGraphLevel(pto::GraphLevel::Tile);
    QVERIFY(waitForLayout(window, pto::GraphLevel::Tile));
    QCOMPARE(graphs->passList()->topLevelItemCount(), 13);
    QCOMPARE(graphs->currentStep(), 12);
    graphs->selectStep(0);
    for (int step = 0; step < 13; ++step) {
      QTRY_COMPARE_WITH_TIMEOUT(graphs->currentStep(), step, 5000);
      QVERIFY(waitForLayout(window, pto::GraphLevel::Tile));
      QTest::keyClick(graphs->view(), Qt::Key_J);  // j: the next pass
    }
    QCOMPARE(graphs->currentStep(), 12);  // j stops at the last pass
    // ForwardAssemble added the two row sums that now write `out`.
    int forward = -1;
    for (int i = 0; i < 13; ++i)
      if (graphs->passList()->topLevelItem(i)->text(1) == QStringLiteral("ForwardAssemble")) forward = i;
    QVERIFY(forward > 0);
    graphs->selectStep(forward);
    QVERIFY(waitForLayout(window, pto::GraphLevel::Tile));
    QCOMPARE(graphs->passList()->topLevelItem(forward)->text(3), QStringLiteral("11 (+2 -4)"));  // 13 tile ops before it
  }

  // Keys 1-4 switch the level whichever graph view has the focus, the task
  // graph that shows the execute level too (issue 35), and the focus goes
  // to the view that shows the new level.
  void levelKeysWorkInEveryGraphView() {
    pto::studio::MainWindow window;
    QSignalSpy finished(&window, &pto::studio::MainWindow::runFinished);
    QVERIFY(pto::testing::showCreateAndRun(window, finished, m_dir->filePath(QStringLiteral("op"))));
    pto::widgets::GraphWorkbench* graphs = window.graphs();
    QWidget* taskGraph = window.taskGraph();
    window.showGraphLevel(pto::GraphLevel::Execute);
    QVERIFY(graphs->showingTaskGraph());
    QTest::keyClick(taskGraph, Qt::Key_2);
    QCOMPARE(graphs->level(), pto::GraphLevel::Tile);
    QVERIFY(!graphs->showingTaskGraph());
    QCOMPARE(window.focusWidget(), static_cast<QWidget*>(graphs->view()));
    QVERIFY(waitForLayout(window, pto::GraphLevel::Tile));
    QTest::keyClick(graphs->view(), Qt::Key_1);
    QCOMPARE(graphs->level(), pto::GraphLevel::Tensor);
    QTest::keyClick(graphs->view(), Qt::Key_3);
    QCOMPARE(graphs->level(), pto::GraphLevel::Block);
    QTest::keyClick(graphs->view(), Qt::Key_4);
    QCOMPARE(graphs->level(), pto::GraphLevel::Execute);
    QVERIFY(graphs->showingTaskGraph());
    QCOMPARE(window.focusWidget(), taskGraph);
    QTest::keyClick(taskGraph, Qt::Key_3);
    QCOMPARE(graphs->level(), pto::GraphLevel::Block);
    QTest::keyClick(graphs->passList(), Qt::Key_1);
    QCOMPARE(graphs->level(), pto::GraphLevel::Tensor);
    QVERIFY(waitForLayout(window, pto::GraphLevel::Tensor));
  }

  // Expanding a group keeps its first node where the group was; stepping
  // passes keeps the selected node where it was on screen.
  void expandingAndSteppingKeepTheNodeInView() {
    pto::studio::MainWindow window;
    QSignalSpy finished(&window, &pto::studio::MainWindow::runFinished);
    auto* view = runAndShowTheTileGraph(window, finished);
    QVERIFY(view);
    auto* groupBox = window.graphs()->findChild<QComboBox*>(QStringLiteral("GraphGrouping"));
    QVERIFY(groupBox);
    groupBox->setCurrentIndex(groupBox->findData(static_cast<int>(pto::GraphGrouping::Subgraph)));
    QTRY_VERIFY_WITH_TIMEOUT(view->graphLayout()->visible.items.size() == 7u && !window.busy(), 10000);  // 7 subgraphs, 7 boxes
    const auto* grouped = view->graphLayout();
    int box = -1;
    for (std::size_t i = 0; i < grouped->visible.items.size(); ++i)
      if (grouped->visible.items[i].group >= 0 && grouped->visible.items[i].title.find("scale_add") != std::string::npos)
        box = static_cast<int>(i);
    QVERIFY(box >= 0);
    QPoint at = view->widgetPosOfItem(box).toPoint();
    std::string firstKey = grouped->graph->nodes[static_cast<std::size_t>(grouped->visible.items[static_cast<std::size_t>(box)].members.front())].key;
    QTest::mouseDClick(view, Qt::LeftButton, {}, at);
    QTRY_VERIFY_WITH_TIMEOUT(view->graphLayout() != grouped && !window.busy(), 10000);
    const auto* expanded = view->graphLayout();
    int node = -1;
    for (std::size_t n = 0; n < expanded->graph->nodes.size(); ++n)
      if (expanded->graph->nodes[n].key == firstKey) node = static_cast<int>(n);
    QPointF now = view->widgetPosOfItem(expanded->itemOfNode(node));
    QVERIFY2(QLineF(now, QPointF(at)).length() <= 1.5, qPrintable(QStringLiteral("moved from %1,%2 to %3,%4").arg(at.x()).arg(at.y()).arg(now.x()).arg(now.y())));

    // Select that node and step back a pass: it stays put on screen.
    QTest::mouseClick(view, Qt::LeftButton, {}, now.toPoint());
    QCOMPARE(view->selectedNode(), node);  // and the swimlane's answer does not move the selection
    now = view->widgetPosOfItem(expanded->itemOfNode(node));
    int step = window.graphs()->currentStep();
    window.graphs()->selectStep(step - 1);
    QTRY_VERIFY_WITH_TIMEOUT(view->graphLayout() != expanded && !window.busy(), 10000);
    int again = view->selectedNode();
    QVERIFY(again >= 0);
    QPointF after = view->widgetPosOfItem(view->graphLayout()->itemOfNode(again));
    QVERIFY(QLineF(after, now).length() <= 1.5);
  }

  void draggingATileOpIntoAnotherSubgraphSavesAnOverrideRerunsAndUndoes() {
    pto::studio::MainWindow window;
    QSignalSpy finished(&window, &pto::studio::MainWindow::runFinished);
    QString folder = m_dir->filePath(QStringLiteral("op"));
    QVERIFY(pto::testing::showCreateAndRun(window, finished, folder));
    QCOMPARE(taskCount(window), std::size_t(7));
    window.showGraphLevel(pto::GraphLevel::Tile);
    QVERIFY(waitForLayout(window, pto::GraphLevel::Tile));
    auto* view = window.graphs()->view();
    const auto* layout = view->graphLayout();
    const pto::IrGraph& graph = *layout->graph;

    // MulS tile 1 (its own subgraph with Add tile 1), MulS tile 0's subgraph, the matmul's.
    int muls1 = -1, muls0 = -1, matmul = -1;
    for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
      if (graph.nodes[n].kind == "muls" && graph.nodes[n].tileIndex == 1) muls1 = static_cast<int>(n);
      if (graph.nodes[n].kind == "muls" && graph.nodes[n].tileIndex == 0) muls0 = static_cast<int>(n);
      if (graph.nodes[n].kind == "matmul") matmul = static_cast<int>(n);
    }
    QVERIFY(muls1 >= 0 && muls0 >= 0 && matmul >= 0);
    int target = graph.nodes[static_cast<std::size_t>(muls0)].cluster;
    int cube = graph.nodes[static_cast<std::size_t>(matmul)].cluster;
    QVERIFY(target != graph.nodes[static_cast<std::size_t>(muls1)].cluster);
    QPoint from = view->widgetPosOfItem(layout->itemOfNode(muls1)).toPoint();
    QPoint onTarget = view->widgetPosOfCluster(target).toPoint();
    QPoint onCube = view->widgetPosOfCluster(cube).toPoint();
    QCOMPARE(view->clusterAt(onTarget), target);

    // Over the cube subgraph first: refused, with the compiler's reason.
    QTest::mousePress(view, Qt::LeftButton, {}, from);
    QTest::mouseMove(view, from + QPoint(12, 12));
    QTest::mouseMove(view, onCube);
    QTRY_VERIFY_WITH_TIMEOUT(view->dropVerdictKnown(), 20000);
    QVERIFY(!view->dropLegal());
    QVERIFY2(view->dropReason().contains(QStringLiteral("cube")), qPrintable(view->dropReason()));
    // Then over MulS tile 0's subgraph: legal; release moves it.
    QTest::mouseMove(view, onTarget);
    QTRY_VERIFY_WITH_TIMEOUT(view->dropVerdictKnown(), 20000);
    QVERIFY2(view->dropLegal(), qPrintable(view->dropReason()));
    QVERIFY2(view->dropReason().contains(QStringLiteral("muls + add tile 1")), qPrintable(view->dropReason()));
    QTest::mouseRelease(view, Qt::LeftButton, {}, onTarget);

    const nlohmann::ordered_json& overrides = window.settings()->partitionOverrides();
    QCOMPARE(overrides.size(), std::size_t(1));
    QVERIFY2(overrides[0]["move"] == (nlohmann::ordered_json{{"label", "scale_add"}, {"line", 18}, {"tile", 1}}), overrides.dump().c_str());
    QVERIFY2(overrides[0]["to"] == (nlohmann::ordered_json{{"label", "scale_add"}, {"line", 18}, {"tile", 0}}), overrides.dump().c_str());
    QVERIFY(finished.wait(60000));  // the edit reruns
    QCOMPARE(finished.last().first().toBool(), true);
    QCOMPARE(taskCount(window), std::size_t(6));  // 3 scale_add + matmul + 2 rowsum
    QVERIFY(window.windowTitle().startsWith('*'));
    QTRY_VERIFY_WITH_TIMEOUT(window.graphs()->overrideList()->item(0)->text().contains(QStringLiteral("makespan")), 5000);

    // Saved into the project file, readable.
    QVERIFY(window.save());
    std::string saved = pto::testing::readFile(folder + QStringLiteral("/pto-project.json"));
    QVERIFY2(saved.find("\"partition_overrides\"") != std::string::npos, saved.c_str());
    QVERIFY(saved.find("\"scale_add\"") != std::string::npos);

    // The new graph: tile 1's ops are in tile 0's subgraph.
    QVERIFY(waitForLayout(window, pto::GraphLevel::Tile));
    const pto::IrGraph& edited = *view->graphLayout()->graph;
    std::map<int, int> clusterOfMulsTile;
    for (const pto::IrGraphNode& node : edited.nodes)
      if (node.kind == "muls") clusterOfMulsTile[node.tileIndex] = node.cluster;
    QCOMPARE(clusterOfMulsTile.at(1), clusterOfMulsTile.at(0));

    // Undo: no override, 7 tasks again.
    window.settings()->undoStack()->undo();
    QVERIFY(window.settings()->partitionOverrides().empty());
    window.runProject();
    QVERIFY(finished.wait(60000));
    QCOMPARE(taskCount(window), std::size_t(7));
  }

  // The context menu's merge: two row-sum subgraphs become one (6 tasks);
  // a scale_add subgraph with a row-sum one would put the matmul between
  // them in a cycle: refused, nothing added.
  void mergingSubgraphsFromTheMenu() {
    pto::studio::MainWindow window;
    QSignalSpy finished(&window, &pto::studio::MainWindow::runFinished);
    auto* view = runAndShowTheTileGraph(window, finished);
    QVERIFY(view);
    const pto::IrGraph& graph = *view->graphLayout()->graph;
    std::vector<int> sums, scaleAdd;
    for (const pto::IrGraphNode& node : graph.nodes) {
      if (node.kind == "sum") sums.push_back(node.cluster);
      if (node.kind == "muls") scaleAdd.push_back(node.cluster);
    }
    QCOMPARE(sums.size(), std::size_t(2));
    Q_EMIT view->mergeRequested(scaleAdd.front(), sums.front());
    QVERIFY(window.settings()->partitionOverrides().empty());  // a cycle through the matmul: refused
    Q_EMIT view->mergeRequested(sums[0], sums[1]);
    QCOMPARE(window.settings()->partitionOverrides().size(), std::size_t(1));
    QVERIFY(window.settings()->partitionOverrides()[0].contains("merge"));
    QVERIFY(finished.wait(60000));
    QCOMPARE(taskCount(window), std::size_t(6));
  }

  // A rubber band (Shift+drag) selects every tile op inside it; "new
  // subgraph from selection" of scale_add tiles 1 and 2 is one undo step of
  // two entries, and the two tiles run as one task (7 -> 6).
  void aSelectionBecomesOneNewSubgraph() {
    pto::studio::MainWindow window;
    QSignalSpy finished(&window, &pto::studio::MainWindow::runFinished);
    auto* view = runAndShowTheTileGraph(window, finished);
    QVERIFY(view);
    view->fit();
    QTest::mousePress(view, Qt::LeftButton, Qt::ShiftModifier, QPoint(2, 2));
    QTest::mouseMove(view, QPoint(view->width() - 2, view->height() - 2));
    QTest::mouseRelease(view, Qt::LeftButton, Qt::ShiftModifier, QPoint(view->width() - 2, view->height() - 2));
    const pto::IrGraph& graph = *view->graphLayout()->graph;
    std::size_t onScreen = 0;
    for (std::size_t i = 0; i < view->graphLayout()->items.size(); ++i)
      if (QRectF(QPointF(2, 2), QPointF(view->width() - 2, view->height() - 2)).contains(view->widgetPosOfItem(static_cast<int>(i))))
        ++onScreen;
    QCOMPARE(view->selectedNodes().size(), onScreen);  // every tile op the band covers
    QVERIFY(onScreen > 0);
    std::vector<int> tiles;
    for (std::size_t n = 0; n < graph.nodes.size(); ++n)
      if (graph.nodes[n].kind == "muls" && (graph.nodes[n].tileIndex == 1 || graph.nodes[n].tileIndex == 2))
        tiles.push_back(static_cast<int>(n));
    view->selectNodes(tiles);
    Q_EMIT view->newSubgraphFromSelectionRequested();
    const auto& overrides = window.settings()->partitionOverrides();
    QCOMPARE(overrides.size(), std::size_t(2));
    QVERIFY(overrides[0]["to"] == "new");
    QVERIFY(finished.wait(60000));
    QCOMPARE(taskCount(window), std::size_t(6));
    window.settings()->undoStack()->undo();  // both entries in one step
    QVERIFY(window.settings()->partitionOverrides().empty());
  }

};

QTEST_MAIN(GraphWorkbenchGuiTest)
#include "GraphWorkbenchGuiTest.moc"
