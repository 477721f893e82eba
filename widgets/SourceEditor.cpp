// The kernel source editor.
#include "widgets/SourceEditor.h"

#include "core/AtomicFile.h"
#include "runtime/trace/Trace.h"

#include "widgets/CostHeatmap.h"
#include "widgets/SwimlaneRenderer.h"
#include "widgets/models/LabelPalette.h"

#include <Qsci/qscistyle.h>
#include <QAction>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFontMetrics>
#include <QImage>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QSettings>
#include <QToolTip>

#include <algorithm>
#include <climits>
#include <regex>

namespace pto::widgets {
namespace {

using Severity = EditorDiagnostic::Severity;

// Marker numbers: one per palette colour for the label stripe, one for the
// unknown label, one for the selected task's line, then one per diagnostic
// severity (Scintilla draws higher numbers on top, so an error's symbol wins
// over a note's on a shared line). Scintilla has 25 free markers (0..24).
constexpr int kUnknownLabelMarker = kPaletteSize;
constexpr int kShownLineMarker = kPaletteSize + 1;
constexpr int kNoteMarker = kPaletteSize + 2;
constexpr int kWarningMarker = kPaletteSize + 3;
constexpr int kErrorMarker = kPaletteSize + 4;
static_assert(kErrorMarker <= 24, "Scintilla reserves markers 25..31 for folding");
// Margins, left to right: diagnostic symbols, line numbers, the label
// stripe, the cost heatmap (text, each line's share of busy time).
constexpr int kDiagnosticMargin = 0;
constexpr int kLineNumberMargin = 1;
constexpr int kLabelMargin = 2;
constexpr int kHeatMargin = 3;
// The heatmap's styles, one per colour level: numbers above the Python
// lexer's and Scintilla's predefined ones (margin text shares their table).
constexpr int kHeatStyleBase = 200;
// Indicators (8.. are free for containers).
constexpr int kErrorIndicator = 8;
constexpr int kWarningIndicator = 9;
constexpr int kNoteIndicator = 10;
constexpr int kFindIndicator = 11;
// More matches than this are not counted or highlighted (a search for "e").
constexpr std::size_t kMaxMatches = 10000;
constexpr int kDwellMs = 400;

int markerFor(Severity severity) {
  switch (severity) {
  case Severity::Error: return kErrorMarker;
  case Severity::Warning: return kWarningMarker;
  case Severity::Note: return kNoteMarker;
  }
  return kErrorMarker;
}

int indicatorFor(Severity severity) {
  switch (severity) {
  case Severity::Error: return kErrorIndicator;
  case Severity::Warning: return kWarningIndicator;
  case Severity::Note: return kNoteIndicator;
  }
  return kErrorIndicator;
}

QColor severityColour(Severity severity, bool dark) {
  switch (severity) {
  case Severity::Error: return dark ? QColor(241, 76, 76) : QColor(212, 28, 28);
  case Severity::Warning: return dark ? QColor(224, 175, 30) : QColor(191, 130, 0);
  case Severity::Note: return dark ? QColor(85, 160, 255) : QColor(26, 110, 220);
  }
  return Qt::red;
}

// The margin symbols: a filled circle with a cross (error), a triangle with
// "!" (warning), a circle with "i" (note): told apart by shape, not only
// colour.
QImage severityImage(Severity severity, bool dark, int side) {
  QImage image(side, side, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::transparent);
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  QColor fill = severityColour(severity, dark);
  QRectF box(0.5, 0.5, side - 1.0, side - 1.0);
  painter.setPen(Qt::NoPen);
  painter.setBrush(fill);
  QPen glyph(severity == Severity::Warning ? QColor(30, 30, 30) : QColor(Qt::white), side / 7.0, Qt::SolidLine,
             Qt::RoundCap);
  double c = side / 2.0;
  if (severity == Severity::Warning) {
    QPainterPath triangle;
    triangle.moveTo(c, box.top());
    triangle.lineTo(box.right(), box.bottom());
    triangle.lineTo(box.left(), box.bottom());
    triangle.closeSubpath();
    painter.drawPath(triangle);
    painter.setPen(glyph);
    painter.drawLine(QPointF(c, side * 0.38), QPointF(c, side * 0.66));
    painter.drawPoint(QPointF(c, side * 0.82));
  } else {
    painter.drawEllipse(box);
    painter.setPen(glyph);
    if (severity == Severity::Error) {
      double d = side * 0.2;
      painter.drawLine(QPointF(c - d, c - d), QPointF(c + d, c + d));
      painter.drawLine(QPointF(c - d, c + d), QPointF(c + d, c - d));
    } else {
      painter.drawPoint(QPointF(c, side * 0.3));
      painter.drawLine(QPointF(c, side * 0.47), QPointF(c, side * 0.74));
    }
  }
  return image;
}

// `text` with newlines at spaces so no line is longer than `width` characters
// (a longer word stays whole).
QString wrapped(const QString& text, int width) {
  QString result;
  int lineLength = 0;
  for (const QString& word : text.split(QLatin1Char(' '))) {
    if (lineLength > 0 && lineLength + 1 + word.size() > width) {
      result += QLatin1Char('\n');
      lineLength = 0;
    } else if (lineLength > 0 || !result.isEmpty()) {
      result += QLatin1Char(' ');
      ++lineLength;
    }
    result += word;
    lineLength += static_cast<int>(word.size());
  }
  return result;
}

QString severityWord(Severity severity) {
  switch (severity) {
  case Severity::Error: return QStringLiteral("error");
  case Severity::Warning: return QStringLiteral("warning");
  case Severity::Note: return QStringLiteral("note");
  }
  return {};
}

} // namespace

SourceEditor::SourceEditor(QWidget* parent) : QsciScintilla(parent) {
  setUtf8(true);
  QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  auto* lexer = new QsciLexerPython(this);
  lexer->setDefaultFont(font);
  lexer->setFont(font);
  setLexer(lexer);
  setMarginType(kDiagnosticMargin, QsciScintilla::SymbolMargin);
  setMarginWidth(kDiagnosticMargin, 16);
  setMarginType(kLineNumberMargin, QsciScintilla::NumberMargin);
  setMarginWidth(kLineNumberMargin, QStringLiteral("00000"));
  setMarginType(kLabelMargin, QsciScintilla::SymbolMargin);
  setMarginWidth(kLabelMargin, 7);
  setMarginType(kHeatMargin, QsciScintilla::TextMarginRightJustified);
  setMarginWidth(kHeatMargin, 0);
  setMarginMarkerMask(kHeatMargin, 0);
  for (int margin : {kDiagnosticMargin, kLineNumberMargin, kLabelMargin, kHeatMargin}) setMarginSensitivity(margin, true);
  setMarginMarkerMask(kDiagnosticMargin, (1 << kNoteMarker) | (1 << kWarningMarker) | (1 << kErrorMarker));
  // Scintilla paints a translucent Background marker only when some margin's
  // mask holds it (ViewStyle's maskDrawInText); in a margin it draws
  // nothing, so the line-number margin carries the shown line's marker.
  setMarginMarkerMask(kLineNumberMargin, 1 << kShownLineMarker);
  setMarginMarkerMask(kLabelMargin, (1 << (kPaletteSize + 1)) - 1);
  for (int i = 0; i < kPaletteSize; ++i) markerDefine(QsciScintilla::FullRectangle, i);
  markerDefine(QsciScintilla::FullRectangle, kUnknownLabelMarker);
  markerDefine(QsciScintilla::Background, kShownLineMarker);
  indicatorDefine(QsciScintilla::SquigglePixmapIndicator, kErrorIndicator);
  indicatorDefine(QsciScintilla::SquigglePixmapIndicator, kWarningIndicator);
  indicatorDefine(QsciScintilla::DotsIndicator, kNoteIndicator);
  indicatorDefine(QsciScintilla::StraightBoxIndicator, kFindIndicator);
  // Find highlights sit under the text; diagnostics' underlines over it.
  SendScintilla(SCI_INDICSETUNDER, kFindIndicator, 1L);
  setIndentationsUseTabs(false);
  setIndentationWidth(4);
  setTabWidth(4);
  setAutoIndent(true);
  setBraceMatching(QsciScintilla::SloppyBraceMatch);
  setCaretLineVisible(true);
  setEolMode(QsciScintilla::EolUnix);
  SendScintilla(SCI_SETMOUSEDWELLTIME, kDwellMs);
  connect(this, &QsciScintilla::marginClicked, this, [this](int, int line, Qt::KeyboardModifiers) {
    Q_EMIT lineClicked(line + 1);
  });
  connect(this, &QsciScintillaBase::SCN_DWELLSTART, this, &SourceEditor::onDwellStart);
  connect(this, &QsciScintillaBase::SCN_DWELLEND, this, [] { QToolTip::hideText(); });

  m_costHeatmapAction = new QAction(tr("Cost &heatmap"), this);
  m_costHeatmapAction->setCheckable(true);
  m_costHeatmapAction->setChecked(QSettings().value(QStringLiteral("editor/costHeatmap"), true).toBool());
  m_costHeatmapAction->setToolTip(tr("Show each kernel line's share of the run's busy time beside the code"));
  connect(m_costHeatmapAction, &QAction::toggled, this, [this](bool on) {
    QSettings().setValue(QStringLiteral("editor/costHeatmap"), on);
    showCostHeatmap();
  });

  m_findBar = new FindBar(this);
  m_findBar->hide();
  connect(m_findBar, &FindBar::searchChanged, this, &SourceEditor::onSearchEdited);
  connect(m_findBar, &FindBar::findNextRequested, this, [this] { findNext(); });
  connect(m_findBar, &FindBar::findPreviousRequested, this, [this] { findPrevious(); });
  connect(m_findBar, &FindBar::replaceRequested, this, [this] { replaceCurrent(m_findBar->replaceText()); });
  connect(m_findBar, &FindBar::replaceAllRequested, this, [this] { replaceAll(m_findBar->replaceText()); });
  connect(m_findBar, &FindBar::closeRequested, this, &SourceEditor::closeFindBar);
  connect(this, &QsciScintilla::textChanged, this, [this] {
    m_matchesValid = false;
    if (!m_findBar->isHidden()) {
      highlightMatches();
      updateFindBar();
    }
  });
  connect(this, &QsciScintilla::selectionChanged, this, [this] {
    if (!m_findBar->isHidden()) updateFindBar();
  });
  applyColours();
}

void SourceEditor::applyColours() {
  QPalette pal = palette();
  bool dark = pal.color(QPalette::Window).lightness() < 128;
  for (int i = 0; i < kPaletteSize; ++i) {
    QColor colour = toQColor(paletteColor(i));
    setMarkerBackgroundColor(colour, i);
    setMarkerForegroundColor(colour, i);
  }
  setMarkerBackgroundColor(toQColor(kUnknownColor), kUnknownLabelMarker);
  colourShownLine();
  if (auto* python = qobject_cast<QsciLexerPython*>(lexer())) {
    // The lexer's defaults are a light theme; in the dark, use the palette.
    python->setDefaultPaper(pal.color(QPalette::Base));
    python->setPaper(pal.color(QPalette::Base), -1);
    if (!dark) {
      // Back from a dark theme: the lexer's own (light) colours.
      python->setDefaultColor(pal.color(QPalette::Text));
      for (int style = 0; style <= QsciLexerPython::DoubleQuotedFString; ++style)
        python->setColor(python->defaultColor(style), style);
    } else {
      python->setDefaultColor(pal.color(QPalette::Text));
      python->setColor(pal.color(QPalette::Text), QsciLexerPython::Default);
      python->setColor(pal.color(QPalette::Text), QsciLexerPython::Identifier);
      python->setColor(QColor(86, 156, 214), QsciLexerPython::Keyword);
      python->setColor(QColor(206, 145, 120), QsciLexerPython::DoubleQuotedString);
      python->setColor(QColor(206, 145, 120), QsciLexerPython::SingleQuotedString);
      python->setColor(QColor(106, 153, 85), QsciLexerPython::TripleDoubleQuotedString);
      python->setColor(QColor(106, 153, 85), QsciLexerPython::Comment);
      python->setColor(QColor(181, 206, 168), QsciLexerPython::Number);
      python->setColor(QColor(220, 220, 170), QsciLexerPython::FunctionMethodName);
      python->setColor(QColor(78, 201, 176), QsciLexerPython::Decorator);
      python->setColor(pal.color(QPalette::Text), QsciLexerPython::Operator);
      python->setColor(QColor(206, 145, 120), QsciLexerPython::TripleSingleQuotedString);
      python->setColor(QColor(78, 201, 176), QsciLexerPython::ClassName);
      python->setColor(QColor(106, 153, 85), QsciLexerPython::CommentBlock);
    }
  }
  setMarginsBackgroundColor(pal.color(QPalette::Window));
  setMarginsForegroundColor(pal.color(QPalette::PlaceholderText));
  setCaretForegroundColor(pal.color(QPalette::Text));
  QColor caretLine = pal.color(QPalette::Text);
  caretLine.setAlpha(14);
  setCaretLineBackgroundColor(caretLine);
  defineDiagnosticMarkers();
  for (Severity severity : {Severity::Error, Severity::Warning, Severity::Note})
    setIndicatorForegroundColor(severityColour(severity, dark), indicatorFor(severity));
  if (m_lineCosts) showCostHeatmap();
  QColor found = dark ? QColor(234, 92, 0, 110) : QColor(255, 200, 0, 130);
  setIndicatorForegroundColor(found, kFindIndicator);
  SendScintilla(SCI_INDICSETALPHA, kFindIndicator, static_cast<long>(found.alpha()));
  SendScintilla(SCI_INDICSETOUTLINEALPHA, kFindIndicator, 0L);
}

void SourceEditor::defineDiagnosticMarkers() {
  bool dark = palette().color(QPalette::Window).lightness() < 128;
  // Symbols a little smaller than the line so neighbouring lines' symbols stay apart.
  int side = std::clamp(textHeight(0) - 3, 9, 15);
  for (Severity severity : {Severity::Error, Severity::Warning, Severity::Note})
    markerDefine(severityImage(severity, dark, side), markerFor(severity));
}

void SourceEditor::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) applyColours();
  QsciScintilla::changeEvent(event);
}

