// FindBar: the source editor's inline find/replace bar (at the bottom of the
// editor, VS Code / Qt Creator style, not a dialog). It only collects what
// the user types and clicks and shows the match count; SourceEditor does the
// searching. Keys while it has focus: Enter / Shift+Enter next / previous
// (in the replace field: replace), F3 / Shift+F3 the same, Esc closes,
// Ctrl+F / Ctrl+H switch between find and replace.
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QToolButton;
class QPushButton;

namespace pto::widgets {

// How the search text is matched.
struct SearchOptions {
  bool matchCase = false;
  bool wholeWord = false;
  bool regex = false;  // ECMAScript syntax (std::regex); \1 etc. in the replacement
  friend bool operator==(const SearchOptions&, const SearchOptions&) = default;
};

class FindBar : public QWidget {
  Q_OBJECT
public:
  explicit FindBar(QWidget* parent = nullptr);

  // Shows the replace row too when `replace`; focuses the find field with its
  // text selected. `initialText` (when not empty) replaces the find text.
  void open(bool replace, const QString& initialText = {});
  bool replaceShown() const;

  QString findText() const;
  QString replaceText() const;
  SearchOptions options() const;
  void setFindText(const QString& text);
  void setReplaceText(const QString& text);
  void setOptions(const SearchOptions& options);

  // "3 of 12", "12 matches", "No results", or why the pattern is invalid.
  void setMatchCount(int current, int total);
  void setInvalidPattern(const QString& reason);
  QString countText() const;

Q_SIGNALS:
  void searchChanged();  // the text or an option changed
  void findNextRequested();
  void findPreviousRequested();
  void replaceRequested();
  void replaceAllRequested();
  void closeRequested();

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void changeEvent(QEvent* event) override;
  void paintEvent(QPaintEvent* event) override;

private:
  QToolButton* makeToggle(const QString& text, const QString& toolTip);
  QToolButton* makeButton(const QString& text, const QString& toolTip);
  void applyColours();
  // True when the key was one of the bar's and has been acted on.
  bool handleKey(QKeyEvent* event, bool inReplaceField);

  QLineEdit* m_find = nullptr;
  QLineEdit* m_replace = nullptr;
  QToolButton* m_matchCase = nullptr;
  QToolButton* m_wholeWord = nullptr;
  QToolButton* m_regex = nullptr;
  QLabel* m_count = nullptr;
  QWidget* m_replaceRow = nullptr;
  bool m_invalid = false;
  bool m_noResults = false;
};

} // namespace pto::widgets
