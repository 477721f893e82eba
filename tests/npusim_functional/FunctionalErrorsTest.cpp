// What functional mode says about programs and arguments it cannot execute: each is a diagnostic naming
// the program, the instruction index and opcode, the tile op and the kernel line (never a crash), and
// the operand layout rules it relies on.
#include "CompilerTestSupport.h"
#include "compiler/passes/Pipeline.h"
#include "npusim/FunctionalExecutor.h"

#include <gtest/gtest.h>

namespace pto::testing {
namespace {

SymbolicShape dims(std::initializer_list<std::int64_t> values) { return SymbolicShape(values.begin(), values.end()); }

// y = exp(x) on [8, 64] fp32 in [4, 64] tiles; the exp is on kernel.py:3.
Compilation compiledExp() {
  TensorGraphBuilder builder("exp", kernelLine(1));
  const TensorId x = builder.addArgument("x", DataType::Fp32, dims({8, 64}), kernelLine(1));
  const TensorId y = builder.addArgument("y", DataType::Fp32, dims({8, 64}), kernelLine(1));
  builder.beginPath();
  builder.setVecTile({4, 64}, kernelLine(2));
  builder.addOp(TensorOpKind::Exp, {x}, {}, kernelLine(3), {y});
  builder.endPath();
  DiagnosticEngine diags;
  auto compiled = compileKernel(builder.finish(), CompileSettings{}, diags);
  EXPECT_TRUE(compiled) << messages(diags);
  return compiled ? std::move(compiled->compilation) : Compilation{};
}

std::vector<HostTensor> expArguments() {
  return {HostTensor(DataType::Fp32, Shape({8, 64})), HostTensor(DataType::Fp32, Shape({8, 64}))};
}

// The index of the first `opcode` instruction of program 0, or -1 when there is none (or no program).
int indexOf(const Compilation& compilation, PtoOpcode opcode) {
  if (compilation.programs.empty()) return -1;
  const PtoProgram& program = compilation.programs[0];
  for (std::size_t i = 0; i < program.instructions.size(); ++i)
    if (program.instructions[i].opcode == opcode) return static_cast<int>(i);
  return -1;
}

// Runs `compilation` on expArguments() in functional mode, which must refuse it: its diagnostics.
DiagnosticEngine refusalOf(const Compilation& compilation) {
  std::vector<HostTensor> arguments = expArguments();
  DiagnosticEngine diags;
  EXPECT_FALSE(executeFunctional(compilation, arguments, diags));
  return diags;
}

TEST(FunctionalErrors, AnOperandOutsideItsMemoryNamesTheInstructionAndTheKernelLine) {
  Compilation compilation = compiledExp();
  const int exp = indexOf(compilation, PtoOpcode::TEXP);
  ASSERT_GE(exp, 0);
  PtoOperand& dst = compilation.programs[0].instructions[static_cast<std::size_t>(exp)].dst.at(0);
  dst.offsetBytes = compilation.settings.target.capacity(MemoryKind::UB) - 512;  // 1 KiB tile: half outside
  const DiagnosticEngine diags = refusalOf(compilation);
  const std::string text = messages(diags);
  EXPECT_NE(text.find("functional simulation: program 0 (task 0), instruction " + std::to_string(exp) + " (TEXP, tile op"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("lie outside unified buffer (196608 bytes)"), std::string::npos) << text;
  ASSERT_FALSE(diags.diagnostics().empty());
  EXPECT_EQ(diags.diagnostics()[0].location.file, "kernel.py");
  EXPECT_EQ(diags.diagnostics()[0].location.line, 3);
}

TEST(FunctionalErrors, AGmOperandNamingNoCopyListEntryIsAnError) {
  Compilation compilation = compiledExp();
  const int load = indexOf(compilation, PtoOpcode::TLOAD);
  ASSERT_GE(load, 0);
  compilation.programs[0].instructions[static_cast<std::size_t>(load)].srcs.at(0).gmRegion = 7;
  const std::string text = messages(refusalOf(compilation));
  EXPECT_NE(text.find("instruction " + std::to_string(load) +
                      " (TLOAD, tile op 0, exp): GM operand names copy-in 7 but the task has 1"),
            std::string::npos)
      << text;
}

TEST(FunctionalErrors, AComputeInstructionWithoutATileOpCannotBeExecuted) {
  Compilation compilation = compiledExp();
  const int exp = indexOf(compilation, PtoOpcode::TEXP);
  ASSERT_GE(exp, 0);
  compilation.programs[0].instructions[static_cast<std::size_t>(exp)].tileOp = kNoId;
  const std::string text = messages(refusalOf(compilation));
  EXPECT_NE(text.find("(TEXP): the instruction names no tile op, so what it computes is unknown"), std::string::npos)
      << text;
}

TEST(FunctionalErrors, ArgumentsOfAnotherShapeAreRejected) {
  Compilation compilation = compiledExp();
  std::vector<HostTensor> arguments = {HostTensor(DataType::Fp32, Shape({8, 32})),
                                       HostTensor(DataType::Fp32, Shape({8, 64}))};
  DiagnosticEngine diags;
  EXPECT_FALSE(executeFunctional(compilation, arguments, diags));
  EXPECT_NE(messages(diags).find("functional simulation: argument 'x' is float32[8, 32] but the kernel was compiled "
                                 "for float32[8, 64]"),
            std::string::npos)
      << messages(diags);
}

TEST(FunctionalLayout, PaddedStridesRoundTheInnermostDimTo32Bytes) {
  EXPECT_EQ(paddedStrides({4, 3, 10}, DataType::Fp32), (std::vector<std::int64_t>{48, 16, 1}));
  EXPECT_EQ(paddedStrides({2, 17}, DataType::Fp16), (std::vector<std::int64_t>{32, 1}));
  EXPECT_EQ(paddedStrides({5, 64}, DataType::Bf16), (std::vector<std::int64_t>{64, 1}));
  EXPECT_EQ(paddedStrides({7}, DataType::Fp32), (std::vector<std::int64_t>{1}));
}

} // namespace
} // namespace pto::testing
