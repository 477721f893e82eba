// GUI tests, offscreen, of the source editor's find/replace bar and
// diagnostics and of the summary panel. Expected values are worked out by
// hand from the small texts here. With PTO_SCREENSHOT_DIR set, the views are
// also saved as PNGs (light and dark) for a person to look at.
#include "widgets/FindBar.h"
#include "widgets/Theme.h"
#include "widgets/SourceEditor.h"
#include "widgets/SummaryPanel.h"

#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>

using namespace pto::widgets;
using Severity = EditorDiagnostic::Severity;

namespace {

// Five occurrences of "alpha" ignoring case; "Alpha" differs in case and
// "alpha_x" is not a whole word.
const char* kFindText = "alpha beta alpha\nAlpha gamma alpha_x\n";

const char* kKernel =
    "import pypto\n"                                    // 1
    "\n"                                                // 2
    "@pypto.frontend.jit\n"                             // 3
    "def softmax(x, y):\n"                              // 4
    "    pypto.set_vec_tile_shapes(1, 4, 1, 64)\n"      // 5
    "    row_max = pypto.amax(x, dim=-1)\n"             // 6
    "    y[:] = pypto.exp(x - row_max) / total\n"       // 7
    "    return y\n";                                   // 8

RunSummary passingRun() {
  RunSummary run;
  run.project = "softmax";
  run.simulated = true;
  run.makespanUs = 12.5;
  run.makespanCycles = 22500;
  run.machine = "a2";
  run.mode = "timing";
  run.clockGHz = 1.8;
  run.outputsFrom = "tiles";
  run.tasks = 96;
  run.subgraphs = 96;
  run.programs = 1;
  run.dependencies = 0;
  run.coreTypes = {{"AIC", 24, 0, 0.0}, {"AIV", 48, 96, 0.8130}};
  run.outputs = {{"y", "float32", {32, 32, 1, 256}, true, 2.4e-7, 3.1e-6, 0, 262144, 1e-5, 1e-6, "reference", ""}};
  run.hostTimes = {20.2, 3.5, 4.0, 1.5, 6.0};
  run.previousMakespanUs = 13.0;
  return run;
}

RunSummary failingRun() {
  RunSummary run = passingRun();
  run.makespanUs = 14.0;
  run.outputs.push_back({"z", "float16", {64}, false, 0.5, 0.25, 3, 64, 1e-3, 1e-3, "golden_z.npy", ""});
  return run;
}

bool screenshots() { return !qEnvironmentVariableIsEmpty("PTO_SCREENSHOT_DIR"); }
void save(QWidget& widget, const QString& name) {
  if (!screenshots()) return;
  widget.grab().save(qEnvironmentVariable("PTO_SCREENSHOT_DIR") + QLatin1Char('/') + name + QStringLiteral(".png"));
}

} // namespace

class EditorGuiTest : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void findCountsAndWraps();
  void findOptionsAndBadPattern();
  void findBarKeys();
  void replaceCurrentThenReplaceAllIsOneUndoStep();
  void regexReplaceUsesGroups();
  void diagnosticsMarkUnderlineAndHover();
  void diagnosticsFollowEditsAndClear();
  void savePointAndModification();
  void summaryShowsAPassingRunFasterThanBefore();
  void summaryShowsAFailingSlowerRun();
  void summaryOfATraceOnlyAndNothing();
  void screenshotsLightAndDark();
};

void EditorGuiTest::findCountsAndWraps() {
  SourceEditor editor;
  editor.setText(QString::fromUtf8(kFindText));
  editor.openFindBar(false);
  editor.setSearch(QStringLiteral("alpha"));
  QCOMPARE(editor.matchCount(), 4);
  editor.setCursorPosition(0, 0);
  QVERIFY(editor.findNext());
  QCOMPARE(editor.currentMatch(), 1);
  QCOMPARE(editor.findBar()->countText(), QStringLiteral("1 of 4"));
  QVERIFY(editor.findNext());
  QCOMPARE(editor.currentMatch(), 2);
  int line = 0, index = 0;
  editor.getCursorPosition(&line, &index);
  QCOMPARE(line, 0);
  QCOMPARE(index, 16);  // the caret ends the second "alpha" (columns 11..16)
  QVERIFY(editor.findNext());
  QVERIFY(editor.findNext());
  QCOMPARE(editor.currentMatch(), 4);
  QVERIFY(editor.findNext());  // wraps to the top
  QCOMPARE(editor.currentMatch(), 1);
  QVERIFY(editor.findPrevious());  // and back to the bottom
  QCOMPARE(editor.currentMatch(), 4);
  QCOMPARE(editor.findBar()->countText(), QStringLiteral("4 of 4"));
  editor.setSearch(QStringLiteral("delta"));
  QVERIFY(!editor.findNext());
  QCOMPARE(editor.findBar()->countText(), QStringLiteral("No results"));
}

