// Swimlane view and pane, offscreen: PNG and SVG exports are written and
// valid (QImage loads the PNG at the asked size, QSvgRenderer parses the
// SVG); the ReadyCount strip shows the view's time range and puts a time at
// the same x as the lanes after zoom, pan and resize, and hides without
// counters; W/A/S/D act only while the view has focus (typing "wasd" in a
// line edit leaves the view alone) and never with Ctrl; idle lanes collapse
// into one row and a click opens them; the tooltip names task, label,
// subgraph, times, kernel line and bound class. Expected values come from
// the documented rules (zoom factor 1.3 per key, 15% pan) and from traces
// built here. Dense lanes (drawn per pixel column from the tasks or from the
// lane summaries) are painted exactly where a walk over every task finds
// work, and picking finds the task under or next to the point. Loading a
// file reports progress, hands over a preview of what it read first (the
// file's first tasks, in order), stops soon after Cancel, and a truncated
// file gets one message naming the file, line and byte offset; the status
// bar's load bar follows its fraction and asks to cancel. With
// PTO_SCREENSHOT_DIR set, screenshots() also writes PNGs of the pane
// (fit-all and zoomed, light and dark) there.
#include "WidgetTestSupport.h"
#include "widgets/QCustomPlot.h"
#include "widgets/Theme.h"
#include "widgets/SwimlanePane.h"
#include "widgets/SwimlaneRenderer.h"
#include "widgets/TraceLoadBar.h"
#include "widgets/models/TraceLoading.h"


#include <QLineEdit>
#include <QPainter>
#include <QSignalSpy>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QVBoxLayout>

#include <QElapsedTimer>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <fstream>
#include <thread>

using pto::testing::writeGeneratedTrace;
using pto::trace::TaskIndex;
using namespace pto::widgets;

