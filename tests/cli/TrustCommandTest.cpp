// Trust (issue 16): opening a project runs its Python, so pto refuses a
// project in a folder the user has not trusted — every command that runs a
// kernel — unless --trust or PTO_TRUST=1 is given, and says how to trust it.
// `pto trust` grants, lists and revokes; trust covers the folders inside;
// `pto new` projects and the bundled examples are trusted. Each test has its
// own trust store (XDG_CONFIG_HOME) and runs without the PTO_TRUST=1 that the
// test presets set for the rest of the suite.
#include "CliRunner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

namespace pto::test {
namespace {

namespace fs = std::filesystem;

class TrustCommandTest : public ::testing::Test {
protected:
  void SetUp() override {
    fs::create_directories(m_root / "config");
    fs::create_directories(m_project.parent_path());
    fs::copy(example("softmax"), m_project, fs::copy_options::recursive);
    fs::remove_all(m_project / ".pto");
  }

  // pto without PTO_TRUST, with this test's trust store.
  Result untrusted(const std::string& args) {
    std::string saved = PTO_CLI;
    return runShell("env -u PTO_TRUST XDG_CONFIG_HOME='" + (m_root / "config").string() + "' '" + saved + "' " + args);
  }

  ScratchFolder m_scratch{"pto-trust"};
  const fs::path& m_root = m_scratch.dir();
  const fs::path m_project = m_root / "received" / "softmax";
};

TEST_F(TrustCommandTest, AnUntrustedProjectIsNotRunAndTheMessageSaysHowToTrustIt) {
  Result run = untrusted("run '" + m_project.string() + "'");
  EXPECT_EQ(run.exitCode, 1) << run.err;
  EXPECT_NE(run.err.find((m_project / "pto-project.json").string()), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("not trusted"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("pto trust " + m_project.string()), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("--trust"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("PTO_TRUST=1"), std::string::npos) << run.err;
  // Nothing ran: no run was recorded.
  EXPECT_FALSE(fs::exists(m_project / ".pto" / "ledger.sqlite"));
}

TEST_F(TrustCommandTest, EveryCommandThatRunsTheKernelRefuses) {
  for (const char* command : {"check", "graph", "compile", "passes", "run", "report", "advise", "tune", "settings"}) {
    Result result = untrusted(std::string(command) + " '" + m_project.string() + "'");
    EXPECT_EQ(result.exitCode, 1) << command << ": " << result.err;
    EXPECT_NE(result.err.find("not trusted"), std::string::npos) << command << ": " << result.err;
  }
}

TEST_F(TrustCommandTest, TrustFlagAndEnvironmentRunIt) {
  Result flagged = untrusted("check --trust '" + m_project.string() + "'");
  EXPECT_EQ(flagged.exitCode, 0) << flagged.err;
  Result environment = runShell("env PTO_TRUST=1 XDG_CONFIG_HOME='" + (m_root / "config").string() + "' '" +
                                std::string(PTO_CLI) + "' check '" + m_project.string() + "'");
  EXPECT_EQ(environment.exitCode, 0) << environment.err;
  // Neither was remembered.
  EXPECT_EQ(untrusted("check '" + m_project.string() + "'").exitCode, 1);
}

TEST_F(TrustCommandTest, TrustIsRememberedCoversFoldersInsideAndIsRevocable) {
  // Trusting the folder above trusts the project in it.
  Result granted = untrusted("trust '" + m_project.parent_path().string() + "'");
  ASSERT_EQ(granted.exitCode, 0) << granted.err;
  EXPECT_NE(granted.out.find("trusted"), std::string::npos);
  EXPECT_EQ(untrusted("check '" + m_project.string() + "'").exitCode, 0);

  Result listed = untrusted("trust --list --json -");
  ASSERT_EQ(listed.exitCode, 0) << listed.err;
  nlohmann::json report = nlohmann::json::parse(listed.out);
  ASSERT_EQ(report["trusted_folders"].size(), 1u);
  EXPECT_EQ(report["trusted_folders"][0], fs::weakly_canonical(m_project.parent_path()).string());
  EXPECT_EQ(report["store"], (m_root / "config" / "pto-studio" / "trusted-folders.json").string());

  Result revoked = untrusted("trust --revoke '" + m_project.parent_path().string() + "'");
  ASSERT_EQ(revoked.exitCode, 0) << revoked.err;
  EXPECT_EQ(untrusted("check '" + m_project.string() + "'").exitCode, 1);
}


// A project file named without a folder, from inside its folder: the folder is
// the current one (this once threw "cannot make absolute path" at the trust check).
TEST_F(TrustCommandTest, AProjectFileNamedWithoutAFolderIsLookedUpInTheCurrentOne) {
  auto inProject = [&](const std::string& args) {
    return runShell("cd '" + m_project.string() + "' && env -u PTO_TRUST XDG_CONFIG_HOME='" +
                    (m_root / "config").string() + "' '" + std::string(PTO_CLI) + "' " + args);
  };
  Result refused = inProject("check pto-project.json");
  EXPECT_EQ(refused.exitCode, 1) << refused.err;
  EXPECT_NE(refused.err.find("pto trust " + m_project.string()), std::string::npos) << refused.err;
  EXPECT_EQ(refused.err.find("internal error"), std::string::npos) << refused.err;

  Result checked = inProject("check --trust pto-project.json");
  EXPECT_EQ(checked.exitCode, 0) << checked.err;
}
TEST_F(TrustCommandTest, NewProjectsAndBundledExamplesAreTrusted) {
  fs::path made = m_root / "made";
  Result created = untrusted("new '" + made.string() + "'");
  ASSERT_EQ(created.exitCode, 0) << created.err;
  Result check = untrusted("check '" + made.string() + "'");
  EXPECT_EQ(check.exitCode, 0) << check.err;
  Result bundled = untrusted("check '" + example("softmax") + "'");
  EXPECT_EQ(bundled.exitCode, 0) << bundled.err;
}

TEST_F(TrustCommandTest, ABrokenTrustStoreIsNamedAndNotOverwritten) {
  fs::create_directories(m_root / "config" / "pto-studio");
  std::ofstream(m_root / "config" / "pto-studio" / "trusted-folders.json") << "[not a store";
  Result granted = untrusted("trust '" + m_project.string() + "'");
  EXPECT_EQ(granted.exitCode, 1);
  EXPECT_NE(granted.err.find("trusted-folders.json"), std::string::npos) << granted.err;
  EXPECT_EQ(slurp(m_root / "config" / "pto-studio" / "trusted-folders.json"), "[not a store");
  EXPECT_EQ(untrusted("check '" + m_project.string() + "'").exitCode, 1);
}

} // namespace
} // namespace pto::test