bool SourceEditor::loadFile(const QString& path, QString* error, bool readOnly) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    if (error) *error = tr("%1: cannot read: %2").arg(path, file.errorString());
    return false;
  }
  clearDiagnostics();
  setReadOnly(false);
  setWrapMode(QsciScintilla::WrapNone);
  setText(QString::fromUtf8(file.readAll()));
  setReadOnly(readOnly);
  setModified(false);
  m_path = path;
  m_placeholder = false;
  m_shownLine = 0;
  setLineLabels(m_lineLabels, m_lineLabelColors);
  setLineCosts(nullptr);  // a run's costs are of the file it ran
  return true;
}

void SourceEditor::showPlaceholder(const QString& text) {
  clearDiagnostics();
  setReadOnly(false);
  setWrapMode(QsciScintilla::WrapWord);  // prose, not code: no line runs off the side
  setText(text);
  setReadOnly(true);
  setModified(false);
  m_path.clear();
  m_placeholder = true;
  m_shownLine = 0;
  setLineLabels({});
  setLineCosts(nullptr);
}

bool SourceEditor::save(QString* error) {
  if (m_path.isEmpty()) {
    if (error) *error = tr("No file to save to.");
    return false;
  }
  // Not QSaveFile: it commits a file cut short when a write stops part way
  // (a full disk, a file-size limit); writeFileAtomically checks every byte.
  std::string reason;
  if (!writeFileAtomically(m_path.toStdString(), text().toUtf8().toStdString(), reason)) {
    if (error) *error = tr("%1: cannot write: %2; the file on disk is unchanged").arg(m_path, QString::fromStdString(reason));
    return false;
  }
  setModified(false);
  return true;
}

