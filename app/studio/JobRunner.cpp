// Background jobs with generations and cancellation.
#include "app/studio/JobRunner.h"

#include <algorithm>

namespace pto::studio {

JobRunner::~JobRunner() {
  if (m_cancel) m_cancel->store(true);
  for (QFuture<void>& future : m_futures) future.waitForFinished();
}

void JobRunner::cancel() {
  if (m_cancel) m_cancel->store(true);
  m_cancel.reset();
  setBusy(false);
}

void JobRunner::setBusy(bool busy) {
  if (busy == m_busy) return;
  m_busy = busy;
  Q_EMIT busyChanged(busy);
}

void JobRunner::pruneFinished() {
  m_futures.erase(std::remove_if(m_futures.begin(), m_futures.end(), [](const QFuture<void>& f) { return f.isFinished(); }),
                  m_futures.end());
}

} // namespace pto::studio
