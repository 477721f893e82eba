// The swimlane view and its ReadyCount strip, kept in step; and a second run
// beneath it on the same time axis.
#include "widgets/SwimlanePane.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace pto::widgets {
namespace {

// A caption bar over one of the compared swimlanes: a thin strip in the
// header colour, so it reads as a title rather than content.
QLabel* makeCaption(QWidget* parent) {
  auto* caption = new QLabel(parent);
  caption->setTextFormat(Qt::RichText);
  caption->setAutoFillBackground(true);
  caption->setBackgroundRole(QPalette::AlternateBase);
  caption->setContentsMargins(8, 3, 8, 3);
  caption->setTextInteractionFlags(Qt::NoTextInteraction);
  return caption;
}

} // namespace

SwimlanePane::SwimlanePane(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  m_view = new SwimlaneView(this);
  m_strip = new ReadyCountStrip(this);
  m_strip->setLeftMarginPx(SwimlaneView::timeAreaLeftPx());
  m_strip->setFixedHeight(84);
  m_strip->setFocusPolicy(Qt::NoFocus);

  // A's caption above it; B with its caption (and a close button) beneath.
  m_captionA = makeCaption(this);
  m_captionA->hide();
  m_boxB = new QWidget(this);
  auto* boxLayout = new QVBoxLayout(m_boxB);
  boxLayout->setContentsMargins(0, 0, 0, 0);
  boxLayout->setSpacing(0);
  auto* captionRow = new QHBoxLayout;
  captionRow->setSpacing(0);
  m_captionB = makeCaption(m_boxB);
  m_closeButton = new QToolButton(m_boxB);
  m_closeButton->setText(tr("Close comparison"));
  m_closeButton->setToolTip(tr("Back to the current run's swimlane alone"));
  m_closeButton->setAutoRaise(true);
  connect(m_closeButton, &QToolButton::clicked, this, &SwimlanePane::closeComparisonRequested);
  captionRow->addWidget(m_captionB, 1);
  captionRow->addWidget(m_closeButton);
  boxLayout->addLayout(captionRow);
  m_viewB = new SwimlaneView(m_boxB);
  boxLayout->addWidget(m_viewB, 1);

  m_splitter = new QSplitter(Qt::Vertical, this);
  m_splitter->setChildrenCollapsible(false);
  m_splitter->setHandleWidth(5);
  m_splitter->addWidget(m_view);
  m_splitter->addWidget(m_boxB);
  m_boxB->hide();

  layout->addWidget(m_captionA);
  layout->addWidget(m_splitter, 1);
  layout->addWidget(m_strip);
  setFocusProxy(m_view);
  connect(m_view, &SwimlaneView::traceChanged, this, &SwimlanePane::onTraceChanged);
  connect(m_view, &SwimlaneView::viewChanged, this, &SwimlanePane::onViewChanged);
  connect(m_viewB, &SwimlaneView::viewChanged, this, [this] { syncTime(m_viewB, m_view); });
  connect(m_view, &SwimlaneView::taskSelected, this, [this](TaskIndex task) { syncSelection(task, m_inBOfA, m_viewB); });
  connect(m_viewB, &SwimlaneView::taskSelected, this, [this](TaskIndex task) { syncSelection(task, m_inAOfB, m_view); });
  connect(m_view, &SwimlaneView::colorModeChanged, m_viewB, &SwimlaneView::setColorMode);
  connect(m_view, &SwimlaneView::idleLanesCollapsedChanged, m_viewB, &SwimlaneView::setCollapseIdleLanes);
  onTraceChanged();
}

void SwimlanePane::onTraceChanged() {
  m_strip->setTrace(m_view->traceIndex());
  m_strip->setVisible(m_strip->hasData() && !m_comparing);
  if (m_comparing) {
    // A new current run: both on the new common span, all of it shown.
    applySharedExtent();
    m_view->fit();
  }
  onViewChanged();
}

void SwimlanePane::onViewChanged() {
  if (m_strip->hasData()) m_strip->setTimeRange(m_view->visibleStartNs(), m_view->visibleEndNs());
  syncTime(m_view, m_viewB);
}

void SwimlanePane::syncTime(SwimlaneView* from, SwimlaneView* to) {
  if (!m_comparing || m_syncing) return;
  m_syncing = true;
  to->showRange(from->visibleStartNs(), from->visibleEndNs());
  m_syncing = false;
}

void SwimlanePane::setComparisonMatches(std::vector<TaskIndex> inBOfA, std::vector<TaskIndex> inAOfB) {
  m_inBOfA = std::move(inBOfA);
  m_inAOfB = std::move(inAOfB);
}

void SwimlanePane::syncSelection(TaskIndex task, const std::vector<TaskIndex>& matches, SwimlaneView* to) {
  if (!m_comparing || m_selecting) return;
  TaskIndex match = task < matches.size() ? matches[task] : trace::kNoTask;
  if (task != trace::kNoTask && match == trace::kNoTask) return;  // no such task in the other run: leave it
  m_selecting = true;
  to->selectTask(match, true);  // in view: its lane scrolled to, the range (shared) moved if need be
  m_selecting = false;
}

void SwimlanePane::applySharedExtent() {
  std::int64_t start = 0, end = 0;
  bool any = false;
  for (const auto& index : {m_view->traceIndex(), m_viewB->traceIndex()}) {
    if (!index) continue;
    start = any ? std::min(start, index->startNs()) : index->startNs();
    end = any ? std::max(end, index->endNs()) : index->endNs();
    any = true;
  }
  if (!any) return;
  m_syncing = true;  // each view's viewChanged would sync half-updated ranges
  m_view->setTimeExtent(start, end);
  m_viewB->setTimeExtent(start, end);
  m_syncing = false;
}

void SwimlanePane::showComparison(std::shared_ptr<const TraceIndex> other, const QString& captionA, const QString& captionB) {
  bool wasComparing = m_comparing;
  double from = m_view->visibleStartNs();
  double to = m_view->visibleEndNs();
  m_comparing = true;
  m_syncing = true;
  m_viewB->setTrace(std::move(other));
  m_viewB->setColorMode(m_view->colorMode());
  m_viewB->setCollapseIdleLanes(m_view->collapsesIdleLanes());
  m_syncing = false;
  m_captionA->setText(captionA);
  m_captionB->setText(captionB);
  m_captionA->show();
  m_boxB->show();
  m_strip->hide();
  applySharedExtent();
  // Opening a comparison shows both runs whole; replacing B keeps the range.
  if (wasComparing) m_view->showRange(from, to);
  else m_view->fit();
  if (!wasComparing) {
    int half = std::max(m_splitter->height() / 2, 120);
    m_splitter->setSizes({half, half});
  }
  syncTime(m_view, m_viewB);
}

void SwimlanePane::closeComparison() {
  if (!m_comparing) return;
  m_comparing = false;
  m_boxB->hide();
  m_captionA->hide();
  m_viewB->setTrace(nullptr);
  m_inBOfA.clear();
  m_inAOfB.clear();
  if (const auto& index = m_view->traceIndex()) m_view->setTimeExtent(index->startNs(), index->endNs());
  m_strip->setVisible(m_strip->hasData());
  onViewChanged();
}

} // namespace pto::widgets
