// The names of a small enum's values, written once as a table that both
// name() and parse read. Rows are listed in enumerator order, which the
// compiler checks, so a lookup is an index and a renumbered enum fails to
// build instead of naming the wrong value:
//
//   constexpr auto kSeverityNames = enumNames<Severity>(
//       {{Severity::Note, "note"}, {Severity::Warning, "warning"}, {Severity::Error, "error"}});
//   std::string_view name(Severity severity) { return kSeverityNames.name(severity); }
//
// Larger enums whose rows carry more than a name use XMacroEnum.h.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>

namespace pto {

template <class Enum>
struct EnumNameRow {
  Enum value;
  std::string_view name;
};

template <class Enum, std::size_t Count>
  requires std::is_enum_v<Enum>
class EnumNames {
public:
  using Row = EnumNameRow<Enum>;

  consteval explicit EnumNames(const Row (&rows)[Count]) {
    for (std::size_t i = 0; i < Count; ++i) {
      // Not a constant expression when a row is out of order: the table is rejected at compile time.
      if (static_cast<std::size_t>(rows[i].value) != i) throw "EnumNames: rows must follow the enumerators' order";
      m_rows[i] = rows[i];
    }
  }

  // The value's name; `fallback` for a value past the table (an enumerator added without a row).
  constexpr std::string_view name(Enum value, std::string_view fallback = "?") const {
    const auto index = static_cast<std::size_t>(value);
    return index < Count ? m_rows[index].name : fallback;
  }

  // The value named `text` exactly, if any.
  constexpr std::optional<Enum> parse(std::string_view text) const {
    for (const Row& row : m_rows)
      if (row.name == text) return row.value;
    return std::nullopt;
  }

private:
  std::array<Row, Count> m_rows{};
};

template <class Enum, std::size_t Count>
consteval EnumNames<Enum, Count> enumNames(const EnumNameRow<Enum> (&rows)[Count]) {
  return EnumNames<Enum, Count>(rows);
}

} // namespace pto
