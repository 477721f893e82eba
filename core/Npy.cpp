// .npy parsing (preamble, header dict literal, descr) and writing.
#include "core/Npy.h"

#include "core/AtomicFile.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <system_error>
#include <variant>
#include <vector>

namespace pto {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr std::size_t kMagicAndVersionBytes = 8;
constexpr std::size_t kArrayAlignBytes = 64;  // numpy's ARRAY_ALIGN
// Literals nest only a couple of levels in real headers; the bound keeps a
// hostile "((((..." from exhausting the stack.
constexpr int kMaxHeaderNesting = 16;

std::string hexBytes(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (unsigned char c : bytes) {
    if (!text.empty()) text += ' ';
    text += kDigits[c >> 4];
    text += kDigits[c & 15];
  }
  return text;
}

std::uint32_t readLittleEndian(std::string_view bytes, std::size_t offset, std::size_t count) {
  std::uint32_t value = 0;
  for (std::size_t i = count; i-- > 0;) value = (value << 8) | static_cast<unsigned char>(bytes[offset + i]);
  return value;
}

// magic, version and header length: what comes before the header text.
struct Preamble {
  int majorVersion = 1;
  int minorVersion = 0;
  std::size_t headerOffsetBytes = 0;
  std::size_t headerBytes = 0;
};

// `prefix` is the start of a file of `totalBytes` bytes (at least its first
// 12 bytes, or all of it when shorter).
std::optional<Preamble> parsePreamble(std::string_view prefix, std::uint64_t totalBytes, DiagnosticEngine& diags,
                                      const SourceLocation& where) {
  if (totalBytes == 0) return diags.error(where) << "empty file (0 bytes); a .npy file starts with \\x93NUMPY";
  const std::string_view start = prefix.substr(0, kMagic.size());
  if (start != kMagic.substr(0, start.size()) || start.size() < kMagic.size()) {
    if (start == kMagic.substr(0, start.size()))
      return diags.error(where) << "truncated .npy file: " << totalBytes << " bytes, shorter than the magic \\x93NUMPY";
    return diags.error(where) << "not a .npy file: it does not start with the magic \\x93NUMPY (found bytes "
                              << hexBytes(start) << ")";
  }
  if (totalBytes < kMagicAndVersionBytes)
    return diags.error(where) << "truncated .npy file: " << totalBytes
                              << " bytes, too short for the format version at byte offset 6";
  Preamble preamble;
  preamble.majorVersion = static_cast<unsigned char>(prefix[6]);
  preamble.minorVersion = static_cast<unsigned char>(prefix[7]);
  if (preamble.majorVersion < 1 || preamble.majorVersion > 3 || preamble.minorVersion != 0)
    return diags.error(where) << "unsupported .npy format version " << preamble.majorVersion << "."
                              << preamble.minorVersion << " at byte offset 6; this reader knows 1.0, 2.0 and 3.0";
  const std::size_t lengthBytes = preamble.majorVersion == 1 ? 2 : 4;
  preamble.headerOffsetBytes = kMagicAndVersionBytes + lengthBytes;
  if (totalBytes < preamble.headerOffsetBytes)
    return diags.error(where) << "truncated .npy file: " << totalBytes << " bytes, too short for the " << lengthBytes
                              << "-byte header length at byte offset 8";
  preamble.headerBytes = readLittleEndian(prefix, kMagicAndVersionBytes, lengthBytes);
  const std::uint64_t available = totalBytes - preamble.headerOffsetBytes;
  if (preamble.headerBytes > available)
    return diags.error(where) << "truncated header: the header length at byte offset 8 says " << preamble.headerBytes
                              << " bytes, but only " << available << " bytes follow";
  return preamble;
}

// A Python literal as it appears in a header: enough of the language for
// what numpy writes (dicts, strings, bools, None, ints, tuples, lists).
struct PyValue;
using PyDict = std::vector<std::pair<std::string, PyValue>>;
struct PyTuple {
  std::vector<PyValue> items;
  bool isList = false;
};
struct PyNone {};
struct PyInt {
  std::int64_t value = 0;
};
struct PyValue {
  std::variant<PyNone, bool, PyInt, std::string, PyTuple, PyDict> value;
  std::size_t offset = 0;  // in the file
};

// Recursive descent over the header text; offsets in errors are file offsets.
class HeaderParser {
public:
  HeaderParser(std::string_view text, std::size_t fileOffset, DiagnosticEngine& diags, const SourceLocation& where)
      : m_text(text), m_fileOffset(fileOffset), m_diags(diags), m_where(where) {}