void EditorGuiTest::findOptionsAndBadPattern() {
  SourceEditor editor;
  editor.setText(QString::fromUtf8(kFindText));
  editor.openFindBar(false);
  editor.setSearch(QStringLiteral("alpha"), {.matchCase = true});
  QCOMPARE(editor.matchCount(), 3);
  editor.setSearch(QStringLiteral("alpha"), {.wholeWord = true});
  QCOMPARE(editor.matchCount(), 3);
  editor.setSearch(QStringLiteral("alpha"), {.matchCase = true, .wholeWord = true});
  QCOMPARE(editor.matchCount(), 2);
  editor.setSearch(QStringLiteral("a[a-z]+a\\b"), {.matchCase = true, .regex = true});  // alpha x2, gamma
  QCOMPARE(editor.matchCount(), 3);
  editor.setSearch(QStringLiteral("x*"), {.regex = true});  // empty matches are not results
  QCOMPARE(editor.matchCount(), 1);
  editor.setSearch(QStringLiteral("(alpha"), {.regex = true});
  QCOMPARE(editor.matchCount(), 0);
  QCOMPARE(editor.findBar()->countText(), QStringLiteral("Bad pattern"));
  // The bar's toggles are the options.
  editor.findBar()->setOptions({.matchCase = true});
  editor.findBar()->setFindText(QStringLiteral("Alpha"));
  QCOMPARE(editor.matchCount(), 1);
}

void EditorGuiTest::findBarKeys() {
  SourceEditor editor;
  editor.setText(QString::fromUtf8(kFindText));
  editor.resize(500, 300);
  editor.show();
  editor.setCursorPosition(0, 0);
  QTest::keyClick(&editor, Qt::Key_F, Qt::ControlModifier);
  QVERIFY(editor.findBar()->isVisible());
  QVERIFY(!editor.findBar()->replaceShown());
  auto* field = editor.findBar()->findChild<QLineEdit*>(QStringLiteral("FindField"));
  QVERIFY(field);
  QTest::keyClicks(field, QStringLiteral("alpha"));
  QCOMPARE(editor.currentMatch(), 1);  // found while typing
  QTest::keyClick(field, Qt::Key_Return);
  QCOMPARE(editor.currentMatch(), 2);
  QTest::keyClick(field, Qt::Key_F3);
  QCOMPARE(editor.currentMatch(), 3);
  QTest::keyClick(field, Qt::Key_Return, Qt::ShiftModifier);
  QCOMPARE(editor.currentMatch(), 2);
  QTest::keyClick(field, Qt::Key_F3, Qt::ShiftModifier);
  QCOMPARE(editor.currentMatch(), 1);
  QCOMPARE(editor.text(), QString::fromUtf8(kFindText));  // no key reached the text
  QTest::keyClick(field, Qt::Key_H, Qt::ControlModifier);
  QVERIFY(editor.findBar()->replaceShown());
  QTest::keyClick(field, Qt::Key_Escape);
  QVERIFY(!editor.findBar()->isVisible());
  // F3 in the editor goes on with the last search.
  QTest::keyClick(&editor, Qt::Key_F3);
  QCOMPARE(editor.currentMatch(), 2);
  // The bar sits at the bottom, inside the editor, below the text.
  QTest::keyClick(&editor, Qt::Key_F, Qt::ControlModifier);
  QRect bar = editor.findBar()->geometry();
  QVERIFY(bar.bottom() <= editor.height());
  QVERIFY(bar.top() > editor.height() / 2);
  QVERIFY(editor.viewport()->geometry().bottom() < bar.top());
}

