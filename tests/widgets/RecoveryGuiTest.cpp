// Nothing lost (issue 16), offscreen. The IDE is killed (SIGKILL, no chance
// to clean up) while it holds unsaved kernel and settings edits; a new IDE
// opening the project offers them back, restores them as unsaved, undoable
// edits, and saving them removes the recovery file. The killed IDE is this
// test program run again as a child process (its `childEditsAndWaitsToBeKilled`
// case, which does nothing unless the parent set PTO_RECOVERY_TEST_PROJECT).
// While the child lives, a second window on the project is warned that the
// project is open elsewhere. A save that fails (the file-size limit makes
// the write fail, even as root) keeps the old file and the edits, and says
// why. A project in a folder nobody trusted opens without running.
#include "app/studio/EditRecoveryController.h"
#include "app/studio/MainWindow.h"
#include "core/AtomicFile.h"
#include "core/project/EditRecovery.h"
#include "core/project/ProjectTemplates.h"
#include "widgets/NoticeBar.h"
#include "widgets/ProjectSettingsDocument.h"
#include "widgets/SourceEditor.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QPushButton>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <csignal>
#include <filesystem>
#include <sys/resource.h>

namespace {

const QString kProjectVariable = QStringLiteral("PTO_RECOVERY_TEST_PROJECT");
const QString kTypedLine = QStringLiteral("# typed just before the kill\n");
// A vec tile shape the child sets (softmax's tunable site).
const QString kTileSite = QStringLiteral("kernel.py:22");
const nlohmann::ordered_json kTileShape = nlohmann::ordered_json::array({1, 4, 1, 128});

QString readAll(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

// Clicks `choice` ("Restore" or "Discard") on the recovery offer of `window`; false when it offers none.
bool answerRecoveryOffer(pto::studio::MainWindow& window, const QString& choice) {
  pto::widgets::NoticeBar* offer = window.notices()->bar(QStringLiteral("recovery"));
  if (!offer) return false;
  QTest::mouseClick(offer->button(choice), Qt::LeftButton);
  return true;
}

// The softmax example copied into a new folder under `dir`.
QString newProject(const QTemporaryDir& dir) {
  pto::DiagnosticEngine diags;
  auto file = pto::createProjectFromExample("softmax", dir.filePath(QStringLiteral("softmax")).toStdString(), diags);
  return file ? QString::fromStdString(file->parent_path().string()) : QString();
}

} // namespace

class RecoveryGuiTest : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  // The child: opens the project, edits the kernel and a tile shape, waits
  // until both are in the recovery file, says "ready" and waits to be killed.
  void childEditsAndWaitsToBeKilled() {
    const QString project = qEnvironmentVariable(kProjectVariable.toUtf8().constData());
    if (project.isEmpty()) QSKIP("run by killedMidEditTheWorkIsOfferedBack as its child process");
    pto::studio::MainWindow window;
    window.setAutoRun(false);
    QVERIFY(window.open(project));
    window.editor()->insertAt(kTypedLine, 0, 0);
    window.settings()->setTileShape(QStringLiteral("vec"), kTileSite, kTileShape);
    const QString recovery = QString::fromStdString(pto::recoveryFilePath(project.toStdString()).string());
    QTRY_VERIFY_WITH_TIMEOUT(readAll(recovery).contains(QStringLiteral("typed just before the kill")) &&
                                 readAll(recovery).contains(QStringLiteral("\"project\": ")),
                             10000);
    std::printf("ready\n");
    std::fflush(stdout);
    QTest::qWait(120000);  // killed long before
  }

  void killedMidEditTheWorkIsOfferedBack() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString project = newProject(dir);
    QVERIFY(!project.isEmpty());
    const QString kernel = QDir(project).filePath(QStringLiteral("kernel.py"));
    const QString kernelOnDisk = readAll(kernel);

