// fp16/bf16 conversions checked against numpy (tests/core/float16_reference.py).
//
// Tolerance everywhere: bit-exact, except that two NaNs compare equal whatever
// their payloads (numpy and the hardware differ on payload and quiet bits).
#include "core/Float16.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include <unistd.h>

namespace pto {
namespace {

namespace fs = std::filesystem;

bool isHalfNan(std::uint16_t bits) { return (bits & 0x7C00u) == 0x7C00u && (bits & 0x03FFu) != 0; }
bool isBfloat16Nan(std::uint16_t bits) { return (bits & 0x7F80u) == 0x7F80u && (bits & 0x007Fu) != 0; }

std::string hex(std::uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", value);
  return text;
}

template <typename T>
std::vector<T> readRaw(const fs::path& path) {
  // The script writes little-endian; so does every host we build for.
  static_assert(std::endian::native == std::endian::little);
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

// Runs the numpy script once per test process into a folder of its own (CTest
// runs test cases in parallel processes).
class Float16Reference : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    s_dir = fs::path(PTO_TEST_DATA_DIR) / ("float16_reference_" + std::to_string(::getpid()));
    std::error_code error;
    fs::create_directories(s_dir, error);
    if (error) {
      s_setupError = "cannot create " + s_dir.string() + ": " + error.message();
      return;
    }
    const std::string script = std::string(PTO_SOURCE_DIR) + "/tests/core/float16_reference.py";
    const std::string command =
        "'" + std::string(PTO_PYTHON_EXECUTABLE) + "' '" + script + "' '" + s_dir.string() + "' 2>&1";
    std::FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) {
      s_setupError = "cannot run: " + command;
      return;
    }
    std::string output;
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
    const int status = ::pclose(pipe);
    if (status != 0) {
      s_setupError = "the numpy reference failed (python " PTO_PYTHON_EXECUTABLE
                     " with numpy is required; status " +
                     std::to_string(status) + "): " + command + "\n" + output;
    }
  }

  static void TearDownTestSuite() {
    std::error_code ignored;
    fs::remove_all(s_dir, ignored);
  }

  void SetUp() override {
    // Missing python or numpy is a failure, not a skip: the reference is the test.
    ASSERT_TRUE(s_setupError.empty()) << s_setupError;
  }

  template <typename T>
  static std::vector<T> load(const char* name, std::size_t expectedCount = 0) {
    std::vector<T> values = readRaw<T>(s_dir / name);
    EXPECT_FALSE(values.empty()) << "missing or empty reference file " << (s_dir / name);
    if (expectedCount != 0) {
      EXPECT_EQ(values.size(), expectedCount) << name;
    }
    return values;
  }

  static inline fs::path s_dir;
  static inline std::string s_setupError;
};

