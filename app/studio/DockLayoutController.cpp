// The window's docks: their default arrangement, the saved layout, the sizes
// each view asks for.
#include "app/studio/DockLayoutController.h"

#include <QAction>
#include <QDockWidget>
#include <QFrame>
#include <QLayout>
#include <QMainWindow>
#include <QScrollArea>
#include <QSettings>
#include <QTimer>

#include <map>
#include <utility>

namespace pto::studio {
DockLayoutController::DockLayoutController(QMainWindow* window, const Panels& panels)
    : QObject(window), m_window(window) {
  m_window->setDockNestingEnabled(true);
  m_source = add(panels.source, tr("Source"), QStringLiteral("SourceDock"), Qt::LeftDockWidgetArea);
  m_summary = add(panels.summary, tr("Summary"), QStringLiteral("SummaryDock"), Qt::RightDockWidgetArea);
  m_details = add(panels.details, tr("Task details"), QStringLiteral("DetailsDock"), Qt::RightDockWidgetArea);
  m_window->splitDockWidget(m_summary, m_details, Qt::Vertical);

  // Tuning shares the right column with the task details: opening a project
  // raises it, clicking a task raises the details.
  m_tuning = addBeside(m_details, panels.tuning, tr("Tuning"), QStringLiteral("TuningDock"));
  // The selected task's on-chip memory, one tab from its details.
  m_memory = addBeside(m_details, panels.memory, tr("Memory"), QStringLiteral("MemoryDock"));
  // The selected task's instructions per pipe, one more tab along.
  m_insideTask = addBeside(m_details, panels.insideTask, tr("Inside task"), QStringLiteral("InsideTaskDock"));
  m_details->raise();

  // The health report shares the summary's place: the run at a glance first,
  // why it takes that long one tab away.
  m_health = addBeside(m_summary, panels.health, tr("Health"), QStringLiteral("HealthDock"));
  m_summary->raise();

  m_problems = add(panels.problems, tr("Problems"), QStringLiteral("ProblemsDock"), Qt::BottomDockWidgetArea);
  m_problems->hide();  // shown when a run reports something
  // Together less than half the window's first size (1500 wide).
  m_window->resizeDocks({m_source, m_summary}, {380, 350}, Qt::Horizontal);
  m_window->resizeDocks({m_summary, m_details}, {300, 540}, Qt::Vertical);

  // Beside the summary and the health report: how the run got there (Runs),
  // how it compares with the chip (Measured), and what to change (Advice).
  m_runs = addBeside(m_health, panels.runs, tr("Runs"), QStringLiteral("RunsDock"));
  m_measured = addBeside(m_runs, panels.measured, tr("Measured"), QStringLiteral("MeasuredDock"));
  // The advice in a scroll area: the cards and the Pareto plot want room, but
  // the dock shares its column with docks that do not, and must not widen the
  // column (or keep it tall) when another view asks for the room.
  auto* adviceScroll = new QScrollArea;
  adviceScroll->setWidgetResizable(true);
  adviceScroll->setFrameShape(QFrame::NoFrame);
  adviceScroll->setMinimumSize(120, 100);
  adviceScroll->setWidget(panels.advice);
  m_advice = addBeside(m_runs, adviceScroll, tr("Advice"), QStringLiteral("AdviceDock"));
  m_summary->raise();  // the run at a glance shows first

  // A dock that shows or hides (a tab raised, a dock opened from the View
  // menu, a floating one docked again) can widen its column past what the
  // centre can spare: checked once the layout has settled.
  m_keepCentreTimer = new QTimer(this);
  m_keepCentreTimer->setSingleShot(true);
  m_keepCentreTimer->setInterval(0);
  connect(m_keepCentreTimer, &QTimer::timeout, this, &DockLayoutController::keepCentreHalf);
  for (QDockWidget* dock : m_window->findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly)) {
    connect(dock, &QDockWidget::visibilityChanged, m_keepCentreTimer, qOverload<>(&QTimer::start));
    connect(dock, &QDockWidget::topLevelChanged, m_keepCentreTimer, qOverload<>(&QTimer::start));
  }
}

