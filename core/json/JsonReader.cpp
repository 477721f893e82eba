// Located parsing and validation helpers shared by the JSON file loaders.
#include "core/json/JsonReader.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <system_error>
#include <vector>

namespace pto {

namespace {

// nlohmann's message reads "[json.exception.parse_error.101] parse error at
// line 3, column 5: syntax error while parsing object - unexpected '}'";
// keep the part after the location, which we print ourselves.
// The "; last read: '...'" tail is dropped: it quotes raw bytes with escapes
// like <U+000A>, while our caret already shows the place.
std::string parseErrorMessage(const std::string& what) {
  std::string message = what;
  std::size_t at = message.find("column ");
  if (at != std::string::npos) {
    std::size_t colon = message.find(": ", at);
    if (colon != std::string::npos) message = message.substr(colon + 2);
  }
  if (std::size_t tail = message.find("; last read:"); tail != std::string::npos) message.erase(tail);
  return "invalid JSON: " + message;
}

// nlohmann reports the offset of the character after a bad token (often the
// newline behind `tru`); step back to where the token starts so the caret
// points at what the user has to fix.
std::size_t parseErrorOffset(std::string_view text, std::size_t lastRead) {
  std::size_t offset = std::min(lastRead, text.size());
  auto isBlank = [&](std::size_t i) { return i >= text.size() || std::isspace(static_cast<unsigned char>(text[i])); };
  if (!isBlank(offset)) return offset;
  while (offset > 0 && isBlank(offset)) --offset;
  while (offset > 0 && (std::isalnum(static_cast<unsigned char>(text[offset - 1])) || text[offset - 1] == '.' ||
                        text[offset - 1] == '-' || text[offset - 1] == '+'))
    --offset;
  return offset;
}

// Files people write nest a few levels; far deeper nesting is refused before
// parsing, because the locator, copies and comparisons of a document recurse
// once per level and a file of brackets would overflow the stack.
constexpr int kMaxNestingDepth = 256;

// Offset of the first '[' or '{' (outside strings) that opens a level deeper
// than kMaxNestingDepth, or npos.
std::size_t tooDeepOffset(std::string_view text) {
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxNestingDepth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string_view::npos;
}

constexpr std::string_view kNumberCharacters = "-+.eE0123456789";

// nlohmann reports a number too large for a double ("1e400") as an
// out_of_range error without a position; this finds the first such number
// outside strings so the error can point at it. npos when there is none.
std::size_t overflowingNumberOffset(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
      continue;
    }
    if (text[i] != '-' && !std::isdigit(static_cast<unsigned char>(text[i]))) continue;
    const std::size_t end = std::min(text.find_first_not_of(kNumberCharacters, i), text.size());
    const std::string_view number = text.substr(i, end - i);
    // from_chars, unlike strtod, ignores the locale (the IDE runs in the
    // user's). It also calls underflow out of range, which the parser
    // accepts (as 0): that needs a negative exponent.
    double value = 0.0;
    const auto result = std::from_chars(number.data(), number.data() + number.size(), value);
    if (result.ec == std::errc::result_out_of_range && number.find("e-") == std::string_view::npos &&
        number.find("E-") == std::string_view::npos)
      return i;
    i = end - 1;
  }
  return std::string_view::npos;
}

using ValueType = nlohmann::ordered_json::value_t;

// How "expected …" names a value of `type`; null for types no setting asks for.
const char* expectedName(ValueType type) {
  switch (type) {
  case ValueType::object: return "an object";
  case ValueType::array: return "an array";
  case ValueType::string: return "a string";
  case ValueType::boolean: return "true or false";
  case ValueType::number_integer:
  case ValueType::number_unsigned:
  case ValueType::number_float: return "a number";
  default: return nullptr;
  }
}

