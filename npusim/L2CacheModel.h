// The chip's L2 cache as a set of lines of global memory (evicting the least
// recently used or a random line), addressed by tensor and byte offset,
// deciding which reads hit.
//
// Granularity: a region (a box of elements of one storage tensor) touches the
// lines its rows fall in, with the tensor laid out row-major and dense as
// given by GmTensorLayout. A read hits on the fraction of its lines already
// present; reads and writes both bring their lines in (write-allocate), so a
// task that reads what another just wrote hits. Tensors without a layout
// (synthetic graphs that give none) are never cached: every read misses.
#pragma once

#include "compiler/ir/ExecuteGraph.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

namespace pto {

// How a storage tensor lies in global memory: row-major, dense.
struct GmTensorLayout {
  std::vector<std::int64_t> shape;  // elements, outermost first; empty: unknown
  std::int64_t elementBytes = 0;
  // The tensor whose bytes these are (a folded reshape's source,
  // TensorValue::reshapeOf), so that both names share lines; -1: its own.
  TensorId bytesOf = kNoId;
};

// Which line a miss evicts when the cache is full. Lru: the least recently
// used. Random: a pseudo-random line (seeded, so runs repeat), the usual
// stand-in for a hashed set-associative cache with pseudo-LRU: data reused
// after more than a cache's worth of other lines partly survives (about
// exp(-lines in between / capacity)) instead of LRU's all-or-nothing cliff,
// so a sweep slightly larger than the cache still hits in part.
enum class L2Replacement { Lru, Random };

class L2CacheModel {
public:
  // Copyable: the timing simulator's const look-ahead touches its own copy.
  L2CacheModel() = default;
  // `capacityBytes` / `lineBytes` lines; no lines (a zero size) caches nothing.
  L2CacheModel(std::int64_t capacityBytes, std::int64_t lineBytes, std::vector<GmTensorLayout> layouts,
               L2Replacement replacement = L2Replacement::Lru);

  // Touches the lines of `region` (most recently used, evicting the least
  // recently used beyond capacity) and returns the fraction of them that were
  // present before, in [0, 1]; 0 for an empty or unknown region.
  double access(const ConcreteRegion& region);
  // The same touch, also saying how many bytes of whole lines missed: what
  // a load of `region` must fetch from HBM, which exceeds the region's own
  // bytes when its rows are narrower than a line. -1 when the region's
  // lines are unknown (no layout): the caller assumes all of it misses.
  struct Lines {
    double hitFraction = 0.0;
    std::int64_t missedBytes = -1;
  };
  Lines accessLines(const ConcreteRegion& region);
  void clear();

  std::int64_t hits() const { return m_hits; }
  std::int64_t misses() const { return m_misses; }

private:
  // The lines [first, last] of one row of a region (or of rows back to back).
  struct LineRun {
    std::int64_t first = 0;
    std::int64_t last = 0;
  };
  // Calls visit(first, last) for each run of distinct lines of `region`,
  // ascending: its rows' lines, less those an earlier row already had.
  template <typename Visit> void forEachRun(const ConcreteRegion& region, Visit&& visit) const;

  // The node holding `key` according to its entry in m_direct, or -1. The
  // entry may be stale: the line was evicted when its node holds another key.
  std::int32_t directNode(std::uint64_t key, const std::int32_t* entry) const {
    const std::int32_t node = *entry - 1;
    return node >= 0 && m_nodeKeys[static_cast<std::size_t>(node)] == key ? node : -1;
  }
  // Touches one line; true when it was present. `direct`: the line's entry
  // in m_direct, or null when the line is found through the hash table.
  bool touch(std::uint64_t key, std::int32_t* direct);
  std::int32_t* directEntry(std::uint64_t key);  // null: the key is hashed
  void forget(std::uint64_t key);                // takes an evicted line's key out of the hash table
  std::size_t home(std::uint64_t key) const;      // a key's preferred slot
  std::size_t findSlot(std::uint64_t key) const;  // its slot, or the empty slot where it would go
  void grow();
  void removeFromTable(std::uint64_t key);
  void unlink(std::int32_t node);
  void pushFront(std::int32_t node);