namespace {

const char* kFixture = PTO_WIDGET_TEST_DATA_DIR "/sample_swimlane.json";
const char* kPyptoFixture = PTO_SOURCE_DIR "/tests/trace/fixtures/merged_swimlane.json";

// `busyAiv` AIV lanes with tasks (vector-bound, label "softmax", subgraph 3,
// kernel.py:12) and `idleAic` AIC lanes without; ReadyCount counters when asked.
std::shared_ptr<const TraceIndex> vectorOnlyTrace(int idleAic, int busyAiv, bool counters) {
  auto trace = std::make_shared<pto::trace::Trace>();
  for (int i = 0; i < idleAic; ++i) trace->addLane("AIC_" + std::to_string(i), i);
  std::vector<pto::trace::LaneIndex> busy;
  for (int i = 0; i < busyAiv; ++i) busy.push_back(trace->addLane("AIV_" + std::to_string(i), idleAic + i));
  auto label = trace->intern("softmax");
  auto file = trace->intern("kernel.py");
  auto vector = trace->intern("VECTOR");
  auto mte2 = trace->intern("MTE2");
  for (int i = 0; i < 40; ++i) {
    pto::trace::Task task;
    task.id = 100 + i;
    task.lane = busy[static_cast<std::size_t>(i % busyAiv)];
    task.startNs = (i / busyAiv) * 1000;
    task.endNs = task.startNs + 800;
    task.label = label;
    task.name = label;
    task.subgraph = 3;
    task.sourceFile = file;
    task.sourceLine = 12;
    pto::trace::PipeInterval pipes[] = {{task.startNs, task.startNs + 200, mte2}, {task.startNs + 200, task.startNs + 800, vector}};
    trace->addTask(task, pipes);
  }
  if (counters)
    for (int t = 0; t <= 20; ++t) {
      trace->addCounterSample("ReadyCount_AIV", t * 1000, (t * 7) % 5);
      trace->addCounterSample("ReadyCount_Total", t * 1000, (t * 7) % 5 + 1);
    }
  trace->finalize();
  return std::make_shared<const TraceIndex>(trace, "vector-only");
}

// 200 000 short tasks on 16 lanes in three phases (load, compute, store)
// with a few long tasks: dense enough that fit-all draws from the summaries.
std::shared_ptr<const TraceIndex> denseTrace() {
  auto trace = std::make_shared<pto::trace::Trace>();
  std::vector<pto::trace::LaneIndex> lanes;
  for (int i = 0; i < 4; ++i) lanes.push_back(trace->addLane("AIC_" + std::to_string(i), i));
  for (int i = 0; i < 12; ++i) lanes.push_back(trace->addLane("AIV_" + std::to_string(i), 4 + i));
  pto::trace::StringId labels[] = {trace->intern("load"), trace->intern("qk"), trace->intern("softmax"), trace->intern("store")};
  std::vector<std::int64_t> laneTime(lanes.size(), 0);
  std::uint32_t seed = 1;
  for (int i = 0; i < 200000; ++i) {
    seed = seed * 1664525u + 1013904223u;
    std::size_t lane = static_cast<std::size_t>(i) % lanes.size();
    pto::trace::Task task;
    task.id = i;
    task.lane = lanes[lane];
    task.startNs = laneTime[lane] + (seed >> 28);
    task.endNs = task.startNs + 50 + (seed >> 24) % 200 + (i % 20011 == 0 ? 200000 : 0);
    laneTime[lane] = task.endNs + (i / 50000 == 2 && lane % 3 == 0 ? 400 : 0);  // sparser in phase 3
    int phase = std::min(3, static_cast<int>(task.startNs / 400000));
    task.label = labels[(seed >> 20) % 5 == 0 ? (phase + 1) % 4 : phase];
    task.name = task.label;
    task.subgraph = phase;
    trace->addTask(task);
  }
  trace->finalize();
  return std::make_shared<const TraceIndex>(trace, "dense");
}

// Two lanes: AIV_0 holds 10 000 tasks of 80 ns every 100 ns in [0, 1 ms)
// and in [2 ms, 3 ms) (idle between); AIV_1 one task [1.2 ms, 1.8 ms).
std::shared_ptr<const TraceIndex> gappedTrace() {
  auto trace = std::make_shared<pto::trace::Trace>();
  auto dense = trace->addLane("AIV_0", 0);
  auto sparse = trace->addLane("AIV_1", 1);
  auto label = trace->intern("qk");
  for (int i = 0; i < 20000; ++i) {
    pto::trace::Task task;
    task.id = i;
    task.lane = dense;
    task.startNs = (i < 10000 ? 0 : 1000000) + static_cast<std::int64_t>(i) * 100;
    task.endNs = task.startNs + 80;
    task.label = task.name = label;
    trace->addTask(task);
  }
  pto::trace::Task longTask;
  longTask.id = 20000;
  longTask.lane = sparse;
  longTask.startNs = 1200000;
  longTask.endNs = 1800000;
  longTask.label = longTask.name = label;
  trace->addTask(longTask);
  trace->finalize();
  return std::make_shared<const TraceIndex>(trace, "gapped");
}

} // namespace

