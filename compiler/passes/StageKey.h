// A 128-bit fingerprint of what a compile stage's result depends on
// (PassResultCache.h), built from text and numbers in order.
#pragma once

#include <compare>
#include <cstdint>
#include <string_view>

namespace pto {

// 128 bits: two independent 64-bit hashes.
struct StageKey {
  std::uint64_t high = 0;
  std::uint64_t low = 0;
  friend auto operator<=>(const StageKey&, const StageKey&) = default;
};

// Builds a StageKey from text and other keys, in order.
class StageKeyBuilder {
public:
  StageKeyBuilder();
  explicit StageKeyBuilder(const StageKey& start);
  StageKeyBuilder& add(std::string_view text);
  StageKeyBuilder& add(std::int64_t value);
  StageKeyBuilder& add(const StageKey& key);
  StageKey key() const { return m_key; }

private:
  StageKey m_key;
};

} // namespace pto
