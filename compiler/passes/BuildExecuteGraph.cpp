// Implementation of BuildExecuteGraph and of the dependency index.
#include "compiler/passes/BuildExecuteGraph.h"

#include "core/Limits.h"

#include "compiler/ir/ProgramWalker.h"
#include "compiler/passes/RemoveRedundantOp.h"
#include "compiler/passes/RootCalls.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <bit>
#include <cassert>

namespace pto {
namespace {

using EntryId = std::int32_t;
using ClassId = std::uint32_t;

// What is known about one distinct box of one tensor: the last task that
// wrote exactly this box and the tasks that read exactly it since. Earlier
// accesses of the box are ordered before these (they were predecessors of
// the last write).
struct Entry {
  std::uint32_t coords = 0;  // [lo, hi) per dim at m_coords[coords ...], lo first
  std::uint32_t rank = 0;
  ClassId sizeClass = 0;
  std::uint32_t memberSlot = 0;  // position in its class's members
  TaskId lastWriter = kNoId;
  std::vector<TaskId> readers;
  std::uint64_t stamp = 0;  // the last query that visited it
  bool live = false;
};

// Boxes of one tensor whose extents round up to the same power of two in
// every dim (or to no more than that, once the tensor has kClassesPerTensor
// classes); cells are that size, so a box spans at most two cells per dim.
struct SizeClass {
  std::vector<int> levels;       // log2 of the cell extent, per dim
  std::vector<EntryId> members;  // every live entry of the class
};

struct TensorIndex {
  std::size_t rank = 0;
  bool used = false;
  std::vector<ClassId> classes;
  std::vector<std::pair<std::vector<int>, ClassId>> assigned;  // rounded extents -> their class
};

// Beyond this many size classes a tensor's new box sizes join coarser classes.
constexpr std::size_t kClassesPerTensor = 8;

int levelOf(std::int64_t extent) {
  return extent <= 1 ? 0 : std::bit_width(static_cast<std::uint64_t>(extent - 1));
}

std::uint64_t mix(std::uint64_t hash, std::uint64_t value) {
  hash ^= value + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2);
  hash *= 0xbf58476d1ce4e5b9ULL;
  return hash ^ (hash >> 31);
}

// Calls visit(key) for every cell of a class that [lo, hi) covers; the key
// hashes the class and the cell coordinates.
template <typename Visit>
void forEachCell(ClassId id, const std::vector<int>& levels, const std::int64_t* lo, const std::int64_t* hi,
                 Visit&& visit) {
  const std::size_t rank = levels.size();
  const std::uint64_t seed = mix(0, id);
  constexpr std::size_t kInline = 8;
  std::int64_t inlineCells[3 * kInline];
  std::vector<std::int64_t> spill;
  std::int64_t* first = inlineCells;
  if (rank > kInline) {
    spill.resize(3 * rank);
    first = spill.data();
  }
  std::int64_t* last = first + rank;
  std::int64_t* at = last + rank;
  for (std::size_t d = 0; d < rank; ++d) {
    first[d] = lo[d] >> levels[d];
    last[d] = (hi[d] - 1) >> levels[d];
    at[d] = first[d];
  }
  while (true) {
    std::uint64_t key = seed;
    for (std::size_t d = 0; d < rank; ++d) key = mix(key, static_cast<std::uint64_t>(at[d]));
    visit(key);
    std::size_t d = rank;
    while (true) {
      if (d == 0) return;
      --d;
      if (at[d] < last[d]) {
        ++at[d];
        break;
      }
      at[d] = first[d];
    }
  }
}

// How many cells of `levels` [lo, hi) covers, saturating at `limit` + 1.
std::size_t cellCount(const std::vector<int>& levels, const std::int64_t* lo, const std::int64_t* hi,
                      std::size_t limit) {
  std::size_t count = 1;
  for (std::size_t d = 0; d < levels.size(); ++d) {
    auto span = static_cast<std::uint64_t>(((hi[d] - 1) >> levels[d]) - (lo[d] >> levels[d])) + 1;
    if (span > limit || count > limit / span) return limit + 1;
    count *= static_cast<std::size_t>(span);
  }
  return count;
}

// Cell key -> the entries registered in the cell, as a list of nodes. An
// open-addressing table whose keys stay once used (a cell that empties keeps
// its slot with an empty list). Colliding keys share a list: that only adds
// candidates, which the exact overlap test rejects.
class CellTable {
public:
  static constexpr std::int32_t kEnd = -1;

  // The head of the cell's list, or kEnd.
  std::int32_t head(std::uint64_t key) const {
    if (m_slots.empty()) return kEnd;
    for (std::size_t at = key & m_mask;; at = (at + 1) & m_mask) {
      const Slot& slot = m_slots[at];
      if (!slot.used) return kEnd;
      if (slot.key == key) return slot.head;
    }
  }
  std::int32_t next(std::int32_t node) const { return m_nodes[static_cast<std::size_t>(node)].next; }
  EntryId entry(std::int32_t node) const { return m_nodes[static_cast<std::size_t>(node)].entry; }

  void insert(std::uint64_t key, EntryId entry) {
    std::int32_t& list = slotFor(key).head;
    std::int32_t node;
    if (!m_freeNodes.empty()) {
      node = m_freeNodes.back();
      m_freeNodes.pop_back();
    } else {
      node = static_cast<std::int32_t>(m_nodes.size());
      m_nodes.emplace_back();
    }
    m_nodes[static_cast<std::size_t>(node)] = Node{entry, list};
    list = node;
  }

  void erase(std::uint64_t key, EntryId entry) {
    std::int32_t* link = &slotFor(key).head;
    while (*link != kEnd) {
      Node& node = m_nodes[static_cast<std::size_t>(*link)];
      if (node.entry == entry) {
        m_freeNodes.push_back(*link);
        *link = node.next;
        return;
      }
      link = &node.next;
    }
  }

private:
  struct Slot {
    std::uint64_t key = 0;
    std::int32_t head = kEnd;
    bool used = false;
  };
  struct Node {
    EntryId entry = 0;
    std::int32_t next = kEnd;
  };

