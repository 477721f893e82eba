// TraceLoadBar: the status bar's view of a trace file being read on a
// worker thread: the file name, a progress bar and a Cancel button. It
// polls the share of work done (an atomic the loading thread writes, see
// TraceLoadControl) instead of receiving signals from the worker, so the
// worker touches no QObject.
#pragma once

#include <QWidget>

#include <atomic>
#include <memory>

class QLabel;
class QProgressBar;
class QTimer;
class QToolButton;

namespace pto::widgets {

class TraceLoadBar : public QWidget {
  Q_OBJECT
public:
  explicit TraceLoadBar(QWidget* parent = nullptr);

  // Shows `fileName` loading and follows `fraction` (0 to 1) until finish().
  void start(const QString& fileName, std::shared_ptr<const std::atomic<double>> fraction);
  // Hides the bar (the load ended, failed or was cancelled).
  void finish();
  bool loading() const { return m_fraction != nullptr; }
  // The bar's value in percent (for tests).
  int percent() const;

Q_SIGNALS:
  void cancelRequested();

private:
  void poll();

  QLabel* m_label = nullptr;
  QProgressBar* m_bar = nullptr;
  QToolButton* m_cancel = nullptr;
  QTimer* m_timer = nullptr;
  std::shared_ptr<const std::atomic<double>> m_fraction;
};

} // namespace pto::widgets