class SwimlaneGuiTest : public QObject {
  Q_OBJECT
private Q_SLOTS:
  // At fit-all (20 tasks per pixel: columns from the lane summary) and 10x
  // zoomed (2 per pixel: columns from the tasks), the dense lane's middle
  // row is lane background exactly where no task overlaps the column and
  // coloured where one does (columns within 2 px of a busy/idle edge are
  // left out at fit-all, where the summary rounds column edges to its bins);
  // the long task on the other lane is drawn in its own colour; taskAt
  // finds a task within 3 px of the point, and none in the gap.
  void denseLanesDrawWhereTheTasksAre() {
    auto index = gappedTrace();
    const pto::trace::Trace& trace = index->trace();
    SwimlaneRenderer renderer;
    renderer.setTrace(index);
    renderer.setPalette(QApplication::palette());
    QSize size(1600, 200);
    QRect area = SwimlaneRenderer::timeArea(size);
    QRgb background = 0;  // the lane's, found at fit-all (zoomed in, the view holds no gap)
    for (double zoom : {1.0, 10.0}) {
      SwimlaneState state;
      state.showLegend = false;
      state.coords.setWidthPx(area.width());
      state.coords.setExtent(index->startNs(), index->endNs());
      state.coords.fit();
      if (zoom > 1) state.coords.zoomAbout(0, zoom);
      QImage image(size, QImage::Format_ARGB32_Premultiplied);
      QPainter painter(&image);
      renderer.paint(painter, size, state);
      painter.end();
      double laneMiddle = renderer.rowTopPx(*renderer.rowOfLane(0), state) + SwimlaneRenderer::kLaneHeightPx / 2.0;
      // The ruler's grid lines cross the lanes: a column whose pixel below
      // the lanes differs from that row's usual colour carries one.
      int belowLanes = area.bottom() - 4;
      std::map<QRgb, int> belowCount;
      for (int x = 0; x < area.width(); ++x) ++belowCount[image.pixel(area.left() + x, belowLanes)];
      QRgb plainBelow = std::max_element(belowCount.begin(), belowCount.end(), [](const auto& a, const auto& b) {
                          return a.second < b.second;
                        })->first;
      auto gridColumn = [&](int x) { return image.pixel(area.left() + x, belowLanes) != plainBelow; };
      // The lane's background: a column in the middle of its gap, off the grid.
      int gapX = static_cast<int>(state.coords.xOf(1500000));
      while (gapX < area.width() && gridColumn(gapX)) ++gapX;
      if (zoom == 1.0) background = image.pixel(area.left() + gapX, static_cast<int>(laneMiddle));
      int checkedBusy = 0, checkedIdle = 0;
      for (int x = 0; x < area.width(); ++x) {
        if (gridColumn(x)) continue;
        double from = state.coords.nsAt(x), to = state.coords.nsAt(x + 1);
        bool busy = false;
        bool nearEdge = false;
        for (double edge : {0.0, 1000000.0 - 20, 2000000.0, 3000000.0 - 20})
          nearEdge = nearEdge || std::abs(state.coords.xOf(edge) - x) < 3;
        for (TaskIndex t = 0; t < 20000 && !busy; ++t)
          busy = static_cast<double>(trace.taskStartNs(t)) < to && static_cast<double>(trace.taskEndNs(t)) > from;
        if (zoom == 1.0 && nearEdge) continue;
        QRgb pixel = image.pixel(area.left() + x, static_cast<int>(laneMiddle));
        if (busy) QVERIFY2(pixel != background, qPrintable(QStringLiteral("zoom %1 x %2 busy but empty").arg(zoom).arg(x)));
        else QVERIFY2(pixel == background, qPrintable(QStringLiteral("zoom %1 x %2 idle but drawn").arg(zoom).arg(x)));
        ++(busy ? checkedBusy : checkedIdle);
        // Picking: a task within 3 px of a busy column, none deep in the gap.
        TaskIndex picked = renderer.taskAt(QPointF(area.left() + x + 0.5, laneMiddle), size, state);
        double middleNs = state.coords.nsAt(x + 0.5);
        if (busy) {
          QVERIFY(picked != pto::trace::kNoTask);
          double distancePx = std::max({0.0, state.coords.xOf(static_cast<double>(trace.taskStartNs(picked))) - (x + 0.5),
                                        (x + 0.5) - state.coords.xOf(static_cast<double>(trace.taskEndNs(picked)))});
          QVERIFY(distancePx <= 3);
        } else if (middleNs > 1000000 + 4 * state.coords.nsPerPx() && middleNs < 2000000 - 4 * state.coords.nsPerPx()) {
          QCOMPARE(picked, pto::trace::kNoTask);
        }
      }
      QVERIFY(checkedBusy > 100);
      if (zoom == 1.0) QVERIFY(checkedIdle > 100);
      double sparseMiddle = renderer.rowTopPx(*renderer.rowOfLane(1), state) + SwimlaneRenderer::kLaneHeightPx / 2.0;
      if (gapX < area.width())
        QCOMPARE(QColor(image.pixel(area.left() + gapX, static_cast<int>(sparseMiddle))).rgb(),
                 renderer.taskColor(20000, SwimlaneColorMode::Label).rgb());
    }
  }

