// SwimlanePane: the swimlane as the window shows it — the SwimlaneView with
// the ReadyCount strip under it, the strip following the view's visible time
// range (zoom, pan, resize) and hidden for traces without ReadyCount
// counters. Give the view its trace (setTrace on either); use view() for
// everything else.
//
// A/B comparison: showComparison puts a second view (another run, B) beneath
// the first (A), each under a caption, on one time axis: both take the union
// of the two traces' time spans, and a zoom or pan in either moves the other
// to the same visible range (the views are equally wide, so a time is at the
// same x in both). B follows A's colour mode and idle-lane folding. The
// ReadyCount strip, which is A's, hides while comparing. closeComparison
// returns to the single swimlane.
#pragma once

#include "widgets/ReadyCountStrip.h"
#include "widgets/SwimlaneView.h"

#include <QWidget>

class QLabel;
class QSplitter;
class QToolButton;

namespace pto::widgets {

class SwimlanePane : public QWidget {
  Q_OBJECT
public:
  explicit SwimlanePane(QWidget* parent = nullptr);

  SwimlaneView* view() const { return m_view; }
  ReadyCountStrip* readyStrip() const { return m_strip; }
  // The same as view()->setTrace(index).
  void setTrace(std::shared_ptr<const TraceIndex> index) { m_view->setTrace(std::move(index)); }

  // Shows `other` (B; may be null: an empty lane area with its caption says
  // why) beneath the view, time-aligned, with rich-text captions for both.
  // Calling it again replaces B and the captions; the visible range stays.
  void showComparison(std::shared_ptr<const TraceIndex> other, const QString& captionA, const QString& captionB);
  void closeComparison();
  bool comparing() const { return m_comparing; }
  // The same task in the other view (by identity across runs): per task of
  // A the task of B, and per task of B the task of A (kNoTask: none).
  // Selecting a task in either view then selects its match in the other.
  void setComparisonMatches(std::vector<TaskIndex> inBOfA, std::vector<TaskIndex> inAOfB);
  SwimlaneView* comparisonView() const { return m_viewB; }
  QLabel* captionA() const { return m_captionA; }
  QLabel* captionB() const { return m_captionB; }

Q_SIGNALS:
  // The caption's close button was clicked (the owner decides: closeComparison).
  void closeComparisonRequested();

private:
  void onTraceChanged();
  void onViewChanged();
  // The union of both traces' spans on both views (while comparing).
  void applySharedExtent();
  // Moves `to` to `from`'s visible range (not re-entrant).
  void syncTime(SwimlaneView* from, SwimlaneView* to);
  // Selects in `to` the match of `task` (selected in the other view).
  void syncSelection(TaskIndex task, const std::vector<TaskIndex>& matches, SwimlaneView* to);

  SwimlaneView* m_view = nullptr;
  ReadyCountStrip* m_strip = nullptr;
  QSplitter* m_splitter = nullptr;
  QWidget* m_boxB = nullptr;
  SwimlaneView* m_viewB = nullptr;
  QLabel* m_captionA = nullptr;
  QLabel* m_captionB = nullptr;
  QToolButton* m_closeButton = nullptr;
  bool m_comparing = false;
  bool m_syncing = false;
  bool m_selecting = false;
  std::vector<TaskIndex> m_inBOfA, m_inAOfB;
};

} // namespace pto::widgets