void EditorGuiTest::replaceCurrentThenReplaceAllIsOneUndoStep() {
  SourceEditor editor;
  editor.setText(QString::fromUtf8(kFindText));
  editor.setCursorPosition(0, 0);
  editor.setSearch(QStringLiteral("alpha"), {.wholeWord = true});
  // The first press goes to the match, the second replaces it.
  QVERIFY(!editor.replaceCurrent(QStringLiteral("omega")));
  QCOMPARE(editor.currentMatch(), 1);
  QVERIFY(editor.replaceCurrent(QStringLiteral("omega")));
  QCOMPARE(editor.text(), QStringLiteral("omega beta alpha\nAlpha gamma alpha_x\n"));
  QCOMPARE(editor.currentMatch(), 1);  // the next one is selected: "alpha", now the first of 2
  QCOMPARE(editor.matchCount(), 2);
  const QString beforeAll = editor.text();
  QCOMPARE(editor.replaceAll(QStringLiteral("omega")), 2);
  QCOMPARE(editor.text(), QStringLiteral("omega beta omega\nomega gamma alpha_x\n"));
  QCOMPARE(editor.matchCount(), 0);
  editor.undo();  // one step takes back every replacement of replaceAll
  QCOMPARE(editor.text(), beforeAll);
  editor.undo();
  QCOMPARE(editor.text(), QString::fromUtf8(kFindText));
  editor.redo();
  editor.redo();
  QCOMPARE(editor.text(), QStringLiteral("omega beta omega\nomega gamma alpha_x\n"));
}

void EditorGuiTest::regexReplaceUsesGroups() {
  SourceEditor editor;
  editor.setText(QStringLiteral("tile_m = 16\ntile_n = 32\nother = 7\n"));
  editor.setSearch(QStringLiteral("tile_(\\w) = (\\d+)"), {.matchCase = true, .regex = true});
  QCOMPARE(editor.matchCount(), 2);
  QCOMPARE(editor.replaceAll(QStringLiteral("\\1_tile = \\2")), 2);
  QCOMPARE(editor.text(), QStringLiteral("m_tile = 16\nn_tile = 32\nother = 7\n"));
}

void EditorGuiTest::diagnosticsMarkUnderlineAndHover() {
  QTemporaryDir dir;
  QString path = dir.filePath(QStringLiteral("kernel.py"));
  QFile file(path);
  QVERIFY(file.open(QIODevice::WriteOnly));
  file.write(kKernel);
  file.close();
  SourceEditor editor;
  QString error;
  QVERIFY(editor.loadFile(path, &error));
  editor.setDiagnostics({
      {7, 37, 0, Severity::Error, "error: name 'total' is not defined", "kernel.py"},
      {5, 0, 0, Severity::Warning, "warning: tile shape 1x4x1x64 leaves the vector unit half idle", ""},
      {6, 15, 25, Severity::Note, "note: reduction here", path.toStdString()},
      {6, 200, 0, Severity::Note, "note: past the end", "kernel.py"},
      {3, 1, 0, Severity::Error, "error: elsewhere", "other/helper.py"},  // another file: left out
      {99, 1, 0, Severity::Error, "error: no such line", "kernel.py"},    // past the end: left out
  });
  QCOMPARE(editor.diagnostics().size(), std::size_t{4});
  // Underlines: the token "total" (columns 37..41), the warning's line
  // without its indentation, the note's explicit range, the last character
  // of line 6 for a column past its end.
  std::vector<SourceEditor::UnderlineRange> expected = {
      {Severity::Error, 7, 37, 42},
      {Severity::Warning, 5, 5, 43},
      {Severity::Note, 6, 15, 25},
      {Severity::Note, 6, 35, 36},
  };
  QCOMPARE(editor.diagnosticUnderlines(), expected);
  QCOMPARE(editor.diagnosticMarkers(7), std::vector<Severity>{Severity::Error});
  QCOMPARE(editor.diagnosticMarkers(5), std::vector<Severity>{Severity::Warning});
  QCOMPARE(editor.diagnosticMarkers(6), std::vector<Severity>{Severity::Note});
  QVERIFY(editor.diagnosticMarkers(3).empty());
  QVERIFY(editor.diagnosticMarkers(1).empty());
  // Hover: on the underline, not beside it; the margin shows the line's messages.
  QCOMPARE(editor.diagnosticTextAt(7, 40), QStringLiteral("error: name 'total' is not defined"));
  QCOMPARE(editor.diagnosticTextAt(7, 36), QString());
  QCOMPARE(editor.diagnosticTextAt(5, 1), QStringLiteral("warning: tile shape 1x4x1x64 leaves the vector unit half idle"));
  QCOMPARE(editor.diagnosticTextAt(6, 20), QStringLiteral("note: reduction here"));
  QCOMPARE(editor.diagnosticTextOnLine(6), QStringLiteral("note: reduction here\nnote: past the end"));
  QCOMPARE(editor.diagnosticTextOnLine(4), QString());

  // The dwell (mouse resting) shows the text as a tooltip, over the text and over the margin symbol.
  editor.resize(600, 300);
  editor.show();
  QVERIFY(QTest::qWaitForWindowExposed(&editor));
  long position = editor.positionFromLineIndex(6, 39);
  int x = static_cast<int>(editor.SendScintilla(QsciScintillaBase::SCI_POINTXFROMPOSITION, 0UL, position));
  int y = static_cast<int>(editor.SendScintilla(QsciScintillaBase::SCI_POINTYFROMPOSITION, 0UL, position)) + 3;
  Q_EMIT editor.SCN_DWELLSTART(static_cast<int>(position), x, y);
  QTRY_VERIFY(QToolTip::isVisible());
  QVERIFY2(QToolTip::text().contains(QStringLiteral("name &#x27;total&#x27; is not defined")) ||
               QToolTip::text().contains(QStringLiteral("name 'total' is not defined")),
           qPrintable(QToolTip::text()));
  QVERIFY(QToolTip::text().contains(QStringLiteral("error:")));
  Q_EMIT editor.SCN_DWELLEND(static_cast<int>(position), x, y);
  QTRY_VERIFY(!QToolTip::isVisible());
  long line6 = editor.positionFromLineIndex(5, 0);
  int y6 = static_cast<int>(editor.SendScintilla(QsciScintillaBase::SCI_POINTYFROMPOSITION, 0UL, line6)) + 3;
  Q_EMIT editor.SCN_DWELLSTART(-1, 4, y6);  // over the margin symbol of line 6
  QTRY_VERIFY(QToolTip::isVisible());
  QVERIFY2(QToolTip::text().contains(QStringLiteral("reduction here")) && QToolTip::text().contains(QStringLiteral("past the end")),
           qPrintable(QToolTip::text()));
}