    QProcess child;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(kProjectVariable, project);
    child.setProcessEnvironment(environment);
    child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("childEditsAndWaitsToBeKilled")});
    QVERIFY(child.waitForStarted(10000));
    QByteArray childOutput;
    QTRY_VERIFY_WITH_TIMEOUT((child.waitForReadyRead(100), childOutput += child.readAllStandardOutput(),
                              childOutput.contains("ready")) ||
                                 child.state() == QProcess::NotRunning,
                             60000);
    QCOMPARE(child.state(), QProcess::Running);

    {
      // A second window on the project while the first lives: warned, and it
      // neither offers the live window's autosave nor autosaves itself.
      pto::studio::MainWindow second;
      second.setAutoRun(false);
      QVERIFY(second.open(project));
      pto::widgets::NoticeBar* warning = second.notices()->bar(QStringLiteral("instance"));
      QVERIFY(warning);
      QVERIFY2(warning->text().contains(QStringLiteral("already open in another PTO Studio")), qPrintable(warning->text()));
      QVERIFY(warning->text().contains(QString::number(child.processId())));
      QVERIFY(!second.notices()->bar(QStringLiteral("recovery")));
      QVERIFY(!second.recovery()->autosaving());
    }

    child.kill();  // SIGKILL: no close event, no clean-up
    QVERIFY(child.waitForFinished(10000));
    QCOMPARE(readAll(kernel), kernelOnDisk);  // nothing was saved

    pto::studio::MainWindow window;
    window.setAutoRun(false);
    QVERIFY(window.open(project));
    QVERIFY(!window.notices()->bar(QStringLiteral("instance")));  // the dead process's lock is stale
    pto::widgets::NoticeBar* offer = window.notices()->bar(QStringLiteral("recovery"));
    QVERIFY(offer);
    QVERIFY2(offer->text().contains(QStringLiteral("kernel.py")) && offer->text().contains(QStringLiteral("settings")),
             qPrintable(offer->text()));
    QVERIFY(!window.editor()->isModified());
    QTest::mouseClick(offer->button(QStringLiteral("Restore")), Qt::LeftButton);

    QVERIFY(window.editor()->text().startsWith(kTypedLine));
    QCOMPARE(window.editor()->text(), kTypedLine + kernelOnDisk);
    QVERIFY(window.editor()->isModified());
    QVERIFY(window.settings()->tileShape(QStringLiteral("vec"), kTileSite) == kTileShape);
    QVERIFY(window.settings()->isModified());
    QCOMPARE(readAll(kernel), kernelOnDisk);  // restored as unsaved edits

    // One undo step each: the settings, then the kernel.
    window.settings()->undoStack()->undo();
    QVERIFY(window.settings()->tileShape(QStringLiteral("vec"), kTileSite) != kTileShape);
    window.settings()->undoStack()->redo();

    QVERIFY(window.save());
    QCOMPARE(readAll(kernel), kTypedLine + kernelOnDisk);
    QVERIFY(!QFile::exists(QString::fromStdString(pto::recoveryFilePath(project.toStdString()).string())));
    QVERIFY(pto::setAsideEditRecoveries(project.toStdString()).empty());
  }

  // An offer nobody answers is not overwritten by the next autosave: the
  // user ignores it, types something else, and closes; the next session
  // offers the newer work first and, once that is settled, the older.
  void anUnansweredOfferIsKeptAndOfferedAgain() {
    QTemporaryDir dir;
    const QString project = newProject(dir);
    QVERIFY(!project.isEmpty());
    const QString kernel = QDir(project).filePath(QStringLiteral("kernel.py"));
    const QString kernelOnDisk = readAll(kernel);
    const std::string folder = project.toStdString();
    pto::EditRecovery firstCrash;
    firstCrash.editor = pto::RecoveredFile{kernel.toStdString(), "print('first crash')\n"};
    std::string error;
    QVERIFY2(pto::writeEditRecovery(folder, firstCrash, error), error.c_str());
    {
      pto::studio::MainWindow window;
      window.setAutoRun(false);
      QVERIFY(window.open(project));
      QVERIFY(window.notices()->bar(QStringLiteral("recovery")));
      QVERIFY(window.recovery()->offeredFile().contains(QStringLiteral(".pto/recovered/")));
      window.editor()->insertAt(QStringLiteral("# second session\n"), 0, 0);
      window.recovery()->autosaveNow();
      QVERIFY(readAll(QString::fromStdString(pto::recoveryFilePath(folder).string())).contains(QStringLiteral("second session")));
      QCOMPARE(pto::setAsideEditRecoveries(folder).size(), std::size_t{1});
    }
    {
      pto::studio::MainWindow window;
      window.setAutoRun(false);
      QVERIFY(window.open(project));
      QCOMPARE(pto::setAsideEditRecoveries(folder).size(), std::size_t{2});
      QVERIFY(answerRecoveryOffer(window, QStringLiteral("Discard")));  // the newer one
      QCOMPARE(window.editor()->text(), kernelOnDisk);
    }
    pto::studio::MainWindow window;
    window.setAutoRun(false);
    QVERIFY(window.open(project));
    QVERIFY(answerRecoveryOffer(window, QStringLiteral("Restore")));
    QCOMPARE(window.editor()->text(), QStringLiteral("print('first crash')\n"));
    QVERIFY(window.editor()->isModified());
    QVERIFY(pto::setAsideEditRecoveries(folder).empty());
  }

  void discardingTheOfferRemovesIt() {
    QTemporaryDir dir;
    const QString project = newProject(dir);
    QVERIFY(!project.isEmpty());
    const QString kernel = QDir(project).filePath(QStringLiteral("kernel.py"));
    pto::EditRecovery recovery;
    recovery.editor = pto::RecoveredFile{kernel.toStdString(), "print('lost')\n"};
    std::string error;
    QVERIFY2(pto::writeEditRecovery(project.toStdString(), recovery, error), error.c_str());

    pto::studio::MainWindow window;
    window.setAutoRun(false);
    QVERIFY(window.open(project));
    QVERIFY(answerRecoveryOffer(window, QStringLiteral("Discard")));
    QVERIFY(!QFile::exists(QString::fromStdString(pto::recoveryFilePath(project.toStdString()).string())));
    QVERIFY(pto::setAsideEditRecoveries(project.toStdString()).empty());
    QCOMPARE(window.editor()->text(), readAll(kernel));
  }

  void aRecoveryOfSavedEditsIsNotOffered() {
    // A crash between a save and the recovery file's removal: what it holds
    // is on disk already.
    QTemporaryDir dir;
    const QString project = newProject(dir);
    const QString kernel = QDir(project).filePath(QStringLiteral("kernel.py"));
    pto::EditRecovery recovery;
    recovery.editor = pto::RecoveredFile{kernel.toStdString(), readAll(kernel).toStdString()};
    std::string error;
    QVERIFY(pto::writeEditRecovery(project.toStdString(), recovery, error));
    pto::studio::MainWindow window;
    window.setAutoRun(false);
    QVERIFY(window.open(project));
    QVERIFY(!window.notices()->bar(QStringLiteral("recovery")));
    QVERIFY(!QFile::exists(QString::fromStdString(pto::recoveryFilePath(project.toStdString()).string())));
  }

  void editsAreAutosavedAndASaveRemovesThem() {
    QTemporaryDir dir;
    const QString project = newProject(dir);
    pto::studio::MainWindow window;
    window.setAutoRun(false);
    QVERIFY(window.open(project));
    QVERIFY(window.recovery()->autosaving());
    const QString recovery = QString::fromStdString(pto::recoveryFilePath(project.toStdString()).string());
    window.editor()->insertAt(QStringLiteral("# autosaved\n"), 0, 0);
    QVERIFY(!QFile::exists(recovery));  // not at every keystroke: after a pause
    QTRY_VERIFY_WITH_TIMEOUT(readAll(recovery).contains(QStringLiteral("# autosaved")), 5000);
    QVERIFY(window.save());
    QVERIFY(!QFile::exists(recovery));
  }

  void aFailedSaveKeepsTheOldFileAndTheEditsAndSaysWhy() {
    QTemporaryDir dir;
    const QString project = newProject(dir);
    const QString kernel = QDir(project).filePath(QStringLiteral("kernel.py"));
    const QString before = readAll(kernel);
    pto::studio::MainWindow window;
    window.setAutoRun(false);
    QVERIFY(window.open(project));
    window.editor()->insertAt(QStringLiteral("# this edit does not fit\n"), 0, 0);

    // Files may not grow past 64 bytes: the write fails part way, as on a
    // full disk (permissions would not stop a test running as root).
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit old{};
    QCOMPARE(getrlimit(RLIMIT_FSIZE, &old), 0);
    rlimit tiny = old;
    tiny.rlim_cur = 64;
    QCOMPARE(setrlimit(RLIMIT_FSIZE, &tiny), 0);
    const bool saved = window.save();
    setrlimit(RLIMIT_FSIZE, &old);

    QVERIFY2(!saved, qPrintable(window.statusBar()->currentMessage() + QStringLiteral(" size ") + QString::number(readAll(kernel).size())));
    QCOMPARE(readAll(kernel), before);
    QVERIFY(window.editor()->isModified());
    const QString message = window.statusBar()->currentMessage();
    QVERIFY2(message.contains(QStringLiteral("kernel.py")) && message.contains(QStringLiteral("unchanged")),
             qPrintable(message));
    // The edits are still recoverable.
    window.recovery()->autosaveNow();
    QVERIFY(readAll(QString::fromStdString(pto::recoveryFilePath(project.toStdString()).string()))
                .contains(QStringLiteral("does not fit")));
  }

  // Trust: a project received from elsewhere opens for reading, but its
  // Python does not run until the user trusts the folder; the decision is
  // remembered in the store pto shares, and can be revoked.
  void anUntrustedProjectOpensWithoutRunningUntilTrusted() {
    QTemporaryDir dir;
    const QByteArray savedTrust = qgetenv("PTO_TRUST");
    const QByteArray savedConfig = qgetenv("XDG_CONFIG_HOME");
    qunsetenv("PTO_TRUST");
    qputenv("XDG_CONFIG_HOME", dir.filePath(QStringLiteral("config")).toUtf8());
    auto restore = qScopeGuard([&] {
      if (!savedTrust.isNull()) qputenv("PTO_TRUST", savedTrust);
      if (!savedConfig.isNull()) qputenv("XDG_CONFIG_HOME", savedConfig);
      else qunsetenv("XDG_CONFIG_HOME");
    });
    // Copied, not made with New project: nobody vouched for this folder.
    const QString project = dir.filePath(QStringLiteral("received"));
    std::filesystem::copy(PTO_SOURCE_DIR "/resources/examples/softmax", project.toStdString(),
                          std::filesystem::copy_options::recursive);
    std::filesystem::remove_all(project.toStdString() + "/.pto");

    pto::studio::MainWindow window;
    window.setAutoRun(true);
    QSignalSpy finished(&window, &pto::studio::MainWindow::runFinished);
    QVERIFY(window.open(project));
    QVERIFY(!window.projectTrusted());
    QVERIFY(!window.busy());  // auto-run did not start
    pto::widgets::NoticeBar* ask = window.notices()->bar(QStringLiteral("trust"));
    QVERIFY(ask);
    QVERIFY2(ask->text().contains(QStringLiteral("not a trusted folder")) && ask->text().contains(QStringLiteral("kernel.py")),
             qPrintable(ask->text()));
    QVERIFY(!window.editor()->text().isEmpty());  // readable and editable
    window.runProject();
    QVERIFY(!window.busy());
    QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("not trusted")));
    QTest::qWait(200);
    QCOMPARE(finished.count(), 0);

    QCOMPARE(window.notices()->bar(QStringLiteral("trust")), ask);  // asked again by the same bar, not a new one
    QTest::mouseClick(ask->button(QStringLiteral("Trust and run")), Qt::LeftButton);
    QVERIFY(window.projectTrusted());
    QVERIFY(finished.wait(180000));
    QVERIFY(finished.first().first().toBool());
    QVERIFY(readAll(dir.filePath(QStringLiteral("config/pto-studio/trusted-folders.json"))).contains(QStringLiteral("received")));

    // Revoked: the next open asks again.
    QVERIFY(window.setProjectTrusted(false));
    QVERIFY(!window.projectTrusted());
    pto::studio::MainWindow again;
    again.setAutoRun(true);
    QVERIFY(again.open(project));
    QVERIFY(!again.projectTrusted());
    QVERIFY(again.notices()->bar(QStringLiteral("trust")));
    QVERIFY(!again.busy());
  }
};

QTEST_MAIN(RecoveryGuiTest)
#include "RecoveryGuiTest.moc"
