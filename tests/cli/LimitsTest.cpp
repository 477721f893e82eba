// Enforced limits (issue 16): a compilation that would make more tile ops or
// tasks than the limit stops with an error at the kernel line that went
// over, naming the limit and the variable that raises it; raising it lets
// the same project run. The limits are lowered here (the defaults are in the
// millions) so that a small example crosses them.
#include "CliRunner.h"

#include <gtest/gtest.h>

namespace pto::test {
namespace {

// pto ARGS with VARIABLES set.
Result withEnvironment(const std::string& variables, const std::string& args) {
  return runShell("env " + variables + " '" + std::string(PTO_CLI) + "' " + args);
}

TEST(Limits, TooManyTileOpsIsAnErrorAtTheKernelLineNamingTheLimit) {
  Result result = withEnvironment("PTO_MAX_TILE_OPS=5", "compile '" + example("softmax") + "'");
  EXPECT_EQ(result.exitCode, 1) << result.err;
  EXPECT_NE(result.err.find("kernel.py:"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("more than the limit of 5 tile ops (PTO_MAX_TILE_OPS); raise it with PTO_MAX_TILE_OPS=N"),
            std::string::npos)
      << result.err;
}

TEST(Limits, TooManyTasksIsAnErrorNamingTheLimit) {
  Result result = withEnvironment("PTO_MAX_TASKS=3", "run --no-record '" + example("softmax") + "'");
  EXPECT_EQ(result.exitCode, 1) << result.err;
  EXPECT_NE(result.err.find("kernel.py:"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("more than the limit of 3 tasks (PTO_MAX_TASKS)"), std::string::npos) << result.err;
}

TEST(Limits, ARaisedLimitLetsTheProjectRun) {
  Result result = withEnvironment("PTO_MAX_TILE_OPS=100000 PTO_MAX_TASKS=100000", "compile '" + example("softmax") + "'");
  EXPECT_EQ(result.exitCode, 0) << result.err;
}

TEST(Limits, AMalformedLimitKeepsTheDefaultAndSaysSo) {
  Result result = withEnvironment("PTO_MAX_TILE_OPS=lots", "check '" + example("softmax") + "'");
  EXPECT_EQ(result.exitCode, 0) << result.err;  // the default (millions) is far above softmax's needs
}

} // namespace
} // namespace pto::test
