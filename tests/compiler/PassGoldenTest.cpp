// Golden pass tests in the spirit of MLIR's FileCheck: each golden/<case>.txt holds a kernel script
// (KernelScript.h), then for each pass to stop after a line `pass <Name>` followed by the expected dump,
// one `CHECK: ` line per tile op (CompilerTestSupport.h's tileOpLine). The whole dump after that pass must
// equal the CHECK lines, in order. The expected text is written by hand from the pass contracts
// (ExpandFunction.h, RemoveRedundantOp.h); there is deliberately no way to regenerate it from the program.
#include "CompilerTestSupport.h"
#include "KernelScript.h"
#include "compiler/passes/Pipeline.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace pto::testing {
namespace {

struct Expectation {
  std::string pass;
  int line = 0;
  std::string dump;  // the CHECK lines, each ending in a newline
};

std::vector<Expectation> readExpectations(const std::string& text) {
  std::vector<Expectation> expectations;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  const std::string check = "CHECK: ";
  while (std::getline(lines, line)) {
    ++number;
    if (line.rfind("pass ", 0) == 0) {
      expectations.push_back(Expectation{line.substr(5), number, {}});
    } else if (line.rfind(check, 0) == 0) {
      if (expectations.empty()) ADD_FAILURE() << "line " << number << ": CHECK before any 'pass'";
      else expectations.back().dump += line.substr(check.size()) + "\n";
    }
  }
  return expectations;
}

void checkGolden(const std::string& caseName) {
  const std::string path = std::string(PTO_SOURCE_DIR) + "/tests/compiler/golden/" + caseName + ".txt";
  std::ifstream file(path);
  ASSERT_TRUE(file) << "cannot read " << path;
  std::stringstream buffer;
  buffer << file.rdbuf();
  const std::string text = buffer.str();

  KernelScript script = parseKernelScript(text);
  ASSERT_EQ(script.error, "") << path;
  const std::vector<Expectation> expectations = readExpectations(text);
  ASSERT_FALSE(expectations.empty()) << path << " has no 'pass' block";

  // Stop after the last pass a block names; keep the dump after each pass.
  std::map<std::string, std::string> dumps;
  CompileOptions options;
  std::size_t remaining = expectations.size();
  options.afterPass = [&](const PassInfo& pass, const Compilation& compilation) {
    dumps[std::string(pass.name)] = dumpTiles(compilation.tiles);
    for (const Expectation& expectation : expectations)
      if (expectation.pass == pass.name) --remaining;
    return remaining > 0;
  };
  DiagnosticEngine diags;
  CompileSettings settings;
  settings.bindings = script.bindings;
  compileKernel(script.graph, settings, diags, options);
  ASSERT_FALSE(diags.hasErrors()) << messages(diags);
  for (const Expectation& expectation : expectations) {
    auto dump = dumps.find(expectation.pass);
    if (dump == dumps.end()) {
      ADD_FAILURE() << path << ":" << expectation.line << ": the pipeline has no pass '" << expectation.pass << "'";
      continue;
    }
    EXPECT_EQ(dump->second, expectation.dump) << "after " << expectation.pass << " (" << path << ":"
                                              << expectation.line << ")";
  }
}

TEST(PassGolden, ElementwiseOpWithTailTiles) { checkGolden("elementwise_tail"); }

TEST(PassGolden, BroadcastOperandsStayAtOffsetZeroInTheirSizeOneDims) { checkGolden("broadcast_operand"); }

TEST(PassGolden, BroadcastOperandUnderATileOneElementWide) { checkGolden("broadcast_size_one_tile"); }

TEST(PassGolden, ReductionsAccumulatePartialTilesAlongTheReducedAxis) { checkGolden("partial_reduction"); }

TEST(PassGolden, ArgmaxKeepsTheReducedAxisWhole) { checkGolden("argmax_whole_axis"); }

TEST(PassGolden, MatmulKStepsAccumulateThenConvertANarrowOutput) { checkGolden("matmul_ksteps"); }

TEST(PassGolden, ViewsInALoopFoldIntoOffsetsWithTheLoopIndex) { checkGolden("view_in_loop"); }

TEST(PassGolden, DynamicDimIsTiledAtItsBoundValue) { checkGolden("dynamic_dim"); }

TEST(PassGolden, AssembleIsNotForwardedAcrossALoopWritingItsDestination) { checkGolden("forward_across_loop"); }

} // namespace
} // namespace pto::testing
