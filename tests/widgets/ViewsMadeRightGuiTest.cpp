// Issue 13's "the views we have, made right", in the main window, offscreen:
// a selected task's kernel line is tinted in its label's colour (and the
// status bar says when the task has no line in the open file); a trace
// opened on its own brings its kernel into the editor read-only, or says
// which file it names and that it was not found; each --view request gives
// its own layout and View > Reset layout still restores the default; a
// broken project file opens in the editor with its error at its line, listed
// in Problems, and opens as a project once fixed and saved. Traces here are
// written by hand (a few tasks, known sources), so no test waits for a run.
#include "StudioGuiTestCase.h"
#include "app/studio/MainWindow.h"
#include "widgets/ProblemsPanel.h"
#include "widgets/SourceEditor.h"
#include "widgets/SwimlaneRenderer.h"
#include "widgets/SwimlaneView.h"
#include "widgets/TaskGraphView.h"
#include "widgets/models/TraceLoading.h"

#include <nlohmann/json.hpp>

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTest>

#include <fstream>

using pto::studio::MainWindow;
using pto::widgets::SourceEditor;

namespace {

const QString kSoftmax = QStringLiteral(PTO_SOURCE_DIR "/resources/examples/softmax");
// kernel.py of the softmax example: line 14 is `    row_max = pypto.amax(...)`,
// line 16 `    return numerator / ...`; both indented by four spaces.
constexpr int kAmaxLine = 14;
constexpr int kReturnLine = 16;

bool copyFolder(const QString& from, const QString& to) {
  if (!QDir().mkpath(to)) return false;
  for (const QString& name : QDir(from).entryList(QDir::Files))
    if (!QFile::copy(QDir(from).filePath(name), QDir(to).filePath(name))) return false;
  return true;
}

// A Chrome trace with one AIV lane and a task per entry of `sources`
// ("file:line", or empty for a task without a source), all labelled `label`.
bool writeTrace(const QString& path, const QStringList& sources, const std::string& label = "softmax") {
  nlohmann::json events = nlohmann::json::array();
  events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", 1}, {"tid", 0}, {"args", {{"name", "AIV_0"}}}});
  for (int i = 0; i < sources.size(); ++i) {
    nlohmann::json args = {{"taskId", i}, {"label", label}};
    if (!sources[i].isEmpty()) args["source"] = sources[i].toStdString();
    events.push_back({{"ph", "X"}, {"name", "task " + std::to_string(i)}, {"pid", 1}, {"tid", 0}, {"ts", 2 * i},
                      {"dur", 1}, {"args", args}});
  }
  if (!QDir().mkpath(QFileInfo(path).absolutePath())) return false;
  std::ofstream out(path.toStdString());
  out << nlohmann::json{{"traceEvents", events}}.dump(1);
  return bool(out);
}

// The colour the editor paints at 1-based `line`, inside its indentation
// (no text there; away from the caret at column 0).
QColor lineBackground(SourceEditor& editor, int line) {
  long position = editor.positionFromLineIndex(line - 1, 2);
  int x = static_cast<int>(editor.SendScintilla(QsciScintillaBase::SCI_POINTXFROMPOSITION, 0UL, position));
  int y = static_cast<int>(editor.SendScintilla(QsciScintillaBase::SCI_POINTYFROMPOSITION, 0UL, position)) +
          editor.textHeight(line - 1) / 2;
  return editor.viewport()->grab().toImage().pixelColor(x + 3, y);
}

int hueDistance(int a, int b) {
  int d = std::abs(a - b) % 360;
  return std::min(d, 360 - d);
}

QAction* actionNamed(MainWindow& window, const QString& text) {
  for (QAction* action : window.findChildren<QAction*>())
    if (action->text() == text) return action;
  return nullptr;
}

} // namespace

class ViewsMadeRightGuiTest : public pto::testing::StudioGuiTestCase {
  Q_OBJECT

private Q_SLOTS:
  void init() {
    // Every test starts from the default layout and no run on open.
    QSettings().remove(QStringLiteral("window"));
    QSettings().setValue(QStringLiteral("run/auto"), false);
    QVERIFY(makeScratchFolder());
  }