  std::int64_t m_lineBytes = 0;
  int m_lineShift = -1;  // log2(m_lineBytes) when it is a power of two: lines by shifting, not dividing
  std::size_t m_capacityLines = 0;
  std::size_t m_lineBound = 0;  // the most lines that can be present: the capacity or every tensor's lines
  std::vector<GmTensorLayout> m_layouts;  // by tensor id
  // Lines present: nodes found through m_direct (a node index per line of
  // the tensors it covers: one read, and a tile's consecutive lines are
  // neighbours) or, for lines of tensors too large for it and lines outside
  // their tensor's layout, an open-addressing table that holds each key
  // beside its node, so a probe reads one array (a lookup is the
  // simulator's most frequent memory access: one per line a task touches).
  // Which index finds a line changes nothing the model decides: hits,
  // victims and their order depend on the nodes alone.
  // Under Lru the nodes also form a doubly linked recency list (most recent
  // at m_head); Random needs no recency, so it keeps no list.
  // A node's key lives apart from its recency links: Random evicts a random
  // node, one memory access far from the last, and reads only its key, so
  // the keys are kept dense (8 bytes a line) and Random keeps no links.
  struct Link {
    std::int32_t prev = -1;
    std::int32_t next = -1;
  };
  struct Slot {
    std::uint64_t key = kEmptyKey;
    std::int32_t node = -1;
  };
  // No line's key: a key's top bits hold a tensor id, far below 2^20.
  static constexpr std::uint64_t kEmptyKey = ~std::uint64_t{0};
  std::vector<std::uint64_t> m_nodeKeys;  // by node
  std::vector<Link> m_links;              // by node; Lru only
  // Node + 1 per line (0: never present), made at the first touch. calloc'd:
  // the pages of lines never touched are never written (a large tensor read
  // in a few places costs its touched pages, not a memset of all its lines).
  // An evicted line's entry is left as it was: the line is present only
  // while the node it names still holds its key (a key is in one node at
  // most). Clearing it cost a cache miss per eviction, a random line of an
  // array as large as the tensors (most of a million-task run's L2 time).
  class ZeroedEntries {
  public:
    ZeroedEntries() = default;
    ZeroedEntries(const ZeroedEntries& other) { *this = other; }
    ZeroedEntries& operator=(const ZeroedEntries& other);
    ZeroedEntries(ZeroedEntries&&) noexcept = default;
    ZeroedEntries& operator=(ZeroedEntries&&) noexcept = default;
    void allocate(std::size_t count);  // `count` zeroed entries
    void reset() { m_entries.reset(); m_count = 0; }
    std::int32_t* get() const { return m_entries.get(); }
    explicit operator bool() const { return m_entries != nullptr; }

  private:
    struct FreeMemory {
      void operator()(std::int32_t* memory) const { std::free(memory); }
    };
    std::unique_ptr<std::int32_t[], FreeMemory> m_entries;
    std::size_t m_count = 0;
  };
  ZeroedEntries m_direct;
  std::size_t m_directSize = 0;        // its size once made
  // By byte-owning tensor id: its first entry in m_direct (kNotDirect: hashed) and how many lines it has there.
  static constexpr std::uint64_t kNotDirect = ~std::uint64_t{0};
  std::vector<std::uint64_t> m_directBase;
  std::vector<std::uint64_t> m_directLines;
  std::vector<Slot> m_table;  // size a power of two, at most half full
  std::size_t m_hashed = 0;   // keys in m_table
  std::size_t m_hashLineBound = 0;  // the most lines the table may have to hold
  int m_shift = 64;           // 64 - log2(table size)
  std::int32_t m_head = -1;
  std::int32_t m_tail = -1;
  std::int64_t m_hits = 0;
  std::int64_t m_misses = 0;
  L2Replacement m_replacement = L2Replacement::Lru;
  std::uint64_t m_random = 0;  // xorshift state for Random: the last victim drawn
  // Random's next victims (node indices), drawn ahead at the first eviction
  // and used in the order drawn (a ring from m_nextVictim): each victim's key
  // is fetched that many evictions before it is needed.
  static constexpr std::size_t kVictimsAhead = 8;
  std::uint64_t m_victims[kVictimsAhead] = {};
  std::size_t m_nextVictim = 0;
  bool m_victimsDrawn = false;
};

} // namespace pto