  Slot& slotFor(std::uint64_t key) {
    if ((m_used + 1) * 2 > m_slots.size()) grow();
    for (std::size_t at = key & m_mask;; at = (at + 1) & m_mask) {
      Slot& slot = m_slots[at];
      if (slot.used && slot.key == key) return slot;
      if (!slot.used) {
        slot = Slot{key, kEnd, true};
        ++m_used;
        return slot;
      }
    }
  }

  void grow() {
    std::vector<Slot> old = std::move(m_slots);
    m_slots.assign(std::max<std::size_t>(64, old.size() * 2), Slot{});
    m_mask = m_slots.size() - 1;
    for (const Slot& slot : old) {
      if (!slot.used) continue;
      std::size_t at = slot.key & m_mask;
      while (m_slots[at].used) at = (at + 1) & m_mask;
      m_slots[at] = slot;
    }
  }

  std::vector<Slot> m_slots;
  std::size_t m_mask = 0;
  std::size_t m_used = 0;
  std::vector<Node> m_nodes;
  std::vector<std::int32_t> m_freeNodes;
};

// A box of a task's access: [lo, hi) at `coords` in the task's coordinate buffer.
struct Access {
  TensorId tensor = kNoId;
  std::uint32_t coords = 0;
  std::uint32_t rank = 0;
  bool write = false;
};

class DependencyIndex {
public:
  // Adds to `predecessors` the tasks an access to [lo, hi) of `tensor` must
  // follow; for a write, adds to `covered` the entries inside its box (other
  // than its own box's entry).
  void query(TensorId tensor, const std::int64_t* lo, const std::int64_t* hi, std::size_t rank, bool write,
             std::vector<TaskId>& predecessors, std::vector<EntryId>& covered) {
    TensorIndex& index = tensorIndex(tensor, rank);
    ++m_stamp;
    auto visit = [&](EntryId id) {
      Entry& entry = m_entries[static_cast<std::size_t>(id)];
      if (entry.stamp == m_stamp) return;
      entry.stamp = m_stamp;
      const std::int64_t* entryLo = m_coords.data() + entry.coords;
      const std::int64_t* entryHi = entryLo + rank;
      bool inside = true, same = true;
      for (std::size_t d = 0; d < rank; ++d) {
        if (entryLo[d] >= hi[d] || lo[d] >= entryHi[d]) return;
        inside = inside && entryLo[d] >= lo[d] && entryHi[d] <= hi[d];
        same = same && entryLo[d] == lo[d] && entryHi[d] == hi[d];
      }
      if (entry.lastWriter != kNoId) predecessors.push_back(entry.lastWriter);
      if (!write) return;
      predecessors.insert(predecessors.end(), entry.readers.begin(), entry.readers.end());
      // The write's own box is updated by recordWrite rather than dropped.
      if (inside && !same) covered.push_back(id);
    };
    for (ClassId classId : index.classes) {
      const SizeClass& sizeClass = m_classes[classId];
      const std::size_t members = sizeClass.members.size();
      if (members == 0) continue;
      if (cellCount(sizeClass.levels, lo, hi, members) > members) {
        for (EntryId id : sizeClass.members) visit(id);
        continue;
      }
      forEachCell(classId, sizeClass.levels, lo, hi, [&](std::uint64_t key) {
        for (std::int32_t node = m_cells.head(key); node != CellTable::kEnd; node = m_cells.next(node))
          visit(m_cells.entry(node));
      });
    }
  }

  void recordRead(TensorId tensor, const std::int64_t* lo, const std::int64_t* hi, std::size_t rank, TaskId task) {
    Entry& entry = m_entries[static_cast<std::size_t>(entryFor(tensor, lo, hi, rank))];
    if (entry.readers.empty() || entry.readers.back() != task) entry.readers.push_back(task);
  }

  void recordWrite(TensorId tensor, const std::int64_t* lo, const std::int64_t* hi, std::size_t rank, TaskId task) {
    Entry& entry = m_entries[static_cast<std::size_t>(entryFor(tensor, lo, hi, rank))];
    entry.lastWriter = task;
    entry.readers.clear();
  }

  // Forgets an entry a write covered: whatever conflicts with its accesses
  // overlaps that write too, and the write followed them.
  void drop(EntryId id) {
    Entry& entry = m_entries[static_cast<std::size_t>(id)];
    if (!entry.live) return;
    SizeClass& sizeClass = m_classes[entry.sizeClass];
    const std::int64_t* lo = m_coords.data() + entry.coords;
    forEachCell(entry.sizeClass, sizeClass.levels, lo, lo + entry.rank,
                [&](std::uint64_t key) { m_cells.erase(key, id); });
    EntryId moved = sizeClass.members.back();
    sizeClass.members[entry.memberSlot] = moved;
    m_entries[static_cast<std::size_t>(moved)].memberSlot = entry.memberSlot;
    sizeClass.members.pop_back();
    entry.live = false;
    entry.lastWriter = kNoId;
    entry.readers.clear();
    if (m_freeByRank.size() <= entry.rank) m_freeByRank.resize(entry.rank + 1);
    m_freeByRank[entry.rank].push_back(id);
  }

  // Forgets every box of `tensor`, which nothing will touch again; its
  // size classes stay for the next storage that takes its slot.
  void release(TensorId tensor) {
    if (static_cast<std::size_t>(tensor) >= m_tensors.size()) return;
    const TensorIndex& index = m_tensors[static_cast<std::size_t>(tensor)];
    for (ClassId classId : index.classes)
      while (!m_classes[classId].members.empty()) drop(m_classes[classId].members.back());
  }

private:
  TensorIndex& tensorIndex(TensorId tensor, std::size_t rank) {
    assert(tensor >= 0);
    auto slot = static_cast<std::size_t>(tensor);
    if (slot >= m_tensors.size()) m_tensors.resize(slot + 1);
    TensorIndex& index = m_tensors[slot];
    if (!index.used) {
      index.used = true;
      index.rank = rank;
    }
    assert(index.rank == rank && "regions of one tensor must have its rank");
    return index;
  }

