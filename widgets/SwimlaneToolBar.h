// SwimlaneToolBar: the swimlane's own controls, beside it — Fit, what the
// slices are coloured by, hiding idle lanes, how many dependency steps the
// arrows follow, the critical path, and finding a task. It drives the
// SwimlaneView it is given; the window puts it above the central views.
#pragma once

#include <QToolBar>

class QAction;
class QComboBox;
class QLineEdit;

namespace pto::widgets {

class SwimlaneView;

class SwimlaneToolBar : public QToolBar {
  Q_OBJECT
public:
  // `criticalPath`: the window's checkable action (View > Critical path) the
  // toolbar's box follows and sets.
  SwimlaneToolBar(SwimlaneView* view, QAction* criticalPath, QWidget* parent = nullptr);

  // Colours by each task's error against a measured trace (on), or leaves
  // that colouring for the semantic labels (off; other choices stay).
  void showErrorColours(bool on);
  void focusSearch();

private:
  SwimlaneView* m_view;
  QComboBox* m_colorMode = nullptr;
  QLineEdit* m_search = nullptr;
};

} // namespace pto::widgets
