// HealthPanel: the run's health report (analysis/report/HealthReport.h, the same
// struct `pto report` prints) as a tree: what bounds the run and why, the
// critical path, each core type's busy and idle time by cause, waves per
// label, the execute and tile graphs, and every subgraph group with its
// bound class; below it the roofline plot, one point per subgraph. Rows
// that are about a task or a kernel line link to it: activating one emits
// taskActivated / lineActivated, which the main window turns into a swimlane
// selection or an editor jump. Clicking a roofline point does the same for
// its subgraph's longest task and kernel line and selects its group's row;
// activating a group's row rings its point. A thin view: the report is
// computed off the GUI thread with the run.
#pragma once

#include "analysis/report/HealthReport.h"

namespace pto {
struct PyptoHealthReport;
}

#include <QWidget>

#include <map>
#include <optional>

class QTreeWidget;
class QTreeWidgetItem;
class QLabel;
class QSplitter;

namespace pto::widgets {

class RooflinePlot;

class HealthPanel : public QWidget {
  Q_OBJECT
public:
  explicit HealthPanel(QWidget* parent = nullptr);

  void setReport(const HealthReport& report);
  // One of PyPTO's own health reports (analysis/pypto), read-only: its
  // headline figures, then every field by section. No roofline, no links.
  void setPyptoReport(const PyptoHealthReport& report);
  void clear();

  // Every row's text, "figure\tvalue", one per line in tree order (for tests).
  QString text() const;
  QTreeWidget* tree() const { return m_tree; }
  RooflinePlot* roofline() const { return m_roofline; }

Q_SIGNALS:
  void taskActivated(int task);
  void lineActivated(const QString& file, int line);

private:
  void activate(QTreeWidgetItem* item);
  void onRooflinePointActivated(int subgraph);
  QTreeWidgetItem* addRow(QTreeWidgetItem* parent, const QString& figure, const QString& value,
                          const QString& tooltip = {});

  QLabel* m_headline = nullptr;
  QTreeWidget* m_tree = nullptr;
  RooflinePlot* m_roofline = nullptr;
  std::map<SubgraphId, QTreeWidgetItem*> m_groupRowOf;  // every subgraph -> its group's row
  std::optional<HealthReport> m_report;
};

} // namespace pto::widgets
