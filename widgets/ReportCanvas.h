// ReportCanvas: what the views that draw one analysis report share (the
// Memory and Inside task docks): a canvas in the palette's Base colour that
// tracks the mouse for its tooltips and, while it has no report, says why
// (or what to do) in its middle. A view keeps its report; the canvas keeps
// the message.
#pragma once

#include <QString>
#include <QWidget>

class QPainter;

namespace pto::widgets {

class ReportCanvas : public QWidget {
  Q_OBJECT
public:
  // What the view says when it has no report; drops the report it had.
  void setMessage(const QString& text);
  const QString& message() const { return m_message; }

protected:
  ReportCanvas(const QString& objectName, const QString& message, QWidget* parent);

  // For setMessage: forget the report so that the message shows.
  virtual void clearReport() = 0;
  // paintEvent's part when there is no report.
  void paintMessage(QPainter& painter) const;

private:
  QString m_message;
};

} // namespace pto::widgets
