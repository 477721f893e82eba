// Implementation of RootCalls.
#include "compiler/passes/RootCalls.h"

namespace pto {

std::int64_t RootCalls::current() {
  // Compared in place: this runs for every op that makes tasks.
  bool same = m_count >= 0 && m_lastKey.size() == m_active.size();
  for (std::size_t i = 0; same && i < m_active.size(); ++i)
    same = m_lastKey[i] == std::pair{m_active[i].loop->id, m_active[i].call};
  if (!same) {
    ++m_count;
    m_lastKey.clear();
    for (const Active& active : m_active) m_lastKey.emplace_back(active.loop->id, active.call);
  }
  return m_count;
}

std::int64_t RootCalls::callOf(const Active& active) {
  if (active.loop->unrollList.empty()) return active.bodies;
  std::uint64_t base = 0;
  std::int64_t calls = 0;
  for (std::int64_t factor : active.loop->unrollList) {
    const auto f = static_cast<std::uint64_t>(std::max<std::int64_t>(factor, 1));
    const std::uint64_t groups = (active.iterations - base) / f;
    if (active.done < base + groups * f) return calls + static_cast<std::int64_t>((active.done - base) / f);
    base += groups * f;
    calls += static_cast<std::int64_t>(groups);
  }
  return calls + static_cast<std::int64_t>(active.done - base);  // past the list (it ends in 1)
}

} // namespace pto
