// When pto restarts itself to give glibc's heap transparent huge pages
// (core/ProcessMemory.h), and with which GLIBC_TUNABLES.
#include "core/ProcessMemory.h"

#include <gtest/gtest.h>

namespace pto {
namespace {

constexpr const char* kMadvise = "always [madvise] never\n";

TEST(HeapRestart, AsksForHugePagesWhenTheKernelGivesThemOnRequest) {
  const HeapRestart plan = planHeapRestart(nullptr, kMadvise, nullptr, false);
  EXPECT_TRUE(plan.restart);
  EXPECT_EQ(plan.tunables, "glibc.malloc.hugetlb=1");
}

TEST(HeapRestart, KeepsTheUsersOtherTunables) {
  const HeapRestart plan = planHeapRestart("glibc.malloc.arena_max=2", kMadvise, nullptr, false);
  EXPECT_TRUE(plan.restart);
  EXPECT_EQ(plan.tunables, "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
  EXPECT_EQ(planHeapRestart("", kMadvise, nullptr, false).tunables, "glibc.malloc.hugetlb=1");
}

TEST(HeapRestart, LeavesTheUsersOwnHugePageChoice) {
  EXPECT_FALSE(planHeapRestart("glibc.malloc.hugetlb=0", kMadvise, nullptr, false).restart);
  EXPECT_FALSE(planHeapRestart("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=2", kMadvise, nullptr, false).restart);
}

TEST(HeapRestart, NotWhenItCannotHelp) {
  // `always`: the heap has them already; `never`: it cannot; no file: not Linux's THP.
  EXPECT_FALSE(planHeapRestart(nullptr, "[always] madvise never\n", nullptr, false).restart);
  EXPECT_FALSE(planHeapRestart(nullptr, "always madvise [never]\n", nullptr, false).restart);
  EXPECT_FALSE(planHeapRestart(nullptr, "", nullptr, false).restart);
}

TEST(HeapRestart, NotWhenTurnedOffOrAlreadyRestarted) {
  EXPECT_FALSE(planHeapRestart(nullptr, kMadvise, "0", false).restart);
  EXPECT_TRUE(planHeapRestart(nullptr, kMadvise, "1", false).restart);
  EXPECT_FALSE(planHeapRestart(nullptr, kMadvise, nullptr, true).restart);  // never a loop
}

} // namespace
} // namespace pto