  // A 60 000-task file: progress rises to 1; a preview after 1 ms holds the
  // file's first tasks in order and fewer than all; the full result holds
  // them all. Cancel raised once a fifth is read stops the load with
  // "cancelled" well before a full read would end.
  void loadReportsProgressPreviewsAndCancels() {
    QTemporaryDir dir;
    std::string path = (dir.path() + QStringLiteral("/big.json")).toStdString();
    constexpr int kTasks = 60000;
    writeGeneratedTrace(path, kTasks);

    std::atomic<double> fraction{0};
    std::shared_ptr<const TraceIndex> preview;
    TraceLoadControl control;
    control.fraction = &fraction;
    control.previewAfterMs = 1;
    control.preview = [&](std::shared_ptr<const TraceIndex> index) { preview = std::move(index); };
    QElapsedTimer clock;
    clock.start();
    TraceLoadResult full = loadTraceFile(path, control);
    double fullMs = static_cast<double>(clock.elapsed());
    QVERIFY2(full.index, full.error.c_str());
    QCOMPARE(full.index->trace().taskCount(), static_cast<std::size_t>(kTasks));
    QCOMPARE(fraction.load(), 1.0);
    QVERIFY(preview);
    std::size_t previewTasks = preview->trace().taskCount();
    QVERIFY(previewTasks > 0 && previewTasks < static_cast<std::size_t>(kTasks));
    for (TaskIndex t = 0; t < previewTasks; ++t) QCOMPARE(preview->trace().taskId(t), static_cast<std::int64_t>(t));
    QVERIFY(full.previewMs > 0);

    std::atomic<bool> cancelled{false};
    std::atomic<double> cancelFraction{0};
    TraceLoadControl cancelling;
    cancelling.cancelled = &cancelled;
    cancelling.fraction = &cancelFraction;
    TraceLoadResult stopped;
    clock.restart();
    std::thread loader([&] { stopped = loadTraceFile(path, cancelling); });
    while (cancelFraction.load() < 0.2 && clock.elapsed() < 10000) std::this_thread::yield();
    cancelled = true;
    qint64 raisedAt = clock.elapsed();
    loader.join();
    qint64 stoppedAfter = clock.elapsed() - raisedAt;
    QVERIFY(stopped.cancelled);
    QVERIFY(!stopped.index);
    QCOMPARE(stopped.error, std::string("cancelled"));
    // Stopping takes at most the few thousand events between two checks.
    QVERIFY2(static_cast<double>(stoppedAfter) < std::max(50.0, 0.5 * fullMs),
             qPrintable(QStringLiteral("stopped %1 ms after cancel; a full read takes %2 ms").arg(stoppedAfter).arg(fullMs)));
  }