  std::optional<PyValue> parseWhole() {
    std::optional<PyValue> value = parseValue(0);
    if (!value) return std::nullopt;
    skipSpace();
    if (m_pos != m_text.size()) return fail("unexpected text after the header dict");
    return value;
  }

private:
  DiagnosticBuilder fail(std::string_view what) {
    return m_diags.error(m_where) << "malformed .npy header at byte offset " << m_fileOffset + m_pos << ": " << what;
  }

  void skipSpace() {
    while (m_pos < m_text.size() &&
           (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' || m_text[m_pos] == '\n' || m_text[m_pos] == '\r'))
      ++m_pos;
  }
  bool peek(char c) {
    skipSpace();
    return m_pos < m_text.size() && m_text[m_pos] == c;
  }
  bool accept(char c) {
    if (!peek(c)) return false;
    ++m_pos;
    return true;
  }

  std::optional<PyValue> parseValue(int depth) {
    if (depth > kMaxHeaderNesting) return fail("literals nested too deeply");
    skipSpace();
    PyValue result;
    result.offset = m_fileOffset + m_pos;
    if (m_pos >= m_text.size()) return fail("the header ends where a value was expected");
    const char c = m_text[m_pos];
    if (c == '{') {
      std::optional<PyDict> dict = parseDict(depth);
      if (!dict) return std::nullopt;
      result.value = std::move(*dict);
    } else if (c == '(' || c == '[') {
      std::optional<PyTuple> tuple = parseSequence(depth, c == '(' ? ')' : ']');
      if (!tuple) return std::nullopt;
      result.value = std::move(*tuple);
    } else if (c == '\'' || c == '"') {
      std::optional<std::string> text = parseString();
      if (!text) return std::nullopt;
      result.value = std::move(*text);
    } else if (c == '-' || c == '+' || (c >= '0' && c <= '9')) {
      std::optional<PyInt> number = parseInt();
      if (!number) return std::nullopt;
      result.value = *number;
    } else if (acceptWord("True")) {
      result.value = true;
    } else if (acceptWord("False")) {
      result.value = false;
    } else if (acceptWord("None")) {
      result.value = PyNone{};
    } else {
      return fail(std::string("unexpected character '") + c + "'");
    }
    return result;
  }

  bool acceptWord(std::string_view word) {
    if (m_text.substr(m_pos, word.size()) != word) return false;
    const std::size_t end = m_pos + word.size();
    if (end < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[end])) || m_text[end] == '_'))
      return false;
    m_pos = end;
    return true;
  }

  std::optional<PyDict> parseDict(int depth) {
    ++m_pos;  // '{'
    PyDict dict;
    while (!accept('}')) {
      skipSpace();
      if (m_pos >= m_text.size() || (m_text[m_pos] != '\'' && m_text[m_pos] != '"'))
        return fail("expected a quoted key or '}' in the header dict");
      std::optional<std::string> key = parseString();
      if (!key) return std::nullopt;
      if (!accept(':')) return fail("expected ':' after the key '" + *key + "'");
      std::optional<PyValue> value = parseValue(depth + 1);
      if (!value) return std::nullopt;
      dict.emplace_back(std::move(*key), std::move(*value));
      if (accept(',')) continue;
      if (!peek('}')) return fail("expected ',' or '}' in the header dict");
    }
    return dict;
  }

  std::optional<PyTuple> parseSequence(int depth, char close) {
    ++m_pos;  // '(' or '['
    PyTuple tuple;
    tuple.isList = close == ']';
    while (!accept(close)) {
      std::optional<PyValue> item = parseValue(depth + 1);
      if (!item) return std::nullopt;
      tuple.items.push_back(std::move(*item));
      if (accept(',')) continue;
      if (!peek(close)) return fail(std::string("expected ',' or '") + close + "'");
    }
    return tuple;
  }

  std::optional<std::string> parseString() {
    const char quote = m_text[m_pos++];
    std::string text;
    while (m_pos < m_text.size() && m_text[m_pos] != quote) {
      char c = m_text[m_pos++];
      if (c == '\\' && m_pos < m_text.size()) c = m_text[m_pos++];
      text += c;
    }
    if (m_pos >= m_text.size()) return fail("unterminated string");
    ++m_pos;  // closing quote
    return text;
  }

