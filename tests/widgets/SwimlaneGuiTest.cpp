// Swimlane view and pane, offscreen: PNG and SVG exports are written and
// valid (QImage loads the PNG at the asked size, QSvgRenderer parses the
// SVG); the ReadyCount strip shows the view's time range and puts a time at
// the same x as the lanes after zoom, pan and resize, and hides without
// counters; W/A/S/D act only while the view has focus (typing "wasd" in a
// line edit leaves the view alone) and never with Ctrl; idle lanes collapse
// into one row and a click opens them; the tooltip names task, label,
// subgraph, times, kernel line and bound class. Expected values come from
// the documented rules (zoom factor 1.3 per key, 15% pan) and from traces
// built here. With PTO_SCREENSHOT_DIR set, screenshots() also writes PNGs
// of the pane (fit-all and zoomed, light and dark) there.
#include "WidgetTestSupport.h"
#include "widgets/QCustomPlot.h"
#include "widgets/Theme.h"
#include "widgets/SwimlanePane.h"
#include "widgets/models/TraceLoading.h"


#include <QLineEdit>
#include <QPainter>
#include <QSignalSpy>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QVBoxLayout>

#include <cmath>

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

} // namespace

class SwimlaneGuiTest : public QObject {
  Q_OBJECT
private Q_SLOTS:
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