  // The class of boxes whose extents round up to m_levels: their own while
  // the tensor has few classes, else the tightest existing class at least
  // as coarse in every dim (so a box still spans at most two cells per dim
  // and a query visits a bounded number of classes). Boxes of one size
  // always go to the same class, so identical boxes meet in one entry.
  ClassId classFor(TensorIndex& index) {
    for (const auto& [levels, id] : index.assigned)
      if (levels == m_levels) return id;
    ClassId chosen = 0;
    bool found = false;
    if (index.classes.size() >= kClassesPerTensor) {
      int best = 0;
      for (ClassId candidate : index.classes) {
        const std::vector<int>& levels = m_classes[candidate].levels;
        int excess = 0;
        bool coarser = true;
        for (std::size_t d = 0; d < levels.size() && coarser; ++d) {
          coarser = levels[d] >= m_levels[d];
          excess += levels[d] - m_levels[d];
        }
        if (coarser && (!found || excess < best)) {
          chosen = candidate;
          best = excess;
          found = true;
        }
      }
    }
    if (!found) {
      chosen = static_cast<ClassId>(m_classes.size());
      m_classes.push_back(SizeClass{m_levels, {}});
      index.classes.push_back(chosen);
    }
    index.assigned.emplace_back(m_levels, chosen);
    return chosen;
  }

  // The entry of exactly this box, made when there is none.
  EntryId entryFor(TensorId tensor, const std::int64_t* lo, const std::int64_t* hi, std::size_t rank) {
    TensorIndex& index = tensorIndex(tensor, rank);
    m_levels.resize(rank);
    for (std::size_t d = 0; d < rank; ++d) m_levels[d] = levelOf(hi[d] - lo[d]);
    const ClassId classId = classFor(index);
    SizeClass& sizeClass = m_classes[classId];

    // An identical box is registered in the cell of its low corner.
    std::uint64_t corner = mix(0, classId);
    for (std::size_t d = 0; d < rank; ++d)
      corner = mix(corner, static_cast<std::uint64_t>(lo[d] >> sizeClass.levels[d]));
    for (std::int32_t node = m_cells.head(corner); node != CellTable::kEnd; node = m_cells.next(node)) {
      EntryId id = m_cells.entry(node);
      const std::int64_t* entryLo = m_coords.data() + m_entries[static_cast<std::size_t>(id)].coords;
      if (std::equal(lo, lo + rank, entryLo) && std::equal(hi, hi + rank, entryLo + rank)) return id;
    }

    EntryId id;
    if (rank < m_freeByRank.size() && !m_freeByRank[rank].empty()) {
      id = m_freeByRank[rank].back();
      m_freeByRank[rank].pop_back();
    } else {
      id = static_cast<EntryId>(m_entries.size());
      m_entries.emplace_back();
      m_entries.back().coords = static_cast<std::uint32_t>(m_coords.size());
      m_entries.back().rank = static_cast<std::uint32_t>(rank);
      m_coords.resize(m_coords.size() + 2 * rank);
    }
    Entry& entry = m_entries[static_cast<std::size_t>(id)];
    std::copy(lo, lo + rank, m_coords.data() + entry.coords);
    std::copy(hi, hi + rank, m_coords.data() + entry.coords + rank);
    entry.lastWriter = kNoId;
    entry.readers.clear();
    entry.sizeClass = classId;
    entry.memberSlot = static_cast<std::uint32_t>(sizeClass.members.size());
    entry.live = true;
    sizeClass.members.push_back(id);
    forEachCell(classId, sizeClass.levels, lo, hi, [&](std::uint64_t key) { m_cells.insert(key, id); });
    return id;
  }

  std::vector<TensorIndex> m_tensors;
  std::vector<SizeClass> m_classes;
  CellTable m_cells;
  std::vector<Entry> m_entries;
  std::vector<std::int64_t> m_coords;  // boxes of the entries
  std::vector<std::vector<EntryId>> m_freeByRank;
  std::vector<int> m_levels;
  std::uint64_t m_stamp = 0;
};

// Storage a region names, as the dependency index keys it: the tensor, or a
// slot of its own for each per-iteration instance of a loop-made temporary.
// An instance is dead after the last task that touches it, and its slot then
// serves a later instance of the same tensor: the index keeps the state of
// the instances alive (a loop's iterations in flight), not of every
// iteration ever made, so its memory stays small at a million tasks.
class StorageSlots {
public:
  // `storageOf(tensor)`: the tensor whose bytes a region names (an alias's
  // storage, ExecuteGraph::aliases), whose instance the region selects.
  template <typename StorageOf> StorageSlots(const ExecuteGraph& graph, StorageOf&& storageOf) {
    std::unordered_map<Instance, TaskId, InstanceHash> lastTask;
    for (const Task& task : graph.tasks)
      for (const auto* list : {&task.reads, &task.writes})
        for (const ConcreteRegion& region : *list) {
          m_next = std::max(m_next, region.tensor + 1);
          if (region.instance != 0) lastTask[{storageOf(region.tensor), region.instance}] = task.id;
        }
    // An alias's accesses are keyed by its storage, which no region may name.
    for (const ByteAlias& alias : graph.aliases) m_next = std::max(m_next, alias.storage + 1);
    m_freeSlots.resize(static_cast<std::size_t>(m_next));
    // Instances that die after each task, grouped by task (ids ascending).
    m_endingFirst.assign(graph.tasks.size() + 1, 0);
    for (const auto& [instance, task] : lastTask) ++m_endingFirst[static_cast<std::size_t>(task) + 1];
    for (std::size_t t = 0; t < graph.tasks.size(); ++t) m_endingFirst[t + 1] += m_endingFirst[t];
    m_ending.resize(lastTask.size());
    std::vector<std::size_t> fill(m_endingFirst.begin(), m_endingFirst.end() - 1);
    for (const auto& [instance, task] : lastTask) m_ending[fill[static_cast<std::size_t>(task)]++] = instance;
    m_live.reserve(64);
  }

