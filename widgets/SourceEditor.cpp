// The kernel source editor.
#include "widgets/SourceEditor.h"

#include "widgets/SwimlaneRenderer.h"
#include "widgets/models/LabelPalette.h"


#include <QFile>
#include <QFontDatabase>
#include <QMouseEvent>
#include <QSaveFile>

namespace pto::widgets {
namespace {

// Marker numbers: one per palette colour for the label stripe, one for the
// unknown label, one for the selected task's line.
constexpr int kUnknownLabelMarker = kPaletteSize;
constexpr int kShownLineMarker = kPaletteSize + 1;
constexpr int kLineNumberMargin = 0;
constexpr int kLabelMargin = 1;

} // namespace

SourceEditor::SourceEditor(QWidget* parent) : QsciScintilla(parent) {
  setUtf8(true);
  QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  auto* lexer = new QsciLexerPython(this);
  lexer->setDefaultFont(font);
  lexer->setFont(font);
  setLexer(lexer);
  setMarginType(kLineNumberMargin, QsciScintilla::NumberMargin);
  setMarginWidth(kLineNumberMargin, QStringLiteral("00000"));
  setMarginType(kLabelMargin, QsciScintilla::SymbolMargin);
  setMarginWidth(kLabelMargin, 7);
  setMarginSensitivity(kLineNumberMargin, true);
  setMarginSensitivity(kLabelMargin, true);
  setMarginMarkerMask(kLineNumberMargin, 0);
  setMarginMarkerMask(kLabelMargin, (1 << (kPaletteSize + 1)) - 1);
  for (int i = 0; i < kPaletteSize; ++i) markerDefine(QsciScintilla::FullRectangle, i);
  markerDefine(QsciScintilla::FullRectangle, kUnknownLabelMarker);
  markerDefine(QsciScintilla::Background, kShownLineMarker);
  setIndentationsUseTabs(false);
  setIndentationWidth(4);
  setTabWidth(4);
  setAutoIndent(true);
  setBraceMatching(QsciScintilla::SloppyBraceMatch);
  setCaretLineVisible(true);
  setEolMode(QsciScintilla::EolUnix);
  connect(this, &QsciScintilla::marginClicked, this, [this](int, int line, Qt::KeyboardModifiers) {
    Q_EMIT lineClicked(line + 1);
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
  QColor shown = pal.color(QPalette::Highlight);
  shown.setAlpha(dark ? 90 : 60);
  setMarkerBackgroundColor(shown, kShownLineMarker);
  if (auto* python = qobject_cast<QsciLexerPython*>(lexer())) {
    // The lexer's defaults are a light theme; in the dark, use the palette.
    python->setDefaultPaper(pal.color(QPalette::Base));
    python->setPaper(pal.color(QPalette::Base), -1);
    if (dark) {
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
    }
  }
  setMarginsBackgroundColor(pal.color(QPalette::Window));
  setMarginsForegroundColor(pal.color(QPalette::PlaceholderText));
  setCaretForegroundColor(pal.color(QPalette::Text));
  QColor caretLine = pal.color(QPalette::Text);
  caretLine.setAlpha(14);
  setCaretLineBackgroundColor(caretLine);
}

void SourceEditor::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) applyColours();
  QsciScintilla::changeEvent(event);
}

bool SourceEditor::loadFile(const QString& path, QString* error) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    if (error) *error = tr("%1: cannot read: %2").arg(path, file.errorString());
    return false;
  }
  setText(QString::fromUtf8(file.readAll()));
  setModified(false);
  m_path = path;
  m_shownLine = 0;
  setLineLabels(m_lineLabels);
  return true;
}

bool SourceEditor::save(QString* error) {
  if (m_path.isEmpty()) {
    if (error) *error = tr("No file to save to.");
    return false;
  }
  QSaveFile file(m_path);
  if (!file.open(QIODevice::WriteOnly) || file.write(text().toUtf8()) < 0 || !file.commit()) {
    if (error) *error = tr("%1: cannot write: %2").arg(m_path, file.errorString());
    return false;
  }
  setModified(false);
  return true;
}

void SourceEditor::showLine(int line) {
  markerDeleteAll(kShownLineMarker);
  m_shownLine = line > 0 && line <= lines() ? line : 0;
  if (m_shownLine == 0) return;
  markerAdd(m_shownLine - 1, kShownLineMarker);
  ensureLineVisible(m_shownLine - 1);
  // Put the line a third of the way down rather than at an edge.
  int onScreen = static_cast<int>(SendScintilla(SCI_LINESONSCREEN));
  int firstVisible = std::max(0, m_shownLine - 1 - onScreen / 3);
  setFirstVisibleLine(firstVisible);
  setCursorPosition(m_shownLine - 1, 0);
}

void SourceEditor::setLineLabels(const std::map<int, std::string>& labels) {
  m_lineLabels = labels;
  for (int i = 0; i <= kUnknownLabelMarker; ++i) markerDeleteAll(i);
  for (const auto& [line, label] : labels) {
    if (line < 1 || line > lines()) continue;
    int index = labelColorIndex(label);
    markerAdd(line - 1, index < 0 ? kUnknownLabelMarker : index);
  }
}

void SourceEditor::mouseReleaseEvent(QMouseEvent* event) {
  QsciScintilla::mouseReleaseEvent(event);
  if (event->button() != Qt::LeftButton || hasSelectedText()) return;
  int line = 0, index = 0;
  getCursorPosition(&line, &index);
  Q_EMIT lineClicked(line + 1);
}

} // namespace pto::widgets