void SourceEditor::showLine(int line, std::string_view label) {
  markerDeleteAll(kShownLineMarker);
  m_shownLine = line > 0 && line <= lines() ? line : 0;
  if (m_shownLine == 0) return;
  if (label.empty()) {
    auto own = m_lineLabels.find(m_shownLine);
    m_shownLineLabel = own != m_lineLabels.end() ? own->second : std::string();
  } else {
    m_shownLineLabel = std::string(label);
  }
  colourShownLine();
  markerAdd(m_shownLine - 1, kShownLineMarker);
  ensureLineVisible(m_shownLine - 1);
  // Put the line a third of the way down rather than at an edge.
  int onScreen = static_cast<int>(SendScintilla(SCI_LINESONSCREEN));
  int firstVisible = std::max(0, m_shownLine - 1 - onScreen / 3);
  setFirstVisibleLine(firstVisible);
  setCursorPosition(m_shownLine - 1, 0);
}

void SourceEditor::colourShownLine() {
  bool dark = palette().color(QPalette::Window).lightness() < 128;
  // Strong enough to find at a glance, light enough to read the code
  // through; the caret line (a faint grey) stays distinct from it.
  QColor colour = m_shownLineLabel.empty() ? palette().color(QPalette::Highlight)
                                           : toQColor(m_lineLabelColors.color(m_shownLineLabel));
  colour.setAlpha(dark ? 130 : 105);
  setMarkerBackgroundColor(colour, kShownLineMarker);
}

