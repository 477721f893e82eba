// `pto validate`: the timing validation table. The whole suite runs here, so CI holds the simulator to it:
// every measured case within its stated tolerance of the published time (+-15 % unless the suite gives a
// reason for a side), every bound respected (simulated >= the machine's first-principles bound, and within
// the case's stated ratio of it). Also --list, --case and a malformed suite.
#include "CliRunner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

namespace {

namespace fs = std::filesystem;
using pto::test::Result;
using pto::test::runPto;
using pto::test::slurp;

const fs::path kSuite = fs::path(PTO_SOURCE_DIR) / "resources/validation";

TEST(ValidateCommand, EveryCaseMeetsItsStatedTolerance) {
  Result result = runPto("validate --suite " + kSuite.string() + " --json -");
  const nlohmann::json report = nlohmann::json::parse(result.out);
  const nlohmann::json suite = nlohmann::json::parse(slurp(kSuite / "validation.json"));
  std::map<std::string, nlohmann::json> stated;
  for (const auto& entry : suite["cases"]) stated[entry["name"].get<std::string>()] = entry;
  int measured = 0, bounds = 0;
  for (const auto& entry : report["cases"]) {
    const std::string name = entry["name"];
    const nlohmann::json& spec = stated.at(name);
    const std::string kind = entry["kind"];
    if (kind == "pending") {
      EXPECT_TRUE(entry["pass"].is_null()) << name;
      continue;
    }
    ASSERT_TRUE(entry.contains("simulated_us")) << name << ": " << entry.dump();
    const double simulated = entry["simulated_us"];
    if (kind == "measured") {
      ++measured;
      const double published = spec["published_us"];
      const double below = spec["tolerance"].value("below", 0.15), above = spec["tolerance"].value("above", 0.15);
      // A side wider than +-15 % must say why.
      if (below > 0.15 || above > 0.15) EXPECT_FALSE(spec.value("tolerance_reason", "").empty()) << name;
      EXPECT_GE(simulated, published * (1.0 - below)) << name;
      EXPECT_LE(simulated, published * (1.0 + above)) << name;
    } else {
      ++bounds;
      const double bound = entry["bound_us"];
      EXPECT_GT(bound, 0.0) << name;
      EXPECT_GE(simulated, bound) << name << ": faster than the machine's own peak figures";
      EXPECT_LE(simulated, bound * spec["max_ratio"].get<double>()) << name;
    }
    EXPECT_EQ(entry["pass"], true) << name;
  }
  EXPECT_GE(measured, 7);
  EXPECT_GE(bounds, 6);
  EXPECT_EQ(report["pass"], true);
  EXPECT_EQ(result.exitCode, 0) << result.err;
}

TEST(ValidateCommand, ListsCasesAndRunsOneByName) {
  Result list = runPto("validate --suite " + kSuite.string() + " --list");
  EXPECT_EQ(list.exitCode, 0) << list.err;
  EXPECT_NE(list.out.find("indexer_prolog_linear_int8"), std::string::npos);
  EXPECT_NE(list.out.find("gemm_performance"), std::string::npos) << "sources are listed";
  Result one = runPto("validate --suite " + kSuite.string() + " --case indexer_prolog_linear_int8");
  EXPECT_EQ(one.exitCode, 0) << one.out << one.err;
  EXPECT_NE(one.out.find("1 passed, 0 failed, 0 pending of 1 cases"), std::string::npos) << one.out;
  Result unknown = runPto("validate --suite " + kSuite.string() + " --case no_such_case");
  EXPECT_EQ(unknown.exitCode, 1);
  EXPECT_NE(unknown.err.find("no validation case 'no_such_case'"), std::string::npos) << unknown.err;
}

TEST(ValidateCommand, AMalformedSuiteIsAnErrorAtItsFileAndLine) {
  const fs::path dir = fs::temp_directory_path() / ("pto-validate-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  std::ofstream(dir / "validation.json") << "{\n  \"cases\": [\n    {\"name\": \"odd\", \"kind\": \"guessed\"}\n  ]\n}\n";
  Result result = runPto("validate --suite " + dir.string());
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("validation.json:3"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("\"kind\" must be"), std::string::npos) << result.err;
  std::ofstream(dir / "validation.json") << "not json";
  Result garbage = runPto("validate --suite " + dir.string());
  EXPECT_EQ(garbage.exitCode, 1);
  EXPECT_NE(garbage.err.find("not a validation suite"), std::string::npos) << garbage.err;
  fs::remove_all(dir);
}

} // namespace
