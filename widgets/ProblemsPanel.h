// ProblemsPanel: the last run's diagnostics as a list (severity, where,
// message, with notes as children). Activating a row asks to show its
// location; the window decides where (the kernel in the editor, the project
// file elsewhere).
#pragma once

#include <QTreeWidget>

#include <vector>

namespace pto {
// Forward-declared: moc cannot parse the C++20 headers core/Diagnostics.h brings in.
struct Diagnostic;
} // namespace pto

namespace pto::widgets {

class ProblemsPanel : public QTreeWidget {
  Q_OBJECT
public:
  explicit ProblemsPanel(QWidget* parent = nullptr);
  void setDiagnostics(const std::vector<Diagnostic>& diagnostics);
  int errorCount() const { return m_errors; }
  int warningCount() const { return m_warnings; }

Q_SIGNALS:
  // A row was double-clicked or Enter pressed on it; line/column are 1-based, 0 when unknown.
  void locationActivated(const QString& file, int line, int column);

private:
  int m_errors = 0;
  int m_warnings = 0;
};

} // namespace pto::widgets