  // A file cut inside its 40 001st event: one error naming the file, its
  // line and the byte offset, with or without a preview first.
  void truncatedFileNamesFileLineAndOffset() {
    QTemporaryDir dir;
    std::string whole = (dir.path() + QStringLiteral("/whole.json")).toStdString();
    writeGeneratedTrace(whole, 60000);
    std::ifstream in(whole, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Line 1 opens the array, lines 2-9 name the lanes, task i is on line 10 + i.
    std::size_t lineStart = 0;
    for (int line = 1; line < 10 + 40000; ++line) lineStart = text.find('\n', lineStart) + 1;
    std::string cutPath = (dir.path() + QStringLiteral("/cut.json")).toStdString();
    std::ofstream(cutPath, std::ios::binary) << text.substr(0, lineStart + 20);
    for (double previewAfterMs : {0.0, 1.0}) {
      TraceLoadControl control;
      control.previewAfterMs = previewAfterMs;
      control.preview = [](std::shared_ptr<const TraceIndex>) {};
      TraceLoadResult result = loadTraceFile(cutPath, control);
      QVERIFY(!result.index);
      QVERIFY(!result.cancelled);
      // One diagnostic: its first line locates it, the next show the line with a caret.
      QString error = QString::fromStdString(result.error).section(QLatin1Char('\n'), 0, 0);
      QVERIFY2(error.startsWith(QString::fromStdString(cutPath) + QStringLiteral(":40010:")), qPrintable(error));
      QVERIFY2(error.contains(QStringLiteral("traceEvents[40008] at byte ") + QString::number(lineStart + 20)), qPrintable(error));
      QCOMPARE(QString::fromStdString(result.error).count(QStringLiteral(": traceEvents[")), 1);
    }
  }

  // The load bar shows the fraction it polls and asks to cancel.
  void loadBarFollowsTheFractionAndCancels() {
    TraceLoadBar bar;
    auto fraction = std::make_shared<std::atomic<double>>(0.0);
    bar.start(QStringLiteral("big.json"), fraction);
    QVERIFY(bar.loading());
    fraction->store(0.42);
    QTRY_COMPARE_WITH_TIMEOUT(bar.percent(), 42, 1000);
    QSignalSpy cancel(&bar, &TraceLoadBar::cancelRequested);
    auto* button = bar.findChild<QToolButton*>();
    QVERIFY(button);
    button->click();
    QCOMPARE(cancel.count(), 1);
    bar.finish();
    QVERIFY(!bar.loading());
    QVERIFY(bar.isHidden());
  }

  void exportsWriteValidPngAndSvg() {
    auto loaded = loadTraceFile(kFixture);
    QVERIFY(loaded.index);
    SwimlaneView view;
    view.resize(900, 300);
    view.setTrace(loaded.index);
    view.selectTask(0);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());

    QString png = dir.filePath(QStringLiteral("lanes.png"));
    QCOMPARE(view.exportPng(png, QSize(640, 360)), QString());
    QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), QSize(640, 360));
    // Not blank: the lanes, ruler and headers give many colours.
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 4)
      for (int x = 0; x < image.width(); x += 4) colours.insert(image.pixel(x, y));
    QVERIFY2(colours.size() > 8, qPrintable(QString::number(colours.size())));

    // Default size: the view's width and every lane.
    QString full = dir.filePath(QStringLiteral("full.png"));
    QCOMPARE(view.exportPng(full), QString());
    QCOMPARE(QImage(full).size(), view.exportSize());
    QCOMPARE(view.exportSize().height(), SwimlaneRenderer::kRulerHeightPx + view.renderer().contentHeightPx());

    QString svg = dir.filePath(QStringLiteral("lanes.svg"));
    QCOMPARE(view.exportSvg(svg, QSize(800, 400)), QString());
    QSvgRenderer renderer(svg);
    QVERIFY(renderer.isValid());
    QCOMPARE(renderer.viewBoxF(), QRectF(0, 0, 800, 400));
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QByteArray text = file.readAll();
    QVERIFY(text.contains("<svg"));
    // Slices are vector rectangles or paths, names are text.
    QVERIFY(text.count("<path") + text.count("<rect") > 20);
    QVERIFY(text.contains("scale_add"));

    // Failures are reported, not crashed on.
    QString missing = QStringLiteral("/nonexistent-folder/x.png");
    QVERIFY(view.exportPng(missing).contains(QStringLiteral("does not exist")));
    QVERIFY(view.exportSvg(QStringLiteral("/nonexistent-folder/x.svg")).contains(QStringLiteral("does not exist")));
    QVERIFY(!view.exportPng(png, QSize(100000, 100000)).isEmpty());
  }

  void readyStripFollowsTheLanes() {
    SwimlanePane pane;
    QVERIFY(pto::testing::showOnTrace(pane, QSize(1000, 500), vectorOnlyTrace(2, 4, true)));
    ReadyCountStrip* strip = pane.readyStrip();
    SwimlaneView* view = pane.view();
    QVERIFY(strip->isVisible());
    QCOMPARE(strip->seriesCount(), 2);  // AIV and Total; no AIC counter in this trace
    auto check = [&] {
      QCPRange range = strip->plot()->xAxis->range();
      QCOMPARE(range.lower, view->visibleStartNs());
      QCOMPARE(range.upper, view->visibleEndNs());
      QCOMPARE(strip->width(), view->width());
      // A time lands on the same x (pane coordinates) in both, within a pixel.
      for (double ns : {view->visibleStartNs() + 1, (view->visibleStartNs() + view->visibleEndNs()) / 2}) {
        double laneX = view->x() + SwimlaneView::timeAreaLeftPx() + view->state().coords.xOf(ns);
        double stripX = strip->x() + strip->plot()->x() + strip->plot()->xAxis->coordToPixel(ns);
        QVERIFY2(std::abs(laneX - stripX) <= 1.0, qPrintable(QStringLiteral("%1 vs %2").arg(laneX).arg(stripX)));
      }
    };
    check();
    view->zoomBy(3);
    check();
    view->setFocus();
    QTest::keyClick(view, Qt::Key_D);
    check();
    pane.resize(700, 400);
    QApplication::processEvents();
    check();

    // A trace without counters hides the strip; one with them shows it again.
    pane.setTrace(vectorOnlyTrace(2, 4, false));
    QVERIFY(!strip->isVisible());
    QVERIFY(!strip->hasData());
    pane.setTrace(vectorOnlyTrace(2, 4, true));
    QVERIFY(strip->isVisible());
  }

  void wasdOnlyWhileTheViewHasFocus() {
    QWidget window;
    auto* layout = new QVBoxLayout(&window);
    auto* edit = new QLineEdit(&window);
    auto* pane = new SwimlanePane(&window);
    layout->addWidget(edit);
    layout->addWidget(pane);
    window.resize(900, 500);
    pane->setTrace(vectorOnlyTrace(0, 4, false));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    SwimlaneView* view = pane->view();
    view->fit();
    view->zoomBy(4);
    double nsPerPx = view->state().coords.nsPerPx();
    double start = view->visibleStartNs();

    edit->setFocus();
    QTest::keyClicks(edit, QStringLiteral("wasd"));
    QCOMPARE(edit->text(), QStringLiteral("wasd"));
    QCOMPARE(view->state().coords.nsPerPx(), nsPerPx);
    QCOMPARE(view->visibleStartNs(), start);

    view->setFocus();
    // W zooms in by 1.3 about the centre while the mouse is elsewhere, …
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(view, &leave);
    double centre = view->state().coords.nsAt(view->state().coords.widthPx() / 2);
    QTest::keyClick(view, Qt::Key_W);
    QVERIFY(std::abs(view->state().coords.nsPerPx() - nsPerPx / 1.3) < 1e-9 * nsPerPx);
    QVERIFY2(std::abs(view->state().coords.nsAt(view->state().coords.widthPx() / 2) - centre) < 1e-6,
             qPrintable(QStringLiteral("%1 vs %2").arg(view->state().coords.nsAt(view->state().coords.widthPx() / 2)).arg(centre)));
    QTest::keyClick(view, Qt::Key_S);
    QVERIFY(std::abs(view->state().coords.nsPerPx() - nsPerPx) < 1e-9 * nsPerPx);
    // … and about the mouse when it is over the lanes.
    QPoint mouse(SwimlaneView::timeAreaLeftPx() + 200, 80);
    QTest::mouseMove(view, mouse);
    double underMouse = view->state().coords.nsAt(200);
    QTest::keyClick(view, Qt::Key_W);
    QVERIFY(std::abs(view->state().coords.nsAt(200) - underMouse) < 1e-6);
    QTest::keyClick(view, Qt::Key_S);
    QVERIFY(std::abs(view->state().coords.nsPerPx() - nsPerPx) < 1e-9 * nsPerPx);
    view->showRange(3000, 3000 + view->state().coords.widthPx() * nsPerPx);  // room to pan both ways
    double before = view->visibleStartNs();
    QTest::keyClick(view, Qt::Key_D);
    QVERIFY2(std::abs(view->visibleStartNs() - (before + 0.15 * view->state().coords.widthPx() * nsPerPx)) < 1e-6,
             qPrintable(QStringLiteral("%1 -> %2, width %3 px, %4 ns/px").arg(before).arg(view->visibleStartNs())
                            .arg(view->state().coords.widthPx()).arg(nsPerPx)));
    QTest::keyClick(view, Qt::Key_A);
    QVERIFY(std::abs(view->visibleStartNs() - before) < 1e-6);
    // Ctrl+S and Ctrl+W belong to the application, not to zooming.
    QTest::keyClick(view, Qt::Key_S, Qt::ControlModifier);
    QTest::keyClick(view, Qt::Key_W, Qt::ControlModifier);
    QVERIFY(std::abs(view->state().coords.nsPerPx() - nsPerPx) < 1e-9 * nsPerPx);
  }

  void idleLanesCollapseAndOpen() {
    SwimlaneView view;
    QVERIFY(pto::testing::showOnTrace(view, QSize(900, 500), vectorOnlyTrace(24, 4, false)));
    QCOMPARE(view.idleLaneCount(), std::size_t{24});
    QVERIFY(view.collapsesIdleLanes());
    const LaneLayout& layout = view.renderer().layout();
    QCOMPARE(layout.rows().size(), std::size_t{5});  // one row for the 24 AIC lanes, four AIV lanes
    QVERIFY(layout.rows()[0].idleGroup);
    QCOMPARE(layout.rows()[0].laneCount(), std::size_t{24});
    int collapsedHeight = view.renderer().contentHeightPx();
    // Clicking the idle row opens the lanes.
    QSignalSpy toggled(&view, &SwimlaneView::idleLanesCollapsedChanged);
    double y = view.renderer().rowTopPx(0, view.state()) + SwimlaneRenderer::kIdleRowHeightPx / 2.0;
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(400, static_cast<int>(y)));
    QCOMPARE(toggled.count(), 1);
    QVERIFY(!view.collapsesIdleLanes());
    QCOMPARE(view.renderer().layout().rows().size(), std::size_t{28});
    // 24 more lane rows minus the idle row: 24 * 26 - 18 px taller.
    QCOMPARE(view.renderer().contentHeightPx(), collapsedHeight + 24 * 26 - 18);
    view.setFocus();
    QTest::keyClick(&view, Qt::Key_I);
    QVERIFY(view.collapsesIdleLanes());
  }

  void tooltipAndLegendNameTheBoundClass() {
    SwimlaneView view;
    view.setTrace(vectorOnlyTrace(1, 2, false));
    QString tip = view.tooltipFor(0);
    for (const char* expected : {"softmax", "Subgraph", "3", "Start", "Duration", "800 ns", "kernel.py:12", "Bound",
                                 "vector (vector 75%, memory-in 25%)"})
      QVERIFY2(tip.contains(QString::fromUtf8(expected)), qPrintable(tip));
    view.setColorMode(SwimlaneColorMode::Bound);
    auto legend = view.renderer().legend(SwimlaneColorMode::Bound);
    QCOMPARE(legend.size(), std::size_t{1});
    QVERIFY(legend[0].text.startsWith(QStringLiteral("vector")));
    QCOMPARE(legend[0].color, toQColor(boundColor(BoundClass::Vector)));
    auto labels = view.renderer().legend(SwimlaneColorMode::Label);
    QCOMPARE(labels.size(), std::size_t{1});
    QCOMPARE(labels[0].text, QStringLiteral("softmax"));
  }

  // Screenshots to look at, not a check: set PTO_SCREENSHOT_DIR (and
  // optionally PTO_SCREENSHOT_TRACE, e.g. a `pto run examples/softmax --trace` file).
  void screenshots() {
    QString dir = qEnvironmentVariable("PTO_SCREENSHOT_DIR");
    if (dir.isEmpty()) QSKIP("PTO_SCREENSHOT_DIR not set");
    QStringList traces{QStringLiteral("dense"), QString::fromUtf8(kFixture), QString::fromUtf8(kPyptoFixture)};
    if (!qEnvironmentVariableIsEmpty("PTO_SCREENSHOT_TRACE")) traces << qEnvironmentVariable("PTO_SCREENSHOT_TRACE");
    for (const QString& path : traces) {
      TraceLoadResult loaded;
      if (path == QStringLiteral("dense")) loaded.index = denseTrace();
      else loaded = loadTraceFile(path.toStdString());
      QVERIFY2(loaded.index, loaded.error.c_str());
      for (bool dark : {false, true}) {
        SwimlanePane pane;
        if (dark) pane.setPalette(pto::widgets::darkPalette());
        QVERIFY(pto::testing::showOnTrace(pane, QSize(1400, 700), loaded.index));
        QString stem = dir + QStringLiteral("/") + QFileInfo(path).baseName() + (dark ? QStringLiteral("-dark") : QStringLiteral("-light"));
        pane.view()->selectTask(static_cast<TaskIndex>(loaded.index->trace().tasks().size() / 2), false);
        QApplication::processEvents();
        pane.grab().save(stem + QStringLiteral("-fit.png"));
        pane.view()->setColorMode(SwimlaneColorMode::Bound);
        pane.view()->zoomBy(6);
        QApplication::processEvents();
        pane.grab().save(stem + QStringLiteral("-zoom-bound.png"));
        // The SVG export, rendered back to pixels to look at.
        QString svg = stem + QStringLiteral("-export.svg");
        QCOMPARE(pane.view()->exportSvg(svg), QString());
        QSvgRenderer renderer(svg);
        QImage image(pane.view()->exportSize(), QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        QPainter painter(&image);
        renderer.render(&painter);
        painter.end();
        image.save(stem + QStringLiteral("-export-svg.png"));
      }
    }
  }
};

QTEST_MAIN(SwimlaneGuiTest)
#include "SwimlaneGuiTest.moc"
