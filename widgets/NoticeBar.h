// A bar across the top of the window for something the user should decide
// without being stopped by a modal dialog: work recovered after a crash,
// another window on the same project, a folder not yet trusted. It says what
// happened and offers its actions as buttons; choosing one (or Dismiss)
// closes it. Several bars stack in a NoticeArea.
#pragma once

#include <QFrame>
#include <QString>

#include <functional>

class QLabel;
class QPushButton;
class QHBoxLayout;
class QVBoxLayout;

namespace pto::widgets {

class NoticeBar : public QFrame {
  Q_OBJECT

public:
  enum class Kind { Information, Warning };

  NoticeBar(Kind kind, const QString& text, QWidget* parent = nullptr);

  // A button that runs `action` and then closes the bar.
  QPushButton* addAction(const QString& text, std::function<void()> action);
  QString text() const;
  void setText(const QString& text);
  // The bar's button labelled `text` (tests click it); null when none.
  QPushButton* button(const QString& text) const;

Q_SIGNALS:
  void closed();

private:
  QLabel* m_label = nullptr;
  QHBoxLayout* m_buttons = nullptr;
};

// The stack of bars above the central views. A bar has a key ("recovery",
// "trust", ...): showing a bar with the key of one already shown replaces it.
class NoticeArea : public QWidget {
  Q_OBJECT

public:
  explicit NoticeArea(QWidget* parent = nullptr);

  NoticeBar* show(const QString& key, NoticeBar::Kind kind, const QString& text);
  void dismiss(const QString& key);
  // The bar shown under `key`; null when none.
  NoticeBar* bar(const QString& key) const;

private:
  QVBoxLayout* m_layout = nullptr;
};

} // namespace pto::widgets
