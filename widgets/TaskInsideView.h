// TaskInsideView: one task's instructions per pipe on a cycle timeline (the
// Inside task dock), drawn from analysis/report/TaskInside.h, the struct
// `pto report --task N` prints. A row per pipe the program uses (MTE2,
// VECTOR, CUBE, MTE3, ...): each instruction a box in its pipe's colour,
// labelled with its mnemonic where the label fits and outlined dark when it
// lies on the chain that sets the task's end; each wait hatched grey. A
// header gives the task, its cycles and why it takes that long. Hovering a
// slice shows its instruction, kernel line and cycles (a wait: its reason).
// A thin view: the task is simulated again off the GUI thread.
#pragma once

#include "analysis/report/TaskInside.h"
#include "widgets/ReportCanvas.h"

#include <QRectF>

#include <memory>

namespace pto::widgets {

class TaskInsideView : public ReportCanvas {
  Q_OBJECT
public:
  explicit TaskInsideView(QWidget* parent = nullptr);

  // The task to draw (null: the message instead).
  void setInside(std::shared_ptr<const TaskInside> inside);
  const TaskInside* inside() const { return m_inside.get(); }

  // Slices drawn at the view's size (at least a pixel wide), over every pipe.
  int sliceCount() const;
  // The slice under `point`, or null; `pipe` receives its pipe's name.
  const InsideSlice* sliceAt(QPointF point, QString* pipe = nullptr) const;
  static QString describe(const TaskInside& inside, const QString& pipe, const InsideSlice& slice);

  QSize sizeHint() const override { return {420, 260}; }
  QSize minimumSizeHint() const override { return {200, 100}; }

protected:
  void clearReport() override { m_inside.reset(); }
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

private:
  QRectF plotArea() const;
  QRectF rowRect(int row) const;
  QRectF sliceRect(int row, const InsideSlice& slice) const;

  std::shared_ptr<const TaskInside> m_inside;
};

} // namespace pto::widgets
