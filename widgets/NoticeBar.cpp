// NoticeBar and NoticeArea: a label and buttons in a tinted frame.
#include "widgets/NoticeBar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace pto::widgets {

NoticeBar::NoticeBar(Kind kind, const QString& text, QWidget* parent) : QFrame(parent) {
  setFrameShape(QFrame::StyledPanel);
  setAutoFillBackground(true);
  // Tints that read on light and dark palettes alike: a hue over the base.
  QPalette tinted = palette();
  QColor base = tinted.color(QPalette::Window);
  QColor hue = kind == Kind::Warning ? QColor(240, 170, 40) : QColor(70, 140, 230);
  QColor background = QColor::fromRgbF(base.redF() * 0.8f + hue.redF() * 0.2f, base.greenF() * 0.8f + hue.greenF() * 0.2f,
                                       base.blueF() * 0.8f + hue.blueF() * 0.2f);
  tinted.setColor(QPalette::Window, background);
  setPalette(tinted);
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(10, 4, 6, 4);
  m_label = new QLabel(text, this);
  m_label->setWordWrap(true);
  m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  row->addWidget(m_label, 1);
  m_buttons = new QHBoxLayout;
  row->addLayout(m_buttons);
  auto* dismiss = new QPushButton(tr("Dismiss"), this);
  dismiss->setFlat(true);
  connect(dismiss, &QPushButton::clicked, this, [this] {
    Q_EMIT closed();
    deleteLater();
  });
  row->addWidget(dismiss);
}

QPushButton* NoticeBar::addAction(const QString& text, std::function<void()> action) {
  auto* button = new QPushButton(text, this);
  connect(button, &QPushButton::clicked, this, [this, action = std::move(action)] {
    // Closed first: the action may show a new bar under the same key.
    Q_EMIT closed();
    hide();
    deleteLater();
    action();
  });
  m_buttons->addWidget(button);
  return button;
}

QString NoticeBar::text() const { return m_label->text(); }

void NoticeBar::setText(const QString& text) { m_label->setText(text); }

QPushButton* NoticeBar::button(const QString& text) const {
  for (QPushButton* candidate : findChildren<QPushButton*>())
    if (candidate->text() == text) return candidate;
  return nullptr;
}

NoticeArea::NoticeArea(QWidget* parent) : QWidget(parent) {
  m_layout = new QVBoxLayout(this);
  m_layout->setContentsMargins(0, 0, 0, 0);
  m_layout->setSpacing(1);
}

NoticeBar* NoticeArea::show(const QString& key, NoticeBar::Kind kind, const QString& text) {
  dismiss(key);
  auto* bar = new NoticeBar(kind, text, this);
  bar->setObjectName(key);
  connect(bar, &NoticeBar::closed, this, [bar] { bar->setObjectName(QString()); });
  m_layout->addWidget(bar);
  return bar;
}

void NoticeArea::dismiss(const QString& key) {
  if (NoticeBar* shown = bar(key)) {
    shown->setObjectName(QString());
    shown->hide();
    shown->deleteLater();
  }
}

NoticeBar* NoticeArea::bar(const QString& key) const {
  for (NoticeBar* candidate : findChildren<NoticeBar*>(key, Qt::FindDirectChildrenOnly))
    if (candidate->isVisibleTo(this) || !candidate->isHidden()) return candidate;
  return nullptr;
}

} // namespace pto::widgets