void EditorGuiTest::diagnosticsFollowEditsAndClear() {
  SourceEditor editor;
  editor.setText(QString::fromUtf8(kKernel));
  editor.setDiagnostics({{7, 37, 0, Severity::Error, "error: name 'total' is not defined", ""}});
  editor.insertAt(QStringLiteral("# added\n"), 0, 0);
  QCOMPARE(editor.diagnosticMarkers(8), std::vector<Severity>{Severity::Error});
  QCOMPARE(editor.diagnosticTextAt(8, 40), QStringLiteral("error: name 'total' is not defined"));
  QCOMPARE(editor.diagnosticUnderlines(),
           (std::vector<SourceEditor::UnderlineRange>{{Severity::Error, 8, 37, 42}}));
  editor.clearDiagnostics();  // a new run starts
  QVERIFY(editor.diagnosticUnderlines().empty());
  QVERIFY(editor.diagnosticMarkers(8).empty());
  QCOMPARE(editor.diagnosticTextOnLine(8), QString());
}

void EditorGuiTest::savePointAndModification() {
  SourceEditor editor;
  editor.setText(QStringLiteral("x = 1\n"));
  editor.setSavePoint();
  QSignalSpy spy(&editor, &QsciScintilla::modificationChanged);
  QVERIFY(!editor.isModified());
  editor.insertAt(QStringLiteral("y = 2\n"), 1, 0);
  QVERIFY(editor.isModified());
  QCOMPARE(spy.count(), 1);
  QCOMPARE(spy.at(0).at(0).toBool(), true);
  editor.setSavePoint();
  QVERIFY(!editor.isModified());
  QCOMPARE(spy.count(), 2);
  QCOMPARE(editor.text(), QStringLiteral("x = 1\ny = 2\n"));
}

void EditorGuiTest::summaryShowsAPassingRunFasterThanBefore() {
  SummaryPanel panel;
  panel.setRun(passingRun());
  QString text = panel.text();
  // 12.5 us against 13.0 us: 0.5 us faster, -3.8 %.
  QVERIFY2(text.startsWith(QStringLiteral("12.500 µs  0.500 µs faster (-3.8%)\nsimulated makespan")), qPrintable(text));
  QVERIFY2(text.contains(QStringLiteral("previous 13.000 µs")), qPrintable(text));
  QVERIFY2(text.contains(QStringLiteral("the output matches the golden")), qPrintable(text));
  QVERIFY2(text.contains(QStringLiteral("machine a2 · timing mode · 1.8 GHz · 22500 cycles")), qPrintable(text));
  QVERIFY2(text.contains(QStringLiteral("AIV (vector)\t48\t96\t81.3%")), qPrintable(text));
  QVERIFY2(text.contains(QStringLiteral("AIC (cube)\t24\t0\t0.0%")), qPrintable(text));
  QVERIFY2(text.contains(QStringLiteral("y\tpass\t2.4e-07\t3.1e-06\trtol 1e-05, atol 1e-06\treference")), qPrintable(text));
  QVERIFY2(text.contains(QStringLiteral("host time 35.2 ms: trace 20.2, golden 3.5, compile 4.0, simulate 1.5, execute 6.0 ms")),
           qPrintable(text));
  QVERIFY2(text.contains(QStringLiteral("96 tasks from 96 subgraphs (1 program), 0 dependencies")), qPrintable(text));
  // Faster is green: the delta label carries the light theme's green.
  bool green = false;
  for (QLabel* label : panel.findChildren<QLabel*>())
    if (label->text().contains(QStringLiteral("faster"))) green = label->text().contains(QStringLiteral("#1a7f37"));
  QVERIFY(green);
}

