// Reading JSON files that people write by hand (projects, machine
// descriptions): every problem is reported at file:line:column with the key
// path, so a file loader only states its own rules.
#pragma once

#include "core/Diagnostics.h"
#include "core/json/JsonLocator.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

// A place in the document: a JSON pointer to find its text and the dotted
// path users read in messages ("args[1].shape[0]").
struct KeyPath {
  std::string pointer;
  std::string display;
  std::string key;  // the last member name (empty for array elements and the root)

  KeyPath operator/(std::string_view member) const {
    return {JsonLocator::child(pointer, member),
            display.empty() ? std::string(member) : display + "." + std::string(member), std::string(member)};
  }
  KeyPath operator/(std::size_t index) const {
    return {JsonLocator::child(pointer, index), display + "[" + std::to_string(index) + "]", {}};
  }
  // The display path of the object holding this member ("" at the top level).
  std::string parentDisplay() const {
    return display.size() > key.size() + 1 ? display.substr(0, display.size() - key.size() - 1) : std::string();
  }
};

// Levenshtein distance, for did-you-mean suggestions.
std::size_t editDistance(std::string_view a, std::string_view b);

// " (did you mean 'entry'?)" when one of `known` is close to `word`, else "".
// Close means at most max(2, |word|/3) edits: enough for typos, not for
// unrelated words.
template <typename Words> std::string suggestion(std::string_view word, const Words& known) {
  std::string best;
  std::size_t bestDistance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (std::string_view candidate : known) {
    std::size_t distance = editDistance(word, candidate);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = std::string(candidate);
    }
  }
  return best.empty() ? std::string() : " (did you mean '" + best + "'?)";
}

// How a value looks in an error message: short JSON for scalars, a kind for
// containers ("an object", "an array", "null").
std::string describe(const nlohmann::ordered_json& value);

// Parses `text` (the contents of `file`) keeping key order. Registers the
// text with `diags` so printed diagnostics can quote it. A syntax error is
// reported at the offending token ("invalid JSON: ..."); a blank file gets
// `emptyFileMessage` at 1:1, which should say what the file must hold.
// Returns nullopt after reporting.
std::optional<nlohmann::ordered_json> parseJsonDocument(std::string_view text, const std::filesystem::path& file,
                                                        DiagnosticEngine& diags,
                                                        std::string_view emptyFileMessage = "the file is empty");

// The validation toolkit for one parsed document. Each read* method reports
// and returns nullopt/false when the value is unusable; callers keep going so
// that one load shows every problem. Errors point at the value, warnings at
// the key; both start with the key path ("args[1].dtype: ...") except at the
// top level.
class JsonReader {
public:
  using Json = nlohmann::ordered_json;

  // `text` must outlive the reader (locations are computed lazily from it).
  JsonReader(std::string_view text, std::filesystem::path file, DiagnosticEngine& diags);

  const std::filesystem::path& file() const { return m_file; }
  DiagnosticEngine& diags() const { return m_diags; }

  SourceLocation locationOf(std::size_t offset) const;
  SourceLocation valueLocation(const KeyPath& path) const;
  SourceLocation keyLocation(const KeyPath& path) const;

  DiagnosticBuilder error(const KeyPath& path);
  DiagnosticBuilder warning(const KeyPath& path);

  // The checks every file's top level starts with: duplicate keys (warned),
  // the document an object ("WHAT must hold a JSON object, got an array",
  // an error: false), its unknown keys (warned).
  bool readTopLevelObject(const Json& document, std::string_view what, std::span<const std::string_view> known);
  // "key 'name' appears more than once in its object; the last one wins".
  void warnDuplicateKeys();
  // "unknown key 'colour' is ignored (did you mean 'color'?)" for each member
  // of `object` not in `known`.
  void warnUnknownKeys(const Json& object, const KeyPath& path, std::span<const std::string_view> known);

  // The member named path.key of `object`, or nullptr.
  const Json* member(const Json& object, const KeyPath& path) const;
  // The same, reporting "missing required key 'k' in <object path>" at the
  // object when absent: the user has to add it there.
  const Json* required(const Json& object, const KeyPath& path);

  // A non-empty string.
  bool readString(const Json& value, const KeyPath& path, std::string& out);
  bool readRequiredString(const Json& object, const KeyPath& path, std::string& out);
  // An integer; 3.0 is accepted (JSON writers differ), 3.5 is not.
  std::optional<std::int64_t> readInteger(const Json& value, const KeyPath& path);
  std::optional<std::int64_t> readRequiredInteger(const Json& object, const KeyPath& path);
  std::optional<double> readNumber(const Json& value, const KeyPath& path);
  std::optional<double> readRequiredNumber(const Json& object, const KeyPath& path);
  // Reports "expected an object, got ..." and the like when `value` is not of
  // `type` (object, array, string, boolean or number).
  bool expectType(const Json& value, const KeyPath& path, Json::value_t type);

private:
  std::string_view m_text;
  std::filesystem::path m_file;
  JsonLocator m_locator;
  // Offsets where each line starts: a file with many problems (thousands of
  // unknown keys) gets each location by binary search, not by a rescan.
  std::vector<std::size_t> m_lineStarts;
  DiagnosticEngine& m_diags;
};

} // namespace pto