QDockWidget* DockLayoutController::add(QWidget* content, const QString& title, const QString& name,
                                       Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, m_window);
  dock->setObjectName(name);
  dock->setWidget(content);
  m_window->addDockWidget(area, dock);
  return dock;
}

QDockWidget* DockLayoutController::addBeside(QDockWidget* beside, QWidget* content, const QString& title,
                                             const QString& name) {
  QDockWidget* dock = add(content, title, name, Qt::RightDockWidgetArea);
  m_window->tabifyDockWidget(beside, dock);
  return dock;
}

QDockWidget* DockLayoutController::dock(Dock which) const {
  switch (which) {
  case Dock::Source: return m_source;
  case Dock::Summary: return m_summary;
  case Dock::Details: return m_details;
  case Dock::Tuning: return m_tuning;
  case Dock::Health: return m_health;
  case Dock::Problems: return m_problems;
  case Dock::Runs: return m_runs;
  case Dock::Measured: return m_measured;
  case Dock::Advice: return m_advice;
  case Dock::Memory: return m_memory;
  case Dock::InsideTask: return m_insideTask;
  }
  return nullptr;
}

void DockLayoutController::raise(Dock which) {
  QDockWidget* shown = dock(which);
  shown->show();
  shown->raise();
}

QList<QAction*> DockLayoutController::toggleActions() const {
  QList<QAction*> actions;
  for (QDockWidget* dock : {m_source, m_details, m_memory, m_insideTask, m_tuning, m_summary, m_health, m_advice, m_runs, m_measured, m_problems})
    actions << dock->toggleViewAction();
  return actions;
}

void DockLayoutController::restoreSaved() {
  m_defaultLayout = m_window->saveState(kLayoutVersion);
  QSettings settings;
  m_window->restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
  m_window->restoreState(settings.value(QStringLiteral("window/state")).toByteArray(), kLayoutVersion);
}

void DockLayoutController::save() {
  QSettings settings;
  settings.setValue(QStringLiteral("window/geometry"), m_window->saveGeometry());
  // A squeezed centre is not carried into the next session: the docks give
  // it half the window first, and where their minimum widths do not let
  // them, the next session starts from the default layout.
  keepCentreHalf();
  if (centreHasHalf()) settings.setValue(QStringLiteral("window/state"), m_window->saveState(kLayoutVersion));
  else settings.remove(QStringLiteral("window/state"));
}

void DockLayoutController::resetToDefault() {
  m_window->restoreState(m_defaultLayout, kLayoutVersion);
  m_keepCentreTimer->start();  // the default's docks may not fit a small window
}

int DockLayoutController::areaWidth(Qt::DockWidgetArea area, QDockWidget** first) const {
  QRect span;
  for (QDockWidget* dock : m_window->findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly)) {
    if (!dock->isVisible() || dock->isFloating() || m_window->dockWidgetArea(dock) != area) continue;
    if (!m_window->rect().contains(dock->geometry())) continue;  // a tab behind another
    if (first && span.isNull()) *first = dock;
    span |= dock->geometry();
  }
  return span.width();
}

bool DockLayoutController::centreHasHalf() const {
  QWidget* centre = m_window->centralWidget();
  return !centre || 2 * centre->width() >= m_window->width();
}