  // The slot of `tensor`'s `instance` (0: the tensor's one storage).
  TensorId of(TensorId tensor, std::uint64_t instance) {
    if (instance == 0) return tensor;
    auto [it, inserted] = m_live.try_emplace({tensor, instance}, kNoId);
    if (inserted) {
      std::vector<TensorId>& free = m_freeSlots[static_cast<std::size_t>(tensor)];
      if (free.empty()) {
        it->second = m_next++;
      } else {
        it->second = free.back();
        free.pop_back();
      }
    }
    return it->second;
  }

  // Calls release(slot) for the slot of every instance `task` touched last;
  // the slot then goes to the next instance of its tensor.
  template <typename Release>
  void endInstancesAfter(TaskId task, Release&& release) {
    for (std::size_t i = m_endingFirst[static_cast<std::size_t>(task)]; i < m_endingFirst[static_cast<std::size_t>(task) + 1]; ++i) {
      auto found = m_live.find(m_ending[i]);
      if (found == m_live.end()) continue;  // only empty boxes named it
      release(found->second);
      m_freeSlots[static_cast<std::size_t>(m_ending[i].first)].push_back(found->second);
      m_live.erase(found);
    }
  }

private:
  using Instance = std::pair<TensorId, std::uint64_t>;
  struct InstanceHash {
    std::size_t operator()(const Instance& instance) const {
      return static_cast<std::size_t>(mix(static_cast<std::uint64_t>(instance.first), instance.second));
    }
  };

  std::unordered_map<Instance, TensorId, InstanceHash> m_live;  // instance -> its slot, while it lives
  std::vector<std::vector<TensorId>> m_freeSlots;                // by tensor
  std::vector<Instance> m_ending;                                // by task, at m_endingFirst[task]
  std::vector<std::size_t> m_endingFirst;
  TensorId m_next = 0;
};

// Appends to `coords` the box [lo, hi) of `alias.storage` that holds every
// byte of the alias region at `offsets` of `sizes` (ByteAlias::storageBox).
void appendStorageBox(const ByteAlias& alias, const std::vector<std::int64_t>& offsets,
                      const std::vector<std::int64_t>& sizes, std::vector<std::int64_t>& coords) {
  const std::size_t rank = alias.storageShape.size();
  const std::size_t at = coords.size();
  coords.resize(at + 2 * rank);
  alias.storageBox(offsets.data(), sizes.data(), coords.data() + at, coords.data() + at + rank);
}

using AliasIndex = std::unordered_map<TensorId, const ByteAlias*>;

// The non-empty boxes of a task, reads first, their corners in `coords`.
void accessesOf(const Task& task, StorageSlots& slots, const AliasIndex& aliases, std::vector<Access>& accesses,
                std::vector<std::int64_t>& coords) {
  accesses.clear();
  coords.clear();
  for (const auto* list : {&task.reads, &task.writes})
    for (const ConcreteRegion& region : *list) {
      std::size_t rank = region.shape.size();
      if (std::any_of(region.shape.begin(), region.shape.end(), [](std::int64_t size) { return size <= 0; })) continue;
      Access access;
      access.write = list == &task.writes;
      access.coords = static_cast<std::uint32_t>(coords.size());
      auto alias = aliases.find(region.tensor);
      if (alias != aliases.end() && alias->second->aliasShape.size() == rank) {
        access.tensor = slots.of(alias->second->storage, region.instance);
        rank = alias->second->storageShape.size();
        appendStorageBox(*alias->second, region.offsets, region.shape, coords);
      } else {
        access.tensor = slots.of(region.tensor, region.instance);
        coords.insert(coords.end(), region.offsets.begin(), region.offsets.end());
        for (std::size_t d = 0; d < rank; ++d) coords.push_back(region.offsets[d] + region.shape[d]);
      }
      access.rank = static_cast<std::uint32_t>(rank);
      accesses.push_back(access);
    }
}

// Drops the predecessors of a task that another of its predecessors follows:
// the path through that one orders them anyway, and every stored edge costs
// the scheduler a counter update and the trace an arrow. One search per kept
// predecessor, the latest first, walks back breadth-first (short paths are
// the common ones: a write after the reads of what an earlier write wrote)
// through the links already kept (reachability is what they keep), never
// below the earliest predecessor still in question since links point to
// earlier tasks. A search inspects at most kImpliedEdgeSearchLinks links and
// a task's searches together at most that plus kImpliedEdgeLinksPerEdge per
// predecessor, so the work stays within a constant factor of the edges the
// index found. A search cut short leaves the predecessors it did not reach:
// an edge is dropped only for a path that was seen.
class ImpliedEdgeFilter {
public:
  explicit ImpliedEdgeFilter(std::size_t tasks) : m_reachedBy(tasks, kNoId) { m_firstLink.reserve(tasks + 1); }