  // Defect 1: selecting a task only scrolled the editor; its line is now
  // visibly tinted in the task's label colour (the gutter's colour), the
  // mark moves with the selection, and a task without a line in the open
  // file says so in the status bar.
  void aSelectedTasksLineIsTintedInItsLabelsColour() {
    QString project = m_dir->filePath(QStringLiteral("softmax"));
    QVERIFY(copyFolder(kSoftmax, project));
    QString kernel = QDir(project).filePath(QStringLiteral("kernel.py"));
    QString tracePath = m_dir->filePath(QStringLiteral("t.json"));
    QVERIFY(writeTrace(tracePath, {kernel + QStringLiteral(":%1").arg(kAmaxLine), QStringLiteral("helper.py:3"), QString()}));
    auto loaded = pto::widgets::loadTraceFile(tracePath.toStdString());
    QVERIFY2(loaded.index, loaded.error.c_str());

    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.open(project));
    window.setTrace(loaded.index);
    SourceEditor& editor = *window.editor();
    QColor plain = lineBackground(editor, kAmaxLine);

    window.swimlane()->selectTask(0);
    QCOMPARE(editor.shownLine(), kAmaxLine);
    QColor label = pto::widgets::toQColor(loaded.index->labelColors().color("softmax"));
    QColor marked = lineBackground(editor, kAmaxLine);
    // Tinted: clearly coloured (the page and the caret line are greys), in
    // the label's hue; the next lines keep the page's colour.
    QVERIFY2(marked.hsvSaturation() >= 30, qPrintable(marked.name()));
    QVERIFY2(hueDistance(marked.hsvHue(), label.hsvHue()) <= 20, qPrintable(marked.name() + " vs " + label.name()));
    QVERIFY(lineBackground(editor, kReturnLine).hsvSaturation() < 20);
    QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("kernel.py:%1").arg(kAmaxLine)));

    // A task from another file: no mark left on the old line, and the
    // status bar says where the task comes from.
    window.swimlane()->selectTask(1);
    QCOMPARE(editor.shownLine(), 0);
    QCOMPARE(lineBackground(editor, kAmaxLine).hsvSaturation(), plain.hsvSaturation());
    QString message = window.statusBar()->currentMessage();
    QVERIFY2(message.contains(QStringLiteral("no line in kernel.py")) && message.contains(QStringLiteral("helper.py:3")),
             qPrintable(message));
    window.swimlane()->selectTask(2);
    QVERIFY2(window.statusBar()->currentMessage().contains(QStringLiteral("no source line")),
             qPrintable(window.statusBar()->currentMessage()));

    // The task graph selects through the swimlane: the same mark.
    Q_EMIT window.taskGraph()->taskActivated(0);
    QCOMPARE(editor.shownLine(), kAmaxLine);
    QVERIFY(lineBackground(editor, kAmaxLine).hsvSaturation() >= 30);
  }

  // Defect 2: a trace opened alone left the Source pane empty. Its kernel
  // is found relative to the trace's folder or one above it (as a simulator
  // output folder sits below the kernel), or at the absolute path written;
  // otherwise a placeholder names the missing file.
  void aTraceOpensItsKernelOrNamesTheMissingFile() {
    QString project = m_dir->filePath(QStringLiteral("op"));
    QVERIFY(copyFolder(kSoftmax, project));
    QFile::remove(QDir(project).filePath(QStringLiteral("pto-project.json")));  // a kernel, not a project
    QString kernel = QDir(project).filePath(QStringLiteral("kernel.py"));
    QString relative = QDir(project).filePath(QStringLiteral("output/run_1/merged_swimlane.json"));
    QVERIFY(writeTrace(relative, {QStringLiteral("kernel.py:%1").arg(kAmaxLine), QStringLiteral("kernel.py:15")}));

    MainWindow window;
    QSignalSpy loaded(&window, &MainWindow::traceLoaded);
    QVERIFY(window.open(relative));
    QVERIFY(loaded.wait(10000));
    SourceEditor& editor = *window.editor();
    QCOMPARE(QFileInfo(editor.filePath()).canonicalFilePath(), QFileInfo(kernel).canonicalFilePath());
    QVERIFY(editor.isReadOnly());
    QVERIFY(editor.text().contains(QStringLiteral("def row_softmax")));
    QVERIFY(editor.markersAtLine(kAmaxLine - 1) != 0);  // the label gutter
    window.swimlane()->selectTask(0);
    QCOMPARE(editor.shownLine(), kAmaxLine);

    // An absolute source path, the trace elsewhere.
    QString absolute = m_dir->filePath(QStringLiteral("elsewhere/abs.json"));
    QVERIFY(writeTrace(absolute, {kernel + QStringLiteral(":15")}));
    QVERIFY(window.open(absolute));
    QVERIFY(loaded.wait(10000));
    QCOMPARE(QFileInfo(editor.filePath()).canonicalFilePath(), QFileInfo(kernel).canonicalFilePath());

    // A kernel that is nowhere: the placeholder says which file and why.
    QString missing = m_dir->filePath(QStringLiteral("elsewhere/missing.json"));
    QVERIFY(writeTrace(missing, {QStringLiteral("/nonexistent/missing_kernel.py:3")}));
    QVERIFY(window.open(missing));
    QVERIFY(loaded.wait(10000));
    QVERIFY(editor.filePath().isEmpty());
    QVERIFY(editor.showsPlaceholder());
    QVERIFY(editor.isReadOnly());
    QVERIFY2(editor.text().contains(QStringLiteral("/nonexistent/missing_kernel.py")) &&
                 editor.text().contains(QStringLiteral("not found")),
             qPrintable(editor.text()));
  }

  // Defect 3: --view editor, summary and tuning gave the swimlane's layout.
  // Each now gives its dock the room; Reset layout brings the default back.
  void eachViewRequestGivesItsDockTheRoom() {
    MainWindow window;
    window.resize(1600, 1000);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* source = window.findChild<QDockWidget*>(QStringLiteral("SourceDock"));
    auto* summary = window.findChild<QDockWidget*>(QStringLiteral("SummaryDock"));
    auto* tuning = window.findChild<QDockWidget*>(QStringLiteral("TuningDock"));
    QVERIFY(source && summary && tuning);
    QAction* reset = actionNamed(window, QStringLiteral("&Reset layout"));
    QVERIFY(reset);
    reset->trigger();  // the default layout, as it will be restored below
    QApplication::processEvents();
    const QSize sourceSize = source->size();
    const QSize summarySize = summary->size();

    window.showView(MainWindow::View::Editor);
    QApplication::processEvents();
    QVERIFY2(source->width() >= 1600 * 30 / 100, qPrintable(QString::number(source->width())));
    QVERIFY(source->width() > sourceSize.width() * 5 / 4);

    window.showView(MainWindow::View::Summary);
    QApplication::processEvents();
    QVERIFY2(summary->width() >= 1600 * 33 / 100, qPrintable(QString::number(summary->width())));
    QVERIFY2(summary->height() > summarySize.height() * 3 / 2,
             qPrintable(QStringLiteral("%1 vs %2").arg(summary->height()).arg(summarySize.height())));
    QVERIFY(source->width() < sourceSize.width());

    window.showView(MainWindow::View::Tuning);
    QApplication::processEvents();
    QVERIFY(tuning->isVisible());  // its tab raised over the task details
    QVERIFY(tuning->width() >= 1600 * 33 / 100);
    // The summary's tab group below keeps what its Health tab's roofline
    // needs to stay readable (220 px since issue 35 item 7), no more than it
    // had by default: the tuning dock gets the rest.
    QVERIFY2(tuning->height() > summary->height() && summary->height() <= summarySize.height(),
             qPrintable(QStringLiteral("%1 vs %2 (default %3)")
                            .arg(tuning->height())
                            .arg(summary->height())
                            .arg(summarySize.height())));

    reset->trigger();
    QApplication::processEvents();
    QVERIFY2(std::abs(source->width() - sourceSize.width()) <= 4,
             qPrintable(QStringLiteral("%1 vs %2").arg(source->width()).arg(sourceSize.width())));
    QVERIFY(std::abs(summary->width() - summarySize.width()) <= 4);
    QVERIFY2(std::abs(summary->height() - summarySize.height()) <= 4,
             qPrintable(QStringLiteral("%1 vs %2").arg(summary->height()).arg(summarySize.height())));
  }

  // Issue 35: every view brought forward leaves the centre at least half
  // the window's width (Summary, Advice and Tuning gave the docks 65 %).
  void everyViewLeavesTheCentreHalfTheWindow() {
    MainWindow window;
    window.resize(1600, 1000);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    actionNamed(window, QStringLiteral("&Reset layout"))->trigger();
    for (MainWindow::View view : {MainWindow::View::Summary, MainWindow::View::Health, MainWindow::View::Runs,
                                  MainWindow::View::Advice, MainWindow::View::Tuning, MainWindow::View::Editor,
                                  MainWindow::View::Memory, MainWindow::View::Swimlane}) {
      window.showView(view);
      QApplication::processEvents();
      QApplication::processEvents();  // the check a dock's showing queues
      QVERIFY2(2 * window.centralWidget()->width() >= window.width(),
               qPrintable(QStringLiteral("view %1: centre %2 of %3").arg(static_cast<int>(view)).arg(window.centralWidget()->width()).arg(window.width())));
    }
  }

  // Defect 4: a project file with an error left an empty window. It opens
  // in the editor with the error marked at its line and listed in Problems;
  // fixed and saved (Ctrl+S), it opens as the project.
  void aBrokenProjectFileOpensInTheEditorWithItsError_data() {
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("startColumn");
    QTest::addColumn<int>("endColumn");
    // The parser stops at the next key (line 5, its closing quote); the bad
    // value is underlined whole ("float33" at columns 16..24 of line 10).
    QTest::newRow("invalid JSON") << QStringLiteral("\"source\": \"kernel.py\",") << QStringLiteral("\"source\": \"kernel.py\"")
                                  << 5 << 9 << 10;
    QTest::newRow("bad value") << QStringLiteral("\"dtype\": \"float32\"") << QStringLiteral("\"dtype\": \"float33\"") << 10
                               << 16 << 25;
  }

  void aBrokenProjectFileOpensInTheEditorWithItsError() {
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(int, line);
    QFETCH(int, startColumn);
    QFETCH(int, endColumn);
    QString project = m_dir->filePath(QStringLiteral("softmax"));
    QVERIFY(copyFolder(kSoftmax, project));
    QString file = QDir(project).filePath(QStringLiteral("pto-project.json"));
    QFile in(file);
    QVERIFY(in.open(QIODevice::ReadOnly));
    QString good = QString::fromUtf8(in.readAll());
    in.close();
    QString broken = good;
    broken.replace(broken.indexOf(from), from.size(), to);  // the first only
    QVERIFY(broken != good);
    QFile out(file);
    QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
    out.write(broken.toUtf8());
    out.close();

    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy failed(&window, &MainWindow::openFailed);
    QVERIFY(!window.open(project));  // still a failed open (pto-studio --exit returns 1)
    QCOMPARE(failed.count(), 1);
    QVERIFY(!window.project());

    SourceEditor& editor = *window.editor();
    QCOMPARE(QFileInfo(editor.filePath()).canonicalFilePath(), QFileInfo(file).canonicalFilePath());
    QVERIFY(!editor.isReadOnly());
    QVERIFY(!editor.diagnostics().empty());
    QCOMPARE(editor.diagnostics().front().line, line);
    using Severity = pto::widgets::EditorDiagnostic::Severity;
    QCOMPARE(editor.diagnosticMarkers(line), std::vector<Severity>{Severity::Error});
    QCOMPARE(editor.diagnosticUnderlines(),
             (std::vector<SourceEditor::UnderlineRange>{{Severity::Error, line, startColumn, endColumn}}));
    QVERIFY(window.problems()->errorCount() >= 1);
    QVERIFY(window.findChild<QDockWidget*>(QStringLiteral("ProblemsDock"))->isVisible());

    // Fixed in the editor and saved: the project opens, its kernel in the editor.
    editor.setText(good);
    QAction* save = actionNamed(window, QStringLiteral("&Save"));
    QVERIFY(save);
    save->trigger();
    QVERIFY(window.project());
    QVERIFY(editor.filePath().endsWith(QStringLiteral("kernel.py")));
    QVERIFY(editor.diagnostics().empty());
  }

};

QTEST_MAIN(ViewsMadeRightGuiTest)
#include "ViewsMadeRightGuiTest.moc"
