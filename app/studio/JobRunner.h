// JobRunner: one kind of background job (loading a trace, a run, a ledger
// read, an advice) on a worker thread, the DESIGN.md "Threading" way: each start()
// gets a new generation and supersedes the previous job (whose cancel flag
// is raised and whose result is dropped); the work function gets a
// cancellation flag and must not touch any QObject; the result comes back to
// the GUI thread by a queued call.
#pragma once

#include <QFuture>
#include <QObject>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

namespace pto::studio {

class JobRunner : public QObject {
  Q_OBJECT
public:
  explicit JobRunner(QObject* parent = nullptr) : QObject(parent) {}
  // Waits for running work: its result would have nowhere to go.
  ~JobRunner() override;

  // Runs `work(cancelled)` on the thread pool; `done(result)` runs later on
  // this object's thread unless a newer job started or cancel() was called.
  template <typename Result>
  quint64 start(std::function<Result(const std::atomic<bool>& cancelled)> work, std::function<void(Result)> done) {
    cancel();
    quint64 generation = ++m_generation;
    auto flag = std::make_shared<std::atomic<bool>>(false);
    m_cancel = flag;
    setBusy(true);
    m_futures.push_back(QtConcurrent::run([this, generation, flag, work = std::move(work), done = std::move(done)] {
      Result result = work(*flag);
      QMetaObject::invokeMethod(
          this, [this, generation, flag, done, result = std::move(result)]() mutable {
            if (generation != m_generation || flag->load()) return;  // superseded or cancelled
            setBusy(false);
            done(std::move(result));
          },
          Qt::QueuedConnection);
    }));
    pruneFinished();
    return generation;
  }

  // Raises the running job's cancel flag; its result will be dropped.
  void cancel();
  bool busy() const { return m_busy; }
  quint64 generation() const { return m_generation; }

Q_SIGNALS:
  void busyChanged(bool busy);

private:
  void setBusy(bool busy);
  void pruneFinished();

  quint64 m_generation = 0;
  std::shared_ptr<std::atomic<bool>> m_cancel;
  std::vector<QFuture<void>> m_futures;
  bool m_busy = false;
};

} // namespace pto::studio
