// The IDE's Run job (app/studio/ProjectRunJob) across an edit: with the
// RunController's kept compile stages, a rerun after a pass-option edit runs
// only the passes from the first one that reads the edited option, says so
// (the status bar's text), and simulates what a run without kept stages
// simulates. Plain C++ on the test thread, as the job runs on a worker.
#include "app/studio/ProjectRunJob.h"
#include "core/project/ProjectFile.h"

#include <QTest>

#include <filesystem>

using namespace pto;
using namespace pto::studio;

namespace {

ProjectRunRequest softmaxRequest(std::shared_ptr<PassResultCache> stages) {
  DiagnosticEngine diags;
  auto project = loadProject(std::filesystem::path(PTO_SOURCE_DIR) / "resources/examples/softmax", diags);
  if (!project) qFatal("%s", diags.printed().c_str());
  ProjectRunRequest request;
  request.project = std::move(*project);
  // Not recorded: the example's folder gets no run ledger.
  request.recordInLedger = std::make_shared<const std::atomic<bool>>(false);
  request.passStages = std::move(stages);
  return request;
}

} // namespace

class ProjectRunJobTest : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void aRerunAfterAnEditRunsOnlyThePassesTheEditInvalidates() {
    const std::atomic<bool> notCancelled{false};
    auto stages = std::make_shared<PassResultCache>(10, true);
    ProjectRunOutcome first = runProjectForViews(softmaxRequest(stages), notCancelled);
    QVERIFY2(first.trace, first.problems.c_str());
    QCOMPARE(first.passesRan, std::string("all 13 passes ran"));
    // The same settings again: nothing to compile.
    ProjectRunOutcome again = runProjectForViews(softmaxRequest(stages), notCancelled);
    QCOMPARE(again.passesRan, std::string("no pass ran (13 reused)"));
    QCOMPARE(again.makespanUs, first.makespanUs);
    // vec_nbuffer_setting is read by NBufferMerge, the 7th pass: it and the six after it run.
    const nlohmann::ordered_json merged = {{"softmax", 2}};
    ProjectRunRequest edited = softmaxRequest(stages);
    edited.project.passOptions["vec_nbuffer_setting"] = merged;
    ProjectRunOutcome rerun = runProjectForViews(edited, notCancelled);
    QVERIFY2(rerun.trace, rerun.problems.c_str());
    QCOMPARE(rerun.passesRan, std::string("7 passes ran (NBufferMerge onwards), 6 reused"));
    // What the same edit gives compiled from scratch.
    ProjectRunRequest fresh = softmaxRequest(nullptr);
    fresh.project.passOptions["vec_nbuffer_setting"] = merged;
    ProjectRunOutcome scratch = runProjectForViews(fresh, notCancelled);
    QCOMPARE(scratch.passesRan, std::string("all 13 passes ran"));
    QCOMPARE(rerun.makespanUs, scratch.makespanUs);
    QVERIFY(rerun.makespanUs != first.makespanUs);  // the edit matters, so the comparison means something
  }
};

QTEST_GUILESS_MAIN(ProjectRunJobTest)
#include "ProjectRunJobTest.moc"