void SourceEditor::setLineLabels(const std::map<int, std::string>& labels, const LabelColors& colors) {
  m_lineLabels = labels;
  m_lineLabelColors = colors;
  for (int i = 0; i <= kUnknownLabelMarker; ++i) markerDeleteAll(i);
  for (const auto& [line, label] : labels) {
    if (line < 1 || line > lines()) continue;
    int index = label.empty() ? -1 : colors.colorIndex(label);
    markerAdd(line - 1, index < 0 ? kUnknownLabelMarker : index);
  }
  if (m_shownLine > 0) colourShownLine();  // the label's colour may have moved
}

void SourceEditor::mouseReleaseEvent(QMouseEvent* event) {
  QsciScintilla::mouseReleaseEvent(event);
  if (event->button() != Qt::LeftButton || hasSelectedText()) return;
  int line = 0, index = 0;
  getCursorPosition(&line, &index);
  Q_EMIT lineClicked(line + 1);
}

// --- diagnostics -------------------------------------------------------------

void SourceEditor::setDiagnostics(const std::vector<EditorDiagnostic>& diagnostics) {
  for (int marker : {kNoteMarker, kWarningMarker, kErrorMarker}) markerDeleteAll(marker);
  long length = SendScintilla(SCI_GETLENGTH);
  for (int indicator : {kErrorIndicator, kWarningIndicator, kNoteIndicator}) {
    SendScintilla(SCI_SETINDICATORCURRENT, indicator);
    SendScintilla(SCI_INDICATORCLEARRANGE, 0UL, length);
  }
  m_diagnostics.clear();
  m_shown.clear();
  std::string editorFile = m_path.toStdString();
  for (const EditorDiagnostic& diagnostic : diagnostics) {
    if (!diagnostic.file.empty() && !editorFile.empty() && !sameSourceFile(diagnostic.file, editorFile)) continue;
    if (diagnostic.line < 1 || diagnostic.line > lines()) continue;
    int line = diagnostic.line - 1;
    long lineStart = SendScintilla(SCI_POSITIONFROMLINE, line);
    long lineEnd = SendScintilla(SCI_GETLINEENDPOSITION, line);
    long start = 0, end = 0;
    if (diagnostic.column <= 0) {
      // The whole line, without its indentation.
      start = SendScintilla(SCI_GETLINEINDENTPOSITION, line);
      end = lineEnd;
    } else {
      start = std::min(static_cast<long>(positionFromLineIndex(line, diagnostic.column - 1)), lineEnd);
      if (diagnostic.endColumn > diagnostic.column) {
        end = std::min(static_cast<long>(positionFromLineIndex(line, diagnostic.endColumn - 1)), lineEnd);
      } else {
        // The token at the column: a quoted string (a project file's bad
        // value), a word, or else the one character there.
        end = quotedStringEnd(line, start);
        if (end <= start) end = SendScintilla(SCI_WORDENDPOSITION, static_cast<unsigned long>(start), 1L);
        if (end <= start && start < lineEnd) end = SendScintilla(SCI_POSITIONAFTER, start);
      }
      if (start >= lineEnd && lineEnd > lineStart) {
        // Past the end of the line (e.g. "expected ':'"): mark its last character.
        start = SendScintilla(SCI_POSITIONBEFORE, lineEnd);
        end = lineEnd;
      }
    }
    ShownDiagnostic shown;
    shown.diagnostic = diagnostic;
    shown.markerHandle = markerAdd(line, markerFor(diagnostic.severity));
    int unused = 0;
    lineIndexFromPosition(static_cast<int>(start), &unused, &shown.startIndex);
    lineIndexFromPosition(static_cast<int>(end), &unused, &shown.endIndex);
    if (diagnostic.column <= 0) {
      shown.startIndex = 0;
      shown.endIndex = INT_MAX;
    }
    if (end > start) {
      SendScintilla(SCI_SETINDICATORCURRENT, indicatorFor(diagnostic.severity));
      SendScintilla(SCI_INDICATORFILLRANGE, static_cast<unsigned long>(start), end - start);
    }
    m_diagnostics.push_back(diagnostic);
    m_shown.push_back(std::move(shown));
  }
}