  std::optional<PyInt> parseInt() {
    const std::size_t start = m_pos;
    bool negative = false;
    if (m_text[m_pos] == '-' || m_text[m_pos] == '+') negative = m_text[m_pos++] == '-';
    if (m_pos >= m_text.size() || m_text[m_pos] < '0' || m_text[m_pos] > '9') return fail("expected digits");
    std::uint64_t magnitude = 0;
    constexpr std::uint64_t kLimit = std::uint64_t{1} << 63;
    while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9') {
      const auto digit = static_cast<std::uint64_t>(m_text[m_pos] - '0');
      if (magnitude > (kLimit - digit) / 10) {
        m_pos = start;
        return fail("integer too large");
      }
      magnitude = magnitude * 10 + digit;
      ++m_pos;
    }
    // Python 2 wrote long integers with an L suffix.
    if (m_pos < m_text.size() && (m_text[m_pos] == 'L' || m_text[m_pos] == 'l')) ++m_pos;
    if (!negative && magnitude == kLimit) {
      m_pos = start;
      return fail("integer too large");
    }
    PyInt number;
    number.value =
        negative ? static_cast<std::int64_t>(std::uint64_t{0} - magnitude) : static_cast<std::int64_t>(magnitude);
    return number;
  }

  std::string_view m_text;
  std::size_t m_fileOffset;
  std::size_t m_pos = 0;
  DiagnosticEngine& m_diags;
  const SourceLocation& m_where;
};

struct DescrEntry {
  char kind;
  std::size_t bytes;
  DataType dtype;
};
constexpr std::array<DescrEntry, 13> kDescrTable = {{
    {'f', 4, DataType::Fp32},
    {'f', 2, DataType::Fp16},
    {'V', 2, DataType::Bf16},
    {'i', 1, DataType::Int8},
    {'i', 2, DataType::Int16},
    {'i', 4, DataType::Int32},
    {'i', 8, DataType::Int64},
    {'u', 1, DataType::UInt8},
    {'u', 2, DataType::UInt16},
    {'u', 4, DataType::UInt32},
    {'u', 8, DataType::UInt64},
    {'b', 1, DataType::Bool},
    {'?', 1, DataType::Bool},
}};

std::string descrOf(DataType dtype) {
  for (const DescrEntry& entry : kDescrTable) {
    if (entry.dtype != dtype) continue;
    // numpy writes '|' where byte order does not apply: one-byte and void types.
    const char order = entry.bytes == 1 || entry.kind == 'V' ? '|' : '<';
    return std::string(1, order) + entry.kind + std::to_string(entry.bytes);
  }
  return "|V0";  // unreachable: every DataType has an entry
}

struct ParsedDescr {
  DataType dtype;
  bool bigEndian;
};

std::optional<ParsedDescr> parseDescr(const std::string& descr, std::size_t offset, DiagnosticEngine& diags,
                                      const SourceLocation& where) {
  std::string_view body = descr;
  bool bigEndian = std::endian::native == std::endian::big;
  if (!body.empty() && (body[0] == '<' || body[0] == '>' || body[0] == '|' || body[0] == '=')) {
    if (body[0] == '<') bigEndian = false;
    if (body[0] == '>') bigEndian = true;
    body.remove_prefix(1);
  }
  if (body == "f8" || body == "d")
    return diags.error(where) << "float64 data (descr '" << descr << "' at byte offset " << offset
                              << ") is not supported: PTO tensors have no float64; save the array with "
                                 ".astype(np.float32)";
  if (!body.empty()) {
    const char kind = body[0];
    std::size_t bytes = 0;
    if (body.size() == 1 && kind == '?') bytes = 1;
    for (std::size_t i = 1; i < body.size(); ++i) {
      if (body[i] < '0' || body[i] > '9' || bytes > 1000) {
        bytes = 0;
        break;
      }
      bytes = bytes * 10 + static_cast<std::size_t>(body[i] - '0');
    }
    for (const DescrEntry& entry : kDescrTable) {
      if (entry.kind == kind && entry.bytes == bytes) {
        if (entry.bytes == 1) bigEndian = false;
        return ParsedDescr{entry.dtype, bigEndian};
      }
    }
  }
  return diags.error(where) << "unsupported dtype descr '" << descr << "' at byte offset " << offset
                            << "; supported: '<f4' float32, '<f2' float16, '|V2' bfloat16 (raw bits), '|i1' int8, "
                               "'<i2' int16, '<i4' int32, '<i8' int64, '|u1' uint8, '<u2' uint16, '<u4' uint32, "
                               "'<u8' uint64, '|b1' bool";
}

