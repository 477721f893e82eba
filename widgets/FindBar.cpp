// The inline find/replace bar.
#include "widgets/FindBar.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QToolButton>
#include <QVBoxLayout>

namespace pto::widgets {

FindBar::FindBar(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("FindBar"));
  setAutoFillBackground(true);
  setFocusPolicy(Qt::StrongFocus);

  m_find = new QLineEdit(this);
  m_find->setObjectName(QStringLiteral("FindField"));
  m_find->setPlaceholderText(tr("Find"));
  m_find->setClearButtonEnabled(true);
  m_find->installEventFilter(this);
  m_matchCase = makeToggle(QStringLiteral("Aa"), tr("Match case"));
  m_wholeWord = makeToggle(QStringLiteral("W"), tr("Whole words only"));
  m_regex = makeToggle(QStringLiteral(".*"), tr("Regular expression (ECMAScript; \\1 in the replacement)"));
  m_count = new QLabel(this);
  m_count->setObjectName(QStringLiteral("MatchCount"));
  m_count->setMinimumWidth(m_count->fontMetrics().horizontalAdvance(QStringLiteral("999 of 999")) + 8);
  m_count->setAlignment(Qt::AlignCenter);
  QToolButton* previous = makeButton(QStringLiteral("\u2191"), tr("Previous match (Shift+Enter, Shift+F3)"));
  QToolButton* next = makeButton(QStringLiteral("\u2193"), tr("Next match (Enter, F3)"));
  QToolButton* close = makeButton(QStringLiteral("\u2715"), tr("Close (Esc)"));
  close->setAutoRaise(true);

  m_replace = new QLineEdit(this);
  m_replace->setObjectName(QStringLiteral("ReplaceField"));
  m_replace->setPlaceholderText(tr("Replace"));
  m_replace->installEventFilter(this);
  QToolButton* replaceOne = makeButton(tr("Replace"), tr("Replace this match and go to the next (Enter in this field)"));
  QToolButton* replaceAll = makeButton(tr("All"), tr("Replace every match (one undo step)"));
  replaceAll->setObjectName(QStringLiteral("ReplaceAllButton"));

  auto* findRow = new QHBoxLayout;
  findRow->setSpacing(2);
  findRow->addWidget(m_find, 1);
  findRow->addWidget(m_matchCase);
  findRow->addWidget(m_wholeWord);
  findRow->addWidget(m_regex);
  findRow->addWidget(m_count);
  findRow->addWidget(previous);
  findRow->addWidget(next);
  findRow->addWidget(close);

  m_replaceRow = new QWidget(this);
  auto* replaceRow = new QHBoxLayout(m_replaceRow);
  replaceRow->setContentsMargins(0, 0, 0, 0);
  replaceRow->setSpacing(2);
  replaceRow->addWidget(m_replace, 1);
  replaceRow->addWidget(replaceOne);
  replaceRow->addWidget(replaceAll);
  // Keep the replace field as wide as the find field: pad where the find
  // row has its count, arrows and close button.
  replaceRow->addSpacing(close->sizeHint().width() + 2);
  m_replaceRow->hide();

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 4, 4, 4);
  layout->setSpacing(3);
  layout->addLayout(findRow);
  layout->addWidget(m_replaceRow);

  connect(m_find, &QLineEdit::textChanged, this, &FindBar::searchChanged);
  for (QToolButton* toggle : {m_matchCase, m_wholeWord, m_regex})
    connect(toggle, &QToolButton::toggled, this, &FindBar::searchChanged);
  connect(previous, &QToolButton::clicked, this, &FindBar::findPreviousRequested);
  connect(next, &QToolButton::clicked, this, &FindBar::findNextRequested);
  connect(close, &QToolButton::clicked, this, &FindBar::closeRequested);
  connect(replaceOne, &QToolButton::clicked, this, &FindBar::replaceRequested);
  connect(replaceAll, &QToolButton::clicked, this, &FindBar::replaceAllRequested);
  setFocusProxy(m_find);
  applyColours();
}

QToolButton* FindBar::makeToggle(const QString& text, const QString& toolTip) {
  QToolButton* button = makeButton(text, toolTip);
  button->setCheckable(true);
  QFont font = button->font();
  font.setBold(true);
  button->setFont(font);
  return button;
}

QToolButton* FindBar::makeButton(const QString& text, const QString& toolTip) {
  auto* button = new QToolButton(this);
  button->setText(text);
  button->setToolTip(toolTip);
  button->setFocusPolicy(Qt::TabFocus);
  int side = m_find->sizeHint().height();
  button->setMinimumSize(side, side);
  return button;
}

void FindBar::open(bool replace, const QString& initialText) {
  m_replaceRow->setVisible(replace);
  if (!initialText.isEmpty()) m_find->setText(initialText);
  show();
  m_find->setFocus(Qt::ShortcutFocusReason);
  m_find->selectAll();
}

