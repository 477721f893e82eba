// A task's bound class from its pipe intervals.
#include "widgets/models/BoundClass.h"

#include "core/XMacroEnum.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <vector>

namespace pto::widgets {
namespace {

bool sameLetters(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::toupper(static_cast<unsigned char>(x)) == std::toupper(static_cast<unsigned char>(y));
         });
}

} // namespace

namespace {

struct BoundClassInfo {
  BoundClass bound;
  std::string_view name;
  std::string_view pipes;
};

constexpr BoundClassInfo kBoundClasses[] = {
    {BoundClass::Unknown, "unknown", "no pipe data"},
    {BoundClass::MemoryIn, "memory-in", "MTE2, MTE1"},
    {BoundClass::Cube, "cube", "CUBE"},
    {BoundClass::Vector, "vector", "VECTOR"},
    {BoundClass::MemoryOut, "memory-out", "MTE3, FIXPIPE"},
    {BoundClass::Scalar, "scalar", "SCALAR"},
};
static_assert(std::size(kBoundClasses) == kBoundClassCount);
static_assert(rowsFollowEnumerators<&BoundClassInfo::bound>(kBoundClasses), "kBoundClasses is indexed by BoundClass");

} // namespace

std::string_view name(BoundClass bound) { return enumRow(kBoundClasses, bound).name; }

std::string_view pipesOf(BoundClass bound) { return enumRow(kBoundClasses, bound).pipes; }

std::optional<BoundClass> boundClassOfPipe(std::string_view pipe) {
  struct Entry {
    std::string_view name;
    BoundClass bound;
  };
  static constexpr Entry kPipes[] = {
      {"MTE2", BoundClass::MemoryIn},  {"MTE1", BoundClass::MemoryIn},   {"CUBE", BoundClass::Cube},
      {"M", BoundClass::Cube},         {"VECTOR", BoundClass::Vector},   {"V", BoundClass::Vector},
      {"MTE3", BoundClass::MemoryOut}, {"FIXPIPE", BoundClass::MemoryOut}, {"FIX", BoundClass::MemoryOut},
      {"SCALAR", BoundClass::Scalar},  {"S", BoundClass::Scalar},
  };
  for (const Entry& entry : kPipes)
    if (sameLetters(pipe, entry.name)) return entry.bound;
  return std::nullopt;
}

std::array<std::int64_t, kBoundClassCount> boundBusyNs(const trace::Trace& trace, trace::TaskIndex task) {
  std::array<std::int64_t, kBoundClassCount> busy{};
  auto pipes = trace.pipes(task);
  if (pipes.empty()) return busy;  // most imported traces: no need to read the task
  const std::int64_t taskStartNs = trace.taskStartNs(task);
  const std::int64_t taskEndNs = trace.taskEndNs(task);
  // Per class, the intervals clipped to the task; then each class's union.
  std::array<std::vector<std::pair<std::int64_t, std::int64_t>>, kBoundClassCount> spans;
  for (const trace::PipeInterval& interval : pipes) {
    auto bound = boundClassOfPipe(trace.str(interval.pipe));
    if (!bound) continue;
    std::int64_t from = std::max(interval.startNs, taskStartNs);
    std::int64_t to = std::min(interval.endNs, taskEndNs);
    if (to > from) spans[static_cast<std::size_t>(*bound)].emplace_back(from, to);
  }
  for (std::size_t c = 0; c < spans.size(); ++c) {
    auto& list = spans[c];
    std::sort(list.begin(), list.end());
    std::int64_t coveredTo = std::numeric_limits<std::int64_t>::min();
    for (auto [from, to] : list) {
      from = std::max(from, coveredTo);
      if (to > from) busy[c] += to - from;
      coveredTo = std::max(coveredTo, to);
    }
  }
  return busy;
}

BoundClass boundClassOf(const trace::Trace& trace, trace::TaskIndex task) {
  auto busy = boundBusyNs(trace, task);
  BoundClass best = BoundClass::Unknown;
  std::int64_t bestNs = 0;
  for (int c = 1; c < kBoundClassCount; ++c)
    if (busy[static_cast<std::size_t>(c)] > bestNs) {
      bestNs = busy[static_cast<std::size_t>(c)];
      best = static_cast<BoundClass>(c);
    }
  return best;
}

} // namespace pto::widgets