  // `predecessors` ascending and unique, all earlier than `task`; tasks come
  // in id order, each once.
  void removeImplied(TaskId task, std::vector<TaskId>& predecessors) {
    assert(m_firstLink.size() == static_cast<std::size_t>(task) + 1);
    std::size_t taskLinks = kImpliedEdgeSearchLinks + kImpliedEdgeLinksPerEdge * predecessors.size();
    std::size_t earliestOpen = 0;  // the earliest predecessor not yet found to be implied
    m_kept.clear();
    for (std::size_t i = predecessors.size(); i-- > 0;) {
      const TaskId start = predecessors[i];
      if (m_reachedBy[static_cast<std::size_t>(start)] == task) continue;
      m_kept.push_back(start);
      while (earliestOpen < i && m_reachedBy[static_cast<std::size_t>(predecessors[earliestOpen])] == task)
        ++earliestOpen;
      if (earliestOpen >= i || taskLinks == 0) continue;
      const TaskId floor = predecessors[earliestOpen];
      std::size_t links = std::min(taskLinks, kImpliedEdgeSearchLinks);
      taskLinks -= links;
      m_queue.assign(1, start);
      for (std::size_t next = 0; next < m_queue.size() && links > 0; ++next) {
        const auto at = static_cast<std::size_t>(m_queue[next]);
        // Links are ascending: from the latest down to the floor.
        for (std::size_t l = m_firstLink[at + 1]; l-- > m_firstLink[at] && m_links[l] >= floor && links > 0;) {
          --links;
          TaskId& reachedBy = m_reachedBy[static_cast<std::size_t>(m_links[l])];
          if (reachedBy == task) continue;
          reachedBy = task;
          m_queue.push_back(m_links[l]);
        }
      }
      taskLinks += links;  // what this search did not need
    }
    predecessors.assign(m_kept.rbegin(), m_kept.rend());
    m_links.insert(m_links.end(), predecessors.begin(), predecessors.end());
    m_firstLink.push_back(m_links.size());
  }

private:
  std::vector<TaskId> m_reachedBy;  // per task: the last task whose search reached it
  // The kept links, task after task: compact, where the tasks' own lists
  // are scattered over the heap.
  std::vector<TaskId> m_links;
  std::vector<std::size_t> m_firstLink{0};
  std::vector<TaskId> m_queue;
  std::vector<TaskId> m_kept;  // latest first
};

} // namespace

void computeTaskDependencies(ExecuteGraph& graph, ImpliedEdges implied) {
  DependencyIndex index;
  ImpliedEdgeFilter filter(implied == ImpliedEdges::Removed ? graph.tasks.size() : 0);
  AliasIndex aliases;
  auto positive = [](const std::vector<std::int64_t>& shape) {
    return std::all_of(shape.begin(), shape.end(), [](std::int64_t extent) { return extent > 0; });
  };
  for (const ByteAlias& alias : graph.aliases)
    if (positive(alias.aliasShape) && positive(alias.storageShape) && alias.aliasElementBytes > 0 &&
        alias.storageElementBytes > 0)
      aliases.emplace(alias.alias, &alias);
  StorageSlots slots(graph, [&](TensorId tensor) {
    auto alias = aliases.find(tensor);
    return alias != aliases.end() ? alias->second->storage : tensor;
  });
  std::vector<Access> accesses;
  std::vector<std::int64_t> coords;
  std::vector<EntryId> covered;
  std::vector<TaskId> predecessors;
  graph.edgeCount = 0;
  for (Task& task : graph.tasks) task.successors.clear();
  for (std::size_t t = 0; t < graph.tasks.size(); ++t) {
    Task& task = graph.tasks[t];
    assert(task.id == static_cast<TaskId>(t) && "tasks are numbered in program order");
    accessesOf(task, slots, aliases, accesses, coords);
    auto lo = [&](const Access& access) { return coords.data() + access.coords; };
    auto hi = [&](const Access& access) { return coords.data() + access.coords + access.rank; };
    // Query every access against the state before this task, then record
    // them: reads first, then the entries writes cover are dropped, then the
    // writes themselves (a write clears the readers of its own box).
    predecessors.clear();
    covered.clear();
    for (const Access& access : accesses)
      index.query(access.tensor, lo(access), hi(access), access.rank, access.write, predecessors, covered);
    for (const Access& access : accesses)
      if (!access.write) index.recordRead(access.tensor, lo(access), hi(access), access.rank, task.id);
    for (EntryId id : covered) index.drop(id);
    for (const Access& access : accesses)
      if (access.write) index.recordWrite(access.tensor, lo(access), hi(access), access.rank, task.id);
    slots.endInstancesAfter(task.id, [&](TensorId slot) { index.release(slot); });

    std::sort(predecessors.begin(), predecessors.end());
    predecessors.erase(std::unique(predecessors.begin(), predecessors.end()), predecessors.end());
    // Edges point from earlier to later tasks, so no cycle can form.
    assert(predecessors.empty() || predecessors.back() < task.id);
    if (implied == ImpliedEdges::Removed) filter.removeImplied(task.id, predecessors);
    task.predecessors.assign(predecessors.begin(), predecessors.end());
    graph.edgeCount += predecessors.size();
    for (TaskId predecessor : predecessors) graph.tasks[static_cast<std::size_t>(predecessor)].successors.push_back(task.id);
  }
}

namespace {

// Makes the tasks while the program is walked.
class TaskMaker {
public:
  TaskMaker(Compilation& compilation, DiagnosticEngine& diags)
      : m_tiles(compilation.tiles), m_graph(compilation.tiles.graph), m_blocks(compilation.blocks),
        m_tasks(compilation.tasks.tasks), m_diags(diags), m_taskLimit(limitValue(kTaskLimit)) {}

  std::size_t taskCount() const { return m_tasks.size(); }
  // Tasks from `first` on belong to root function `call` (Task::rootCall).
  void setRootCall(std::size_t first, std::int64_t call) {
    for (std::size_t t = first; t < m_tasks.size(); ++t) m_tasks[t].rootCall = call;
  }