long SourceEditor::quotedStringEnd(int line, long start) const {
  QString text = this->text(line);
  int index = 0, unused = 0;  // in characters, as QScintilla counts them
  lineIndexFromPosition(static_cast<int>(start), &unused, &index);
  if (index >= text.size() || (text[index] != QLatin1Char('"') && text[index] != QLatin1Char('\''))) return start;
  // An opening quote has an even number of the same quotes before it.
  QChar quote = text[index];
  if (text.left(index).count(quote) % 2 != 0) return start;
  qsizetype close = text.indexOf(quote, index + 1);
  return close < 0 ? start : positionFromLineIndex(line, static_cast<int>(close) + 1);
}

int SourceEditor::currentLineOf(const ShownDiagnostic& shown) const {
  // The marker moves with edits above it; its line is the diagnostic's now.
  return static_cast<int>(SendScintilla(SCI_MARKERLINEFROMHANDLE, shown.markerHandle));
}

QStringList SourceEditor::diagnosticMessages(int line, int index, bool wholeLine) const {
  QStringList messages;
  // Errors first: they are what the user has to fix.
  for (Severity severity : {Severity::Error, Severity::Warning, Severity::Note})
    for (const ShownDiagnostic& shown : m_shown) {
      if (shown.diagnostic.severity != severity || currentLineOf(shown) != line) continue;
      bool covers = wholeLine || (index >= shown.startIndex && index < std::max(shown.endIndex, shown.startIndex + 1));
      if (covers) messages << QString::fromStdString(shown.diagnostic.message);
    }
  return messages;
}

QString SourceEditor::diagnosticTextAt(int line, int column) const {
  return diagnosticMessages(line - 1, column - 1, false).join(QLatin1Char('\n'));
}

QString SourceEditor::diagnosticTextOnLine(int line) const {
  return diagnosticMessages(line - 1, 0, true).join(QLatin1Char('\n'));
}

std::vector<SourceEditor::UnderlineRange> SourceEditor::diagnosticUnderlines() const {
  std::vector<UnderlineRange> ranges;
  long length = SendScintilla(SCI_GETLENGTH);
  for (Severity severity : {Severity::Error, Severity::Warning, Severity::Note}) {
    int indicator = indicatorFor(severity);
    long position = 0;
    while (position < length) {
      long runEnd = SendScintilla(SCI_INDICATOREND, indicator, position);
      if (runEnd <= position) runEnd = length;
      if (SendScintilla(SCI_INDICATORVALUEAT, indicator, position) != 0) {
        int startLine = 0, startIndex = 0, endLine = 0, endIndex = 0;
        lineIndexFromPosition(static_cast<int>(position), &startLine, &startIndex);
        lineIndexFromPosition(static_cast<int>(runEnd), &endLine, &endIndex);
        ranges.push_back({severity, startLine + 1, startIndex + 1, endIndex + 1});
      }
      position = runEnd;
    }
  }
  return ranges;
}

std::vector<EditorDiagnostic::Severity> SourceEditor::diagnosticMarkers(int line) const {
  std::vector<Severity> severities;
  unsigned mask = markersAtLine(line - 1);
  for (Severity severity : {Severity::Error, Severity::Warning, Severity::Note})
    if (mask & (1u << markerFor(severity))) severities.push_back(severity);
  return severities;
}

void SourceEditor::onDwellStart(int position, int x, int y) {
  int marginsWidth = 0, heatStart = 0;
  for (int margin = 0; margin < 5; ++margin) {
    if (margin == kHeatMargin) heatStart = marginsWidth;
    marginsWidth += static_cast<int>(SendScintilla(SCI_GETMARGINWIDTHN, margin));
  }
  QStringList messages;
  if (x >= 0 && x < marginsWidth) {
    long nearest = SendScintilla(SCI_POSITIONFROMPOINT, static_cast<unsigned long>(marginsWidth), static_cast<long>(y));
    int line = static_cast<int>(SendScintilla(SCI_LINEFROMPOSITION, nearest));
    int heatWidth = static_cast<int>(SendScintilla(SCI_GETMARGINWIDTHN, kHeatMargin));
    QString cost = x >= heatStart && x < heatStart + heatWidth ? costTextOnLine(line + 1) : QString();
    if (!cost.isEmpty()) {
      QToolTip::showText(viewport()->mapToGlobal(QPoint(x, y)),
                         QStringLiteral("<p style='white-space:pre'>") +
                             cost.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")) + QStringLiteral("</p>"),
                         viewport());
      return;
    }
    messages = diagnosticMessages(line, 0, true);
  } else if (position >= 0) {
    int line = 0, index = 0;
    lineIndexFromPosition(position, &line, &index);
    messages = diagnosticMessages(line, index, false);
  }
  if (messages.isEmpty()) return;
  // The severity colours are chosen for the tooltip's own background.
  bool dark = QToolTip::palette().color(QPalette::ToolTipBase).lightness() < 128;
  // Rich text: the severity word in its colour, the message escaped (it may hold '<').
  QString html;
  for (const QString& message : messages) {
    if (!html.isEmpty()) html += QStringLiteral("<hr>");
    QStringList lines = message.split(QLatin1Char('\n'));
    QString first = lines.takeFirst();
    for (Severity severity : {Severity::Error, Severity::Warning, Severity::Note}) {
      QString word = severityWord(severity) + QStringLiteral(": ");
      if (!first.startsWith(word)) continue;
      html += QStringLiteral("<b style='color:%1'>%2</b> ")
                  .arg(severityColour(severity, dark).name(), severityWord(severity).toHtmlEscaped() + QLatin1Char(':'));
      first = first.mid(word.size());
      break;
    }
    html += wrapped(first, 100 - 8).toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"));
    for (const QString& more : lines)
      html += QStringLiteral("<br>") + wrapped(more, 100).toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"));
  }
  // Lines are broken here, not by the tooltip: left to itself it squeezes a
  // short message into a narrow column.
  QToolTip::showText(viewport()->mapToGlobal(QPoint(x, y)),
                     QStringLiteral("<p style='white-space:pre'>") + html + QStringLiteral("</p>"), viewport());
}

