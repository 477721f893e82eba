// Argument data: zeros, arange, seeded uniform/normal statistics and determinism, npy checks.
#include "core/project/ArgumentData.h"

#include "core/Float16.h"
#include "core/Npy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace pto {
namespace {

namespace fs = std::filesystem;

const SourceLocation kWhere{"pto-project.json", 12, 7};

KernelArgument argument(std::string argName, DataType dtype, InitSpec init) {
  KernelArgument arg;
  arg.name = std::move(argName);
  arg.dtype = dtype;
  arg.init = std::move(init);
  return arg;
}

HostTensor make(const KernelArgument& arg, const std::vector<std::int64_t>& shape) {
  DiagnosticEngine diags;
  std::optional<HostTensor> tensor = makeArgumentData(arg, shape, fs::path("."), diags, kWhere, 0);
  EXPECT_TRUE(tensor) << (diags.diagnostics().empty() ? "" : diags.diagnostics().front().message);
  return tensor ? *tensor : HostTensor();
}

// The one error making `arg` must give; its message.
std::string onlyError(const KernelArgument& arg, const std::vector<std::int64_t>& shape, const fs::path& projectDir,
                      int argIndex = 0) {
  DiagnosticEngine diags;
  EXPECT_FALSE(makeArgumentData(arg, shape, projectDir, diags, kWhere, argIndex));
  if (diags.errorCount() != 1 || diags.diagnostics().size() != 1)
    return "<" + std::to_string(diags.diagnostics().size()) + " diagnostics>";
  return diags.diagnostics()[0].message;
}

struct Moments {
  double mean = 0.0;
  double std = 0.0;
  double min = 0.0;
  double max = 0.0;
};

Moments moments(const HostTensor& tensor) {
  const std::int64_t count = tensor.elementCount();
  Moments m;
  m.min = m.max = tensor.getAsDouble(0);
  double sum = 0.0;
  for (std::int64_t i = 0; i < count; ++i) {
    const double v = tensor.getAsDouble(i);
    sum += v;
    m.min = std::min(m.min, v);
    m.max = std::max(m.max, v);
  }
  m.mean = sum / static_cast<double>(count);
  double squares = 0.0;
  for (std::int64_t i = 0; i < count; ++i)
    squares += (tensor.getAsDouble(i) - m.mean) * (tensor.getAsDouble(i) - m.mean);
  m.std = std::sqrt(squares / static_cast<double>(count));
  return m;
}

constexpr std::int64_t kSamples = 1000000;

TEST(ArgumentData, ZerosHaveTheDeclaredDtypeAndShape) {
  const HostTensor tensor = make(argument("z", DataType::Bf16, ZerosInit{}), {4, 5});
  EXPECT_EQ(tensor.dtype(), DataType::Bf16);
  EXPECT_EQ(tensor.shape(), (Shape{4, 5}));
  EXPECT_TRUE(tensor.equals(HostTensor(DataType::Bf16, Shape{4, 5})));
}

TEST(ArgumentData, ValuesAreTakenInCOrderAndTheirCountIsChecked) {
  const HostTensor table = make(argument("table", DataType::Int32, ValuesInit{{5, 2, 7, 0, 1, 6}}), {2, 3});
  EXPECT_EQ(table.at<std::int32_t>({0, 0}), 5);
  EXPECT_EQ(table.at<std::int32_t>({0, 2}), 7);
  EXPECT_EQ(table.at<std::int32_t>({1, 0}), 0);
  EXPECT_EQ(table.at<std::int32_t>({1, 2}), 6);
  EXPECT_EQ(onlyError(argument("table", DataType::Int32, ValuesInit{{1, 2, 3}}), {2, 3}, fs::path("."), 4),
            "args[4] 'table': init \"values\" lists 3 numbers but shape [2, 3] has 6 elements");
}

TEST(ArgumentData, ArangeCountsInCOrderAndConvertsPerDtype) {
  const HostTensor floats = make(argument("a", DataType::Fp32, ArangeInit{}), {2, 3});
  EXPECT_TRUE(floats.equals(HostTensor::fromValues<float>(Shape{2, 3}, {0, 1, 2, 3, 4, 5})));

  // int8 wraps as numpy's arange(n).astype(np.int8) does.
  const HostTensor bytes = make(argument("b", DataType::Int8, ArangeInit{}), {300});
  EXPECT_EQ(bytes.getAsDouble(127), 127.0);
  EXPECT_EQ(bytes.getAsDouble(128), -128.0);
  EXPECT_EQ(bytes.getAsDouble(255), -1.0);
  EXPECT_EQ(bytes.getAsDouble(299), 43.0);

  // fp16 holds integers exactly up to 2048, then rounds to nearest-even.
  const HostTensor half = make(argument("h", DataType::Fp16, ArangeInit{}), {5000});
  for (std::int64_t i = 0; i < 5000; ++i) {
    std::uint16_t bits = 0;
    std::memcpy(&bits, half.data() + i * 2, 2);
    ASSERT_EQ(bits, floatToHalfBits(static_cast<float>(i))) << i;
  }
  EXPECT_EQ(half.getAsDouble(2049), 2048.0);
  EXPECT_EQ(half.getAsDouble(2051), 2052.0);
}

TEST(ArgumentData, SameSeedSameBitsDifferentSeedDifferentBits) {
  for (InitSpec init : {InitSpec(UniformInit{-2.0, 2.0, 7}), InitSpec(NormalInit{0.0, 1.0, 7})}) {
    const HostTensor first = make(argument("x", DataType::Fp32, init), {64, 33});
    const HostTensor again = make(argument("y", DataType::Fp32, init), {64, 33});
    EXPECT_TRUE(first.equals(again));
    if (auto* uniform = std::get_if<UniformInit>(&init)) uniform->seed = 8;
    if (auto* normal = std::get_if<NormalInit>(&init)) normal->seed = 8;
    const HostTensor other = make(argument("x", DataType::Fp32, init), {64, 33});
    EXPECT_FALSE(first.equals(other));
    // Not merely shifted: almost no element coincides.
    std::int64_t same = 0;
    for (std::int64_t i = 0; i < first.elementCount(); ++i) same += first.getAsDouble(i) == other.getAsDouble(i);
    EXPECT_LE(same, 2);
  }
  // Seed 0 is a seed like any other (splitmix64 spreads it), not a degenerate stream.
  const HostTensor zeroSeed = make(argument("x", DataType::Fp32, UniformInit{0.0, 1.0, 0}), {1000});
  EXPECT_GT(moments(zeroSeed).std, 0.25);
}

TEST(ArgumentData, UniformFloatStatistics) {
  // uniform(-1, 3): mean 1, std 4/sqrt(12) = 1.1547; the standard error of
  // the mean over 1e6 samples is 0.0012, so 0.01 is over 8 sigma.
  const HostTensor tensor = make(argument("u", DataType::Fp32, UniformInit{-1.0, 3.0, 42}), {1000, 1000});
  const Moments m = moments(tensor);
  EXPECT_NEAR(m.mean, 1.0, 0.01);
  EXPECT_NEAR(m.std, 4.0 / std::sqrt(12.0), 0.01);
  EXPECT_GE(m.min, -1.0);
  EXPECT_LT(m.min, -0.999);
  EXPECT_LE(m.max, 3.0);  // float32 rounding may reach `high` itself
  EXPECT_GT(m.max, 2.999);
}

TEST(ArgumentData, UniformIntegersAreFlooredIntoTheHalfOpenRange) {
  const HostTensor tensor = make(argument("i", DataType::Int32, UniformInit{0.0, 10.0, 3}), {kSamples});
  std::vector<std::int64_t> histogram(10, 0);
  for (std::int64_t i = 0; i < kSamples; ++i) {
    const double v = tensor.getAsDouble(i);
    ASSERT_TRUE(v >= 0.0 && v <= 9.0) << v;
    ++histogram[static_cast<std::size_t>(v)];
  }
  // Each bucket expects 1e5 with sigma 300; 2000 is over 6 sigma.
  for (std::int64_t count : histogram) EXPECT_NEAR(static_cast<double>(count), 100000.0, 2000.0);

  const Moments negative = moments(make(argument("n", DataType::Int8, UniformInit{-5.0, 5.0, 3}), {10000}));
  EXPECT_EQ(negative.min, -5.0);
  EXPECT_EQ(negative.max, 4.0);
}

TEST(ArgumentData, NormalStatistics) {
  // normal(0.5, 1): over 1e6 samples the mean's standard error is 0.001 and
  // the std's 0.0007, so 0.01 is over 10 sigma. A Gaussian has 68.27% of its
  // mass within one std (sigma of that fraction: 0.0005).
  const HostTensor tensor = make(argument("n", DataType::Fp32, NormalInit{0.5, 1.0, 11}), {kSamples});
  const Moments m = moments(tensor);
  EXPECT_NEAR(m.mean, 0.5, 0.01);
  EXPECT_NEAR(m.std, 1.0, 0.01);
  std::int64_t withinOneStd = 0;
  for (std::int64_t i = 0; i < kSamples; ++i) withinOneStd += std::fabs(tensor.getAsDouble(i) - 0.5) <= 1.0;
  EXPECT_NEAR(static_cast<double>(withinOneStd) / kSamples, 0.6827, 0.003);

  const Moments scaled = moments(make(argument("s", DataType::Fp32, NormalInit{-3.0, 2.0, 12}), {kSamples}));
  EXPECT_NEAR(scaled.mean, -3.0, 0.02);
  EXPECT_NEAR(scaled.std, 2.0, 0.02);

  // An odd count uses half of the last Box-Muller pair.
  EXPECT_EQ(make(argument("o", DataType::Fp16, NormalInit{0.0, 1.0, 1}), {3}).elementCount(), 3);
}

TEST(ArgumentData, NpyInitReadsTheFileRelativeToTheProject) {
  const fs::path projectDir = fs::path(PTO_TEST_DATA_DIR) / "argument_data" / "npy_ok";
  fs::remove_all(projectDir);
  fs::create_directories(projectDir / "data");
  const HostTensor stored = HostTensor::fromValues<float>(Shape{2, 2}, {1.5f, -2.0f, 0.25f, 8.0f});
  DiagnosticEngine diags;
  ASSERT_TRUE(writeNpy(projectDir / "data" / "x.npy", stored, diags));
  std::optional<HostTensor> tensor =
      makeArgumentData(argument("x", DataType::Fp32, NpyInit{"data/x.npy"}), {2, 2}, projectDir, diags, kWhere, 0);
  ASSERT_TRUE(tensor);
  EXPECT_TRUE(tensor->equals(stored));
  EXPECT_FALSE(diags.hasErrors());
}

TEST(ArgumentData, NpyMismatchNamesBothDtypesAndShapes) {
  const fs::path projectDir = fs::path(PTO_TEST_DATA_DIR) / "argument_data" / "npy_mismatch";
  fs::remove_all(projectDir);
  fs::create_directories(projectDir);
  DiagnosticEngine diags;
  ASSERT_TRUE(writeNpy(projectDir / "x.npy", HostTensor(DataType::Fp16, Shape{32, 64}), diags));
  const KernelArgument arg = argument("x", DataType::Fp32, NpyInit{"x.npy"});
  EXPECT_EQ(onlyError(arg, {32, 32, 1, 256}, projectDir),
            "args[0] 'x': x.npy holds float16 [32, 64], the project declares float32 [32, 32, 1, 256]");
  // Same dtype, other shape; and without an index.
  EXPECT_EQ(onlyError(argument("x", DataType::Fp16, NpyInit{"x.npy"}), {64, 32}, projectDir, -1),
            "argument 'x': x.npy holds float16 [32, 64], the project declares float16 [64, 32]");
}

TEST(ArgumentData, NpyErrorsPointAtTheFile) {
  const fs::path projectDir = fs::path(PTO_TEST_DATA_DIR) / "argument_data" / "npy_missing";
  fs::remove_all(projectDir);
  fs::create_directories(projectDir);
  DiagnosticEngine diags;
  EXPECT_FALSE(
      makeArgumentData(argument("x", DataType::Fp32, NpyInit{"absent.npy"}), {2}, projectDir, diags, kWhere, 0));
  ASSERT_EQ(diags.errorCount(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].location.file, (projectDir / "absent.npy").string());
  EXPECT_EQ(diags.diagnostics()[0].message, "cannot read: No such file or directory");

  EXPECT_EQ(onlyError(argument("x", DataType::Fp32, NpyInit{""}), {2}, projectDir),
            "args[0] 'x': the npy init has no path");
}

TEST(ArgumentData, BadParametersAndShapesAreErrors) {
  EXPECT_EQ(onlyError(argument("w", DataType::Fp32, UniformInit{1.0, 1.0, 0}), {2}, "."),
            "args[0] 'w': uniform init needs finite low < high, got low=1, high=1");
  EXPECT_EQ(onlyError(argument("w", DataType::Fp32, NormalInit{0.0, -1.0, 0}), {2}, ".", 3),
            "args[3] 'w': normal init needs a finite mean and a finite std >= 0, got mean=0, std=-1");
  EXPECT_EQ(onlyError(argument("w", DataType::Fp32, ZerosInit{}), {1 << 20, 1 << 20}, "."),
            "args[0] 'w': a float32 tensor of shape [1048576, 1048576] needs 4398046511104 bytes, more than host "
            "tensors allow (4294967296 bytes, 4 GiB)");
  EXPECT_EQ(onlyError(argument("w", DataType::Int8, ArangeInit{}), {3, -2}, "."),
            "args[0] 'w': shape [3, -2] has a negative dimension");
}

} // namespace
} // namespace pto