  // Finds where each subgraph starts; false after an internal error.
  bool prepare() {
    const std::size_t opCount = m_graph.ops().size();
    const std::size_t tileCount = m_tiles.tileOps().size();
    if (m_blocks.subgraphOfTileOp.size() != tileCount)
      return internalError() << "the block graph assigns " << m_blocks.subgraphOfTileOp.size()
                             << " tile ops to subgraphs but the tile graph has " << tileCount;
    for (std::size_t t = 0; t < tileCount; ++t) {
      SubgraphId owner = m_blocks.subgraphOfTileOp[t];
      if (owner < 0 || static_cast<std::size_t>(owner) >= m_blocks.subgraphs.size())
        return internalError(m_tiles.tileOp(static_cast<TileOpId>(t)).tensorOp)
               << "tile op #" << t << " belongs to no subgraph";
    }

    std::vector<ScopeId> scopeOfOp(opCount, kNoId);
    std::vector<std::size_t> positionInScope(opCount, 0);
    for (std::size_t s = 0; s < m_blocks.scopes.size(); ++s) {
      const Scope& scope = m_blocks.scopes[s];
      if (scope.id != static_cast<ScopeId>(s)) return internalError() << "scope " << s << " has id " << scope.id;
      for (std::size_t i = 0; i < scope.ops.size(); ++i) {
        OpId op = scope.ops[i];
        if (op < 0 || static_cast<std::size_t>(op) >= opCount)
          return internalError() << "scope " << s << " lists unknown tensor op " << op;
        scopeOfOp[static_cast<std::size_t>(op)] = scope.id;
        positionInScope[static_cast<std::size_t>(op)] = i;
      }
    }

    m_startingAt.assign(opCount, {});
    for (std::size_t s = 0; s < m_blocks.subgraphs.size(); ++s) {
      const Subgraph& subgraph = m_blocks.subgraphs[s];
      if (subgraph.id != static_cast<SubgraphId>(s))
        return internalError() << "subgraph " << s << " has id " << subgraph.id;
      if (subgraph.ops.empty()) return internalError() << "subgraph " << s << " has no tile ops";
      if (subgraph.scope < 0 || static_cast<std::size_t>(subgraph.scope) >= m_blocks.scopes.size())
        return internalError() << "subgraph " << s << " lives in unknown scope " << subgraph.scope;
      OpId start = kNoId;
      for (TileOpId tile : subgraph.ops) {
        if (tile < 0 || static_cast<std::size_t>(tile) >= tileCount)
          return internalError() << "subgraph " << s << " lists unknown tile op #" << tile;
        OpId op = m_tiles.tileOp(tile).tensorOp;
        if (m_blocks.subgraphOfTileOp[static_cast<std::size_t>(tile)] != subgraph.id)
          return internalError(op) << "subgraph " << s << " lists tile op #" << tile << " of subgraph "
                                   << m_blocks.subgraphOfTileOp[static_cast<std::size_t>(tile)];
        if (scopeOfOp[static_cast<std::size_t>(op)] != subgraph.scope)
          return internalError(op) << "tile op #" << tile << " of subgraph " << s
                                   << " comes from a tensor op outside the subgraph's scope " << subgraph.scope;
        if (start == kNoId ||
            positionInScope[static_cast<std::size_t>(op)] < positionInScope[static_cast<std::size_t>(start)])
          start = op;
      }
      m_startingAt[static_cast<std::size_t>(start)].push_back(subgraph.id);
    }

    // Index symbols of the loops around each scope, outermost first.
    m_loopSymbols.assign(m_blocks.scopes.size(), {});
    for (const Scope& scope : m_blocks.scopes) {
      std::vector<std::string>& symbols = m_loopSymbols[static_cast<std::size_t>(scope.id)];
      for (LoopId loop = scope.loop; loop != kNoId; loop = m_graph.loop(loop).parent)
        symbols.push_back(m_graph.loop(loop).indexSymbol);
      std::reverse(symbols.begin(), symbols.end());
    }
    return true;
  }

  bool visitOp(OpId op, const Bindings& bindings) {
    for (SubgraphId id : m_startingAt[static_cast<std::size_t>(op)]) {
      if (static_cast<std::int64_t>(m_tasks.size()) >= m_taskLimit)
        return m_diags.error(m_graph.op(op).location)
               << "the program makes " << limitExceeded(kTaskLimit)
               << " (this op's loop is where it went over): give it bigger tile shapes, or fewer loop iterations";
      const Subgraph& subgraph = m_blocks.subgraph(id);
      Task task;
      task.id = static_cast<TaskId>(m_tasks.size());
      task.subgraph = id;
      task.programId = subgraph.programId;
      task.coreType = subgraph.coreType;
      for (const std::string& symbol : m_loopSymbols[static_cast<std::size_t>(subgraph.scope)]) {
        auto found = bindings.find(symbol);
        if (found == bindings.end())
          return internalError(op) << "loop index '" << symbol << "' is not bound where subgraph " << id << " runs";
        task.loopIndices.emplace_back(symbol, found->second);
      }
      task.reads.reserve(subgraph.copyIns.size() + subgraph.gatherSources.size());
      task.writes.reserve(subgraph.copyOuts.size() + subgraph.scatterTargets.size());
      for (const TileRegion& region : subgraph.copyIns)
        if (!evaluate(region, bindings, subgraph, task, task.reads)) return false;
      for (const TileRegion& region : subgraph.gatherSources) {
        if (!evaluate(region, bindings, subgraph, task, task.reads)) return false;
        task.reads.back().gathered = true;
      }
      for (const TileRegion& region : subgraph.copyOuts)
        if (!evaluate(region, bindings, subgraph, task, task.writes)) return false;
      // Written whole as far as dependencies go (see Subgraph::scatterTargets).
      for (const TileRegion& region : subgraph.scatterTargets) {
        if (!evaluate(region, bindings, subgraph, task, task.writes)) return false;
        task.writes.back().scattered = true;
      }
      m_tasks.push_back(std::move(task));
    }
    return true;
  }

private:
  DiagnosticBuilder internalError(OpId op = kNoId) {
    DiagnosticBuilder builder = m_diags.error(op == kNoId ? m_graph.kernelLocation : m_graph.op(op).location);
    builder << "internal error in BuildExecuteGraph: ";
    return builder;
  }

  // The tensor op of the subgraph's first tile op that reads (or writes) `tensor`: the kernel line a
  // region of a task comes from.
  OpId accessOf(const Subgraph& subgraph, TensorId tensor, bool write) const {
    for (TileOpId id : subgraph.ops) {
      const TileOp& op = m_tiles.tileOp(id);
      for (const TileRegion& region : write ? op.outputs : op.inputs)
        if (region.tensor == tensor || (m_graph.tensor(region.tensor).role == TensorRole::View &&
                                        resolveViews(m_graph, region).tensor == tensor))
          return op.tensorOp;
    }
    return m_tiles.tileOp(subgraph.ops.front()).tensorOp;
  }

