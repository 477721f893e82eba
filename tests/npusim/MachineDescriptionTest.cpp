// The cost formulas of a machine description, checked against the
// machine-model page's analytical formulas computed here independently.
#include "npusim/MachineFile.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pto {
namespace {

MachineDescription bundled(const std::string& machineName) {
  DiagnosticEngine diags;
  auto machine = loadMachine(std::filesystem::path(PTO_SOURCE_DIR) / "resources" / "machines" / (machineName + ".json"),
                             diags);
  EXPECT_TRUE(machine) << machineName;
  return machine.value_or(MachineDescription{});
}

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// machine-model.md, check 2: one matmul instruction on M x K x N costs
// 6 + ceil(M/16) * ceil(K/k0) * ceil(N/16) cycles, k0 = 16 for fp16/bf16,
// 32 for int8 (16x32x16 fractal), 8 for fp32 (half the fp16 rate).
TEST(MachineDescription, SingleMatmulInstructionCostsTheFormula) {
  struct Case {
    std::int64_t m, k, n;
    DataType dtype;
    std::int64_t k0;
  };
  const Case cases[] = {
      {16, 16, 16, DataType::Fp16, 16},    {128, 64, 128, DataType::Fp16, 16}, {17, 16, 16, DataType::Fp16, 16},
      {1, 1, 1, DataType::Fp16, 16},       {256, 256, 256, DataType::Bf16, 16}, {128, 64, 128, DataType::Int8, 32},
      {128, 64, 128, DataType::Fp32, 8},   {33, 100, 7, DataType::Fp32, 8},      {64, 96, 48, DataType::Int8, 32},
  };
  for (const char* machineName : {"a2", "a3", "950", "tiny"}) {
    MachineDescription machine = bundled(machineName);
    for (const Case& c : cases) {
      std::int64_t expected = 6 + ceilDiv(c.m, 16) * ceilDiv(c.k, c.k0) * ceilDiv(c.n, 16);
      EXPECT_EQ(machine.cubeMatmulCycles(c.m, c.k, c.n, c.dtype), expected)
          << machineName << " " << c.m << "x" << c.k << "x" << c.n << " " << name(c.dtype);
    }
  }
  MachineDescription a2 = bundled("a2");
  EXPECT_EQ(a2.cubeMatmulCycles(16, 16, 16, DataType::Fp16), 6 + 1);
  EXPECT_EQ(a2.cubeMatmulCycles(128, 64, 128, DataType::Fp16), 6 + 8 * 4 * 8);
  EXPECT_EQ(a2.cubeMatmulCycles(16, 16, 16, DataType::Int32), std::nullopt) << "the cube takes no int32 inputs";
}

// Also check 2: no block can beat the cube's peak MAC rate.
TEST(MachineDescription, MatmulNeverBeatsThePeakMacRate) {
  MachineDescription a2 = bundled("a2");
  for (std::int64_t size : {16, 48, 100, 512}) {
    double macs = static_cast<double>(size) * size * size;
    EXPECT_GE(static_cast<double>(*a2.cubeMatmulCycles(size, size, size, DataType::Fp16)), macs / 4096.0);
    EXPECT_GE(static_cast<double>(*a2.cubeMatmulCycles(size, size, size, DataType::Fp32)), macs / 2048.0);
  }
}

// bw(bytes) = peak * bytes / (K + bytes): the rate implied by transferCycles
// follows the curve, grows with the size, and is within 1 % of the peak at
// 100 K (100 / 101 = 99.01 %).
TEST(MachineDescription, TransferRateFollowsTheSaturationCurve) {
  for (const char* machineName : {"a2", "a3", "950", "tiny"}) {
    MachineDescription machine = bundled(machineName);
    for (std::size_t i = 0; i < kDataPathCount; ++i) {
      DataPath path = static_cast<DataPath>(i);
      if (!machine.hasPath(path)) continue;
      const PathRate& rate = *machine.paths[i];
      double peakBytesPerSecond = rate.peakGiBps * 1024.0 * 1024.0 * 1024.0;
      double previousCycles = 0.0;
      double previousRate = 0.0;
      for (std::int64_t bytes = 32; bytes <= (std::int64_t{1} << 26); bytes *= 2) {
        double cycles = machine.transferCycles(path, bytes);
        double seconds = cycles / (machine.clockGHz * 1e9);
        double achieved = static_cast<double>(bytes) / seconds;
        double curve = peakBytesPerSecond * bytes / (rate.saturationBytes + bytes);
        EXPECT_NEAR(achieved / curve, 1.0, 1e-9) << machineName << " " << name(path) << " " << bytes;
        EXPECT_GT(cycles, previousCycles) << "more bytes take longer";
        EXPECT_GT(achieved, previousRate) << "larger transfers run faster";
        EXPECT_LE(achieved, peakBytesPerSecond);
        previousCycles = cycles;
        previousRate = achieved;
      }
      auto hundredK = static_cast<std::int64_t>(std::ceil(100.0 * rate.saturationBytes));
      if (hundredK == 0) continue;
      double seconds = machine.transferCycles(path, hundredK) / (machine.clockGHz * 1e9);
      EXPECT_GE(static_cast<double>(hundredK) / seconds, 0.99 * peakBytesPerSecond) << machineName << " " << name(path);
    }
  }
}

TEST(MachineDescription, TransferEdgeCases) {
  MachineDescription a2 = bundled("a2");
  EXPECT_EQ(a2.transferCycles(DataPath::GmToL1, 0), 0.0);
  EXPECT_TRUE(std::isinf(a2.transferCycles(DataPath::L0CToUb, 4096))) << "A2 has no L0C->UB path";
  // 64 KiB GM->L1 at 135 GiB/s with K = 15671 bytes, 1.85 GHz: (K + bytes) / peak * f.
  double expected = (15671.0 + 65536.0) / (135.0 * 1073741824.0) * 1.85e9;
  EXPECT_NEAR(a2.transferCycles(DataPath::GmToL1, 65536), expected, 1e-6 * expected);
}

// startup + ceil(factor * bytes / bytes_per_cycle), with A2's 32-cycle
// start-up and 256 bytes per cycle.
TEST(MachineDescription, VectorInstructionCost) {
  MachineDescription a2 = bundled("a2");
  EXPECT_EQ(a2.vectorCycles(VectorOpClass::Add, 256), 32 + 1);
  EXPECT_EQ(a2.vectorCycles(VectorOpClass::Add, 257), 32 + 2);
  EXPECT_EQ(a2.vectorCycles(VectorOpClass::Add, 64 * 1024), 32 + 256);
  EXPECT_EQ(a2.vectorCycles(VectorOpClass::Exp, 64 * 1024), 32 + 512);
  EXPECT_EQ(a2.vectorCycles(VectorOpClass::Reduce, 1000), 32 + 14);  // ceil(3.5 * 1000 / 256) = ceil(13.67)
  EXPECT_EQ(a2.vectorCycles(VectorOpClass::Add, 0), 32);
  for (std::size_t i = 0; i < kVectorOpClassCount; ++i) {
    auto opClass = static_cast<VectorOpClass>(i);
    if (opClass == VectorOpClass::Exp || opClass == VectorOpClass::Log || opClass == VectorOpClass::Div) {
      EXPECT_GT(a2.vectorCycles(opClass, 8192), a2.vectorCycles(VectorOpClass::Add, 8192))
          << name(opClass) << " costs more than add";
    }
  }
}

TEST(MachineDescription, SustainedGlobalMemoryBandwidth) {
  MachineDescription a2 = bundled("a2");
  // 1.6 TB/s at 80 % efficiency, in bytes per 1.85 GHz cycle.
  EXPECT_NEAR(a2.sustainedGmBytesPerCycle(), 1.6e12 * 0.8 / 1.85e9, 1e-9);
}

TEST(MachineDescription, NamesRoundTrip) {
  for (std::size_t i = 0; i < kMemoryKindCount; ++i)
    EXPECT_EQ(parseMemoryKind(name(static_cast<MemoryKind>(i))), static_cast<MemoryKind>(i));
  for (std::size_t i = 0; i < kDataPathCount; ++i) {
    auto path = static_cast<DataPath>(i);
    EXPECT_EQ(parseDataPath(name(path)), path);
    EXPECT_EQ(dataPathBetween(source(path), destination(path)), path);
    EXPECT_EQ(std::string(name(path)),
              std::string(name(source(path))) + "_to_" + std::string(name(destination(path))));
  }
  for (std::size_t i = 0; i < kVectorOpClassCount; ++i)
    EXPECT_EQ(parseVectorOpClass(name(static_cast<VectorOpClass>(i))), static_cast<VectorOpClass>(i));
  EXPECT_EQ(dataPathBetween(MemoryKind::GM, MemoryKind::L0A), std::nullopt);
}

} // namespace
} // namespace pto