TEST_F(Float16Reference, EveryHalfWidensLikeNumpy) {
  const auto expected = load<std::uint32_t>("half_to_float.u32", 65536);
  ASSERT_EQ(expected.size(), 65536u);
  int mismatches = 0;
  for (std::uint32_t pattern = 0; pattern < 65536; ++pattern) {
    const float actual = halfBitsToFloat(static_cast<std::uint16_t>(pattern));
    const float reference = std::bit_cast<float>(expected[pattern]);
    const bool same = std::isnan(reference) ? std::isnan(actual)
                                            : std::bit_cast<std::uint32_t>(actual) == expected[pattern];
    if (!same && ++mismatches <= 10) {
      ADD_FAILURE() << "half " << hex(pattern) << ": got " << hex(std::bit_cast<std::uint32_t>(actual))
                    << ", numpy " << hex(expected[pattern]);
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST_F(Float16Reference, EveryBfloat16WidensExactly) {
  const auto expected = load<std::uint32_t>("bf16_to_float.u32", 65536);
  ASSERT_EQ(expected.size(), 65536u);
  int mismatches = 0;
  for (std::uint32_t pattern = 0; pattern < 65536; ++pattern) {
    const float actual = bfloat16BitsToFloat(static_cast<std::uint16_t>(pattern));
    const float reference = std::bit_cast<float>(expected[pattern]);
    const bool same = std::isnan(reference) ? std::isnan(actual)
                                            : std::bit_cast<std::uint32_t>(actual) == expected[pattern];
    if (!same && ++mismatches <= 10) {
      ADD_FAILURE() << "bf16 " << hex(pattern) << ": got " << hex(std::bit_cast<std::uint32_t>(actual))
                    << ", reference " << hex(expected[pattern]);
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST_F(Float16Reference, NarrowingToHalfMatchesNumpy) {
  const auto inputs = load<std::uint32_t>("narrow_inputs.u32");
  const auto expected = load<std::uint16_t>("narrow_fp16.u16", inputs.size());
  ASSERT_EQ(inputs.size(), expected.size());
  // Every fp16 value, every midpoint with neighbours, plus 200k random floats.
  EXPECT_GT(inputs.size(), 600000u);
  int mismatches = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::uint16_t actual = floatToHalfBits(std::bit_cast<float>(inputs[i]));
    const bool same = isHalfNan(expected[i]) ? isHalfNan(actual) : actual == expected[i];
    if (!same && ++mismatches <= 10) {
      ADD_FAILURE() << "float " << hex(inputs[i]) << " (" << std::bit_cast<float>(inputs[i]) << "): got "
                    << hex(actual) << ", numpy " << hex(expected[i]);
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST_F(Float16Reference, NarrowingToBfloat16MatchesReference) {
  const auto inputs = load<std::uint32_t>("narrow_inputs.u32");
  const auto expected = load<std::uint16_t>("narrow_bf16.u16", inputs.size());
  ASSERT_EQ(inputs.size(), expected.size());
  int mismatches = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::uint16_t actual = floatToBfloat16Bits(std::bit_cast<float>(inputs[i]));
    const bool same = isBfloat16Nan(expected[i]) ? isBfloat16Nan(actual) : actual == expected[i];
    if (!same && ++mismatches <= 10) {
      ADD_FAILURE() << "float " << hex(inputs[i]) << " (" << std::bit_cast<float>(inputs[i]) << "): got "
                    << hex(actual) << ", reference " << hex(expected[i]);
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// Properties numpy does not pin down (it may keep a signalling NaN signalling).

TEST(Float16, NanStaysQuietNanWithSignAndTopPayload) {
  // Payload only in the low 13 bits: plain truncation would give Inf.
  const float lowPayload = std::bit_cast<float>(0xFF800001u);
  EXPECT_EQ(floatToHalfBits(lowPayload), 0xFE00u);
  EXPECT_EQ(floatToHalfBits(std::bit_cast<float>(0x7FA02000u)), 0x7F01u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(halfBitsToFloat(0xFC01u)), 0xFFC02000u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(halfBitsToFloat(0x7E00u)), 0x7FC00000u);
}

TEST(BFloat16, NanStaysQuietNanWithSignAndTopPayload) {
  // Payload only in the low 16 bits: truncation alone would give -Inf.
  EXPECT_EQ(floatToBfloat16Bits(std::bit_cast<float>(0xFF800001u)), 0xFFC0u);
  EXPECT_EQ(floatToBfloat16Bits(std::bit_cast<float>(0x7F810000u)), 0x7FC1u);
  EXPECT_EQ(floatToBfloat16Bits(std::bit_cast<float>(0x7FC00000u)), 0x7FC0u);
}

TEST(Float16, BoundaryValues) {
  EXPECT_EQ(floatToHalfBits(65504.0f), 0x7BFFu);
  EXPECT_EQ(floatToHalfBits(std::nextafter(65520.0f, 0.0f)), 0x7BFFu);
  EXPECT_EQ(floatToHalfBits(65520.0f), 0x7C00u);
  EXPECT_EQ(floatToHalfBits(-65520.0f), 0xFC00u);
  EXPECT_EQ(floatToHalfBits(0x1p-24f), 0x0001u);
  EXPECT_EQ(floatToHalfBits(0x1p-25f), 0x0000u);  // tie, even neighbour is zero
  EXPECT_EQ(floatToHalfBits(-0x1p-25f), 0x8000u);
  EXPECT_EQ(floatToHalfBits(std::nextafter(0x1p-25f, 1.0f)), 0x0001u);
  EXPECT_EQ(floatToHalfBits(0x3p-25f), 0x0002u);  // 1.5 ulp ties up to even 2
  EXPECT_EQ(floatToHalfBits(-0.0f), 0x8000u);
  EXPECT_EQ(halfBitsToFloat(0x0001u), 0x1p-24f);
  EXPECT_EQ(halfBitsToFloat(0x03FFu), 0x3FFp-24f);
  EXPECT_EQ(halfBitsToFloat(0x7BFFu), 65504.0f);
}

TEST(BFloat16, BoundaryValues) {
  EXPECT_EQ(floatToBfloat16Bits(1.0f), 0x3F80u);
  EXPECT_EQ(floatToBfloat16Bits(std::bit_cast<float>(0x3F808000u)), 0x3F80u);  // tie to even
  EXPECT_EQ(floatToBfloat16Bits(std::bit_cast<float>(0x3F818000u)), 0x3F82u);  // tie to even (up)
  EXPECT_EQ(floatToBfloat16Bits(std::bit_cast<float>(0x7F7FFFFFu)), 0x7F80u);  // FLT_MAX overflows
  EXPECT_EQ(floatToBfloat16Bits(-std::numeric_limits<float>::infinity()), 0xFF80u);
  EXPECT_EQ(bfloat16BitsToFloat(0x0001u), std::bit_cast<float>(0x00010000u));
}

} // namespace
} // namespace pto
