// GUI tests, offscreen: the main window opens the fixture trace on a worker
// thread; the swimlane holds its tasks; clicking a task's pixel selects it;
// the editor and the swimlane select each other; wheel zoom keeps the time
// under the cursor; the dependency model passes QAbstractItemModelTester.
// Expected values come from reading the fixture JSON independently here.
#include "StudioGuiTestCase.h"
#include "WidgetTestSupport.h"
#include "app/studio/MainWindow.h"
#include "widgets/QCustomPlot.h"
#include "widgets/RooflinePlot.h"
#include "widgets/SourceEditor.h"
#include "widgets/SummaryPanel.h"
#include "widgets/SwimlaneView.h"
#include "widgets/TaskDetailsPanel.h"
#include "widgets/models/TaskDependencyModel.h"
#include "widgets/models/TraceLoading.h"

#include <nlohmann/json.hpp>

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>

#include <fstream>
#include <map>
#include <set>

using pto::trace::TaskIndex;
using namespace pto::widgets;

namespace {

const char* kFixture = PTO_WIDGET_TEST_DATA_DIR "/sample_swimlane.json";
const char* kProject = PTO_SOURCE_DIR "/resources/examples/muls_add_matmul_rowsum";

// The fixture as plain JSON: X events in file order.
struct FixtureFacts {
  std::size_t completeEvents = 0;
  std::set<std::string> laneNames;
  std::map<int, std::size_t> tasksPerLine;
  std::map<std::int64_t, int> lineOfTaskId;
};

FixtureFacts readFixture() {
  std::ifstream in(kFixture);
  nlohmann::json json = nlohmann::json::parse(in);
  FixtureFacts facts;
  for (const auto& event : json["traceEvents"]) {
    if (event["ph"] == "M" && event["name"] == "thread_name") facts.laneNames.insert(event["args"]["name"].get<std::string>());
    if (event["ph"] != "X") continue;
    ++facts.completeEvents;
    std::string source = event["args"]["source"];
    int line = std::stoi(source.substr(source.rfind(':') + 1));
    ++facts.tasksPerLine[line];
    facts.lineOfTaskId[event["args"]["taskId"].get<std::int64_t>()] = line;
  }
  return facts;
}

} // namespace

class WidgetGuiTest : public pto::testing::StudioGuiTestCase {
  Q_OBJECT
private Q_SLOTS:
  void mainWindowOpensTheTraceInTheBackground() {
    FixtureFacts facts = readFixture();
    pto::studio::MainWindow window;
    window.show();
    QSignalSpy loaded(&window, &pto::studio::MainWindow::traceLoaded);
    QVERIFY(window.open(QString::fromUtf8(kFixture)));
    QVERIFY(loaded.wait(10000));
    auto index = window.swimlane()->traceIndex();
    QVERIFY(index);
    QCOMPARE(index->trace().tasks().size(), facts.completeEvents);
    std::set<std::string> lanes;
    for (const auto& lane : index->trace().lanes()) lanes.insert(std::string(index->trace().str(lane.name)));
    QCOMPARE(lanes, facts.laneNames);
    QVERIFY(window.summary()->text().contains(QStringLiteral("%1 tasks").arg(facts.completeEvents)));
  }

  // Opening a project runs it in the background (trace, compile, simulate) and shows the run's swimlane,
  // each task linked to its kernel line; the window stays usable meanwhile (the run is not on this thread).
  void openingAProjectRunsItAndShowsItsTasks() {
    pto::studio::MainWindow window;
    window.show();
    QSignalSpy loaded(&window, &pto::studio::MainWindow::traceLoaded);
    QVERIFY(window.open(QStringLiteral(PTO_SOURCE_DIR "/resources/examples/muls_add_matmul_rowsum")));
    QVERIFY(window.busy());  // the run is on a worker thread
    QVERIFY(loaded.wait(60000));
    auto index = window.swimlane()->traceIndex();
    QVERIFY(index);
    const auto& trace = index->trace();
    // The kernel: scale_add on 64x64 in 32x32 tiles (4 AIV tasks), one matmul block (1 AIC task), the row sum
    // in 32-row tiles (2 AIV tasks); lines as in resources/examples/muls_add_matmul_rowsum/kernel.py.
    QCOMPARE(trace.tasks().size(), std::size_t{7});
    std::map<std::string, int> lineOfLabel;
    for (const auto& task : trace.tasks()) lineOfLabel[std::string(trace.str(task.label))] = task.sourceLine;
    QCOMPARE(lineOfLabel.size(), std::size_t{3});
    QCOMPARE(lineOfLabel["scale_add"], 18);
    QCOMPARE(lineOfLabel["matmul"], 22);
    QCOMPARE(lineOfLabel["rowsum"], 26);
    QCOMPARE(trace.edgeCount(), std::size_t{6});
  }

  void openingAMissingFileFailsClearly() {
    pto::studio::MainWindow window;
    QSignalSpy failed(&window, &pto::studio::MainWindow::openFailed);
    QVERIFY(!window.open(QStringLiteral("/nonexistent/trace.json")));
    QCOMPARE(failed.count(), 1);
    QVERIFY(failed.first().first().toString().contains(QStringLiteral("no such file")));
  }