// --- cost heatmap --------------------------------------------------------------

void SourceEditor::setLineCosts(std::shared_ptr<const LineCostReport> costs) {
  m_lineCosts = std::move(costs);
  m_lineCostByLine.clear();
  if (m_lineCosts && !m_path.isEmpty()) {
    // This file's lines: by path when the run names it (a kernel that loads
    // its siblings' kernel.py has several files of one name), else by name.
    const QString canonical = QFileInfo(m_path).canonicalFilePath();
    std::map<std::string, bool> isThisFile;
    bool byPath = false;
    for (const SourceLineCost& line : m_lineCosts->lines) {
      auto [it, inserted] = isThisFile.try_emplace(line.file, false);
      if (inserted) it->second = !canonical.isEmpty() && QFileInfo(QString::fromStdString(line.file)).canonicalFilePath() == canonical;
      byPath |= it->second;
    }
    const std::string name = QFileInfo(m_path).fileName().toStdString();
    for (const SourceLineCost& line : m_lineCosts->lines)
      if (line.line >= 1 && (byPath ? isThisFile[line.file] : trace::fileNameOf(line.file) == name))
        m_lineCostByLine[line.line] = &line;
  }
  showCostHeatmap();
}

void SourceEditor::showCostHeatmap() {
  clearMarginText();
  m_costLevels.clear();
  if (!m_costHeatmapAction->isChecked() || m_lineCostByLine.empty()) {
    setMarginWidth(kHeatMargin, 0);
    return;
  }
  double hottest = 0.0;
  for (const auto& [line, cost] : m_lineCostByLine) hottest = std::max(hottest, cost->share);
  QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  font.setPointSizeF(font.pointSizeF() * 0.9);
  const QPalette pal = palette();
  for (const auto& [line, cost] : m_lineCostByLine) {
    if (line > lines()) continue;
    const int level = heatLevel(cost->share, hottest);
    // A line that ran but cost nothing keeps the margin's own colours.
    QsciStyle style(kHeatStyleBase + level, QStringLiteral("cost heatmap"),
                    level == 0 ? pal.color(QPalette::PlaceholderText) : heatTextColour(level),
                    level == 0 ? pal.color(QPalette::Window) : heatColour(level), font);
    style.apply(this);
    setMarginText(line - 1, heatShareText(cost->share) + QLatin1Char(' '), style);
    m_costLevels[line] = level;
  }
  QFontMetrics metrics(font);
  setMarginWidth(kHeatMargin, metrics.horizontalAdvance(QStringLiteral(" 100.0% ")));
}

const SourceLineCost* SourceEditor::lineCostAt(int line) const {
  auto found = m_lineCostByLine.find(line);
  return found == m_lineCostByLine.end() ? nullptr : found->second;
}

QString SourceEditor::costMarginText(int line) const {
  if (line < 1 || line > lines() || !m_costLevels.count(line)) return {};
  long length = SendScintilla(SCI_MARGINGETTEXT, static_cast<unsigned long>(line - 1), static_cast<void*>(nullptr));
  if (length <= 0) return {};
  QByteArray text(static_cast<qsizetype>(length), '\0');
  SendScintilla(SCI_MARGINGETTEXT, static_cast<unsigned long>(line - 1), static_cast<void*>(text.data()));
  return QString::fromUtf8(text).trimmed();
}

int SourceEditor::costLevelOnLine(int line) const {
  auto found = m_costLevels.find(line);
  return found == m_costLevels.end() ? -1 : found->second;
}

QString SourceEditor::costTextOnLine(int line) const {
  const SourceLineCost* cost = lineCostAt(line);
  if (!cost || !m_costHeatmapAction->isChecked()) return {};
  return costTooltipText(*cost, *m_lineCosts);
}

// --- find / replace ----------------------------------------------------------

void SourceEditor::openFindBar(bool replace) {
  QString initial;
  if (hasSelectedText() && !selectedText().contains(QLatin1Char('\n'))) initial = selectedText();
  // Keep the bar from re-searching while it is filled in; search once after.
  {
    QSignalBlocker blocker(m_findBar);
    m_findBar->open(replace, initial);
  }
  setViewportMargins(0, 0, 0, m_findBar->sizeHint().height());
  layoutFindBar();
  onSearchEdited();
}

void SourceEditor::closeFindBar() {
  if (m_findBar->isHidden()) return;
  m_findBar->hide();
  setViewportMargins(0, 0, 0, 0);
  SendScintilla(SCI_SETINDICATORCURRENT, kFindIndicator);
  SendScintilla(SCI_INDICATORCLEARRANGE, 0UL, SendScintilla(SCI_GETLENGTH));
  setFocus(Qt::OtherFocusReason);
}