  bool evaluate(const TileRegion& given, const Bindings& bindings, const Subgraph& subgraph, const Task& task,
                std::vector<ConcreteRegion>& into) {
    const OpId source = m_tiles.tileOp(subgraph.ops.front()).tensorOp;
    if (given.tensor < 0 || static_cast<std::size_t>(given.tensor) >= m_graph.tensors().size())
      return internalError(source) << "subgraph " << subgraph.id << " moves a region of unknown tensor "
                                   << given.tensor;
    // Resolved into a copy only for a view: a copy of every region of every
    // task (three allocations) otherwise.
    std::optional<TileRegion> resolved;
    if (m_graph.tensor(given.tensor).role == TensorRole::View) resolved = resolveViews(m_graph, given);
    const TileRegion& region = resolved ? *resolved : given;
    const std::size_t rank = m_graph.tensor(region.tensor).shape.size();
    if (region.offsets.size() != rank || region.shape.size() != rank)
      return internalError(source) << "a region of subgraph " << subgraph.id << " on '"
                                   << m_graph.tensor(region.tensor).name << "' has " << region.offsets.size()
                                   << " offsets and " << region.shape.size() << " sizes for a tensor of rank "
                                   << rank;
    ConcreteRegion concrete;
    concrete.tensor = region.tensor;
    concrete.shape = region.shape;
    concrete.offsets.reserve(region.offsets.size());
    for (const SymbolicScalar& offset : region.offsets) {
      if (auto constant = offset.constantValue()) {
        concrete.offsets.push_back(*constant);
        continue;
      }
      SymbolicEvaluation value = offset.evaluate(bindings);
      if (!value.ok())
        return m_diags.error(m_graph.op(source).location)
               << "cannot evaluate offset '" << offset.str() << "' of " << regionString(m_tiles, region)
               << ", which subgraph " << subgraph.id << " moves: " << value.error;
      concrete.offsets.push_back(*value.value);
    }
    // A tile of a partly valid tensor moves only its valid part (TileRegion::valid).
    for (std::size_t d = 0; d < region.valid.size() && d < rank; ++d) {
      SymbolicEvaluation value = region.valid[d].evaluate(bindings);
      if (!value.ok())
        return m_diags.error(m_graph.op(source).location)
               << "cannot evaluate the valid size '" << region.valid[d].str() << "' of " << regionString(m_tiles, region)
               << ", which subgraph " << subgraph.id << " moves: " << value.error;
      concrete.shape[d] = std::clamp<std::int64_t>(*value.value, 0, concrete.shape[d]);
    }
    // Offsets from values read at run time (a sequence length past the
    // cache, a block id past the table) can move a tile outside its tensor;
    // found here, every mode stops at the op's line before anything runs.
    const std::vector<std::int64_t>& extent = m_tiles.shapeOf(concrete.tensor);
    // A tile whose valid part is empty (the tail of a view block that reaches
    // past the tensor's end, as PyPTO's loops over view blocks make it) moves
    // nothing, wherever it would start: it is kept as an empty region at the end.
    if (std::find(concrete.shape.begin(), concrete.shape.end(), 0) != concrete.shape.end())
      for (std::size_t d = 0; d < rank; ++d)
        concrete.offsets[d] = std::clamp<std::int64_t>(concrete.offsets[d], 0, std::max<std::int64_t>(0, extent[d] - concrete.shape[d]));
    for (std::size_t d = 0; d < rank; ++d) {
      const std::int64_t offset = concrete.offsets[d], size = concrete.shape[d];
      if (offset >= 0 && size >= 0 && offset <= extent[d] - size) continue;
      const bool write = &into == &task.writes;
      DiagnosticBuilder error = m_diags.error(m_graph.op(accessOf(subgraph, concrete.tensor, write)).location);
      error << "task " << task.id << " of subgraph " << subgraph.id;
      for (std::size_t i = 0; i < task.loopIndices.size(); ++i)
        error << (i ? ", " : " (") << task.loopIndices[i].first << " = " << task.loopIndices[i].second
              << (i + 1 == task.loopIndices.size() ? ")" : "");
      error << (write ? " writes " : " reads ") << "'" << m_graph.tensor(concrete.tensor).name << "' [";
      for (std::size_t e = 0; e < rank; ++e)
        error << (e ? ", " : "") << concrete.offsets[e] << ":" << concrete.offsets[e] + concrete.shape[e];
      error << "], outside its shape [";
      for (std::size_t e = 0; e < rank; ++e) error << (e ? ", " : "") << extent[e];
      error << "] in dim " << d
            << "; the offsets come from loop indices and values the kernel reads (sequence lengths, block ids): "
               "check those inputs against the tensor's size";
      return false;
    }
    into.push_back(std::move(concrete));
    return true;
  }