void DockLayoutController::keepCentreHalf() {
  m_window->layout()->activate();  // the widths as they will be painted (after resizeDocks too)
  if (centreHasHalf()) return;
  QDockWidget* left = nullptr;
  QDockWidget* right = nullptr;
  const int leftWidth = areaWidth(Qt::LeftDockWidgetArea, &left);
  const int rightWidth = areaWidth(Qt::RightDockWidgetArea, &right);
  const int docksWidth = leftWidth + rightWidth;
  const int missing = (m_window->width() + 1) / 2 - m_window->centralWidget()->width();
  if (missing <= 0 || docksWidth <= 0) return;
  // Each side gives back its share of what the centre misses, rounded up.
  QList<QDockWidget*> docks;
  QList<int> widths;
  for (auto [dock, width] : {std::pair{left, leftWidth}, std::pair{right, rightWidth}}) {
    if (!dock) continue;
    docks << dock;
    widths << width - (missing * width + docksWidth - 1) / docksWidth;
  }
  m_window->resizeDocks(docks, widths, Qt::Horizontal);
  m_window->layout()->activate();  // laid out now, for centreHasHalf()
}

void DockLayoutController::arrange(StudioView view) {
  if (view == StudioView::Swimlane || view == StudioView::Graph) return;  // the centre already has the room
  // The right column's width goes through the summary (its top dock).
  int width = m_window->width();
  // Below the summary: task details and tuning, as tabs; the one showing.
  QDockWidget* lower = m_tuning->isVisible()       ? m_tuning
                       : m_memory->isVisible()     ? m_memory
                       : m_insideTask->isVisible() ? m_insideTask
                                                   : m_details;
  int columnHeight = m_summary->height() + lower->height();
  std::map<QDockWidget*, int> widths;
  std::map<QDockWidget*, int> heights;
  // Left and right together take at most half the window (keepCentreHalf).
  switch (view) {
  case StudioView::Editor:
    // The kernel gets a third of the window; the swimlane stays beside it.
    widths = {{m_source, width * 32 / 100}, {m_summary, width * 18 / 100}};
    break;
  case StudioView::Summary:
  case StudioView::Health:  // it shares the summary's place
    widths = {{m_source, width * 14 / 100}, {m_summary, width * 36 / 100}};
    heights = {{m_summary, columnHeight * 70 / 100}, {lower, columnHeight * 30 / 100}};
    break;
  case StudioView::Advice:  // it shares the summary's place; cards and the Pareto plot want the height
    widths = {{m_source, width * 12 / 100}, {m_summary, width * 38 / 100}};
    heights = {{m_summary, columnHeight * 85 / 100}, {lower, columnHeight * 15 / 100}};
    break;
  case StudioView::Runs:  // it shares the summary's place; the A/B swimlanes keep the centre
    widths = {{m_source, width * 12 / 100}, {m_summary, width * 38 / 100}};
    heights = {{m_summary, columnHeight * 80 / 100}, {lower, columnHeight * 20 / 100}};
    break;
  case StudioView::Memory:  // beside the task details; its panels want the height and the width
  case StudioView::InsideTask:
    widths = {{m_source, width * 12 / 100}, {m_summary, width * 38 / 100}};
    heights = {{m_summary, columnHeight * 25 / 100}, {lower, columnHeight * 75 / 100}};
    break;
  case StudioView::Tuning:
    widths = {{m_source, width * 14 / 100}, {m_summary, width * 36 / 100}};
    heights = {{m_summary, columnHeight * 25 / 100}, {m_tuning, columnHeight * 75 / 100}};
    break;
  case StudioView::Swimlane:
  case StudioView::Graph:
    break;
  }
  auto resize = [this](const std::map<QDockWidget*, int>& sizes, Qt::Orientation orientation) {
    QList<QDockWidget*> docks;
    QList<int> pixels;
    for (const auto& [dock, size] : sizes) {
      if (dock->isFloating() || !dock->isVisible()) continue;  // not in the layout
      docks << dock;
      pixels << size;
    }
    if (!docks.isEmpty()) m_window->resizeDocks(docks, pixels, orientation);
  };
  resize(widths, Qt::Horizontal);
  resize(heights, Qt::Vertical);
  keepCentreHalf();
}

} // namespace pto::studio