const PyValue* findKey(const PyDict& dict, std::string_view key) {
  for (const auto& [name, value] : dict)
    if (name == key) return &value;
  return nullptr;
}

// The header text after the preamble, checked against the file's length.
std::optional<NpyHeader> parseHeader(std::string_view headerText, const Preamble& preamble, std::uint64_t totalBytes,
                                     DiagnosticEngine& diags, const SourceLocation& where) {
  const std::size_t headerOffset = preamble.headerOffsetBytes;
  HeaderParser parser(headerText, headerOffset, diags, where);
  std::optional<PyValue> root = parser.parseWhole();
  if (!root) return std::nullopt;
  const auto* dict = std::get_if<PyDict>(&root->value);
  if (!dict)
    return diags.error(where) << "malformed .npy header at byte offset " << root->offset
                              << ": the header is not a dict literal";

  const char* const keys[] = {"descr", "fortran_order", "shape"};
  for (const char* key : keys)
    if (!findKey(*dict, key))
      return diags.error(where) << "malformed .npy header at byte offset " << headerOffset
                                << ": the header dict has no '" << key << "' key";

  NpyHeader header;
  header.majorVersion = preamble.majorVersion;
  header.minorVersion = preamble.minorVersion;
  header.dataOffsetBytes = headerOffset + preamble.headerBytes;

  const PyValue& descrValue = *findKey(*dict, "descr");
  const auto* descr = std::get_if<std::string>(&descrValue.value);
  if (!descr)
    return diags.error(where) << "unsupported dtype at byte offset " << descrValue.offset
                              << ": 'descr' is not a string (structured dtypes are not supported)";
  std::optional<ParsedDescr> parsedDescr = parseDescr(*descr, descrValue.offset, diags, where);
  if (!parsedDescr) return std::nullopt;
  header.dtype = parsedDescr->dtype;
  header.bigEndian = parsedDescr->bigEndian;

  const PyValue& shapeValue = *findKey(*dict, "shape");
  const auto* shapeTuple = std::get_if<PyTuple>(&shapeValue.value);
  if (!shapeTuple)
    return diags.error(where) << "malformed .npy header at byte offset " << shapeValue.offset
                              << ": 'shape' is not a tuple";
  std::vector<std::int64_t> dims;
  for (const PyValue& item : shapeTuple->items) {
    const auto* dim = std::get_if<PyInt>(&item.value);
    if (!dim)
      return diags.error(where) << "malformed .npy header at byte offset " << item.offset
                                << ": 'shape' holds something other than integers";
    dims.push_back(dim->value);
  }
  header.shape = Shape(std::move(dims));
  for (std::int64_t dim : header.shape)
    if (dim < 0)
      return diags.error(where) << "invalid shape " << pythonShapeStr(header.shape) << " at byte offset "
                                << shapeValue.offset << ": negative dimension " << dim;
  // The bytes of the nonzero dimensions must fit in 64 bits even when a zero
  // dimension makes the array empty: strides multiply them all the same
  // (numpy refuses such a shape as "array is too big" for this reason).
  const auto itemBytes = static_cast<std::int64_t>(sizeOf(header.dtype));
  std::int64_t addressedBytes = itemBytes;
  for (std::int64_t dim : header.shape) {
    if (dim == 0) continue;
    if (addressedBytes > std::numeric_limits<std::int64_t>::max() / dim)
      return diags.error(where) << "invalid shape " << pythonShapeStr(header.shape) << " at byte offset "
                                << shapeValue.offset << ": too many elements to address";
    addressedBytes *= dim;
  }
  const std::int64_t count = header.shape.elementCount();

  const PyValue& fortranValue = *findKey(*dict, "fortran_order");
  const bool* fortran = std::get_if<bool>(&fortranValue.value);
  if (!fortran)
    return diags.error(where) << "malformed .npy header at byte offset " << fortranValue.offset
                              << ": 'fortran_order' is not True or False";
  const auto longAxes = std::count_if(header.shape.begin(), header.shape.end(), [](std::int64_t d) { return d > 1; });
  if (*fortran && longAxes > 1)
    return diags.error(where) << "Fortran-order .npy is not supported; save with np.ascontiguousarray";

  const auto expectedBytes = static_cast<std::uint64_t>(count * itemBytes);
  const std::uint64_t foundBytes = totalBytes - header.dataOffsetBytes;
  if (expectedBytes != foundBytes)
    return diags.error(where) << "expected " << expectedBytes << " bytes of data for shape "
                              << pythonShapeStr(header.shape) << " " << name(header.dtype) << ", found " << foundBytes
                              << " (data starts at byte offset " << header.dataOffsetBytes << ")";
  return header;
}

