// .npy reading and writing: round trips, numpy cross-checks both ways, and
// one test per malformed input with its full message.
#include "core/Npy.h"
#include "tests/support/TestFiles.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace pto {
namespace {

namespace fs = std::filesystem;

using testing::PythonRun;
using testing::readWholeFile;
using testing::runPython;

fs::path freshTestDir(const std::string& testName) { return testing::freshTestDir("npy", testName); }

// A .npy image from a header dict literal and raw data, padded as numpy pads.
std::string npyImage(std::string_view dict, std::string_view data, int majorVersion = 1) {
  const std::size_t lengthBytes = majorVersion == 1 ? 2 : 4;
  std::string header(dict);
  const std::size_t unpadded = 8 + lengthBytes + header.size() + 1;
  header += std::string((64 - unpadded % 64) % 64, ' ') + "\n";
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(majorVersion);
  out += '\0';
  for (std::size_t i = 0; i < lengthBytes; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + std::string(data);
}

// The one error reading `bytes` must give; its message.
std::string onlyError(std::string_view bytes) {
  DiagnosticEngine diags;
  EXPECT_FALSE(readNpyFromBytes(bytes, diags, SourceLocation{"bad.npy"}));
  if (diags.diagnostics().size() != 1 || diags.errorCount() != 1)
    return "<" + std::to_string(diags.diagnostics().size()) + " diagnostics>";
  EXPECT_EQ(diags.diagnostics()[0].location, SourceLocation{"bad.npy"});
  return diags.diagnostics()[0].message;
}

std::string toHex(std::span<const std::byte> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (std::byte b : bytes) {
    text += kDigits[std::to_integer<int>(b) >> 4];
    text += kDigits[std::to_integer<int>(b) & 15];
  }
  return text;
}


// Fails the calling test unless python with numpy runs: a missing reference
// must not look like a pass.
::testing::AssertionResult numpyAvailable(const fs::path& dir) {
  const PythonRun run = runPython("-c 'import numpy'", dir);
  if (run.exitCode == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "this test needs " << PTO_PYTHON_EXECUTABLE
                                       << " with numpy (set PTO_PYTHON_EXECUTABLE); it said: " << run.output;
}

const std::string kReferenceScript = std::string(PTO_SOURCE_DIR) + "/tests/core/npy_reference.py";

// Values that every dtype can hold after conversion, in a given shape.
HostTensor sampleTensor(DataType dtype, Shape shape) {
  const double pattern[] = {0.0, 1.0, -1.0, 2.5, 100.0, -128.0, 127.0, 0.333, 30000.0, -7.0};
  std::vector<double> values(static_cast<std::size_t>(shape.elementCount()));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = pattern[i % 10] + static_cast<double>(i / 10);
  return HostTensor::fromDoubles(dtype, std::move(shape), values);
}

TEST(Npy, RoundTripsEveryDataTypeInMemoryAndOnDisk) {
  const fs::path dir = freshTestDir("RoundTrip");
  for (std::size_t i = 0; i < kDataTypeCount; ++i) {
    const auto dtype = static_cast<DataType>(i);
    SCOPED_TRACE(std::string(name(dtype)));
    const HostTensor original = sampleTensor(dtype, Shape{3, 7});
    DiagnosticEngine diags;
    std::optional<HostTensor> fromBytes = readNpyFromBytes(writeNpyToBytes(original), diags, SourceLocation{"mem"});
    ASSERT_TRUE(fromBytes) << diags.diagnostics().front().message;
    EXPECT_TRUE(fromBytes->equals(original));

    const fs::path file = dir / (std::string(name(dtype)) + ".npy");
    ASSERT_TRUE(writeNpy(file, original, diags));
    std::optional<NpyHeader> header = readNpyHeader(file, diags);
    ASSERT_TRUE(header);
    EXPECT_EQ(header->dtype, dtype);
    EXPECT_EQ(header->shape, (Shape{3, 7}));
    EXPECT_EQ(header->majorVersion, 1);
    EXPECT_EQ(header->dataOffsetBytes % 64, 0u);
    std::optional<HostTensor> fromFile = readNpy(file, diags);
    ASSERT_TRUE(fromFile);
    EXPECT_TRUE(fromFile->equals(original));
    EXPECT_FALSE(diags.hasErrors());
  }
}

TEST(Npy, WritesTheHeaderNumpyWrites) {
  const std::string bytes = writeNpyToBytes(HostTensor(DataType::Fp32, Shape{32, 32}));
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (32, 32), }";
  const std::string expectedHeader =
      std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict + std::string(128 - 10 - dict.size() - 1, ' ') + "\n";
  EXPECT_EQ(bytes.substr(0, 128), expectedHeader);
  EXPECT_EQ(bytes.size(), 128u + 4096u);

  EXPECT_NE(writeNpyToBytes(HostTensor(DataType::Bf16, Shape{5}))
                .find("'descr': '|V2', 'fortran_order': False, 'shape': (5,), }"),
            std::string::npos);
  EXPECT_NE(writeNpyToBytes(HostTensor(DataType::Int8, Shape{}))
                .find("'descr': '|i1', 'fortran_order': False, 'shape': (), }"),
            std::string::npos);
}

TEST(Npy, WritesAViewAsItsPackedElements) {
  HostTensor parent = sampleTensor(DataType::Int32, Shape{4, 5});
  const HostTensor box = parent.view({1, 1}, {2, 3});
  DiagnosticEngine diags;
  std::optional<HostTensor> back = readNpyFromBytes(writeNpyToBytes(box), diags, SourceLocation{"mem"});
  ASSERT_TRUE(back);
  EXPECT_TRUE(back->equals(box));
  EXPECT_TRUE(back->isContiguous());
}

TEST(Npy, WritesVersion2WhenTheHeaderNeedsIt) {
  // 22000 dimensions of 1 spell a shape longer than a 2-byte length allows.
  const HostTensor tall = sampleTensor(DataType::Fp32, Shape(std::vector<std::int64_t>(22000, 1)));
  const std::string bytes = writeNpyToBytes(tall);
  EXPECT_EQ(bytes[6], '\x02');
  DiagnosticEngine diags;
  std::optional<NpyHeader> header = readNpyHeaderFromBytes(bytes, diags, SourceLocation{"mem"});
  ASSERT_TRUE(header);
  EXPECT_EQ(header->majorVersion, 2);
  EXPECT_EQ(header->dataOffsetBytes % 64, 0u);
  std::optional<HostTensor> back = readNpyFromBytes(bytes, diags, SourceLocation{"mem"});
  ASSERT_TRUE(back);
  EXPECT_TRUE(back->equals(tall));
}

TEST(Npy, ReadsHandWrittenVersion2And3HeadersInAnySpelling) {
  const std::string data("\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00", 12);
  for (int version : {2, 3}) {
    SCOPED_TRACE(version);
    // Keys out of order, odd spacing, double quotes, a 1-tuple, a trailing comma.
    const std::string image =
        npyImage("{ 'shape' : ( 3 , ) ,\"fortran_order\":False,  'descr':'<i4', }", data, version);
    DiagnosticEngine diags;
    std::optional<HostTensor> tensor = readNpyFromBytes(image, diags, SourceLocation{"v.npy"});
    ASSERT_TRUE(tensor);
    EXPECT_TRUE(tensor->equals(HostTensor::fromValues<std::int32_t>(Shape{3}, {1, 2, 3})));
    std::optional<NpyHeader> header = readNpyHeaderFromBytes(image, diags, SourceLocation{"v.npy"});
    ASSERT_TRUE(header);
    EXPECT_EQ(header->majorVersion, version);
    EXPECT_EQ(header->dataOffsetBytes, 128u);
  }
}

TEST(Npy, ReadsScalarsBigEndianPython2LongsAndUnterminatedHeaders) {
  DiagnosticEngine diags;
  std::optional<HostTensor> scalar =
      readNpyFromBytes(npyImage("{'descr': '<f2', 'fortran_order': False, 'shape': ()}", std::string("\x00\x3c", 2)),
                       diags, SourceLocation{"s.npy"});
  ASSERT_TRUE(scalar);
  EXPECT_EQ(scalar->shape(), Shape{});
  EXPECT_EQ(scalar->getAsDouble(0), 1.0);

  std::optional<HostTensor> big = readNpyFromBytes(npyImage("{'descr': '>i4', 'fortran_order': False, 'shape': (2L,)}",
                                                            std::string("\x00\x00\x01\x02\xff\xff\xff\xfe", 8)),
                                                   diags, SourceLocation{"b.npy"});
  ASSERT_TRUE(big);
  EXPECT_TRUE(big->equals(HostTensor::fromValues<std::int32_t>(Shape{2}, {258, -2})));

  // No newline and no padding: numpy itself reads such files.
  std::string bare("\x93NUMPY\x01\x00", 8);
  const std::string dict = "{'descr':'|b1','fortran_order':True,'shape':(3,)}";
  bare += static_cast<char>(dict.size());
  bare += '\0';
  bare += dict + std::string("\x00\x01\x07", 3);
  std::optional<HostTensor> flags = readNpyFromBytes(bare, diags, SourceLocation{"f.npy"});
  ASSERT_TRUE(flags);
  // A nonzero byte is true, and a 1-D Fortran-order array is the same bytes.
  EXPECT_TRUE(flags->equals(HostTensor::fromValues<bool>(Shape{3}, {false, true, true})));
  EXPECT_FALSE(diags.hasErrors());
}

TEST(Npy, ReadsFilesNumpyWrote) {
  const fs::path dir = freshTestDir("FromNumpy");
  ASSERT_TRUE(numpyAvailable(dir));
  const PythonRun run = runPython("'" + kReferenceScript + "' write '" + dir.string() + "'", dir);
  ASSERT_EQ(run.exitCode, 0) << run.output;

  const nlohmann::json manifest = nlohmann::json::parse(readWholeFile(dir / "manifest.json"));
  ASSERT_GE(manifest.size(), 20u);
  for (const nlohmann::json& entry : manifest) {
    const std::string file = entry["file"];
    SCOPED_TRACE(file);
    DiagnosticEngine diags;
    std::optional<HostTensor> tensor = readNpy(dir / file, diags);
    if (entry.contains("error")) {
      EXPECT_FALSE(tensor);
      ASSERT_EQ(diags.diagnostics().size(), 1u);
      EXPECT_EQ(diags.diagnostics()[0].location.file, (dir / file).string());
      EXPECT_TRUE(diags.diagnostics()[0].message.starts_with(entry["error"].get<std::string>()))
          << diags.diagnostics()[0].message;
      continue;
    }
    ASSERT_TRUE(tensor) << diags.diagnostics().front().message;
    EXPECT_EQ(name(tensor->dtype()), entry["dtype"].get<std::string>());
    EXPECT_EQ(tensor->shape(), Shape(entry["shape"].get<std::vector<std::int64_t>>()));
    EXPECT_EQ(toHex(tensor->bytes()), entry["hex"].get<std::string>());
    std::optional<NpyHeader> header = readNpyHeader(dir / file, diags);
    ASSERT_TRUE(header);
    EXPECT_EQ(header->dtype, tensor->dtype());
    EXPECT_EQ(header->shape, tensor->shape());

    // Element values, independently of the bytes: numpy's repr of each.
    const auto values = entry["values"].get<std::vector<std::string>>();
    ASSERT_EQ(values.size(), static_cast<std::size_t>(tensor->elementCount()));
    for (std::size_t i = 0; i < values.size(); ++i) {
      const auto index = static_cast<std::int64_t>(i);
      if (tensor->dtype() == DataType::Int64) {
        std::int64_t got = 0;
        std::memcpy(&got, tensor->data() + i * 8, 8);
        EXPECT_EQ(got, std::stoll(values[i]));
      } else if (tensor->dtype() == DataType::UInt64) {
        std::uint64_t got = 0;
        std::memcpy(&got, tensor->data() + i * 8, 8);
        EXPECT_EQ(got, std::stoull(values[i]));
      } else {
        const double expected = std::strtod(values[i].c_str(), nullptr);
        const double got = tensor->getAsDouble(index);
        if (std::isnan(expected)) {
          EXPECT_TRUE(std::isnan(got)) << i;
        } else {
          EXPECT_EQ(got, expected) << i << ": numpy says " << values[i];
          EXPECT_EQ(std::signbit(got), std::signbit(expected)) << i;
        }
      }
    }
  }
}

TEST(Npy, WritesFilesNumpyReads) {
  const fs::path dir = freshTestDir("ToNumpy");
  ASSERT_TRUE(numpyAvailable(dir));
  struct Case {
    std::string file;
    HostTensor tensor;
  };
  std::vector<Case> cases;
  for (std::size_t i = 0; i < kDataTypeCount; ++i) {
    const auto dtype = static_cast<DataType>(i);
    cases.push_back({std::string(name(dtype)) + "_2d.npy", sampleTensor(dtype, Shape{4, 9})});
  }
  cases.push_back({"f32_scalar.npy", sampleTensor(DataType::Fp32, Shape{})});
  cases.push_back({"f16_empty.npy", sampleTensor(DataType::Fp16, Shape{2, 0, 3})});
  cases.push_back({"i8_1d.npy", sampleTensor(DataType::Int8, Shape{13})});
  cases.push_back({"u16_4d.npy", sampleTensor(DataType::UInt16, Shape{2, 3, 1, 5})});
  cases.push_back({"bf16_view.npy", sampleTensor(DataType::Bf16, Shape{6, 6}).view({1, 2}, {4, 3})});

  nlohmann::json manifest = nlohmann::json::array();
  for (const Case& c : cases) {
    DiagnosticEngine diags;
    ASSERT_TRUE(writeNpy(dir / c.file, c.tensor, diags)) << c.file;
    manifest.push_back({{"file", c.file},
                        {"dtype", std::string(name(c.tensor.dtype()))},
                        {"shape", c.tensor.shape().dims()},
                        {"hex", toHex(c.tensor.contiguous().bytes())},
                        {"version", {1, 0}}});
  }
  std::ofstream(dir / "manifest.json") << manifest.dump(1);
  const PythonRun run = runPython("'" + kReferenceScript + "' check '" + dir.string() + "'", dir);
  EXPECT_EQ(run.exitCode, 0) << run.output;
  EXPECT_NE(run.output.find("checked " + std::to_string(cases.size()) + " files, 0 mismatches"), std::string::npos)
      << run.output;
}

TEST(Npy, WriteFailureIsADiagnostic) {
  const fs::path dir = freshTestDir("WriteFailure");
  DiagnosticEngine diags;
  EXPECT_FALSE(writeNpy(dir / "missing" / "x.npy", HostTensor(DataType::Fp32, Shape{2}), diags));
  ASSERT_EQ(diags.errorCount(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].location.file, (dir / "missing" / "x.npy").string());
  EXPECT_EQ(diags.diagnostics()[0].message, "cannot write: No such file or directory");
}

// Malformed inputs: one error each, with the whole message.

TEST(NpyMalformed, EmptyFile) { EXPECT_EQ(onlyError(""), "empty file (0 bytes); a .npy file starts with \\x93NUMPY"); }

TEST(NpyMalformed, TruncatedMagic) {
  EXPECT_EQ(onlyError("\x93NUM"), "truncated .npy file: 4 bytes, shorter than the magic \\x93NUMPY");
}

TEST(NpyMalformed, WrongMagic) {
  EXPECT_EQ(onlyError(std::string("PK\x03\x04\x14\x00\x00\x00", 8)),
            "not a .npy file: it does not start with the magic \\x93NUMPY (found bytes 50 4b 03 04 14 00)");
}

TEST(NpyMalformed, UnsupportedVersion) {
  std::string image = npyImage("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", std::string(4, '\0'));
  image[6] = '\x04';
  EXPECT_EQ(onlyError(image),
            "unsupported .npy format version 4.0 at byte offset 6; this reader knows 1.0, 2.0 and 3.0");
}

TEST(NpyMalformed, TruncatedHeaderLength) {
  EXPECT_EQ(onlyError(std::string("\x93NUMPY\x02\x00\x10\x00", 10)),
            "truncated .npy file: 10 bytes, too short for the 4-byte header length at byte offset 8");
}

TEST(NpyMalformed, TruncatedHeader) {
  const std::string image = npyImage("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "");
  EXPECT_EQ(onlyError(image.substr(0, 30)),
            "truncated header: the header length at byte offset 8 says 118 bytes, but only 20 bytes follow");
}

TEST(NpyMalformed, HeaderNotADict) {
  EXPECT_EQ(onlyError(npyImage("['descr', '<f4']", "")),
            "malformed .npy header at byte offset 10: the header is not a dict literal");
}

TEST(NpyMalformed, HeaderSyntaxError) {
  EXPECT_EQ(onlyError(npyImage("{'descr': '<f4' 'fortran_order': False, 'shape': (1,)}", std::string(4, '\0'))),
            "malformed .npy header at byte offset 26: expected ',' or '}' in the header dict");
}

TEST(NpyMalformed, UnterminatedString) {
  EXPECT_EQ(onlyError(npyImage("{'descr': '<f4", "")), "malformed .npy header at byte offset 64: unterminated string");
}

TEST(NpyMalformed, DeeplyNestedHeaderDoesNotOverflowTheStack) {
  EXPECT_EQ(onlyError(npyImage("{'shape': " + std::string(1000, '('), "")),
            "malformed .npy header at byte offset 36: literals nested too deeply");
}

TEST(NpyMalformed, MissingKey) {
  EXPECT_EQ(onlyError(npyImage("{'descr': '<f4', 'fortran_order': False}", "")),
            "malformed .npy header at byte offset 10: the header dict has no 'shape' key");
}

TEST(NpyMalformed, UnknownDescr) {
  EXPECT_EQ(onlyError(npyImage("{'descr': '<c8', 'fortran_order': False, 'shape': (2,)}", std::string(16, '\0'))),
            "unsupported dtype descr '<c8' at byte offset 20; supported: '<f4' float32, '<f2' float16, '|V2' "
            "bfloat16 (raw bits), '|i1' int8, '<i2' int16, '<i4' int32, '<i8' int64, '|u1' uint8, '<u2' uint16, "
            "'<u4' uint32, '<u8' uint64, '|b1' bool");
}

TEST(NpyMalformed, StructuredDescr) {
  EXPECT_EQ(
      onlyError(npyImage("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}", std::string(8, '\0'))),
      "unsupported dtype at byte offset 20: 'descr' is not a string (structured dtypes are not supported)");
}

TEST(NpyMalformed, Float64IsRejectedWithAHint) {
  EXPECT_EQ(onlyError(npyImage("{'descr': '<f8', 'fortran_order': False, 'shape': (2,)}", std::string(16, '\0'))),
            "float64 data (descr '<f8' at byte offset 20) is not supported: PTO tensors have no float64; save the "
            "array with .astype(np.float32)");
}

TEST(NpyMalformed, FortranOrder) {
  EXPECT_EQ(onlyError(npyImage("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3)}", std::string(24, '\0'))),
            "Fortran-order .npy is not supported; save with np.ascontiguousarray");
}

TEST(NpyMalformed, FortranOrderNotABool) {
  EXPECT_EQ(onlyError(npyImage("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", std::string(8, '\0'))),
            "malformed .npy header at byte offset 44: 'fortran_order' is not True or False");
}

TEST(NpyMalformed, ShapeNotATupleOfIntegers) {
  EXPECT_EQ(onlyError(npyImage("{'descr': '<f4', 'fortran_order': False, 'shape': 6}", "")),
            "malformed .npy header at byte offset 60: 'shape' is not a tuple");
  EXPECT_EQ(onlyError(npyImage("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 'x')}", "")),
            "malformed .npy header at byte offset 64: 'shape' holds something other than integers");
}

TEST(NpyMalformed, DataShorterThanTheShape) {
  const std::string image =
      npyImage("{'descr': '<f4', 'fortran_order': False, 'shape': (32, 32), }", std::string(1000, '\0'));
  EXPECT_EQ(onlyError(image),
            "expected 4096 bytes of data for shape (32, 32) float32, found 1000 (data starts at byte offset 128)");
}

TEST(NpyMalformed, DataLongerThanTheShape) {
  const std::string image = npyImage("{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }", std::string(7, '\0'));
  EXPECT_EQ(onlyError(image),
            "expected 6 bytes of data for shape (3,) int16, found 7 (data starts at byte offset 128)");
}

TEST(NpyMalformed, NegativeDimension) {
  EXPECT_EQ(onlyError(npyImage("{'descr': '<f4', 'fortran_order': False, 'shape': (3, -1), }", "")),
            "invalid shape (3, -1) at byte offset 60: negative dimension -1");
}

TEST(NpyMalformed, AbsurdShapesAllocateNothing) {
  EXPECT_EQ(
      onlyError(npyImage("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }", "")),
      "invalid shape (1099511627776, 1099511627776) at byte offset 60: too many elements to address");
  // 2^62 bytes announced, 16 present: refused from the sizes alone.
  EXPECT_EQ(onlyError(npyImage("{'descr': '<f4', 'fortran_order': False, 'shape': (1073741824, 1073741824), }",
                               std::string(16, '\0'))),
            "expected 4611686018427387904 bytes of data for shape (1073741824, 1073741824) float32, found 16 (data "
            "starts at byte offset 128)");
  EXPECT_EQ(onlyError(npyImage("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", "")),
            "malformed .npy header at byte offset 61: integer too large");
}

TEST(NpyMalformed, HeaderReaderChecksTheDataSizeToo) {
  const fs::path dir = freshTestDir("HeaderOnly");
  const fs::path file = dir / "short.npy";
  std::ofstream(file, std::ios::binary) << npyImage("{'descr': '<u1', 'fortran_order': False, 'shape': (10,), }",
                                                    std::string(9, '\0'));
  DiagnosticEngine diags;
  EXPECT_FALSE(readNpyHeader(file, diags));
  ASSERT_EQ(diags.errorCount(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].location.file, file.string());
  EXPECT_EQ(diags.diagnostics()[0].message,
            "expected 10 bytes of data for shape (10,) uint8, found 9 (data starts at byte offset 128)");
}

TEST(NpyMalformed, MissingFile) {
  const fs::path dir = freshTestDir("Missing");
  DiagnosticEngine diags;
  EXPECT_FALSE(readNpy(dir / "nothing.npy", diags));
  ASSERT_EQ(diags.errorCount(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].message, "cannot read: No such file or directory");
}

} // namespace
} // namespace pto
