// Finding the swimlane in the folders PyPTO's simulator mode writes, which
// pto-studio opens directly.
#include "analysis/simulation/CostModelOutput.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace pto {
namespace {
namespace fs = std::filesystem;

class CostModelOutputTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_root = fs::temp_directory_path() / ("pto-cost-model-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                          "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_root);
    fs::create_directories(m_root);
  }
  void TearDown() override { fs::remove_all(m_root); }
  fs::path swimlaneIn(const std::string& runFolder) {
    const fs::path folder = m_root / "output" / runFolder / kCostModelFolderName;
    fs::create_directories(folder);
    std::ofstream(folder / kMergedSwimlaneName) << "{\"traceEvents\":[]}";
    return folder / kMergedSwimlaneName;
  }
  fs::path m_root;
};

TEST_F(CostModelOutputTest, FindsTheSwimlaneFromEachFolderLevel) {
  const fs::path swimlane = swimlaneIn("output_20261125_040000_000001_42_host");
  EXPECT_EQ(findSwimlane(swimlane), swimlane);
  EXPECT_EQ(findSwimlane(swimlane.parent_path()), swimlane);
  EXPECT_EQ(findSwimlane(swimlane.parent_path().parent_path()), swimlane);
  EXPECT_EQ(findSwimlane(m_root / "output"), swimlane);
  EXPECT_EQ(findSwimlane(m_root), std::nullopt);
  EXPECT_EQ(findSwimlane(m_root / "missing"), std::nullopt);
}

TEST_F(CostModelOutputTest, OutputFolderOpensItsNewestRun) {
  const fs::path older = swimlaneIn("output_20261125_040000_000001_42_host");
  const fs::path newer = swimlaneIn("output_20261125_050000_000001_43_host");
  fs::last_write_time(older, fs::file_time_type::clock::now() - std::chrono::hours(1));
  EXPECT_EQ(findSwimlane(m_root / "output"), newer);
  fs::create_directories(m_root / "output" / "output_20261125_060000_000001_44_host");  // a run that wrote nothing
  EXPECT_EQ(findSwimlane(m_root / "output"), newer);
}

} // namespace
} // namespace pto
