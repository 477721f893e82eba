// The Advice dock in the main window, offscreen (issue 15): on the softmax
// example the advisor proposes a vec_nbuffer_setting for softmax; Apply makes
// it one undoable settings edit, the project reruns, and the run obtains the
// makespan the advisor predicted (the prediction is the advisor's own
// simulation of the patched project; the obtained one is the IDE's full run,
// a separate path through tracing, compiling and simulating). Ctrl+Z puts
// the setting back; a kernel-edit suggestion (a loop barrier) edits the
// editor instead and undoes there. The tuner's best row is the fastest point it evaluated,
// and applying it obtains that point's makespan. A patch that reaches
// outside the settings applies nothing. A sweep on a Dask cluster (two local
// worker processes) shows its progress as results arrive and where the points
// run, and simulates the project as the IDE holds it, unsaved edits included.
#include "app/studio/AdviceController.h"
#include "app/studio/MainWindow.h"
#include "StudioGuiTestCase.h"
#include "StudioTestSupport.h"
#include "core/project/ProjectFile.h"
#include "widgets/AdvicePanel.h"
#include "widgets/ProjectSettingsDocument.h"
#include "widgets/SourceEditor.h"
#include "widgets/QCustomPlot.h"
#include "widgets/models/TunePointsModel.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QProcess>
#include <QScopeGuard>
#include <QSettings>
#include <QProgressBar>
#include <QTableView>
#include <QTest>
#include <QUndoStack>

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

namespace {

constexpr int kRunTimeoutMs = 180000;

// The softmax example copied into `folder` and run once (auto-run off, so
// every run in the test is one the test started or an apply started).
bool openAndRun(pto::studio::MainWindow& window, const QString& folder) {
  QSignalSpy finished(&window, &pto::studio::MainWindow::runFinished);
  return pto::testing::createAndRun(window, finished, folder, QStringLiteral("softmax"), kRunTimeoutMs) &&
         finished.first().first().toBool();
}

bool within(double value, double reference, double share) { return std::abs(value - reference) <= share * reference; }

} // namespace