// A number type asks for any number: the integer checks are the readers'.
bool hasType(const nlohmann::ordered_json& value, ValueType type) {
  switch (type) {
  case ValueType::number_integer:
  case ValueType::number_unsigned:
  case ValueType::number_float: return value.is_number();
  default: return value.type() == type;
  }
}

} // namespace

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string describe(const nlohmann::ordered_json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  if (value.is_null()) return "null";
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

std::optional<nlohmann::ordered_json> parseJsonDocument(std::string_view text, const std::filesystem::path& file,
                                                        DiagnosticEngine& diags, std::string_view emptyFileMessage) {
  diags.setSourceText(file.string(), std::string(text));
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return diags.error(SourceLocation{file.string(), 1, 1}) << emptyFileMessage;
  if (const std::size_t deep = tooDeepOffset(text); deep != std::string_view::npos) {
    const LineColumn position = lineColumnAt(text, deep);
    return diags.error(SourceLocation{file.string(), position.line, position.column})
           << "invalid JSON: arrays and objects nested more than " << kMaxNestingDepth << " levels deep";
  }
  try {
    return nlohmann::ordered_json::parse(text.begin(), text.end());
  } catch (const nlohmann::ordered_json::parse_error& e) {
    // e.byte is 1-based and points at the last character read.
    std::string what = e.what();
    // At the end of input, point just behind the last thing written: that is
    // where the missing '}' or ']' belongs.
    std::size_t offset = what.find("end of input") != std::string::npos
                             ? text.find_last_not_of(" \t\r\n") + 1
                             : parseErrorOffset(text, e.byte > 0 ? e.byte - 1 : 0);
    LineColumn position = lineColumnAt(text, offset);
    return diags.error(SourceLocation{file.string(), position.line, position.column}) << parseErrorMessage(what);
  } catch (const nlohmann::ordered_json::out_of_range&) {
    // The only out_of_range the parser throws: a number beyond double's range.
    const std::size_t offset = overflowingNumberOffset(text);
    const LineColumn position = lineColumnAt(text, offset == std::string_view::npos ? 0 : offset);
    DiagnosticBuilder error = diags.error(SourceLocation{file.string(), position.line, position.column});
    error << "invalid JSON: number out of range";
    if (offset != std::string_view::npos) {
      const std::size_t end = std::min(text.find_first_not_of(kNumberCharacters, offset), text.size());
      error << " (" << text.substr(offset, end - offset) << " is beyond the largest double, about 1.8e308)";
    }
    return error;
  }
}

JsonReader::JsonReader(std::string_view text, std::filesystem::path file, DiagnosticEngine& diags)
    : m_text(text), m_file(std::move(file)), m_locator(text), m_lineStarts{0}, m_diags(diags) {
  for (std::size_t i = 0; i < m_text.size(); ++i)
    if (m_text[i] == '\n') m_lineStarts.push_back(i + 1);
}

SourceLocation JsonReader::locationOf(std::size_t offset) const {
  // As lineColumnAt() counts: the line holding `offset`, 1-based.
  offset = std::min(offset, m_text.size());
  const auto after = std::upper_bound(m_lineStarts.begin(), m_lineStarts.end(), offset);
  const auto line = static_cast<int>(after - m_lineStarts.begin());
  const auto column = static_cast<int>(offset - *(after - 1)) + 1;
  return SourceLocation{m_file.string(), line, column};
}

SourceLocation JsonReader::valueLocation(const KeyPath& path) const {
  return locationOf(m_locator.valueOffset(path.pointer));
}

SourceLocation JsonReader::keyLocation(const KeyPath& path) const {
  return locationOf(m_locator.keyOffset(path.pointer));
}

DiagnosticBuilder JsonReader::error(const KeyPath& path) {
  DiagnosticBuilder builder = m_diags.error(valueLocation(path));
  if (!path.display.empty()) builder << path.display << ": ";
  return builder;
}

DiagnosticBuilder JsonReader::warning(const KeyPath& path) {
  DiagnosticBuilder builder = m_diags.warning(keyLocation(path));
  if (!path.display.empty()) builder << path.display << ": ";
  return builder;
}

bool JsonReader::readTopLevelObject(const Json& document, std::string_view what,
                                    std::span<const std::string_view> known) {
  warnDuplicateKeys();
  const KeyPath root;
  if (!document.is_object()) {
    error(root) << what << " must hold a JSON object, got " << describe(document);
    return false;
  }
  warnUnknownKeys(document, root, known);
  return true;
}

void JsonReader::warnDuplicateKeys() {
  for (const auto& duplicate : m_locator.duplicateKeys())
    m_diags.warning(locationOf(duplicate.keyOffset))
        << "key '" << duplicate.pointer.substr(duplicate.pointer.rfind('/') + 1)
        << "' appears more than once in its object; the last one wins";
}

void JsonReader::warnUnknownKeys(const Json& object, const KeyPath& path, std::span<const std::string_view> known) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    // At the top level the key alone is the path; repeating it ("colour:
    // unknown key 'colour'") would only add noise.
    DiagnosticBuilder builder = path.display.empty() ? m_diags.warning(keyLocation(path / key)) : warning(path / key);
    builder << "unknown key '" << key << "' is ignored" << suggestion(key, known);
  }
}

const JsonReader::Json* JsonReader::member(const Json& object, const KeyPath& path) const {
  auto found = object.find(path.key);
  return found == object.end() ? nullptr : &*found;
}

const JsonReader::Json* JsonReader::required(const Json& object, const KeyPath& path) {
  const Json* value = member(object, path);
  if (!value) {
    m_diags.error(locationOf(m_locator.valueOffset(path.pointer.substr(0, path.pointer.rfind('/')))))
        << "missing required key '" << path.key << "'"
        << (path.parentDisplay().empty() ? std::string() : " in " + path.parentDisplay());
  }
  return value;
}

bool JsonReader::readString(const Json& value, const KeyPath& path, std::string& out) {
  if (!value.is_string()) return error(path) << "expected a string, got " << describe(value);
  out = value.get<std::string>();
  if (out.empty()) return error(path) << "must not be empty";
  return true;
}

bool JsonReader::readRequiredString(const Json& object, const KeyPath& path, std::string& out) {
  const Json* value = required(object, path);
  return value && readString(*value, path, out);
}

std::optional<std::int64_t> JsonReader::readInteger(const Json& value, const KeyPath& path) {
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number_float()) {
    double number = value.get<double>();
    // Below 2^53 every integer-valued double is exact.
    if (std::isfinite(number) && std::floor(number) == number && std::abs(number) < 9.0e15)
      return static_cast<std::int64_t>(number);
  }
  return error(path) << "expected an integer, got " << describe(value);
}

std::optional<std::int64_t> JsonReader::readRequiredInteger(const Json& object, const KeyPath& path) {
  const Json* value = required(object, path);
  if (!value) return std::nullopt;
  return readInteger(*value, path);
}

std::optional<double> JsonReader::readNumber(const Json& value, const KeyPath& path) {
  if (!value.is_number()) return error(path) << "expected a number, got " << describe(value);
  return value.get<double>();
}

std::optional<double> JsonReader::readRequiredNumber(const Json& object, const KeyPath& path) {
  const Json* value = required(object, path);
  if (!value) return std::nullopt;
  return readNumber(*value, path);
}

bool JsonReader::expectType(const Json& value, const KeyPath& path, Json::value_t type) {
  const char* expected = expectedName(type);
  if (!expected || hasType(value, type)) return true;
  return error(path) << "expected " << expected << ", got " << describe(value);
}

} // namespace pto