void EditorGuiTest::summaryShowsAFailingSlowerRun() {
  SummaryPanel panel;
  panel.setRun(failingRun());
  QString text = panel.text();
  // 14.0 us against 13.0 us: 1 us slower, +7.7 %.
  QVERIFY2(text.startsWith(QStringLiteral("14.000 µs  1.000 µs slower (+7.7%)")), qPrintable(text));
  QVERIFY2(text.contains(QStringLiteral("1 of 2 outputs FAIL the golden check")), qPrintable(text));
  QVERIFY2(text.contains(QStringLiteral("z\tFAIL (3 of 64 off)\t0.5\t0.25\trtol 0.001, atol 0.001\tgolden_z.npy")),
           qPrintable(text));
  bool red = false;
  for (QLabel* label : panel.findChildren<QLabel*>())
    if (label->text().contains(QStringLiteral("slower"))) red = label->text().contains(QStringLiteral("#c62828"));
  QVERIFY(red);
  // A failed rerun keeps these numbers under the failure.
  panel.setRunFailed(QStringLiteral("The run failed: kernel.py:7: name 'total' is not defined"));
  QVERIFY(panel.text().startsWith(QStringLiteral("The run failed: kernel.py:7")));
  QVERIFY(panel.text().contains(QStringLiteral("14.000 µs")));
  // Without a previous run there is no delta, and it says so.
  RunSummary first = passingRun();
  first.previousMakespanUs.reset();
  panel.setRun(first);
  QVERIFY2(panel.text().startsWith(QStringLiteral("12.500 µs  no previous run to compare with")), qPrintable(panel.text()));
}

void EditorGuiTest::summaryOfATraceOnlyAndNothing() {
  SummaryPanel panel;
  QVERIFY(panel.text().startsWith(QStringLiteral("No run yet")));
}

void EditorGuiTest::screenshotsLightAndDark() {
  if (!screenshots()) QSKIP("set PTO_SCREENSHOT_DIR to save screenshots");
  for (bool dark : {false, true}) {
    QString theme = dark ? QStringLiteral("dark") : QStringLiteral("light");
    SourceEditor editor;
    if (dark) editor.setPalette(pto::widgets::darkPalette());
    editor.setText(QString::fromUtf8(kKernel));
    editor.resize(560, 300);
    editor.show();
    editor.setDiagnostics({{7, 37, 0, Severity::Error, "error: name 'total' is not defined", ""},
                           {5, 0, 0, Severity::Warning, "warning: tile shape leaves the vector unit half idle", ""},
                           {6, 15, 25, Severity::Note, "note: reduction here", ""}});
    editor.openFindBar(true);
    editor.findBar()->setFindText(QStringLiteral("pypto"));
    editor.findNext();
    QTest::qWait(50);
    save(editor, QStringLiteral("editor-") + theme);
    long position = editor.positionFromLineIndex(6, 39);
    Q_EMIT editor.SCN_DWELLSTART(
        static_cast<int>(position),
        static_cast<int>(editor.SendScintilla(QsciScintillaBase::SCI_POINTXFROMPOSITION, 0UL, position)),
        static_cast<int>(editor.SendScintilla(QsciScintillaBase::SCI_POINTYFROMPOSITION, 0UL, position)) + 3);
    QTest::qWait(50);
    for (QWidget* top : QApplication::topLevelWidgets())
      if (top->inherits("QTipLabel") && top->isVisible()) save(*top, QStringLiteral("tooltip-") + theme);
    QToolTip::hideText();

    SummaryPanel panel;
    if (dark) panel.setPalette(pto::widgets::darkPalette());
    panel.resize(420, 560);
    panel.setRun(failingRun());
    panel.show();
    QTest::qWait(50);
    save(panel, QStringLiteral("summary-fail-") + theme);
    panel.setRun(passingRun());
    QTest::qWait(50);
    save(panel, QStringLiteral("summary-pass-") + theme);
  }
}

QTEST_MAIN(EditorGuiTest)
#include "EditorGuiTest.moc"
