// Dense ids of keys: 0, 1, ... in order of first sight, found again by open
// addressing over the keys, which are kept in one array by id.
//
// Who uses it: the partitioner numbers the distinct regions a scope reads
// (half a million at 512k tile ops), the buffer planner its buffers by key
// (in each of thousands of fit-check plans a compile). Both had a hash map
// first, with a heap node per key (a block of 160-200 bytes, a pointer to
// chase per lookup), which was most of what the numbering cost.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace pto {

// Where a key's probe starts (taken under the table's mask, so the low bits
// matter) and a tag compared before the keys themselves, which skips most
// unequal keys without reading them.
struct DenseIdPlace {
  std::uint64_t start = 0;
  std::uint32_t tag = 0;
};

// `Traits` says where a key goes and when two are one:
//   static DenseIdPlace place(const Key&);
//   static bool same(const Key&, const Key&);
// Equal keys must have equal places. A place need not be random: the
// partitioner puts neighbouring tiles in neighbouring slots (Regions.cpp).
template <typename Key, typename Traits>
class DenseIds {
public:
  static constexpr std::uint32_t kAbsent = ~std::uint32_t{0};

  std::size_t size() const { return m_keys.size(); }
  const Key& key(std::uint32_t id) const { return m_keys[id]; }

  // Forgets every key; keeps the room.
  void clear() {
    m_keys.clear();
    std::fill(m_slots.begin(), m_slots.end(), Slot{});
  }
  // Room for `keys` keys without growing.
  void reserve(std::size_t keys) {
    m_keys.reserve(keys);
    std::size_t slots = kFewestSlots;
    while (slots < 2 * keys) slots *= 2;
    if (slots > m_slots.size()) rehash(slots);
  }

  // The id of `key`, whose place is `place`; kAbsent if it has none.
  std::uint32_t find(const Key& key, DenseIdPlace place) const {
    if (m_slots.empty()) return kAbsent;
    const std::size_t mask = m_slots.size() - 1;
    for (std::size_t i = place.start & mask;; i = (i + 1) & mask) {
      const Slot& slot = m_slots[i];
      if (slot.id == kAbsent) return kAbsent;
      if (slot.tag == place.tag && Traits::same(m_keys[slot.id], key)) return slot.id;
    }
  }
  std::uint32_t find(const Key& key) const { return find(key, Traits::place(key)); }

  // The id of `key`, after giving it the next one if it had none; and
  // whether it is new. One probe either way.
  std::pair<std::uint32_t, bool> intern(const Key& key) {
    makeRoomForOneMore();
    const DenseIdPlace place = Traits::place(key);
    const std::size_t mask = m_slots.size() - 1;
    for (std::size_t i = place.start & mask;; i = (i + 1) & mask) {
      Slot& slot = m_slots[i];
      if (slot.id == kAbsent) {
        slot = Slot{place.tag, static_cast<std::uint32_t>(m_keys.size())};
        m_keys.push_back(key);
        return {slot.id, true};
      }
      if (slot.tag == place.tag && Traits::same(m_keys[slot.id], key)) return {slot.id, false};
    }
  }

  // Gives `key`, which has no id (find() said so, for this `place`), the
  // next one: for a caller that builds a new key only when it is missing.
  std::uint32_t add(Key key, DenseIdPlace place) {
    assert(find(key, place) == kAbsent);
    makeRoomForOneMore();
    const auto id = static_cast<std::uint32_t>(m_keys.size());
    settle(place, id);
    m_keys.push_back(std::move(key));
    return id;
  }

private:
  static constexpr std::size_t kFewestSlots = 16;
  struct Slot {
    std::uint32_t tag = 0;
    std::uint32_t id = kAbsent;  // kAbsent: empty
  };

  // At most half full, so that a probe always meets an empty slot soon.
  void makeRoomForOneMore() {
    if (2 * (m_keys.size() + 1) > m_slots.size()) rehash(std::max(kFewestSlots, 2 * m_slots.size()));
  }
  void settle(DenseIdPlace place, std::uint32_t id) {
    const std::size_t mask = m_slots.size() - 1;
    std::size_t i = place.start & mask;
    while (m_slots[i].id != kAbsent) i = (i + 1) & mask;
    m_slots[i] = Slot{place.tag, id};
  }
  // Every key placed again, in id order (a key's place is worked out anew
  // rather than kept: slots stay 8 bytes).
  void rehash(std::size_t slots) {
    m_slots.assign(slots, Slot{});
    for (std::size_t id = 0; id < m_keys.size(); ++id) settle(Traits::place(m_keys[id]), static_cast<std::uint32_t>(id));
  }

  std::vector<Key> m_keys;    // by id
  std::vector<Slot> m_slots;  // a power of two long
};

} // namespace pto
