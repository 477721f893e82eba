// subgraphGroups: the rows `pto report` and the IDE's health panel show for
// subgraphs alike (one label, program and kernel line: a loop's bodies).
#include "analysis/report/HealthReport.h"

#include <gtest/gtest.h>

namespace pto {
namespace {

SubgraphHealth subgraph(SubgraphId id, const std::string& label, int tasks, double meanCycles) {
  SubgraphHealth health;
  health.id = id;
  health.label = label;
  health.coreType = "AIV";
  health.programId = 0;
  health.source = "kernel.py:7";
  health.tasks = tasks;
  health.meanCycles = meanCycles;
  return health;
}

// A loop whose unrolled variants are alike: the lowest-id variant ran no
// iteration at this shape (PyPTO's [8, 4, 2, 1] unroll list over 32
// iterations runs only the 8-wide body). The row shows the busiest variant,
// not the empty one, whose mean and bound would read 0.
TEST(SubgraphGroups, ARowShowsTheMemberThatRanTheMostTasks) {
  HealthReport report;
  report.subgraphs = {subgraph(0, "copy", 0, 0.0), subgraph(1, "copy", 96, 500.0), subgraph(2, "copy", 32, 400.0),
                      subgraph(3, "exp", 10, 100.0)};
  const std::vector<SubgraphGroup> rows = subgraphGroups(report);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].representative->id, 1);
  EXPECT_EQ(rows[0].subgraphs, 3);
  EXPECT_EQ(rows[0].tasks, 128);
  EXPECT_DOUBLE_EQ(rows[0].taskCycles, 96 * 500.0 + 32 * 400.0);
  EXPECT_EQ(rows[1].representative->id, 3);
}

TEST(SubgraphGroups, AmongEquallyBusyMembersTheLowestIdIsShown) {
  HealthReport report;
  report.subgraphs = {subgraph(4, "copy", 8, 10.0), subgraph(5, "copy", 8, 20.0)};
  const std::vector<SubgraphGroup> rows = subgraphGroups(report);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].representative->id, 4);
}

} // namespace
} // namespace pto
