// Streaming JSON tokenizer for trace files.
#include "runtime/trace/JsonEventStream.h"

#include <cstdio>

namespace pto::trace {

namespace {
// Deeper nesting than this inside one event is rejected instead of
// recursing until the stack overflows.
constexpr int kMaxDepth = 256;

// Appends `text` as a JSON string literal, escaping what JSON requires.
void appendQuoted(std::string& out, std::string_view text) {
  out.push_back('"');
  for (char ch : text) {
    auto u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out.push_back('\\');
      out.push_back(ch);
    } else if (u < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", u);
      out += escaped;
    } else {
      out.push_back(ch);
    }
  }
  out.push_back('"');
}
} // namespace

std::string_view name(JsonValue::Kind kind) {
  switch (kind) {
  case JsonValue::Kind::String: return "a string";
  case JsonValue::Kind::Number: return "a number";
  case JsonValue::Kind::Bool: return "a boolean";
  case JsonValue::Kind::Null: return "null";
  case JsonValue::Kind::Object: return "an object";
  case JsonValue::Kind::Array: return "an array";
  }
  return "a value";
}

JsonEventStream::JsonEventStream(std::istream& in, std::size_t bufferBytes) : m_in(in), m_buffer(bufferBytes) {}

bool JsonEventStream::refill() {
  m_bufferOffset += m_end;
  m_pos = 0;
  m_end = 0;
  if (!m_in) return false;
  m_in.read(m_buffer.data(), static_cast<std::streamsize>(m_buffer.size()));
  m_end = static_cast<std::size_t>(m_in.gcount());
  return m_end > 0;
}

int JsonEventStream::get() {
  int c = peek();
  if (c < 0) return c;
  ++m_pos;
  if (c == '\n') {
    ++m_line;
    m_lineStart = offset();
  }
  return c;
}

void JsonEventStream::skipWhitespace() {
  for (;;) {
    int c = peek();
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
    get();
  }
}

std::string JsonEventStream::describeNext() {
  int c = peek();
  if (c < 0) return "end of file";
  if (c >= 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
  char text[16];
  std::snprintf(text, sizeof text, "byte 0x%02x", static_cast<unsigned>(c));
  return text;
}

void JsonEventStream::failAt(std::uint64_t at, const std::string& message) const {
  // Column is exact only for offsets on the current line; other callers
  // report offsets of values that started on it.
  int column = at >= m_lineStart ? static_cast<int>(at - m_lineStart) + 1 : 0;
  throw JsonStreamError(at, at >= m_lineStart ? m_line : 0, column, message);
}

void JsonEventStream::expect(char c, std::string_view what) {
  skipWhitespace();
  if (peek() != static_cast<unsigned char>(c)) fail("expected " + std::string(what) + ", got " + describeNext());
  get();
}

bool JsonEventStream::accept(char c) {
  skipWhitespace();
  if (peek() != static_cast<unsigned char>(c)) return false;
  get();
  return true;
}

unsigned JsonEventStream::readHex4() {
  unsigned value = 0;
  for (int i = 0; i < 4; ++i) {
    int c = peek();
    unsigned digit;
    if (c >= '0' && c <= '9') digit = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f') digit = static_cast<unsigned>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') digit = static_cast<unsigned>(c - 'A' + 10);
    else fail("expected a hex digit in \\u escape, got " + describeNext());
    get();
    value = value * 16 + digit;
  }
  return value;
}

void JsonEventStream::readString(std::string& out) {
  out.clear();
  skipWhitespace();
  if (peek() != '"') fail("expected a string, got " + describeNext());
  readStringInto(&out);
}

// Reads a string starting at its opening quote; appends the decoded text to
// *out (or drops it when out is null).
void JsonEventStream::readStringInto(std::string* out) {
  get();  // the opening quote
  for (;;) {
    int c = peek();
    if (c < 0) fail("unterminated string: expected '\"', got end of file");
    if (c < 0x20) fail("control character in string: got " + describeNext());
    get();
    if (c == '"') return;
    if (c != '\\') {
      if (out) out->push_back(static_cast<char>(c));
      continue;
    }
    int escape = peek();
    if (escape < 0) fail("unterminated string: expected an escape, got end of file");
    get();
    char plain = 0;
    switch (escape) {
    case '"': plain = '"'; break;
    case '\\': plain = '\\'; break;
    case '/': plain = '/'; break;
    case 'b': plain = '\b'; break;
    case 'f': plain = '\f'; break;
    case 'n': plain = '\n'; break;
    case 'r': plain = '\r'; break;
    case 't': plain = '\t'; break;
    case 'u': {
      unsigned code = readHex4();
      if (code >= 0xD800 && code < 0xDC00 && peek() == '\\') {
        get();
        if (peek() != 'u') fail("expected a low surrogate \\u escape, got " + describeNext());
        get();
        unsigned low = readHex4();
        if (low < 0xDC00 || low >= 0xE000) fail("invalid low surrogate in \\u escape");
        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
      }
      if (out) {
        auto put = [&](unsigned byte) { out->push_back(static_cast<char>(byte)); };
        if (code < 0x80) put(code);
        else if (code < 0x800) { put(0xC0 | (code >> 6)); put(0x80 | (code & 0x3F)); }
        else if (code < 0x10000) { put(0xE0 | (code >> 12)); put(0x80 | ((code >> 6) & 0x3F)); put(0x80 | (code & 0x3F)); }
        else { put(0xF0 | (code >> 18)); put(0x80 | ((code >> 12) & 0x3F)); put(0x80 | ((code >> 6) & 0x3F)); put(0x80 | (code & 0x3F)); }
      }
      continue;
    }
    default:
      m_pos -= 1;  // point at the bad escape character
      fail("invalid escape in string: got " + describeNext());
    }
    if (out) out->push_back(plain);
  }
}