void SourceEditor::layoutFindBar() {
  if (m_findBar->isHidden()) return;
  // The viewport's bottom margin is the bar's place, between the text and
  // the horizontal scroll bar.
  QRect area = viewport()->geometry();
  int height = m_findBar->sizeHint().height();
  m_findBar->setGeometry(area.left(), area.bottom() + 1, area.width(), height);
}

void SourceEditor::resizeEvent(QResizeEvent* event) {
  QsciScintilla::resizeEvent(event);
  layoutFindBar();
}

bool SourceEditor::event(QEvent* event) {
  if (event->type() == QEvent::ShortcutOverride) {
    // QScintilla claims every key it has a command for (Esc among them);
    // the find keys must reach keyPressEvent even if a window shortcut has them too.
    auto* key = static_cast<QKeyEvent*>(event);
    bool control = key->modifiers() == Qt::ControlModifier;
    if ((control && (key->key() == Qt::Key_F || key->key() == Qt::Key_H)) || key->key() == Qt::Key_F3 ||
        (key->key() == Qt::Key_Escape && !m_findBar->isHidden())) {
      event->accept();
      return true;
    }
    // A bare Esc with nothing of the editor's own to close is left to the
    // window (it cancels a run); the window disables that shortcut when no
    // run is going, and then the key reaches the editor as usual.
    if (key->key() == Qt::Key_Escape && key->modifiers() == Qt::NoModifier && !isListActive() && !isCallTipActive()) {
      event->ignore();
      return false;
    }
  }
  return QsciScintilla::event(event);
}

void SourceEditor::keyPressEvent(QKeyEvent* event) {
  bool control = event->modifiers() == Qt::ControlModifier;
  if (control && (event->key() == Qt::Key_F || event->key() == Qt::Key_H)) {
    openFindBar(event->key() == Qt::Key_H);
    return;
  }
  if (event->key() == Qt::Key_F3) {
    if (m_searchText.isEmpty()) openFindBar(false);
    else if (event->modifiers() & Qt::ShiftModifier) findPrevious();
    else findNext();
    return;
  }
  if (event->key() == Qt::Key_Escape && !m_findBar->isHidden()) {
    closeFindBar();
    return;
  }
  QsciScintilla::keyPressEvent(event);
}

void SourceEditor::setSearch(const QString& text, const SearchOptions& options) {
  {
    QSignalBlocker blocker(m_findBar);
    if (m_findBar->findText() != text) m_findBar->setFindText(text);
    if (!(m_findBar->options() == options)) m_findBar->setOptions(options);
  }
  m_searchText = text;
  m_searchOptions = options;
  m_matchesValid = false;
  if (!m_findBar->isHidden()) {
    highlightMatches();
    updateFindBar();
  }
}

void SourceEditor::onSearchEdited() {
  setSearch(m_findBar->findText(), m_findBar->options());
  // As the user types, the match grows where it is: search from the
  // selection's start, not after it.
  const std::vector<Match>& all = matches();
  if (all.empty()) return;
  long from = SendScintilla(SCI_GETSELECTIONSTART);
  auto it = std::lower_bound(all.begin(), all.end(), from, [](const Match& m, long p) { return m.first < p; });
  selectMatch(it == all.end() ? all.front() : *it);
}

bool SourceEditor::prepareSearch(QString* reason) const {
  int flags = 0;
  if (m_searchOptions.matchCase) flags |= SCFIND_MATCHCASE;
  if (m_searchOptions.wholeWord) flags |= SCFIND_WHOLEWORD;
  if (m_searchOptions.regex) {
    flags |= SCFIND_REGEXP | SCFIND_CXX11REGEX;
    // Scintilla's C++11 engine is std::regex (ECMAScript): ask it first, so a
    // bad pattern gets a reason instead of silently matching nothing.
    try {
      std::regex check(m_searchText.toStdString(),
                       m_searchOptions.matchCase ? std::regex::ECMAScript : std::regex::ECMAScript | std::regex::icase);
    } catch (const std::regex_error& error) {
      if (reason) *reason = QString::fromLocal8Bit(error.what());
      return false;
    }
  }
  SendScintilla(SCI_SETSEARCHFLAGS, flags);
  return true;
}

const std::vector<SourceEditor::Match>& SourceEditor::matches() const {
  if (m_matchesValid) return m_matches;
  m_matchesValid = true;
  m_matches.clear();
  m_patternValid = prepareSearch(&m_patternError);
  if (m_searchText.isEmpty() || !m_patternValid) return m_matches;
  QByteArray pattern = m_searchText.toUtf8();
  long length = SendScintilla(SCI_GETLENGTH);
  long position = 0;
  while (position <= length && m_matches.size() < kMaxMatches) {
    SendScintilla(SCI_SETTARGETRANGE, static_cast<unsigned long>(position), length);
    long found = SendScintilla(SCI_SEARCHINTARGET, static_cast<unsigned long>(pattern.size()), pattern.constData());
    if (found < 0) break;
    long end = SendScintilla(SCI_GETTARGETEND);
    if (end > found) {
      m_matches.emplace_back(found, end);
      position = end;
    } else {
      // An empty match (a regex such as "x*"): not a result; step past it.
      long next = SendScintilla(SCI_POSITIONAFTER, found);
      if (next <= found) break;
      position = next;
    }
  }
  return m_matches;
}