class AdviceGuiTest : public pto::testing::StudioGuiTestCase {
  Q_OBJECT

private Q_SLOTS:
  void applyingASuggestionObtainsItsPredictionAndUndoes() {
    pto::studio::MainWindow window;
    window.resize(1600, 1000);
    window.show();
    QVERIFY(openAndRun(window, m_dir->filePath(QStringLiteral("softmax"))));
    const double runUs = window.lastRun().makespanUs;
    window.showView(pto::studio::MainWindow::View::Advice);

    pto::studio::AdviceController* controller = window.adviceController();
    pto::widgets::AdvicePanel* panel = window.advicePanel();
    QSignalSpy advised(controller, &pto::studio::AdviceController::adviceFinished);
    QVERIFY(panel->adviseButton()->isEnabled());
    QTest::mouseClick(panel->adviseButton(), Qt::LeftButton);
    QVERIFY(panel->isBusy());
    QVERIFY(window.busy());
    QVERIFY(advised.wait(kRunTimeoutMs));
    QVERIFY(advised.first().first().toBool());
    QVERIFY(!panel->isBusy());
    QVERIFY(controller->advice());
    const pto::Advice advice = *controller->advice();
    // The advisor's baseline is the settings as they stand: the run's makespan.
    QVERIFY2(within(advice.baselineUs, runUs, 0.01), qPrintable(QStringLiteral("%1 vs %2").arg(advice.baselineUs).arg(runUs)));
    QVERIFY(!advice.suggestions.empty());
    QCOMPARE(panel->suggestionCount(), static_cast<int>(advice.suggestions.size()));
    const pto::Suggestion suggestion = advice.suggestions.front();
    QCOMPARE(QString::fromStdString(suggestion.rule), QStringLiteral("scheduling-bound-vector"));
    QVERIFY(suggestion.predictedUs < 0.5 * suggestion.baselineUs);  // softmax's 1 024 short vector tasks merge well

    // The value the patch writes for softmax's merge count.
    nlohmann::json wanted;
    for (const auto& operation : suggestion.patch) {
      const std::string path = operation.value("path", "");
      if (path == "/pass_options/vec_nbuffer_setting/softmax") wanted = operation["value"];
      if (path == "/pass_options/vec_nbuffer_setting") wanted = operation["value"]["softmax"];
      if (path == "/pass_options") wanted = operation["value"]["vec_nbuffer_setting"]["softmax"];
    }
    QVERIFY2(!wanted.is_null(), suggestion.patch.dump().c_str());
    pto::widgets::ProjectSettingsDocument* settings = window.settings();
    const nlohmann::ordered_json before = settings->passOption(QStringLiteral("vec_nbuffer_setting"));
    QVERIFY(before.is_null() || !before.contains("softmax") || before["softmax"] != nlohmann::ordered_json::parse(wanted.dump()));

    QSignalSpy checked(controller, &pto::studio::AdviceController::applyChecked);
    QSignalSpy finished(&window, &pto::studio::MainWindow::runFinished);
    const int undoSteps = settings->undoStack()->index();
    QTest::mouseClick(panel->applyButton(0), Qt::LeftButton);
    // One undo step, named after the suggestion.
    QCOMPARE(settings->undoStack()->index(), undoSteps + 1);
    QCOMPARE(settings->undoStack()->undoText(), QStringLiteral("Apply advice: %1").arg(QString::fromStdString(suggestion.title)));
    QCOMPARE(settings->passOption(QStringLiteral("vec_nbuffer_setting"))["softmax"], nlohmann::ordered_json::parse(wanted.dump()));
    QCOMPARE(window.project()->passOptions["vec_nbuffer_setting"]["softmax"], nlohmann::ordered_json::parse(wanted.dump()));
    QVERIFY(!panel->applyButton(0)->isEnabled());

    QVERIFY(checked.wait(kRunTimeoutMs));
    QCOMPARE(finished.count(), 1);  // one run: the apply's
    const double predicted = checked.first().at(0).toDouble();
    const double obtained = checked.first().at(1).toDouble();
    QCOMPARE(predicted, suggestion.predictedUs);
    QCOMPARE(obtained, window.lastRun().makespanUs);
    QVERIFY2(within(obtained, predicted, 0.01),
             qPrintable(QStringLiteral("predicted %1 us, obtained %2 us").arg(predicted).arg(obtained)));
    const QString outcome = panel->suggestionOutcome(0);
    QVERIFY2(outcome.startsWith(QStringLiteral("predicted %1 \u00B5s").arg(predicted, 0, 'f', 2)), qPrintable(outcome));
    QVERIFY2(outcome.contains(QStringLiteral("obtained %1 \u00B5s").arg(obtained, 0, 'f', 2)), qPrintable(outcome));
    std::printf("softmax: %s -> predicted %.3f us, obtained %.3f us (run before %.3f us)\n", suggestion.title.c_str(),
                predicted, obtained, runUs);

    // Undo (Ctrl+Z): the setting is back, in the document and in the project a run uses.
    // (The window's action with the Undo key, Edit > Undo settings edit.)
    QAction* undo = nullptr;
    for (QAction* action : window.findChildren<QAction*>())
      if (action->shortcut() == QKeySequence(QKeySequence::Undo)) undo = action;
    QVERIFY(undo && undo->isEnabled());
    QCOMPARE(undo->text(), QStringLiteral("&Undo settings edit Apply advice: %1").arg(QString::fromStdString(suggestion.title)));
    undo->trigger();
    QCOMPARE(settings->undoStack()->index(), undoSteps);
    QCOMPARE(settings->passOption(QStringLiteral("vec_nbuffer_setting")), before);
    QCOMPARE(window.project()->passOptions.value("vec_nbuffer_setting", nlohmann::ordered_json()), before);
  }

