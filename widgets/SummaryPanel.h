// SummaryPanel: the run at a glance — makespan, tasks and busy share per
// core type, dependencies, trace memory. A placeholder until runs exist:
// precision results and the delta against the previous run come with them.
#pragma once

#include "widgets/models/TraceIndex.h"

#include <QWidget>

#include <memory>

class QLabel;

namespace pto::widgets {

class SummaryPanel : public QWidget {
  Q_OBJECT
public:
  explicit SummaryPanel(QWidget* parent = nullptr);
  void setTrace(std::shared_ptr<const TraceIndex> index);
  QString text() const;  // the shown text, plain (for tests)

private:
  QLabel* m_label = nullptr;
};

} // namespace pto::widgets
