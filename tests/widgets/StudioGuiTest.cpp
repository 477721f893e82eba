// The IDE's run loop, offscreen: File > New project copies an example and
// runs it; a run uses the editor's unsaved kernel text (the file on disk is
// untouched); edits rerun after a debounce, once for a burst of edits; a
// broken kernel leaves the last swimlane and lists its error with the line;
// cancel drops the run; Cancel on a trace file being read keeps (or, after
// a large file's first picture, puts back) the trace shown before. Expected
// task counts come from the tile arithmetic of
// resources/examples/muls_add_matmul_rowsum/kernel.py, not from earlier runs.
#include "app/studio/MainWindow.h"
#include "StudioGuiTestCase.h"
#include "StudioTestSupport.h"
#include "WidgetTestSupport.h"
#include "core/Diagnostics.h"
#include "widgets/HealthPanel.h"
#include "widgets/RooflinePlot.h"
#include "widgets/QCustomPlot.h"
#include "widgets/ProblemsPanel.h"
#include "widgets/SourceEditor.h"
#include "widgets/SummaryPanel.h"
#include "widgets/SwimlaneView.h"
#include "widgets/TraceLoadBar.h"
#include "widgets/TaskGraphView.h"
#include "widgets/ProjectSettingsDocument.h"
#include "widgets/TuningPanel.h"
#include "widgets/CostHeatmap.h"
#include "widgets/models/TileSettingsModel.h"

#include <QUndoStack>

#include <nlohmann/json.hpp>

#include <QDir>
#include <QElapsedTimer>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>
#include <QTimer>
#include <QToolTip>
#include <QSignalSpy>
#include <QTest>
#include <QToolButton>
#include <QTreeWidget>

#include <algorithm>
#include <functional>

using pto::testing::readFile;

namespace {

// The example's tasks for a scale_add tile of rows x cols: scale_add (a*0.5+b
// fused) is 64x64 cut into tiles; one untiled matmul block; the row sum of the
// 64x32 product in 32x32 tiles is 2 tasks.
std::size_t expectedTasks(int rows, int cols) { return std::size_t((64 / rows) * (64 / cols) + 1 + 2); }

} // namespace