  void theTunersBestRowIsTheFastestPointAndApplies() {
    pto::studio::MainWindow window;
    window.resize(1600, 1000);
    window.show();
    QVERIFY(openAndRun(window, m_dir->filePath(QStringLiteral("softmax"))));
    pto::studio::AdviceController* controller = window.adviceController();
    pto::widgets::AdvicePanel* panel = window.advicePanel();
    QAbstractItemModelTester tester(panel->paretoModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);

    panel->budget()->setValue(8);
    panel->strategy()->setCurrentIndex(0);  // grid
    panel->clusterField()->clear();  // on this machine
    QSignalSpy tuned(controller, &pto::studio::AdviceController::tuneFinished);
    QTest::mouseClick(panel->tuneButton(), Qt::LeftButton);
    QVERIFY(tuned.wait(kRunTimeoutMs));
    QVERIFY(tuned.first().first().toBool());
    QVERIFY(controller->tuneResult());
    const pto::TuneResult result = *controller->tuneResult();
    QVERIFY(result.evaluated > 0 && result.evaluated <= 8);

    // The fastest point, found here from the points themselves.
    int fastest = -1;
    double fastestUs = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < result.points.size(); ++i)
      if (result.points[i].status == "ok" && result.points[i].makespanUs < fastestUs)
        fastest = static_cast<int>(i), fastestUs = result.points[i].makespanUs;
    QVERIFY(fastest >= 0);
    pto::widgets::TunePointsModel* model = panel->paretoModel();
    QCOMPARE(model->rowCount(), static_cast<int>(result.pareto.size()));
    QCOMPARE(model->data(model->index(0, 0), pto::widgets::TunePointsModel::MakespanUsRole).toDouble(), fastestUs);
    // (Points can tie: the best is one of the fastest, the first row is the best.)
    QCOMPARE(result.points[static_cast<std::size_t>(result.best)].makespanUs, fastestUs);
    QCOMPARE(model->pointAt(0), result.best);
    QVERIFY(model->data(model->index(0, 0), pto::widgets::TunePointsModel::IsBestRole).toBool());
    QCOMPARE(panel->selectedTunePoint(), result.best);
    // Down the front each point is slower and no busier than the one above.
    for (int row = 1; row < model->rowCount(); ++row) {
      QVERIFY(model->data(model->index(row, 0), pto::widgets::TunePointsModel::MakespanUsRole).toDouble() >=
              model->data(model->index(row - 1, 0), pto::widgets::TunePointsModel::MakespanUsRole).toDouble());
      QVERIFY(model->data(model->index(row, 0), pto::widgets::TunePointsModel::BusyUsRole).toDouble() <=
              model->data(model->index(row - 1, 0), pto::widgets::TunePointsModel::BusyUsRole).toDouble());
    }
    // The plot: every simulated point, the front, the fastest.
    QCOMPARE(panel->plot()->graph(0)->dataCount(), result.evaluated);
    QCOMPARE(panel->plot()->graph(1)->dataCount(), static_cast<int>(result.pareto.size()));
    QCOMPARE(panel->plot()->graph(2)->dataCount(), 1);

    // Tuned again, every point comes from the project's result cache, as the
    // headline and the Result column say, with the same makespans.
    tuned.clear();
    QTest::mouseClick(panel->tuneButton(), Qt::LeftButton);
    QVERIFY(tuned.wait(kRunTimeoutMs));
    const pto::TuneResult again = *controller->tuneResult();
    QCOMPARE(again.evaluated, result.evaluated);
    QCOMPARE(again.cached, result.evaluated);
    for (std::size_t i = 0; i < again.points.size(); ++i)
      QCOMPARE(again.points[i].makespanUs, result.points[i].makespanUs);
    QCOMPARE(model->data(model->index(0, pto::widgets::TunePointsModel::SourceColumn)).toString(), QStringLiteral("cached"));
    QVERIFY2(panel->tuneHeadline().contains(QStringLiteral("0 simulated, %1 from the cache").arg(result.evaluated)),
             qPrintable(panel->tuneHeadline()));