  void clickingATaskSelectsIt() {
    auto loaded = loadTraceFile(kFixture);
    QVERIFY(loaded.index);
    SwimlaneView view;
    QVERIFY(pto::testing::showOnTrace(view, QSize(1200, 400), loaded.index));
    const auto& trc = loaded.index->trace();
    // The longest task; its centre pixel from the fit rule (1% margins) and
    // the row layout constants, not from the view's own picking code.
    TaskIndex target = 0;
    for (TaskIndex t = 0; t < trc.tasks().size(); ++t)
      if (trc.tasks()[t].durNs() > trc.tasks()[target].durNs()) target = t;
    const auto& task = trc.tasks()[target];
    double span = static_cast<double>(loaded.index->endNs() - loaded.index->startNs());
    double windowStart = static_cast<double>(loaded.index->startNs()) - 0.01 * span;
    double nsPerPx = 1.02 * span / (1200 - SwimlaneRenderer::kHeaderWidthPx);
    double x = SwimlaneRenderer::kHeaderWidthPx + (static_cast<double>(task.startNs + task.endNs) / 2 - windowStart) / nsPerPx;
    double y = view.renderer().rowTopPx(*view.renderer().rowOfLane(task.lane), view.state()) + SwimlaneRenderer::kLaneHeightPx / 2.0;
    QSignalSpy selected(&view, &SwimlaneView::taskSelected);
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(static_cast<int>(x), static_cast<int>(y)));
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.first().first().value<TaskIndex>(), target);
    QCOMPARE(view.selectedTask(), target);
    QVERIFY(!view.state().arrows.empty());
    // Clicking empty space below the lanes clears the selection.
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(600, 395));
    QCOMPARE(view.selectedTask(), pto::trace::kNoTask);
  }

  void wheelZoomKeepsTheTimeUnderTheCursor() {
    auto loaded = loadTraceFile(kFixture);
    SwimlaneView view;
    view.resize(1000, 300);
    view.setTrace(loaded.index);
    double cursorX = 400;
    double before = view.state().coords.nsAt(cursorX - SwimlaneRenderer::kHeaderWidthPx);
    double nsPerPx = view.state().coords.nsPerPx();
    QWheelEvent wheel(QPointF(cursorX, 100), QPointF(cursorX, 100), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(&view, &wheel);
    QCOMPARE(view.state().coords.nsPerPx(), nsPerPx / 1.25);
    QVERIFY(std::abs(view.state().coords.nsAt(cursorX - SwimlaneRenderer::kHeaderWidthPx) - before) < 1e-6);
    QTest::keyClick(&view, Qt::Key_F);
    QCOMPARE(view.state().coords.nsPerPx(), nsPerPx);
  }

  void editorAndSwimlaneSelectEachOther() {
    FixtureFacts facts = readFixture();
    pto::studio::MainWindow window;
    window.show();
    QVERIFY(window.open(QString::fromUtf8(kProject)));
    QSignalSpy loaded(&window, &pto::studio::MainWindow::traceLoaded);
    QVERIFY(window.open(QString::fromUtf8(kFixture)));
    QVERIFY(loaded.wait(10000));
    QVERIFY(window.editor()->filePath().endsWith(QStringLiteral("kernel.py")));
    // Line 22 is the matmul: clicking it highlights exactly its tasks.
    Q_EMIT window.editor()->lineClicked(22);
    QCOMPARE(window.swimlane()->state().highlighted.size(), facts.tasksPerLine.at(22));
    // Selecting a task shows its line.
    const auto& trc = window.swimlane()->traceIndex()->trace();
    TaskIndex last = static_cast<TaskIndex>(trc.tasks().size() - 1);
    window.swimlane()->selectTask(last);
    QCOMPARE(window.editor()->shownLine(), facts.lineOfTaskId.at(trc.tasks()[last].id));
    QCOMPARE(window.details()->task(), last);
  }

  // Issue 35: the roofline is readable as it opens: at least 200 px of
  // plot, and two compute ceilings 2 % apart (one line width on a log axis)
  // have their labels a text line apart, not on top of each other.
  void rooflineCeilingLabelsDoNotOverlap() {
    pto::Roofline roof;
    roof.clockGHz = 1.0;
    for (double opsPerCycle : {1024.0, 1004.0}) {
      pto::RooflineCeiling ceiling;
      ceiling.name = "CUBE peak " + std::to_string(static_cast<int>(opsPerCycle));
      ceiling.coreType = "AIC";
      ceiling.opsPerCycle = opsPerCycle;
      roof.ceilings.push_back(ceiling);
    }
    pto::RooflineCeiling copyIn{"GM -> L1 peak, one core", "AIC", false, 0.0, 128.0};
    roof.ceilings.push_back(copyIn);
    pto::RooflinePoint point;
    point.subgraph = 0;
    point.coreType = "AIC";
    point.ops = 1e6, point.gmReadBytes = 1e5, point.intensity = 10.0, point.meanCycles = 1e4, point.achievedOpsPerCycle = 100.0;
    roof.points.push_back(point);
    pto::widgets::RooflinePlot plot;
    plot.resize(420, plot.minimumSizeHint().height());
    plot.setRoofline(roof);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.plot()->replot();
    QVERIFY2(plot.plot()->height() >= 200, qPrintable(QString::number(plot.plot()->height())));
    const std::vector<QCPItemText*> labels = plot.flatLabels();
    QCOMPARE(labels.size(), std::size_t(2));
    const double lineHeight = QFontMetricsF(labels[0]->font()).height();
    const double apart = std::abs(labels[0]->position->pixelPosition().y() - labels[1]->position->pixelPosition().y());
    QVERIFY2(apart >= lineHeight - 0.5, qPrintable(QStringLiteral("%1 px apart, a line is %2").arg(apart).arg(lineHeight)));
  }

  // DIA's roofline at the plot's minimum height: two core types, each with a
  // one-core copy-in slope and a chip-GM slope a few times lower, and their
  // compute peaks (the a2 figures). No two labels' boxes as drawn overlap,
  // and the tooltip still names every ceiling.
  void rooflineSlopeLabelsNeverOverlapAtTheMinimumSize() {
    pto::Roofline roof;
    roof.clockGHz = 1.85;
    auto flat = [&](std::string name, std::string core, double opsPerCycle) {
      roof.ceilings.push_back({std::move(name), std::move(core), true, opsPerCycle, 0.0});
    };
    auto slope = [&](std::string name, std::string core, double bytesPerCycle) {
      roof.ceilings.push_back({std::move(name), std::move(core), false, 0.0, bytesPerCycle});
    };
    flat("CUBE int8 peak", "AIC", 16384), flat("CUBE float16 peak", "AIC", 8192), flat("VECTOR float32 add-class peak", "AIV", 64);
    slope("GM -> L1 peak, one core", "AIC", 78.4), slope("GM shared by 24 AIC cores", "AIC", 39.2);
    slope("GM -> UB peak, one core", "AIV", 58.4), slope("GM shared by 48 AIV cores", "AIV", 14.6);
    for (int i = 0; i < 6; ++i) {
      pto::RooflinePoint point;
      point.subgraph = i;
      point.coreType = i % 2 ? "AIV" : "AIC";
      point.ops = 1e6, point.gmReadBytes = 1e6 / std::pow(10.0, i - 2), point.intensity = std::pow(10.0, i - 2);
      point.meanCycles = 1e4, point.achievedOpsPerCycle = 0.5 * std::pow(10.0, i - 1);
      roof.points.push_back(point);
    }
    pto::widgets::RooflinePlot plot;
    plot.resize(420, plot.minimumSizeHint().height());  // the right dock's width
    plot.setRoofline(roof);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.plot()->replot();
    const std::vector<QPolygonF> outlines = plot.shownLabelOutlines();
    QVERIFY2(outlines.size() >= 4, qPrintable(QString::number(outlines.size())));  // the 3 flats and a slope at least
    for (std::size_t a = 0; a < outlines.size(); ++a)
      for (std::size_t b = a + 1; b < outlines.size(); ++b)
        QVERIFY2(!outlines[a].intersects(outlines[b]), qPrintable(QStringLiteral("labels %1 and %2 overlap").arg(a).arg(b)));
    for (const pto::RooflineCeiling& ceiling : roof.ceilings)
      QVERIFY2(plot.plot()->toolTip().contains(QString::fromStdString(ceiling.name)), qPrintable(plot.plot()->toolTip()));
  }

  void dependencyModelPassesTheModelTester() {
    auto loaded = loadTraceFile(kFixture);
    TaskDependencyModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto& trc = loaded.index->trace();
    TaskIndex withBoth = pto::trace::kNoTask;
    for (TaskIndex t = 0; t < trc.tasks().size() && withBoth == pto::trace::kNoTask; ++t)
      if (!trc.predecessors(t).empty() && !loaded.index->successors(t).empty()) withBoth = t;
    QVERIFY(withBoth != pto::trace::kNoTask);
    model.setTask(loaded.index, withBoth);
    QCOMPARE(model.rowCount(), static_cast<int>(trc.predecessors(withBoth).size() + loaded.index->successors(withBoth).size()));
    QCOMPARE(model.producerCount(), static_cast<int>(trc.predecessors(withBoth).size()));
    // A producer's wait is the selected start minus its end.
    TaskIndex producer = model.index(0, 0).data(TaskDependencyModel::TaskIndexRole).value<quint32>();
    QCOMPARE(model.index(0, TaskDependencyModel::GapColumn).data(TaskDependencyModel::SortRole).toLongLong(),
             trc.tasks()[withBoth].startNs - trc.tasks()[producer].endNs);
    model.setTask(nullptr, pto::trace::kNoTask);
    QCOMPARE(model.rowCount(), 0);
  }
};

QTEST_MAIN(WidgetGuiTest)
#include "WidgetGuiTest.moc"