bool FindBar::replaceShown() const { return !m_replaceRow->isHidden(); }
QString FindBar::findText() const { return m_find->text(); }
QString FindBar::replaceText() const { return m_replace->text(); }
void FindBar::setFindText(const QString& text) { m_find->setText(text); }
void FindBar::setReplaceText(const QString& text) { m_replace->setText(text); }

SearchOptions FindBar::options() const {
  return {m_matchCase->isChecked(), m_wholeWord->isChecked(), m_regex->isChecked()};
}

void FindBar::setOptions(const SearchOptions& options) {
  m_matchCase->setChecked(options.matchCase);
  m_wholeWord->setChecked(options.wholeWord);
  m_regex->setChecked(options.regex);
}

void FindBar::setMatchCount(int current, int total) {
  m_invalid = false;
  m_noResults = total == 0 && !m_find->text().isEmpty();
  m_count->setToolTip({});
  if (m_find->text().isEmpty()) m_count->clear();
  else if (total == 0) m_count->setText(tr("No results"));
  else if (current > 0) m_count->setText(tr("%1 of %2").arg(current).arg(total));
  else m_count->setText(total == 1 ? tr("1 match") : tr("%1 matches").arg(total));
  applyColours();
}

void FindBar::setInvalidPattern(const QString& reason) {
  m_invalid = true;
  m_noResults = false;
  m_count->setText(tr("Bad pattern"));
  m_count->setToolTip(reason);
  applyColours();
}

QString FindBar::countText() const { return m_count->text(); }

void FindBar::applyColours() {
  // Only the problem state sets colours; otherwise the fields inherit the
  // theme (a palette set once would stick when the theme changes).
  bool problem = m_invalid || m_noResults;
  if (!problem) {
    m_find->setPalette(QPalette());
    m_count->setPalette(QPalette());
    return;
  }
  QPalette pal = palette();
  bool dark = pal.color(QPalette::Window).lightness() < 128;
  QPalette countPalette;
  countPalette.setColor(QPalette::WindowText, dark ? QColor(241, 96, 96) : QColor(198, 40, 40));
  m_count->setPalette(countPalette);
  QPalette fieldPalette;
  fieldPalette.setColor(QPalette::Base, dark ? QColor(90, 29, 29) : QColor(255, 228, 228));
  m_find->setPalette(fieldPalette);
}

void FindBar::paintEvent(QPaintEvent* event) {
  QWidget::paintEvent(event);
  // A line on top separates the bar from the text above it.
  QPainter painter(this);
  painter.setPen(palette().color(QPalette::Mid));
  painter.drawLine(0, 0, width(), 0);
}

void FindBar::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange && (m_invalid || m_noResults)) applyColours();
}

bool FindBar::handleKey(QKeyEvent* event, bool inReplaceField) {
  bool shift = event->modifiers() & Qt::ShiftModifier;
  switch (event->key()) {
  case Qt::Key_Return:
  case Qt::Key_Enter:
    if (inReplaceField && !shift) Q_EMIT replaceRequested();
    else Q_EMIT(shift ? findPreviousRequested() : findNextRequested());
    return true;
  case Qt::Key_F3:
    Q_EMIT(shift ? findPreviousRequested() : findNextRequested());
    return true;
  case Qt::Key_Escape:
    Q_EMIT closeRequested();
    return true;
  default: break;
  }
  if (event->modifiers() == Qt::ControlModifier && (event->key() == Qt::Key_F || event->key() == Qt::Key_H)) {
    open(event->key() == Qt::Key_H);
    return true;
  }
  return false;
}

bool FindBar::eventFilter(QObject* watched, QEvent* event) {
  bool field = watched == m_find || watched == m_replace;
  if (field && (event->type() == QEvent::KeyPress || event->type() == QEvent::ShortcutOverride)) {
    auto* key = static_cast<QKeyEvent*>(event);
    bool ours = key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter || key->key() == Qt::Key_F3 ||
                key->key() == Qt::Key_Escape ||
                (key->modifiers() == Qt::ControlModifier && (key->key() == Qt::Key_F || key->key() == Qt::Key_H));
    if (ours && event->type() == QEvent::ShortcutOverride) {
      // Keep window shortcuts (Esc cancels a run, Ctrl+F elsewhere) from taking the bar's keys.
      event->accept();
      return true;
    }
    if (ours && handleKey(key, watched == m_replace)) return true;
  }
  return QWidget::eventFilter(watched, event);
}

void FindBar::keyPressEvent(QKeyEvent* event) {
  // Keys that reach the bar itself (a button has focus) must not fall
  // through to the editor behind it, which would type them into the source.
  handleKey(event, false);
  event->accept();
}

} // namespace pto::widgets