void JsonEventStream::readNumber(std::string& out) {
  out.clear();
  auto digits = [&](const char* what) {
    if (peek() < '0' || peek() > '9') fail(std::string("expected ") + what + " in number, got " + describeNext());
    while (peek() >= '0' && peek() <= '9') out.push_back(static_cast<char>(get()));
  };
  if (peek() == '-') out.push_back(static_cast<char>(get()));
  if (peek() == '0') out.push_back(static_cast<char>(get()));
  else digits("a digit");
  if (peek() == '.') {
    out.push_back(static_cast<char>(get()));
    digits("a digit after '.'");
  }
  if (peek() == 'e' || peek() == 'E') {
    out.push_back(static_cast<char>(get()));
    if (peek() == '+' || peek() == '-') out.push_back(static_cast<char>(get()));
    digits("an exponent digit");
  }
}

void JsonEventStream::readLiteral(std::string_view word, JsonValue::Kind kind, JsonValue& out) {
  for (char expected : word) {
    if (peek() != static_cast<unsigned char>(expected)) fail("expected '" + std::string(word) + "', got " + describeNext());
    get();
  }
  out.kind = kind;
  out.text.assign(word);
}

void JsonEventStream::readValue(JsonValue& out) {
  skipWhitespace();
  int c = peek();
  switch (c) {
  case '"': out.kind = JsonValue::Kind::String; out.text.clear(); readStringInto(&out.text); return;
  case '{': out.kind = JsonValue::Kind::Object; out.text.clear(); readComposite(&out.text, 0); return;
  case '[': out.kind = JsonValue::Kind::Array; out.text.clear(); readComposite(&out.text, 0); return;
  case 't': readLiteral("true", JsonValue::Kind::Bool, out); return;
  case 'f': readLiteral("false", JsonValue::Kind::Bool, out); return;
  case 'n': readLiteral("null", JsonValue::Kind::Null, out); return;
  default:
    if (c == '-' || (c >= '0' && c <= '9')) {
      out.kind = JsonValue::Kind::Number;
      readNumber(out.text);
      return;
    }
    fail("expected a value, got " + describeNext());
  }
}

void JsonEventStream::skipValue() {
  skipWhitespace();
  int c = peek();
  if (c == '{' || c == '[') readComposite(nullptr, 0);
  else if (c == '"') readStringInto(nullptr);
  else {
    JsonValue scratch;
    readValue(scratch);
  }
}

// Reads an object or array starting at its bracket, appending compact JSON
// text to *out unless out is null.
void JsonEventStream::readComposite(std::string* out, int depth) {
  if (depth >= kMaxDepth) fail("JSON nested deeper than " + std::to_string(kMaxDepth) + " levels");
  bool isObject = get() == '{';
  const char close = isObject ? '}' : ']';
  if (out) out->push_back(isObject ? '{' : '[');
  if (accept(close)) {
    if (out) out->push_back(close);
    return;
  }
  JsonValue scalar;
  for (;;) {
    skipWhitespace();
    if (isObject) {
      if (peek() != '"') fail("expected a member name, got " + describeNext());
      std::string key;
      readStringInto(&key);
      if (out) {
        appendQuoted(*out, key);
        out->push_back(':');
      }
      expect(':', "':' after member name");
      skipWhitespace();
    }
    int c = peek();
    if (c == '{' || c == '[') {
      readComposite(out, depth + 1);
    } else if (c == '"') {
      std::string text;
      readStringInto(out ? &text : nullptr);
      if (out) appendQuoted(*out, text);
    } else {
      readValue(scalar);
      if (out) *out += scalar.text;
    }
    if (accept(close)) {
      if (out) out->push_back(close);
      return;
    }
    expect(',', isObject ? "',' or '}' in object" : "',' or ']' in array");
    if (out) out->push_back(',');
  }
}

void JsonEventStream::readObject(std::vector<JsonMember>& out, std::size_t& count) {
  count = 0;
  expect('{', "'{'");
  if (accept('}')) return;
  for (;;) {
    if (count == out.size()) out.emplace_back();
    JsonMember& member = out[count];
    readString(member.key);
    expect(':', "':' after member name");
    skipWhitespace();
    member.offset = offset();
    readValue(member.value);
    ++count;
    if (accept('}')) return;
    expect(',', "',' or '}' in object");
  }
}

} // namespace pto::trace