int SourceEditor::matchCount() const { return static_cast<int>(matches().size()); }

int SourceEditor::currentMatch() const {
  const std::vector<Match>& all = matches();
  Match selection{SendScintilla(SCI_GETSELECTIONSTART), SendScintilla(SCI_GETSELECTIONEND)};
  auto it = std::lower_bound(all.begin(), all.end(), selection);
  return it != all.end() && *it == selection ? static_cast<int>(it - all.begin()) + 1 : 0;
}

void SourceEditor::selectMatch(const Match& match) {
  int line = static_cast<int>(SendScintilla(SCI_LINEFROMPOSITION, match.first));
  ensureLineVisible(line);
  SendScintilla(SCI_SETSEL, static_cast<unsigned long>(match.first), match.second);
  SendScintilla(SCI_SCROLLRANGE, static_cast<unsigned long>(match.second), match.first);
  updateFindBar();
}

bool SourceEditor::selectMatchBeside(bool after) {
  const std::vector<Match>& all = matches();
  updateFindBar();
  if (all.empty()) return false;
  long edge = SendScintilla(after ? SCI_GETSELECTIONEND : SCI_GETSELECTIONSTART);
  auto it = std::lower_bound(all.begin(), all.end(), edge, [](const Match& m, long p) { return m.first < p; });
  if (after) selectMatch(it == all.end() ? all.front() : *it);  // wraps to the top
  else selectMatch(it == all.begin() ? all.back() : *std::prev(it));  // wraps to the bottom
  return true;
}

bool SourceEditor::findNext() { return selectMatchBeside(true); }

bool SourceEditor::findPrevious() { return selectMatchBeside(false); }

bool SourceEditor::replaceCurrent(const QString& replacement) {
  if (isReadOnly()) return false;
  if (currentMatch() == 0) {
    // The first press goes to a match; the next one replaces it.
    findNext();
    return false;
  }
  QByteArray pattern = m_searchText.toUtf8();
  QByteArray with = replacement.toUtf8();
  long start = SendScintilla(SCI_GETSELECTIONSTART);
  long end = SendScintilla(SCI_GETSELECTIONEND);
  prepareSearch(nullptr);
  SendScintilla(SCI_SETTARGETRANGE, static_cast<unsigned long>(start), end);
  if (m_searchOptions.regex) {
    // Search again inside the match so that \1.. refer to its groups.
    if (SendScintilla(SCI_SEARCHINTARGET, static_cast<unsigned long>(pattern.size()), pattern.constData()) != start)
      return false;
    SendScintilla(SCI_REPLACETARGETRE, static_cast<unsigned long>(with.size()), with.constData());
  } else {
    SendScintilla(SCI_REPLACETARGET, static_cast<unsigned long>(with.size()), with.constData());
  }
  long after = SendScintilla(SCI_GETTARGETEND);
  SendScintilla(SCI_SETSEL, static_cast<unsigned long>(after), after);
  m_matchesValid = false;
  findNext();
  return true;
}

int SourceEditor::replaceAll(const QString& replacement) {
  if (isReadOnly() || m_searchText.isEmpty() || !prepareSearch(nullptr)) return 0;
  QByteArray pattern = m_searchText.toUtf8();
  QByteArray with = replacement.toUtf8();
  int count = 0;
  // One undo action: Ctrl+Z takes back the whole replacement.
  SendScintilla(SCI_BEGINUNDOACTION);
  long position = 0;
  while (true) {
    long length = SendScintilla(SCI_GETLENGTH);
    if (position > length) break;
    SendScintilla(SCI_SETTARGETRANGE, static_cast<unsigned long>(position), length);
    long found = SendScintilla(SCI_SEARCHINTARGET, static_cast<unsigned long>(pattern.size()), pattern.constData());
    if (found < 0) break;
    long end = SendScintilla(SCI_GETTARGETEND);
    if (end == found) {  // empty regex match: skip, as matches() does
      long next = SendScintilla(SCI_POSITIONAFTER, found);
      if (next <= found) break;
      position = next;
      continue;
    }
    if (m_searchOptions.regex)
      SendScintilla(SCI_REPLACETARGETRE, static_cast<unsigned long>(with.size()), with.constData());
    else
      SendScintilla(SCI_REPLACETARGET, static_cast<unsigned long>(with.size()), with.constData());
    position = SendScintilla(SCI_GETTARGETEND);
    ++count;
  }
  SendScintilla(SCI_ENDUNDOACTION);
  m_matchesValid = false;
  updateFindBar();
  return count;
}

void SourceEditor::updateFindBar() {
  const std::vector<Match>& all = matches();
  if (!m_patternValid) m_findBar->setInvalidPattern(m_patternError);
  else m_findBar->setMatchCount(currentMatch(), static_cast<int>(all.size()));
}

void SourceEditor::highlightMatches() {
  SendScintilla(SCI_SETINDICATORCURRENT, kFindIndicator);
  SendScintilla(SCI_INDICATORCLEARRANGE, 0UL, SendScintilla(SCI_GETLENGTH));
  for (const Match& match : matches()) {
    SendScintilla(SCI_SETINDICATORCURRENT, kFindIndicator);
    SendScintilla(SCI_INDICATORFILLRANGE, static_cast<unsigned long>(match.first), match.second - match.first);
  }
}

} // namespace pto::widgets
