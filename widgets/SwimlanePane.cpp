// The swimlane view and its ReadyCount strip, kept in step.
#include "widgets/SwimlanePane.h"

#include <QVBoxLayout>

namespace pto::widgets {

SwimlanePane::SwimlanePane(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  m_view = new SwimlaneView(this);
  m_strip = new ReadyCountStrip(this);
  m_strip->setLeftMarginPx(SwimlaneView::timeAreaLeftPx());
  m_strip->setFixedHeight(84);
  m_strip->setFocusPolicy(Qt::NoFocus);
  layout->addWidget(m_view, 1);
  layout->addWidget(m_strip);
  setFocusProxy(m_view);
  connect(m_view, &SwimlaneView::traceChanged, this, &SwimlanePane::onTraceChanged);
  connect(m_view, &SwimlaneView::viewChanged, this, &SwimlanePane::onViewChanged);
  onTraceChanged();
}

void SwimlanePane::onTraceChanged() {
  m_strip->setTrace(m_view->traceIndex());
  m_strip->setVisible(m_strip->hasData());
  onViewChanged();
}

void SwimlanePane::onViewChanged() {
  if (m_strip->hasData()) m_strip->setTimeRange(m_view->visibleStartNs(), m_view->visibleEndNs());
}

} // namespace pto::widgets
