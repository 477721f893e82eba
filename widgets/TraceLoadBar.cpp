// The status bar's trace-loading progress.
#include "widgets/TraceLoadBar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QTimer>
#include <QToolButton>

#include <algorithm>
#include <cmath>

namespace pto::widgets {

TraceLoadBar::TraceLoadBar(QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_label = new QLabel(this);
  m_bar = new QProgressBar(this);
  m_bar->setRange(0, 100);
  m_bar->setMaximumWidth(180);
  m_bar->setTextVisible(true);
  m_cancel = new QToolButton(this);
  m_cancel->setText(tr("Cancel"));
  m_cancel->setToolTip(tr("Stop reading the trace and keep the view as it was"));
  layout->addWidget(m_label);
  layout->addWidget(m_bar);
  layout->addWidget(m_cancel);
  m_timer = new QTimer(this);
  m_timer->setInterval(100);  // ten updates a second: smooth enough, nothing to measure
  connect(m_timer, &QTimer::timeout, this, &TraceLoadBar::poll);
  connect(m_cancel, &QToolButton::clicked, this, &TraceLoadBar::cancelRequested);
  hide();
}

void TraceLoadBar::start(const QString& fileName, std::shared_ptr<const std::atomic<double>> fraction) {
  m_fraction = std::move(fraction);
  m_label->setText(tr("Reading %1").arg(fileName));
  m_bar->setValue(0);
  poll();
  m_timer->start();
  show();
}

void TraceLoadBar::finish() {
  m_timer->stop();
  m_fraction.reset();
  hide();
}

int TraceLoadBar::percent() const { return m_bar->value(); }

void TraceLoadBar::poll() {
  if (!m_fraction) return;
  m_bar->setValue(static_cast<int>(std::lround(std::clamp(m_fraction->load(), 0.0, 1.0) * 100)));
}

} // namespace pto::widgets