    // Apply best: one undo step; the rerun obtains the point's makespan.
    pto::widgets::ProjectSettingsDocument* settings = window.settings();
    const int undoSteps = settings->undoStack()->index();
    const nlohmann::ordered_json passBefore = settings->passOptions();
    const nlohmann::ordered_json runtimeBefore = settings->runtimeOptions();
    QSignalSpy checked(controller, &pto::studio::AdviceController::applyChecked);
    QTest::mouseClick(panel->applyBestButton(), Qt::LeftButton);
    QVERIFY(checked.wait(kRunTimeoutMs));
    const double obtained = checked.first().at(1).toDouble();
    QVERIFY2(within(obtained, fastestUs, 0.01), qPrintable(QStringLiteral("best %1 us, obtained %2 us").arg(fastestUs).arg(obtained)));
    QVERIFY2(panel->tuneOutcome().contains(QStringLiteral("obtained")), qPrintable(panel->tuneOutcome()));
    std::printf("softmax tune (grid, 8): best %.3f us, obtained %.3f us\n", fastestUs, obtained);
    if (settings->undoStack()->index() > undoSteps) {  // the best point may be the settings as they were
      QCOMPARE(settings->undoStack()->index(), undoSteps + 1);
      settings->undoStack()->undo();
    }
    QCOMPARE(settings->passOptions(), passBefore);
    QCOMPARE(settings->runtimeOptions(), runtimeBefore);
  }

  void aPatchOutsideTheSettingsAppliesNothing() {
    pto::DiagnosticEngine diags;
    auto project = pto::loadProject(PTO_SOURCE_DIR "/resources/examples/softmax", diags);
    QVERIFY(project);
    pto::widgets::ProjectSettingsDocument settings;
    settings.load(*project);
    QString error;
    // One setting and the kernel's bindings: refused whole.
    const auto mixed = nlohmann::json::parse(R"([{"op": "add", "path": "/pass_options/vec_nbuffer_setting", "value": {"softmax": 4}},
                                                 {"op": "replace", "path": "/bindings/B", "value": 4}])");
    QVERIFY(!settings.applyPatch(mixed, QStringLiteral("mixed"), &error));
    QVERIFY2(error.contains(QStringLiteral("/bindings/B")), qPrintable(error));
    QCOMPARE(settings.undoStack()->count(), 0);
    QVERIFY(settings.passOption(QStringLiteral("vec_nbuffer_setting")).is_null());
    // A patch that does not apply (nothing to replace there).
    QVERIFY(!settings.applyPatch(nlohmann::json::parse(R"([{"op": "replace", "path": "/runtime_options/nope/x", "value": 1}])"),
                                 QStringLiteral("bad"), &error));
    QCOMPARE(settings.undoStack()->count(), 0);
    // Settings of every kind in one patch: one undo step that undoes all of them.
    const auto several = nlohmann::json::parse(R"([{"op": "add", "path": "/pass_options/vec_nbuffer_setting", "value": {"softmax": 4}},
                                                   {"op": "add", "path": "/runtime_options/device_sched_mode", "value": 2},
                                                   {"op": "add", "path": "/tile_settings/vec", "value": {"DEFAULT": [8, 256]}},
                                                   {"op": "replace", "path": "/machine", "value": "a3"}])");
    QVERIFY2(settings.applyPatch(several, QStringLiteral("several"), &error), qPrintable(error));
    QCOMPARE(settings.undoStack()->count(), 1);
    QCOMPARE(settings.undoStack()->undoText(), QStringLiteral("several"));
    QCOMPARE(settings.passOption(QStringLiteral("vec_nbuffer_setting"))["softmax"], 4);
    QCOMPARE(settings.runtimeOption(QStringLiteral("device_sched_mode")), 2);
    QCOMPARE(settings.tileShape(QStringLiteral("vec"), QStringLiteral("DEFAULT")), nlohmann::ordered_json::parse("[8, 256]"));
    QCOMPARE(settings.machine(), QStringLiteral("a3"));
    settings.undoStack()->undo();
    QVERIFY(settings.passOption(QStringLiteral("vec_nbuffer_setting")).is_null());
    QVERIFY(settings.runtimeOption(QStringLiteral("device_sched_mode")).is_null());
    QVERIFY(settings.tileShape(QStringLiteral("vec"), QStringLiteral("DEFAULT")).is_null());
    QCOMPARE(settings.machine(), QStringLiteral("a2"));
  }

  // A suggestion that lives in the kernel (a loop barrier between loops that share no data): Apply edits the
  // kernel in the editor as one undo step there, the rerun obtains the prediction, and Undo in the editor puts
  // the barrier back.
  void aKernelEditSuggestionEditsTheEditorAndUndoesThere() {
    const QString folder = m_dir->filePath(QStringLiteral("loop-barrier"));
    QVERIFY(QDir().mkpath(folder));
    for (const char* name : {"kernel.py", "pto-project.json"})
      QVERIFY(QFile::copy(QStringLiteral(PTO_SOURCE_DIR "/tests/data/advisor/loop-barrier/") + QLatin1String(name),
                          folder + QLatin1Char('/') + QLatin1String(name)));
    pto::studio::MainWindow window;
    window.resize(1600, 1000);
    window.show();
    window.setAutoRun(false);
    QSignalSpy finished(&window, &pto::studio::MainWindow::runFinished);
    QVERIFY(window.open(folder));
    window.runProject();
    QVERIFY(finished.wait(kRunTimeoutMs) && finished.first().first().toBool());
    const double runUs = window.lastRun().makespanUs;

    pto::studio::AdviceController* controller = window.adviceController();
    pto::widgets::AdvicePanel* panel = window.advicePanel();
    QSignalSpy advised(controller, &pto::studio::AdviceController::adviceFinished);
    QTest::mouseClick(panel->adviseButton(), Qt::LeftButton);
    QVERIFY(advised.wait(kRunTimeoutMs));
    QVERIFY(controller->advice());
    int index = -1;
    for (std::size_t i = 0; i < controller->advice()->suggestions.size(); ++i)
      if (controller->advice()->suggestions[i].rule == "loop-barrier") index = static_cast<int>(i);
    QVERIFY(index >= 0);
    const pto::Suggestion suggestion = controller->advice()->suggestions[static_cast<std::size_t>(index)];
    QVERIFY(suggestion.kernelEdit);
    QVERIFY(suggestion.predictedUs < 0.8 * runUs);

    const QString before = window.editor()->text();
    QVERIFY(before.contains(QStringLiteral("submit_before_loop=True")));
    QSignalSpy checked(controller, &pto::studio::AdviceController::applyChecked);
    QTest::mouseClick(panel->applyButton(index), Qt::LeftButton);
    QVERIFY(window.editor()->text().contains(QStringLiteral("submit_before_loop=False")));
    QVERIFY(!window.editor()->text().contains(QStringLiteral("submit_before_loop=True")));
    QVERIFY(checked.wait(kRunTimeoutMs));
    const double predicted = checked.first().at(0).toDouble(), obtained = checked.first().at(1).toDouble();
    QVERIFY2(within(obtained, predicted, 0.01),
             qPrintable(QStringLiteral("predicted %1 us, obtained %2 us").arg(predicted).arg(obtained)));
    QVERIFY(obtained < runUs);

    window.editor()->undo();  // one step puts the whole edit back
    QCOMPARE(window.editor()->text(), before);
  }

  void aSweepOnADaskClusterShowsItsProgressAndSimulatesTheProjectAsHeld() {
#ifdef PTO_UNDER_SANITIZERS
    QSKIP("the cluster's workers would run the instrumented pto on 240 points; the panel's progress and the "
          "sweep's result are the same code as in the other tuner tests, which run instrumented");
#endif
    // A Dask cluster of two worker processes, up until its stdin closes.
    QProcess cluster;
    cluster.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    cluster.start(QString::fromUtf8(PTO_PYTHON_EXECUTABLE),
                  {QStringLiteral("-c"),
                   QStringLiteral("import sys\n"
                                  "from distributed import LocalCluster\n"
                                  "if __name__ == '__main__':\n"
                                  "    c = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, "
                                  "dashboard_address=':0')\n"
                                  "    print(c.scheduler_address, flush=True)\n"
                                  "    sys.stdin.read()\n"
                                  "    c.close()\n")});
    QVERIFY(cluster.waitForStarted(10000));
    // The address tune() remembers would send the other tests' sweeps to a
    // cluster that is gone.
    auto forget = qScopeGuard([] { QSettings().remove(QStringLiteral("tuner/cluster")); });
    QTRY_VERIFY_WITH_TIMEOUT(cluster.canReadLine(), 60000);
    const QString address = QString::fromUtf8(cluster.readLine()).trimmed();
    QVERIFY2(address.startsWith(QStringLiteral("tcp://")), qPrintable(address));

    pto::studio::MainWindow window;
    window.resize(1600, 1000);
    window.show();
    QVERIFY(openAndRun(window, m_dir->filePath(QStringLiteral("softmax-dask"))));
    window.showView(pto::studio::MainWindow::View::Advice);
    pto::studio::AdviceController* controller = window.adviceController();
    pto::widgets::AdvicePanel* panel = window.advicePanel();
    // An unsaved edit outside the space: the workers must simulate on a3, as
    // the IDE holds the project, not on the a2 of the file on disk.
    QString error;
    QVERIFY2(window.settings()->applyPatch(nlohmann::json::parse(R"([{"op": "replace", "path": "/machine", "value": "a3"}])"),
                                           QStringLiteral("machine a3"), &error),
             qPrintable(error));

    panel->budget()->setValue(240);
    panel->strategy()->setCurrentIndex(0);  // grid
    panel->clusterField()->setText(address);
    QSignalSpy tuned(controller, &pto::studio::AdviceController::tuneFinished);
    QTest::mouseClick(panel->tuneButton(), Qt::LeftButton);
    // Progress while the results arrive: points done of the whole, where.
    QLabel* status = panel->findChild<QLabel*>(QStringLiteral("adviceStatus"));
    QVERIFY(status);
    QProgressBar* bar = panel->findChild<QProgressBar*>();
    QVERIFY(bar);
    QTRY_VERIFY_WITH_TIMEOUT(panel->isBusy() && status->text().contains(QStringLiteral(" of 240 points")), 120000);
    QCOMPARE(bar->maximum(), 240);
    // A quarter in, for the picture: the rate and the time left have settled.
    QTRY_VERIFY_WITH_TIMEOUT(!panel->isBusy() || bar->value() >= 60, 120000);
    QVERIFY2(status->text().contains(QStringLiteral("on Dask cluster at %1 (2 workers").arg(address)),
             qPrintable(status->text()));
    QVERIFY2(status->text().contains(QStringLiteral("simulated/s")), qPrintable(status->text()));
    // The table and plot fill as the results arrive (they were empty until
    // the sweep's end): the Pareto front of the points so far, nothing to apply yet.
    if (panel->isBusy()) {
      QVERIFY(panel->paretoModel()->rowCount() > 0);
      QVERIFY2(panel->tuneHeadline().contains(QStringLiteral("points so far")), qPrintable(panel->tuneHeadline()));
      QVERIFY(!panel->applyBestButton()->isEnabled());
    }
    if (const QString shots = qEnvironmentVariable("PTO_SCREENSHOT_DIR"); !shots.isEmpty())
      window.grab().save(QDir(shots).filePath(QStringLiteral("tuner-dask-progress.png")));
    QVERIFY(tuned.wait(kRunTimeoutMs));
    QVERIFY(tuned.first().first().toBool());
    const pto::TuneResult result = *controller->tuneResult();
    QCOMPARE(result.evaluated + result.pruned, 240);
    QVERIFY2(QString::fromStdString(result.where).startsWith(QStringLiteral("Dask cluster at ") + address),
             qPrintable(QString::fromStdString(result.where)));
    QVERIFY2(panel->tuneHeadline().contains(QStringLiteral("on Dask cluster at ")), qPrintable(panel->tuneHeadline()));
    QCOMPARE(panel->cluster(), address);

    // The best point applied here, on this machine, obtains the makespan the
    // workers simulated for it: they saw the unsaved machine.
    QSignalSpy checked(controller, &pto::studio::AdviceController::applyChecked);
    QTest::mouseClick(panel->applyBestButton(), Qt::LeftButton);
    QVERIFY(checked.wait(kRunTimeoutMs));
    const double predicted = checked.first().at(0).toDouble(), obtained = checked.first().at(1).toDouble();
    QVERIFY2(within(obtained, predicted, 0.01),
             qPrintable(QStringLiteral("the cluster's %1 us, obtained here %2 us").arg(predicted).arg(obtained)));

    cluster.closeWriteChannel();
    QVERIFY(cluster.waitForFinished(30000));
  }

};

QTEST_MAIN(AdviceGuiTest)
#include "AdviceGuiTest.moc"