class StudioGuiTest : public pto::testing::StudioGuiTestCase {
  Q_OBJECT
  // Copies the example into a new project with auto-run off and runs it once.
  bool createAndRun(pto::studio::MainWindow& window) {
    QSignalSpy finished(&window, &pto::studio::MainWindow::runFinished);
    return pto::testing::createAndRun(window, finished, m_dir->filePath(QStringLiteral("op")));
  }

private Q_SLOTS:
  void newProjectCopiesTheExampleAndRunsIt() {
    pto::studio::MainWindow window;
    window.setAutoRun(false);
    QSignalSpy finished(&window, &pto::studio::MainWindow::runFinished);
    QString folder = m_dir->filePath(QStringLiteral("my_op"));
    QVERIFY(window.createProject(QStringLiteral("muls_add_matmul_rowsum"), folder));
    window.runProject();  // auto-run is off: opening does not run
    QVERIFY(QFileInfo::exists(folder + QStringLiteral("/pto-project.json")));
    QVERIFY(QFileInfo::exists(folder + QStringLiteral("/kernel.py")));
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.first().first().toBool(), true);
    QCOMPARE(window.swimlane()->traceIndex()->trace().tasks().size(), expectedTasks(32, 32));
    QCOMPARE(QString::fromStdString(window.lastRun().projectName), QStringLiteral("my_op"));
    // A second project in the same folder would overwrite the first: refused.
    QVERIFY(!window.createProject(QStringLiteral("softmax"), folder));
  }

  void aRunUsesTheEditorsUnsavedText() {
    pto::studio::MainWindow window;
    QSignalSpy finished(&window, &pto::studio::MainWindow::runFinished);
    QString folder = m_dir->filePath(QStringLiteral("op"));
    QVERIFY(pto::testing::createAndRun(window, finished, folder));
    double before = window.lastRun().makespanUs;
    std::string onDisk = readFile(folder + QStringLiteral("/kernel.py"));

    QString text = window.editor()->text();
    int at = text.indexOf(QStringLiteral("set_vec_tile_shapes(32, 32)"));
    QVERIFY(at >= 0);
    text.replace(at, 27, QStringLiteral("set_vec_tile_shapes(16, 32)"));  // only the first: scale_add's
    window.editor()->setText(text);
    QVERIFY(window.editor()->isModified());
    window.runProject();
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.last().first().toBool(), true);
    QCOMPARE(window.swimlane()->traceIndex()->trace().tasks().size(), expectedTasks(16, 32));
    QVERIFY(window.lastRun().makespanUs != before);
    QCOMPARE(readFile(folder + QStringLiteral("/kernel.py")), onDisk);  // nothing saved behind the user's back

    QVERIFY(window.save());
    QVERIFY(readFile(folder + QStringLiteral("/kernel.py")).find("set_vec_tile_shapes(16, 32)") != std::string::npos);
    QVERIFY(!window.windowTitle().startsWith('*'));
  }

  void aBurstOfEditsRerunsOnceAfterThePause() {
    pto::studio::MainWindow window;
    QSignalSpy finished(&window, &pto::studio::MainWindow::runFinished);
    QVERIFY(pto::testing::createAndRun(window, finished, m_dir->filePath(QStringLiteral("op"))));
    finished.clear();

    window.setAutoRun(true);
    for (int i = 0; i < 5; ++i) {
      window.editor()->append(QStringLiteral("\n# edit %1").arg(i));
      QTest::qWait(50);  // faster than the pause: still one burst
    }
    QVERIFY(finished.wait(60000));
    QTest::qWait(1500);  // a second run would have started and finished by now
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.first().first().toBool(), true);
  }

  // After a run the editor's heatmap gives each line that ran its share of busy time. Softmax's row_softmax
  // (lines 14-16) runs fused in all 256 tasks, so each of its lines counts them all, and a click on line 15
  // finds them (it said "ran no task" while a task linked to its first line only).
  void theEditorShowsEachLinesCostAfterARun() {
    pto::studio::MainWindow window;
    window.setAutoRun(false);
    QSignalSpy finished(&window, &pto::studio::MainWindow::runFinished);
    QVERIFY(window.createProject(QStringLiteral("softmax"), m_dir->filePath(QStringLiteral("sm"))));
    window.runProject();
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.last().first().toBool(), true);
    pto::widgets::SourceEditor* editor = window.editor();
    QVERIFY(editor->costHeatmapAction()->isChecked());
    bool inViewMenu = false;
    for (QMenu* menu : window.menuBar()->findChildren<QMenu*>())
      inViewMenu |= menu->title() == QStringLiteral("&View") && menu->actions().contains(editor->costHeatmapAction());
    QVERIFY(inViewMenu);
    double percent = 0.0;
    int hottest = 0;
    for (int line : {14, 15, 16}) {
      const QString text = editor->costMarginText(line);
      QVERIFY2(text.endsWith(QLatin1Char('%')), qPrintable(QStringLiteral("line %1: '%2'").arg(line).arg(text)));
      percent += text.chopped(1).toDouble();
      QVERIFY(editor->costLevelOnLine(line) >= 1);
      hottest = std::max(hottest, editor->costLevelOnLine(line));
      const QString hover = editor->costTextOnLine(line);
      QVERIFY2(hover.contains(QStringLiteral("256 tasks: 0-255")), qPrintable(hover));
      QVERIFY2(hover.contains(QStringLiteral("AIV ")), qPrintable(hover));
    }
    QVERIFY2(std::abs(percent - 100.0) <= 0.15, qPrintable(QString::number(percent)));  // three roundings to 0.1
    QCOMPARE(hottest, pto::widgets::kHeatLevels);
    QVERIFY(editor->costTextOnLine(15).contains(QStringLiteral("TEXP 1")));
    for (int line : {1, 13, 24}) {  // the docstring, a comment, the kernel's shape read: no task ran them
      QCOMPARE(editor->costMarginText(line), QString());
      QCOMPARE(editor->costLevelOnLine(line), -1);
      QCOMPARE(editor->costTextOnLine(line), QString());
    }

    // Resting the mouse on the heatmap of line 15 shows the same text as a tooltip.
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    int heatX = 2;
    for (int margin = 0; margin < 3; ++margin)
      heatX += static_cast<int>(editor->SendScintilla(QsciScintillaBase::SCI_GETMARGINWIDTHN, margin));
    const long line15 = editor->positionFromLineIndex(14, 0);
    const int y15 = static_cast<int>(editor->SendScintilla(QsciScintillaBase::SCI_POINTYFROMPOSITION, 0UL, line15)) + 3;
    Q_EMIT editor->SCN_DWELLSTART(-1, heatX, y15);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().contains(QStringLiteral("256 tasks: 0-255")), qPrintable(QToolTip::text()));
    Q_EMIT editor->SCN_DWELLEND(-1, heatX, y15);

    Q_EMIT editor->lineClicked(15);
    QVERIFY2(window.statusBar()->currentMessage().contains(QStringLiteral("Line 15: 256 tasks")),
             qPrintable(window.statusBar()->currentMessage()));

    editor->costHeatmapAction()->setChecked(false);  // View > Cost heatmap
    QCOMPARE(editor->costMarginText(15), QString());
    QCOMPARE(editor->costTextOnLine(15), QString());
    editor->costHeatmapAction()->setChecked(true);
    QVERIFY(editor->costMarginText(15).endsWith(QLatin1Char('%')));
  }

  void aBrokenKernelKeepsTheSwimlaneAndListsTheError() {
    pto::studio::MainWindow window;
    QSignalSpy finished(&window, &pto::studio::MainWindow::runFinished);
    QVERIFY(pto::testing::createAndRun(window, finished, m_dir->filePath(QStringLiteral("op"))));
    auto good = window.swimlane()->traceIndex();

    QString text = window.editor()->text();
    text.replace(QStringLiteral("hidden = a * 0.5 + b"), QStringLiteral("hidden = a * 0.5 + undefined_name"));
    window.editor()->setText(text);
    window.runProject();
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.last().first().toBool(), false);
    QCOMPARE(window.swimlane()->traceIndex(), good);
    QVERIFY(window.problems()->errorCount() >= 1);
    bool atLine = false;
    for (const pto::Diagnostic& diagnostic : window.lastRun().diagnostics)
      atLine |= diagnostic.severity == pto::Severity::Error && diagnostic.location.line == 18 &&
                diagnostic.message.find("undefined_name") != std::string::npos;
    QVERIFY2(atLine, window.lastRun().problems.c_str());
    bool marked = false;
    for (const auto& diagnostic : window.editor()->diagnostics()) marked |= diagnostic.line == 18;
    QVERIFY(marked);  // the editor underlines the line too
  }

  void clickingABoxInTheTaskGraphSelectsItsTask() {
    pto::studio::MainWindow window;
    window.setAutoRun(false);
    window.resize(1400, 900);
    window.show();
    QSignalSpy finished(&window, &pto::studio::MainWindow::runFinished);
    QSignalSpy laidOut(&window, &pto::studio::MainWindow::graphLaidOut);
    QVERIFY(window.createProject(QStringLiteral("muls_add_matmul_rowsum"), m_dir->filePath(QStringLiteral("op"))));
    window.runProject();
    QVERIFY(finished.wait(60000));
    window.showGraphLevel(pto::GraphLevel::Execute);  // laid out when first shown
    QVERIFY(laidOut.count() > 0 || laidOut.wait(30000));
    const pto::widgets::TaskGraphLayout* graph = window.taskGraph()->graph();
    QVERIFY(graph);
    QCOMPARE(graph->nodes.size(), expectedTasks(32, 32));  // one box per task
    QCOMPARE(graph->edges.size(), window.swimlane()->traceIndex()->trace().edgeCount());
    // The matmul box: click it, the swimlane selects the matmul task.
    int matmul = -1;
    for (std::size_t n = 0; n < graph->nodes.size(); ++n)
      if (graph->nodes[n].label == "matmul") matmul = static_cast<int>(n);
    QVERIFY(matmul >= 0);
    QTest::mouseClick(window.taskGraph(), Qt::LeftButton, {}, window.taskGraph()->widgetPosOfNode(matmul).toPoint());
    pto::trace::TaskIndex selected = window.swimlane()->selectedTask();
    QCOMPARE(selected, graph->nodes[static_cast<std::size_t>(matmul)].tasks.front());
    QCOMPARE(window.editor()->shownLine(), 22);  // and the editor shows the matmul's line
  }

  // The Health tab after a run: the same report `pto report` prints (its bound class, the critical path, waves),
  // a critical-path task row selects that task in the swimlane, a subgraph row shows its kernel line, and the
  // run was recorded in the project's ledger.
  void theHealthTabShowsTheReportAndItsLinksWork() {
    pto::studio::MainWindow window;
    QVERIFY(createAndRun(window));
    pto::widgets::HealthPanel* health = window.health();
    const QString text = health->text();
    QVERIFY2(text.contains(QStringLiteral("-bound")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Critical path")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("waves, last wave")), qPrintable(text));
    QVERIFY(window.lastRun().health);
    const auto& path = window.lastRun().health->criticalPath.tasks;
    QVERIFY(!path.empty());

    QTreeWidgetItem* taskRow = nullptr;
    QTreeWidgetItem* lineRow = nullptr;
    std::function<void(QTreeWidgetItem*)> find = [&](QTreeWidgetItem* item) {
      if (!taskRow && item->text(0) == QStringLiteral("task %1").arg(path.back())) taskRow = item;
      if (!lineRow && item->data(0, Qt::UserRole).toInt() == 2) lineRow = item;
      for (int i = 0; i < item->childCount(); ++i) find(item->child(i));
    };
    for (int i = 0; i < health->tree()->topLevelItemCount(); ++i) find(health->tree()->topLevelItem(i));
    QVERIFY(taskRow && lineRow);
    Q_EMIT health->tree()->itemActivated(taskRow, 0);
    QCOMPARE(window.swimlane()->selectedTask(), static_cast<pto::trace::TaskIndex>(path.back()));
    Q_EMIT health->tree()->itemActivated(lineRow, 0);
    QCOMPARE(window.editor()->shownLine(), lineRow->data(0, Qt::UserRole + 3).toInt());
    QVERIFY(QFileInfo::exists(m_dir->filePath(QStringLiteral("op/.pto/ledger.sqlite"))));
  }

  // The roofline under the Health tree: one point per subgraph that computes and loads from GM, none above its
  // roof; clicking a point selects that subgraph's longest task in the swimlane, shows its kernel line, and
  // describes it; activating a subgraph row rings that row's point.
  void theRooflinePlotsEachSubgraphAndAClickSelectsIt() {
    pto::studio::MainWindow window;
    window.resize(1600, 1000);
    window.show();
    QVERIFY(createAndRun(window));
    window.showView(pto::studio::MainWindow::View::Health);
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    pto::widgets::RooflinePlot* plot = window.health()->roofline();
    const pto::Roofline& roof = window.lastRun().health->roofline;
    int plottable = 0;
    const pto::RooflinePoint* target = nullptr;
    for (const pto::RooflinePoint& point : roof.points) {
      if (!point.plottable()) continue;
      ++plottable;
      QVERIFY2(point.roofShare <= 1.0 + 1e-9, qPrintable(QString::fromStdString(point.label)));
      if (!target || point.ops > target->ops) target = &point;  // the matmul: the most arithmetic
    }
    QVERIFY(target);
    QCOMPARE(plot->plottedCount(), plottable);
    QCOMPARE(plot->plottedCount(), static_cast<int>(roof.points.size()));  // every subgraph here computes

    plot->plot()->replot();  // lay the axes out at the window's size
    const std::optional<QPointF> at = plot->pointPosition(target->subgraph);
    QVERIFY(at);
    QVERIFY(plot->plot()->axisRect()->rect().contains(at->toPoint()));
    QTest::mouseClick(plot->plot(), Qt::LeftButton, {}, at->toPoint());
    QCOMPARE(plot->selectedSubgraph(), target->subgraph);
    QCOMPARE(window.swimlane()->selectedTask(), static_cast<pto::trace::TaskIndex>(target->longestTask));
    const int line = std::atoi(target->source.substr(target->source.rfind(':') + 1).c_str());
    QVERIFY(line > 0);
    QCOMPARE(window.editor()->shownLine(), line);
    QVERIFY2(plot->caption().contains(QStringLiteral("sg %1").arg(target->subgraph)), qPrintable(plot->caption()));
    QVERIFY2(plot->caption().contains(QString::fromStdString(target->limitedBy)), qPrintable(plot->caption()));

    // A click on empty plot area keeps the selection; activating another subgraph's row moves the ring there.
    QTest::mouseClick(plot->plot(), Qt::LeftButton, {}, plot->plot()->axisRect()->rect().topLeft() + QPoint(3, 3));
    QCOMPARE(plot->selectedSubgraph(), target->subgraph);
    QTreeWidgetItem* otherRow = nullptr;
    std::function<void(QTreeWidgetItem*)> find = [&](QTreeWidgetItem* item) {
      const QVariant subgraph = item->data(0, Qt::UserRole + 4);
      if (!otherRow && subgraph.isValid() && subgraph.toInt() != target->subgraph) otherRow = item;
      for (int i = 0; i < item->childCount(); ++i) find(item->child(i));
    };
    for (int i = 0; i < window.health()->tree()->topLevelItemCount(); ++i) find(window.health()->tree()->topLevelItem(i));
    QVERIFY(otherRow);
    Q_EMIT window.health()->tree()->itemActivated(otherRow, 0);
    QCOMPARE(plot->selectedSubgraph(), otherRow->data(0, Qt::UserRole + 4).toInt());
  }

  void theSummaryShowsTheRunAndTheDelta() {
    pto::studio::MainWindow window;
    QVERIFY(createAndRun(window));
    QSignalSpy finished(&window, &pto::studio::MainWindow::runFinished);
    QString text = window.summary()->text();
    QVERIFY2(text.contains(QStringLiteral("simulated makespan")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("out")), qPrintable(text));  // the output's precision row
    QVERIFY2(!text.contains(QStringLiteral("FAIL")), qPrintable(text));

    QString kernel = window.editor()->text();
    kernel.replace(kernel.indexOf(QStringLiteral("set_vec_tile_shapes(32, 32)")), 27, QStringLiteral("set_vec_tile_shapes(8, 32)"));
    window.editor()->setText(kernel);
    window.runProject();
    QVERIFY(finished.wait(60000));
    text = window.summary()->text();
    QVERIFY2(text.contains(QStringLiteral("%")), qPrintable(text));  // the change against the previous run
  }

  void exportsWriteTheConfigAndThePerfettoTrace() {
    pto::studio::MainWindow window;
    QVERIFY(createAndRun(window));
    QString config = m_dir->filePath(QStringLiteral("tuned.json"));
    QVERIFY(window.exportTunedConfig(config));
    auto document = nlohmann::json::parse(readFile(config));
    QCOMPARE(document["format"].get<std::string>(), std::string("pto-tuned-config"));
    QVERIFY(document.contains("tile_settings"));
    QVERIFY(document.contains("pass_options"));
    QVERIFY(document.contains("runtime_options"));

    QString perfetto = m_dir->filePath(QStringLiteral("trace.json"));
    QVERIFY(window.exportPerfettoTrace(perfetto));
    auto trace = nlohmann::json::parse(readFile(perfetto));
    std::size_t slices = 0;
    for (const auto& event : trace["traceEvents"]) slices += event.value("ph", "") == "X" ? 1 : 0;
    QCOMPARE(slices, expectedTasks(32, 32));
  }

  // Opening a second trace file and pressing the load bar's Cancel before it
  // is read: the bar goes, and the swimlane, the title and traceLoaded stay
  // as they were, also after the time the read takes.
  void cancellingATraceLoadKeepsThePreviousView() {
    pto::studio::MainWindow window;
    QSignalSpy loaded(&window, &pto::studio::MainWindow::traceLoaded);
    QString first = QStringLiteral(PTO_WIDGET_TEST_DATA_DIR "/sample_swimlane.json");
    QVERIFY(window.open(first));
    QVERIFY(loaded.wait(30000));
    auto before = window.swimlane()->traceIndex();
    QString title = window.windowTitle();
    QString second = m_dir->filePath(QStringLiteral("second.json"));
    QVERIFY(QFile::copy(first, second));
    QVERIFY(window.open(second));
    auto* bar = window.findChild<pto::widgets::TraceLoadBar*>();
    QVERIFY(bar && bar->loading());
    auto* cancel = bar->findChild<QToolButton*>();
    QVERIFY(cancel);
    cancel->click();
    QVERIFY(!bar->loading());
    QTest::qWait(300);  // the sample reads in a few ms: a result not dropped would be here
    QCOMPARE(loaded.count(), 1);
    QCOMPARE(window.swimlane()->traceIndex(), before);
    QCOMPARE(window.windowTitle(), title);
  }

  // A large trace file (600 000 tasks, about 60 MB) opened over the trace
  // shown before, with its first picture due after 100 ms of reading: the
  // swimlane shows that picture (the file's first tasks, fewer than all)
  // while the bar still runs and the GUI thread keeps turning (a loader on
  // it would stall a 10 ms timer for the whole read); Cancel then puts the
  // trace, file and title shown before back, and the read's end changes
  // nothing.
  void cancellingAfterTheFirstPictureOfALargeTracePutsThePreviousViewBack() {
    pto::studio::MainWindow window;
    window.setTracePreviewAfterMs(100);
    QSignalSpy loaded(&window, &pto::studio::MainWindow::traceLoaded);
    QVERIFY(window.open(QStringLiteral(PTO_WIDGET_TEST_DATA_DIR "/sample_swimlane.json")));
    QVERIFY(loaded.wait(30000));
    auto before = window.swimlane()->traceIndex();
    QString title = window.windowTitle();
    constexpr int kTasks = 600000;
    QString large = m_dir->filePath(QStringLiteral("large.json"));
    pto::testing::writeGeneratedTrace(large.toStdString(), kTasks);

    QElapsedTimer sinceTick;
    qint64 longestGapMs = 0;
    QTimer ticker;
    QObject::connect(&ticker, &QTimer::timeout, [&] {
      longestGapMs = std::max(longestGapMs, sinceTick.restart());
    });
    ticker.start(10);
    sinceTick.start();
    QVERIFY(window.open(large));
    auto* bar = window.findChild<pto::widgets::TraceLoadBar*>();
    QVERIFY(bar && bar->loading());
    QTRY_VERIFY_WITH_TIMEOUT(window.swimlane()->traceIndex() != before, 30000);
    auto preview = window.swimlane()->traceIndex();
    QVERIFY2(bar->loading(), "the whole file was read before its first picture was seen: make it larger");
    std::size_t previewTasks = preview->trace().taskCount();
    QVERIFY2(previewTasks > 0 && previewTasks < static_cast<std::size_t>(kTasks), qPrintable(QString::number(previewTasks)));
    for (pto::trace::TaskIndex t = 0; t < previewTasks; t += 997)
      QCOMPARE(preview->trace().taskId(t), static_cast<std::int64_t>(t));  // the file's first tasks, in order
    QVERIFY(window.windowTitle() != title);
    ticker.stop();
    qInfo("first picture of %zu tasks; longest GUI-thread gap while loading %lld ms", previewTasks, longestGapMs);
    QVERIFY2(longestGapMs < 500, qPrintable(QStringLiteral("the GUI thread stalled %1 ms").arg(longestGapMs)));

    auto* cancel = bar->findChild<QToolButton*>();
    QVERIFY(cancel);
    cancel->click();
    QVERIFY(!bar->loading());
    QCOMPARE(window.swimlane()->traceIndex(), before);
    QCOMPARE(window.windowTitle(), title);
    QTest::qWait(3000);  // longer than the rest of the read: a result not dropped would be here
    QCOMPARE(loaded.count(), 1);
    QCOMPARE(window.swimlane()->traceIndex(), before);
    QCOMPARE(window.windowTitle(), title);
  }

  // PyPTO's simulator mode (and a Python run here with RunMode.SIM) leaves
  // output/output_<time>_<pid>_<host>/CostModelSimulationOutput/merged_swimlane.json:
  // opening the `output` folder shows that swimlane.
  void openingAPyptoOutputFolderShowsItsSwimlane() {
    pto::studio::MainWindow window;
    QVERIFY(createAndRun(window));
    QDir(m_dir->path()).mkpath(QStringLiteral("output/output_20261125_040000_000001_42_host/CostModelSimulationOutput"));
    QVERIFY(window.exportPerfettoTrace(m_dir->filePath(
        QStringLiteral("output/output_20261125_040000_000001_42_host/CostModelSimulationOutput/merged_swimlane.json"))));

    pto::studio::MainWindow viewer;
    QSignalSpy loaded(&viewer, &pto::studio::MainWindow::traceLoaded);
    QVERIFY(viewer.open(m_dir->filePath(QStringLiteral("output"))));
    QVERIFY(loaded.wait(30000));
    QCOMPARE(viewer.swimlane()->traceIndex()->trace().tasks().size(), expectedTasks(32, 32));
  }

  // The "Done when": change a tile shape in the panel, see the new
  // swimlane and the delta; undo brings the old one back.
  void aTileShapeEditInThePanelRerunsAndUndoRestores() {
    pto::studio::MainWindow window;
    window.setAutoRun(true);
    window.show();
    QSignalSpy finished(&window, &pto::studio::MainWindow::runFinished);
    QVERIFY(window.createProject(QStringLiteral("muls_add_matmul_rowsum"), m_dir->filePath(QStringLiteral("op"))));
    QVERIFY(finished.wait(60000));  // opening runs it
    QCOMPARE(window.swimlane()->traceIndex()->trace().tasks().size(), expectedTasks(32, 32));
    double before = window.lastRun().makespanUs;

    pto::widgets::TileSettingsModel* model = window.tuning()->tileModel();
    int row = -1;
    for (int r = 0; r < model->rowCount(); ++r)
      if (model->site(r).key == "kernel.py:16") row = r;  // scale_add's set_vec_tile_shapes call
    QVERIFY2(row >= 0, "the panel lists the kernel.py:16 call site after the run");
    QVERIFY(model->setData(model->index(row, pto::widgets::TileSettingsModel::ShapeColumn), QStringLiteral("16, 32")));
    QVERIFY(window.windowTitle().startsWith('*'));  // unsaved settings
    QVERIFY(finished.wait(60000));                  // auto-run after the pause
    QCOMPARE(finished.last().first().toBool(), true);
    QCOMPARE(window.swimlane()->traceIndex()->trace().tasks().size(), expectedTasks(16, 32));
    QVERIFY(window.lastRun().makespanUs != before);
    QVERIFY2(window.summary()->text().contains(QStringLiteral("%")), qPrintable(window.summary()->text()));
    QVERIFY(window.project()->tileSettings["vec"]["kernel.py:16"] == nlohmann::ordered_json({16, 32}));

    window.settings()->undoStack()->undo();
    QVERIFY(finished.wait(60000));
    QCOMPARE(window.swimlane()->traceIndex()->trace().tasks().size(), expectedTasks(32, 32));
    QCOMPARE(window.lastRun().makespanUs, before);  // deterministic: the same settings, the same timeline
    QVERIFY(!window.windowTitle().startsWith('*'));  // back at the saved state
  }

  void escInTheEditorCancelsARun() {
    pto::studio::MainWindow window;
    window.setAutoRun(false);
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QSignalSpy finished(&window, &pto::studio::MainWindow::runFinished);
    QVERIFY(window.createProject(QStringLiteral("muls_add_matmul_rowsum"), m_dir->filePath(QStringLiteral("op"))));
    window.editor()->setFocus();
    window.runProject();
    QVERIFY(window.busy());
    QTest::keyClick(window.editor(), Qt::Key_Escape);
    QVERIFY(!window.busy());
    QTest::qWait(1500);
    QCOMPARE(finished.count(), 0);
  }

  void cancelDropsTheRun() {
    pto::studio::MainWindow window;
    window.setAutoRun(false);
    QSignalSpy finished(&window, &pto::studio::MainWindow::runFinished);
    QVERIFY(window.createProject(QStringLiteral("muls_add_matmul_rowsum"), m_dir->filePath(QStringLiteral("op"))));
    window.runProject();  // auto-run is off: opening does not run
    window.cancelRun();
    QVERIFY(!window.busy());
    QTest::qWait(1500);
    QCOMPARE(finished.count(), 0);
    QVERIFY(!window.swimlane()->traceIndex());
  }

};

QTEST_MAIN(StudioGuiTest)
#include "StudioGuiTest.moc"
