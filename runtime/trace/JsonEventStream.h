// JsonEventStream: a pull tokenizer over a std::istream that reads a JSON
// document one value at a time through a fixed-size buffer, so a trace of
// any size is read with memory proportional to one event, never a DOM.
#pragma once

#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pto::trace {

// Thrown on malformed JSON; `offset` is the byte offset of the problem and
// line/column are 1-based (column counts bytes).
struct JsonStreamError : std::runtime_error {
  JsonStreamError(std::uint64_t byteOffset, int lineNumber, int columnNumber, const std::string& what)
      : std::runtime_error(what), offset(byteOffset), line(lineNumber), column(columnNumber) {}
  std::uint64_t offset;
  int line;
  int column;
};

// One value of an event: strings are decoded, numbers keep their literal
// text, objects and arrays are kept as compact JSON text.
struct JsonValue {
  enum class Kind { String, Number, Bool, Null, Object, Array };
  Kind kind = Kind::Null;
  std::string text;
};
std::string_view name(JsonValue::Kind kind);

struct JsonMember {
  std::string key;
  JsonValue value;
  std::uint64_t offset = 0;  // where the value starts
};

class JsonEventStream {
public:
  explicit JsonEventStream(std::istream& in, std::size_t bufferBytes = 64 * 1024);

  // -1 at end of input.
  int peek() {
    if (m_pos == m_end && !refill()) return -1;
    return static_cast<unsigned char>(m_buffer[m_pos]);
  }
  int get();
  void skipWhitespace();
  // Skips whitespace, then consumes `c` or fails with "expected <what>".
  void expect(char c, std::string_view what);
  // Skips whitespace; consumes `c` and returns true if it is next.
  bool accept(char c);
  bool atEnd() {
    skipWhitespace();
    return peek() < 0;
  }

  void readString(std::string& out);
  // Any value; composite values become compact JSON text.
  void readValue(JsonValue& out);
  // Any value, keeping nothing (for large members a reader ignores).
  void skipValue();
  // The members of an object, each value read with readValue(); `out` keeps
  // its capacity between calls so a stream of events reuses its buffers.
  void readObject(std::vector<JsonMember>& out, std::size_t& count);

  std::uint64_t offset() const { return m_bufferOffset + m_pos; }
  int line() const { return m_line; }
  int column() const { return static_cast<int>(offset() - m_lineStart) + 1; }
  std::size_t bufferBytes() const { return m_buffer.size(); }

  [[noreturn]] void fail(const std::string& message) const { failAt(offset(), message); }
  [[noreturn]] void failAt(std::uint64_t at, const std::string& message) const;
  // "end of file", "'x'" or "byte 0x07": how the next input looks in a message.
  std::string describeNext();

private:
  bool refill();
  void readNumber(std::string& out);
  void readLiteral(std::string_view word, JsonValue::Kind kind, JsonValue& out);
  void readComposite(std::string* out, int depth);
  void readStringInto(std::string* out);
  unsigned readHex4();

  std::istream& m_in;
  std::vector<char> m_buffer;
  std::size_t m_pos = 0;
  std::size_t m_end = 0;
  std::uint64_t m_bufferOffset = 0;
  int m_line = 1;
  std::uint64_t m_lineStart = 0;
};

} // namespace pto::trace