std::optional<NpyHeader> headerFromBytes(std::string_view bytes, DiagnosticEngine& diags, const SourceLocation& where) {
  std::optional<Preamble> preamble = parsePreamble(bytes, bytes.size(), diags, where);
  if (!preamble) return std::nullopt;
  return parseHeader(bytes.substr(preamble->headerOffsetBytes, preamble->headerBytes), *preamble, bytes.size(), diags,
                     where);
}

// Puts freshly read data into the reader's byte order and value set.
void normalizeData(HostTensor& tensor, const NpyHeader& header) {
  std::span<std::byte> data = tensor.bytes();
  const std::size_t item = tensor.itemBytes();
  if (header.bigEndian != (std::endian::native == std::endian::big) && item > 1)
    for (std::size_t at = 0; at + item <= data.size(); at += item)
      std::reverse(data.begin() + static_cast<std::ptrdiff_t>(at),
                   data.begin() + static_cast<std::ptrdiff_t>(at + item));
  // numpy treats any nonzero byte as true; a C++ bool must be 0 or 1.
  if (header.dtype == DataType::Bool)
    for (std::byte& b : data) b = b != std::byte{0} ? std::byte{1} : std::byte{0};
}

// Reads the preamble and header of an open file of `fileBytes` bytes.
std::optional<NpyHeader> headerFromStream(std::istream& in, std::uint64_t fileBytes, DiagnosticEngine& diags,
                                          const SourceLocation& where) {
  std::string prefix(static_cast<std::size_t>(std::min<std::uint64_t>(fileBytes, 12)), '\0');
  in.read(prefix.data(), static_cast<std::streamsize>(prefix.size()));
  if (!in) return diags.error(where) << "cannot read the first " << prefix.size() << " bytes: " << std::strerror(errno);
  std::optional<Preamble> preamble = parsePreamble(prefix, fileBytes, diags, where);
  if (!preamble) return std::nullopt;
  // parsePreamble checked that the header fits in the file, so this is bounded by the file's size.
  std::string headerText(preamble->headerBytes, '\0');
  in.seekg(static_cast<std::streamoff>(preamble->headerOffsetBytes));
  in.read(headerText.data(), static_cast<std::streamsize>(headerText.size()));
  if (!in) return diags.error(where) << "cannot read the header: " << std::strerror(errno);
  return parseHeader(headerText, *preamble, fileBytes, diags, where);
}

struct OpenFile {
  std::ifstream stream;
  std::uint64_t bytes = 0;
};

std::optional<OpenFile> openForReading(const std::filesystem::path& path, DiagnosticEngine& diags,
                                       const SourceLocation& where) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) return diags.error(where) << "cannot read: it is a directory";
  OpenFile file;
  file.bytes = std::filesystem::file_size(path, error);
  if (error) return diags.error(where) << "cannot read: " << error.message();
  file.stream.open(path, std::ios::binary);
  if (!file.stream) return diags.error(where) << "cannot open for reading: " << std::strerror(errno);
  return file;
}

} // namespace

std::string pythonShapeStr(const Shape& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.rank(); ++i) {
    if (i) text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.rank() == 1) text += ",";
  return text + ")";
}

std::optional<NpyHeader> readNpyHeaderFromBytes(std::string_view bytes, DiagnosticEngine& diags,
                                                const SourceLocation& where) {
  return headerFromBytes(bytes, diags, where);
}

