// The live buffer check: byte counts computed by hand from AllocateBuffers'
// rules (innermost dim padded to 32 bytes, rounded to the 32-byte
// granularity; a tile op's input and output tiles are live together), and
// the verdict cross-checked by compiling: "does not fit" must fail at
// AllocateBuffers, "fits" must compile.
#include "TuningTestSupport.h"

#include "analysis/tuning/TileBufferCheck.h"

#include <gtest/gtest.h>

#include <chrono>

namespace pto::testing {
namespace {

std::int64_t used(const TileBufferCheck& check, MemoryKind memory) {
  for (const MemoryUse& use : check.memories)
    if (use.memory == memory) return use.usedBytes;
  ADD_FAILURE() << "no " << title(memory) << " in the check";
  return -1;
}

TEST(TileBufferCheck, SoftmaxKernelShapeByHand) {
  const TracedProject& softmax = example("softmax");
  auto sites = collectTileSites(softmax.graph, softmax.project.tileSettings, softmax.bindings);
  TileBufferChecker checker(softmax.graph, siteByKey(sites, TileSection::Vec, "kernel.py:22"), softmax.bindings, a2());
  TileBufferCheck check = checker.checkVec({1, 4, 1, 64});
  ASSERT_EQ(check.fit, TileFit::Fits) << check.summary();
  // Worst op: sub(x, row_max) or div(num, s): a [1,4,1,64] fp32 tile in and
  // out (4*64*4 = 1024 bytes each) plus the broadcast [1,4,1,1] operand,
  // whose innermost dim pads to 8 floats: 4*8*4 = 128 bytes. 2176 in all.
  EXPECT_EQ(used(check, MemoryKind::UB), 1024 + 1024 + 128);
  EXPECT_EQ(check.memories[0].availableBytes, 192 * 1024);
  EXPECT_EQ(check.summary(), "fits: UB 2.1 KiB / 192 KiB");
}

TEST(TileBufferCheck, MixedKernelVecAndCubeByHand) {
  const TracedProject& mixed = example("muls_add_matmul_rowsum");
  auto sites = collectTileSites(mixed.graph, mixed.project.tileSettings, mixed.bindings);
  TileBufferChecker scaleAdd(mixed.graph, siteByKey(sites, TileSection::Vec, "kernel.py:16"), mixed.bindings, a2());
  // add(t, b): three [32, 32] fp32 tiles of 4096 bytes.
  EXPECT_EQ(used(scaleAdd.checkText("32, 32"), MemoryKind::UB), 3 * 4096);
  // [64, 64] covers the whole tensors: 3 * 16384.
  EXPECT_EQ(used(scaleAdd.checkText("64, 64"), MemoryKind::UB), 3 * 16384);
  TileBufferChecker rowsum(mixed.graph, siteByKey(sites, TileSection::Vec, "kernel.py:24"), mixed.bindings, a2());
  // sum over [32, 32] of product [64, 32]: the input tile 4096 bytes, the
  // [32, 1] result padded to [32, 8]: 1024 bytes.
  EXPECT_EQ(used(rowsum.checkText("32, 32"), MemoryKind::UB), 4096 + 1024);

  TileBufferChecker cube(mixed.graph, siteByKey(sites, TileSection::Cube, "kernel.py:20"), mixed.bindings, a2());
  TileBufferCheck check = cube.checkText("m 64,64 k 64,64 n 32,32");
  ASSERT_EQ(check.fit, TileFit::Fits) << check.summary();
  // A = hidden[64 x 64] fp32 = 16384, B = w[64 x 32] fp32 = 8192, C fp32 [64 x 32] = 8192.
  EXPECT_EQ(used(check, MemoryKind::L1), 16384 + 8192);
  EXPECT_EQ(used(check, MemoryKind::L0A), 16384);
  EXPECT_EQ(used(check, MemoryKind::L0B), 8192);
  EXPECT_EQ(used(check, MemoryKind::L0C), 8192);
}

TEST(TileBufferCheck, MatmulExampleAndAnL0AOverflowByHand) {
  const TracedProject& matmul = example("matmul");
  auto sites = collectTileSites(matmul.graph, matmul.project.tileSettings, matmul.bindings);
  const TileSite& site = siteByKey(sites, TileSection::Cube, "kernel.py:15");
  TileBufferChecker checker(matmul.graph, site, matmul.bindings, a2());
  TileBufferCheck check = checker.checkJson(site.effectiveValue);  // m [128,128] k [64,256] n [128,256]
  ASSERT_EQ(check.fit, TileFit::Fits) << check.summary();
  // fp16 A 128x64 = 16384, B 64x128 = 16384; fp32 C 128x128 = 65536.
  EXPECT_EQ(used(check, MemoryKind::L1), 32768);
  EXPECT_EQ(used(check, MemoryKind::L0A), 16384);
  EXPECT_EQ(used(check, MemoryKind::L0B), 16384);
  EXPECT_EQ(used(check, MemoryKind::L0C), 65536);
  // kL0 = 512: A 128x512 fp16 = 131072 bytes > L0A's 65536.
  TileBufferCheck big = checker.checkText("m 128,128 k 512,512 n 128,128");
  EXPECT_EQ(big.fit, TileFit::DoesNotFit);
  EXPECT_EQ(used(big, MemoryKind::L0A), 131072);
  EXPECT_EQ(big.summary(),
            "does not fit: L1 256 KiB / 512 KiB, L0A 128 KiB / 64 KiB, L0B 128 KiB / 64 KiB, L0C 64 KiB / 128 KiB "
            "(matmul 'gemm' at kernel.py:17)");
}

TracedProject bigVectorKernel();

TEST(TileBufferCheck, AlignmentAndFormProblemsInTheCompilersWords) {
  const TracedProject& softmax = example("softmax");
  auto sites = collectTileSites(softmax.graph, softmax.project.tileSettings, softmax.bindings);
  const TileSite& site = siteByKey(sites, TileSection::Vec, "kernel.py:22");
  TileBufferChecker checker(softmax.graph, site, softmax.bindings, a2());
  // A row of 240 bytes is padded to 256 in the unified buffer, as PyPTO pads it: valid, with a note.
  TileBufferCheck check = checker.checkText("1, 4, 1, 60");
  EXPECT_EQ(check.fit, TileFit::Fits);
  EXPECT_TRUE(check.problems.empty());
  ASSERT_EQ(check.notes.size(), 1u);
  EXPECT_NE(check.notes.front().find("240 bytes of float32; the unified buffer holds each row padded to 256 bytes"),
            std::string::npos)
      << check.notes.front();
  // The compiler takes the same shape.
  EXPECT_EQ(compileErrors(softmax, {{"vec", {{"kernel.py:22", {1, 4, 1, 60}}}}}), "");

  EXPECT_EQ(checker.checkText("4, 64").fit, TileFit::Invalid);  // rank 2 for rank-4 ops
  EXPECT_NE(checker.checkText("4, 64").problems.front().find("works on rank-4 tensors"), std::string::npos);
  EXPECT_EQ(checker.checkText("1, 0, 1, 64").fit, TileFit::Invalid);
  EXPECT_EQ(checker.checkText("1, four").summary(), "invalid: expected tile dims such as \"64, 128\"");
  // A longer tile gives its leading dims to lower-rank ops, as ExpandFunction does: [1, 4, 1, 64] here,
  // the bytes of SoftmaxKernelShapeByHand (its trailing dims would be [4, 1, 64, 8]: 8 KiB tiles).
  TileBufferCheck longer = checker.checkText("1, 4, 1, 64, 8");
  ASSERT_EQ(longer.fit, TileFit::Fits) << longer.summary();
  EXPECT_EQ(used(longer, MemoryKind::UB), 1024 + 1024 + 128);
  EXPECT_EQ(compileErrors(softmax, {{"vec", {{"kernel.py:22", {1, 4, 1, 64, 8}}}}}), "");
  // The trailing 7 is no dim of these ops: nothing is padded, and the compiler takes it too.
  TileBufferCheck trailing = checker.checkText("1, 4, 1, 64, 7");
  EXPECT_EQ(trailing.fit, TileFit::Fits) << trailing.summary();
  EXPECT_TRUE(trailing.notes.empty());
  EXPECT_EQ(compileErrors(softmax, {{"vec", {{"kernel.py:22", {1, 4, 1, 64, 7}}}}}), "");
}

TEST(TileBufferCheck, ClampNoteIsTheCompilersForATileLargerThanAllItCuts) {
  TracedProject big = bigVectorKernel();
  auto sites = collectTileSites(big.graph, big.project.tileSettings, big.bindings);
  TileBufferChecker checker(big.graph, siteByKey(sites, TileSection::Vec, "kernel.py:6"), big.bindings, a2());
  EXPECT_EQ(checker.clampNote(nlohmann::ordered_json({128, 512})), "");
  EXPECT_EQ(checker.clampNote(nlohmann::ordered_json({256, 2048})), "");  // exactly the tensor
  const std::string note = checker.clampNote(nlohmann::ordered_json({512, 1024}));
  EXPECT_EQ(note.rfind("vec tile [512, 1024] is larger than what it cuts (exp at kernel.py:7: [256, 2048]", 0), 0u)
      << note;
  EXPECT_NE(note.find("); it is clamped to [256, 1024]"), std::string::npos) << note;
}

// A kernel big enough to overflow UB: x [256, 2048] fp32.
TracedProject bigVectorKernel() {
  return writeAndTrace("bigvec",
                       "import pypto\n"
                       "\n"
                       "@pypto.frontend.jit\n"
                       "def scale(x: pypto.Tensor((256, 2048), pypto.DT_FP32),\n"
                       "          y: pypto.Tensor((256, 2048), pypto.DT_FP32)):\n"
                       "    pypto.set_vec_tile_shapes(16, 256)  # small tiles\n"
                       "    y[:] = pypto.exp(x) * 0.5\n",
                       R"({"name": "bigvec", "source": "kernel.py", "entry": "scale",
                           "args": [{"name": "x", "shape": [256, 2048], "dtype": "float32"},
                                    {"name": "y", "shape": [256, 2048], "dtype": "float32"}]})");
}

TEST(TileBufferCheck, VerdictAgreesWithCompiling) {
  TracedProject big = bigVectorKernel();
  auto sites = collectTileSites(big.graph, big.project.tileSettings, big.bindings);
  const TileSite& site = siteByKey(sites, TileSection::Vec, "kernel.py:6");
  TileBufferChecker checker(big.graph, site, big.bindings, a2());
  int fits = 0, overflows = 0;
  for (std::vector<std::int64_t> tile : std::vector<std::vector<std::int64_t>>{
           {16, 256}, {32, 512}, {64, 256}, {64, 512}, {128, 512}, {256, 256}, {48, 1024}, {256, 2048}}) {
    TileBufferCheck check = checker.checkVec(tile);
    std::string errors = compileErrors(big, {{"vec", {{"kernel.py:6", tile}}}});
    std::string shape = nlohmann::ordered_json(tile).dump();
    if (check.fit == TileFit::DoesNotFit) {
      ++overflows;
      EXPECT_NE(errors.find("bytes of unified buffer but a2 has 196608 per core"), std::string::npos) << shape << ": " << errors;
    } else if (check.fit == TileFit::Fits) {
      ++fits;
      EXPECT_EQ(errors, "") << shape << " " << check.summary();
    }
  }
  EXPECT_GE(fits, 2);
  EXPECT_GE(overflows, 2);
  // By hand: [64, 512] fp32 = 128 KiB; exp's input and output tiles would be 256 KiB > 192 KiB, but exp's
  // result is written over its dying input (in place), as the compiler's final plan does: 128 KiB fits.
  TileBufferCheck check = checker.checkVec({64, 512});
  EXPECT_EQ(check.fit, TileFit::Fits);
  EXPECT_EQ(used(check, MemoryKind::UB), 131072);
  EXPECT_EQ(compileErrors(big, {{"vec", {{"kernel.py:6", std::vector<std::int64_t>{64, 512}}}}}), "");
  // [128, 512] fp32 = 256 KiB: one tile alone is more than 192 KiB.
  check = checker.checkVec({128, 512});
  EXPECT_EQ(check.fit, TileFit::DoesNotFit);
  EXPECT_EQ(used(check, MemoryKind::UB), 262144);

  // Cube: the matmul example with kL0 = 512 fails at AllocateBuffers; its own shape compiles.
  const TracedProject& matmul = example("matmul");
  nlohmann::ordered_json tooBig = nlohmann::ordered_json::parse(R"({"m": [128, 128], "k": [512, 512], "n": [128, 128]})");
  EXPECT_NE(compileErrors(matmul, {{"cube", {{"kernel.py:15", tooBig}}}}).find("bytes of L0A buffer"), std::string::npos);
  EXPECT_EQ(compileErrors(matmul, matmul.project.tileSettings), "");
}

// AddressSanitizer makes code several times slower: a time budget means
// nothing there.
#if defined(PTO_UNDER_SANITIZERS)
constexpr bool kUnderSanitizers = true;
#else
constexpr bool kUnderSanitizers = false;
#endif

TEST(TileBufferCheck, CostsMicrosecondsPerCheck) {
  if (kUnderSanitizers) GTEST_SKIP() << "a keystroke budget for the release build, not for the sanitizer build";
  const TracedProject& softmax = example("softmax");
  auto sites = collectTileSites(softmax.graph, softmax.project.tileSettings, softmax.bindings);
  TileBufferChecker checker(softmax.graph, siteByKey(sites, TileSection::Vec, "kernel.py:22"), softmax.bindings, a2());
  constexpr int kChecks = 200;
  auto start = std::chrono::steady_clock::now();
  std::int64_t sink = 0;
  for (int i = 0; i < kChecks; ++i) sink += checker.checkText("1, 4, 1, " + std::to_string(8 * (1 + i % 32))).memories[0].usedBytes;
  double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / kChecks;
  std::printf("softmax site (6 ops): %.1f us per check\n", us);
  EXPECT_GT(sink, 0);
  EXPECT_LT(us, 2000.0);  // generous: a keystroke budget, not a benchmark
}

} // namespace
} // namespace pto::testing