  const TileGraph& m_tiles;
  const TensorGraph& m_graph;
  const BlockGraph& m_blocks;
  std::vector<Task>& m_tasks;
  DiagnosticEngine& m_diags;
  std::int64_t m_taskLimit;
  std::vector<std::vector<SubgraphId>> m_startingAt;     // by tensor op: subgraphs whose task it makes
  std::vector<std::vector<std::string>> m_loopSymbols;  // by scope
};

// Gives every iteration its own copy of the temporaries its loop body makes,
// as PyPTO gives each iteration its workspace: a temporary made in a loop is
// traced once and made anew by every iteration, so no iteration reads
// another's. Without this, iterations that reuse one buffer in global memory
// are ordered by write-after-read edges on it, and a loop whose iterations
// share no data runs one iteration at a time. A temporary keeps its one
// storage when some task touching it runs outside its loop (a value read
// after the loop: the last iteration's), since then the instances could not
// be told apart.
void privatizeLoopTemporaries(const TensorGraph& graph, ExecuteGraph& tasks) {
  const std::size_t count = graph.tensors().size();
  std::vector<std::vector<std::string>> symbols(count);  // the loop chain's index symbols, outermost last
  std::vector<char> candidate(count, 0);
  for (const TensorValue& value : graph.tensors()) {
    // A folded reshape has no storage of its own: it selects the instance of
    // the tensor whose bytes it holds (`bytesOf` below).
    if (value.role != TensorRole::Temporary || value.loop == kNoId || value.reshapeOf != kNoId) continue;
    candidate[static_cast<std::size_t>(value.id)] = 1;
    for (LoopId loop = value.loop; loop != kNoId; loop = graph.loop(loop).parent)
      symbols[static_cast<std::size_t>(value.id)].push_back(graph.loop(loop).indexSymbol);
  }
  // Whose instances a region's tensor names: its own, or its alias root's.
  auto bytesOf = [&](TensorId tensor) -> std::size_t {
    const TensorId root = graph.tensor(tensor).reshapeOf;
    return static_cast<std::size_t>(root != kNoId ? root : tensor);
  };
  auto indexOf = [](const Task& task, const std::string& symbol) -> const std::int64_t* {
    for (const auto& [name, value] : task.loopIndices)
      if (name == symbol) return &value;
    return nullptr;
  };
  for (const Task& task : tasks.tasks)
    for (const auto* list : {&task.reads, &task.writes})
      for (const ConcreteRegion& region : *list) {
        if (static_cast<std::size_t>(region.tensor) >= count) continue;
        const std::size_t t = bytesOf(region.tensor);
        if (!candidate[t]) continue;
        for (const std::string& symbol : symbols[t])
          if (!indexOf(task, symbol)) candidate[t] = 0;
      }
  for (Task& task : tasks.tasks)
    for (auto* list : {&task.reads, &task.writes})
      for (ConcreteRegion& region : *list) {
        if (static_cast<std::size_t>(region.tensor) >= count) continue;
        const std::size_t t = bytesOf(region.tensor);
        if (!candidate[t]) continue;
        // The iteration's index values, hashed; equal hashes of different
        // iterations would only share storage, and so be ordered: safe.
        std::uint64_t instance = 1469598103934665603ULL;
        for (const std::string& symbol : symbols[t])
          instance = (instance ^ static_cast<std::uint64_t>(*indexOf(task, symbol))) * 1099511628211ULL;
        region.instance = instance | 1;
      }
}

// Drops a barrier with no task after it, and sets ordersData: whether some
// task at or after it has a predecessor before it. The earliest predecessor
// of the tasks from each position on, swept from the end, answers that for
// every barrier at once.
void markBarriersThatOrderData(ExecuteGraph& graph) {
  const auto count = static_cast<TaskId>(graph.tasks.size());
  std::erase_if(graph.barriers, [&](const LoopBarrier& barrier) { return barrier.firstTask >= count; });
  std::vector<TaskId> earliestFrom(graph.tasks.size() + 1, count);
  for (TaskId t = count; t-- > 0;) {
    const Task& task = graph.tasks[static_cast<std::size_t>(t)];
    const TaskId earliest = task.predecessors.empty() ? count : task.predecessors.front();
    earliestFrom[static_cast<std::size_t>(t)] = std::min(earliest, earliestFrom[static_cast<std::size_t>(t) + 1]);
  }
  for (LoopBarrier& barrier : graph.barriers)
    barrier.ordersData = earliestFrom[static_cast<std::size_t>(barrier.firstTask)] < barrier.firstTask;
}

} // namespace

bool buildExecuteGraph(Compilation& compilation, DiagnosticEngine& diags) {
  compilation.tasks = ExecuteGraph{};
  TaskMaker maker(compilation, diags);
  if (!maker.prepare()) return false;
  ProgramVisitor visitor;
  RootCalls rootCalls;
  visitor.visitOp = [&](OpId op, const Bindings& bindings) {
    const std::size_t first = maker.taskCount();
    if (!maker.visitOp(op, bindings)) return false;
    if (maker.taskCount() > first) maker.setRootCall(first, rootCalls.current());
    return true;
  };
  std::vector<LoopBarrier>& barriers = compilation.tasks.barriers;
  visitor.enterLoop = [&](const Loop& loop, std::uint64_t iterations) {
    const auto position = static_cast<TaskId>(maker.taskCount());
    if (loop.submitBeforeLoop && position > 0 && (barriers.empty() || barriers.back().firstTask < position))
      barriers.push_back({position, loop.id, false});
    rootCalls.enterLoop(loop, iterations);
  };
  visitor.enterIteration = [&](const Loop&, std::int64_t, std::int64_t unrollFactor) {
    rootCalls.enterIteration(unrollFactor);
  };
  visitor.leaveLoop = [&](const Loop&) { rootCalls.leaveLoop(); };
  if (!walkProgram(compilation.tiles.graph, compilation.tiles.bindings, visitor, diags)) {
    compilation.tasks = ExecuteGraph{};
    return false;
  }
  privatizeLoopTemporaries(compilation.tiles.graph, compilation.tasks);
  for (const TensorValue& value : compilation.tiles.graph.tensors()) {
    if (value.reshapeOf == kNoId) continue;
    const TensorValue& storage = compilation.tiles.graph.tensor(value.reshapeOf);
    compilation.tasks.aliases.push_back(ByteAlias{value.id, storage.id, compilation.tiles.shapeOf(value.id),
                                                  compilation.tiles.shapeOf(storage.id),
                                                  static_cast<std::int64_t>(sizeOf(value.dtype)),
                                                  static_cast<std::int64_t>(sizeOf(storage.dtype))});
  }
  computeTaskDependencies(compilation.tasks);
  markBarriersThatOrderData(compilation.tasks);
  return true;
}

} // namespace pto