std::optional<HostTensor> readNpyFromBytes(std::string_view bytes, DiagnosticEngine& diags,
                                           const SourceLocation& where) {
  std::optional<NpyHeader> header = headerFromBytes(bytes, diags, where);
  if (!header) return std::nullopt;
  std::optional<HostTensor> tensor = HostTensor::tryCreate(header->dtype, header->shape, diags, where);
  if (!tensor) return std::nullopt;
  if (tensor->byteCount() > 0) std::memcpy(tensor->data(), bytes.data() + header->dataOffsetBytes, tensor->byteCount());
  normalizeData(*tensor, *header);
  return tensor;
}

std::optional<NpyHeader> readNpyHeader(const std::filesystem::path& path, DiagnosticEngine& diags) {
  const SourceLocation where{path.string()};
  std::optional<OpenFile> file = openForReading(path, diags, where);
  if (!file) return std::nullopt;
  return headerFromStream(file->stream, file->bytes, diags, where);
}

std::optional<HostTensor> readNpy(const std::filesystem::path& path, DiagnosticEngine& diags) {
  const SourceLocation where{path.string()};
  std::optional<OpenFile> file = openForReading(path, diags, where);
  if (!file) return std::nullopt;
  std::optional<NpyHeader> header = headerFromStream(file->stream, file->bytes, diags, where);
  if (!header) return std::nullopt;
  // The header's size matched the file's, so this allocates no more than the file holds.
  std::optional<HostTensor> tensor = HostTensor::tryCreate(header->dtype, header->shape, diags, where);
  if (!tensor) return std::nullopt;
  if (tensor->byteCount() > 0) {
    file->stream.seekg(static_cast<std::streamoff>(header->dataOffsetBytes));
    file->stream.read(reinterpret_cast<char*>(tensor->data()), static_cast<std::streamsize>(tensor->byteCount()));
    if (!file->stream)
      return diags.error(where) << "cannot read " << tensor->byteCount() << " bytes of data at byte offset "
                                << header->dataOffsetBytes << ": " << std::strerror(errno);
  }
  normalizeData(*tensor, *header);
  return tensor;
}

std::string writeNpyToBytes(const HostTensor& tensor) {
  // Key order and spacing as numpy writes them.
  const std::string dict = "{'descr': '" + descrOf(tensor.dtype()) +
                           "', 'fortran_order': False, 'shape': " + pythonShapeStr(tensor.shape()) + ", }";
  // Pad with spaces and end with '\n' so the data starts on a 64-byte boundary.
  auto paddedHeader = [&](std::size_t preambleBytes) {
    const std::size_t unpadded = preambleBytes + dict.size() + 1;
    const std::size_t padding = (kArrayAlignBytes - unpadded % kArrayAlignBytes) % kArrayAlignBytes;
    return dict + std::string(padding, ' ') + "\n";
  };
  std::string header = paddedHeader(kMagicAndVersionBytes + 2);
  const bool version2 = header.size() > std::numeric_limits<std::uint16_t>::max();
  if (version2) header = paddedHeader(kMagicAndVersionBytes + 4);

  std::string out(kMagic);
  out += static_cast<char>(version2 ? 2 : 1);
  out += '\0';
  const std::size_t lengthBytes = version2 ? 4 : 2;
  for (std::size_t i = 0; i < lengthBytes; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  out += header;

  const HostTensor packed = tensor.isContiguous() ? tensor : tensor.contiguous();
  const std::size_t dataOffset = out.size();
  out.resize(dataOffset + packed.byteCount());
  if (packed.byteCount() > 0) std::memcpy(out.data() + dataOffset, packed.data(), packed.byteCount());
  if constexpr (std::endian::native == std::endian::big) {
    const std::size_t item = packed.itemBytes();
    for (std::size_t at = dataOffset; item > 1 && at + item <= out.size(); at += item)
      std::reverse(out.begin() + static_cast<std::ptrdiff_t>(at), out.begin() + static_cast<std::ptrdiff_t>(at + item));
  }
  return out;
}

bool writeNpy(const std::filesystem::path& path, const HostTensor& tensor, DiagnosticEngine& diags) {
  std::string error;
  if (!writeFileAtomically(path, writeNpyToBytes(tensor), error))
    return diags.error(SourceLocation{path.string()}) << "cannot write: " << error;
  return true;
}

} // namespace pto
