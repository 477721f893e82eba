// Enums declared from an X-macro list, so that an enum, its count and its
// tables come from one list. A list `PTO_FOR_EACH_THING(X)` calls
// X(Enumerator, fields...) once per enumerator;
//   PTO_DECLARE_XMACRO_ENUM(Thing, unsigned char, PTO_FOR_EACH_THING);
// declares `enum class Thing : unsigned char` in list order and
// `kThingCount`. The .cpp file builds its table of fields from the same list
// (indexed by enumerator) and answers lookups with enumRow and findByName.
#pragma once

#include <cstddef>
#include <iterator>
#include <optional>
#include <string_view>
#include <type_traits>

#define PTO_XMACRO_ENUMERATOR(id, ...) id,
#define PTO_XMACRO_COUNT(...) +1
#define PTO_DECLARE_XMACRO_ENUM(Enum, Underlying, FOR_EACH)        \
  enum class Enum : Underlying { FOR_EACH(PTO_XMACRO_ENUMERATOR) }; \
  inline constexpr std::size_t k##Enum##Count = 0 FOR_EACH(PTO_XMACRO_COUNT)

namespace pto {

// The row of `value` in a table indexed by enumerator.
template <class Table, class Enum>
  requires std::is_enum_v<Enum>
constexpr const auto& enumRow(const Table& table, Enum value) {
  return table[static_cast<std::size_t>(value)];
}

// Whether a hand-written table indexed by enumerator lists its rows in
// enumerator order, read from each row's `member`; for a static_assert.
template <auto Member, class Table>
constexpr bool rowsFollowEnumerators(const Table& table) {
  for (std::size_t i = 0; i < std::size(table); ++i)
    if (static_cast<std::size_t>(table[i].*Member) != i) return false;
  return true;
}

// The enumerator whose row's `name` is `text`, if any.
template <class Enum, class Table>
  requires std::is_enum_v<Enum>
std::optional<Enum> findByName(const Table& table, std::string_view text) {
  for (std::size_t i = 0; i < std::size(table); ++i)
    if (table[i].name == text) return static_cast<Enum>(i);
  return std::nullopt;
}

} // namespace pto
