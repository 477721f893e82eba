// The lock is a QLockFile: it records the holder's pid and host, and a lock
// left by a process that no longer runs (a crash, a kill) counts as stale
// and is taken over.
#include "app/studio/EditRecoveryController.h"

#include "widgets/NoticeBar.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QLockFile>

#include <filesystem>

namespace pto::studio {

EditRecoveryController::EditRecoveryController(std::function<EditRecovery()> unsavedEdits, QObject* parent)
    : QObject(parent), m_unsavedEdits(std::move(unsavedEdits)) {
  m_timer.setSingleShot(true);
  m_timer.setInterval(kAutosaveDelayMs);
  connect(&m_timer, &QTimer::timeout, this, &EditRecoveryController::autosaveNow);
}

EditRecoveryController::~EditRecoveryController() = default;

std::optional<EditRecovery> EditRecoveryController::open(const QString& folder, DiagnosticEngine& diags) {
  close();
  m_folder = folder;
  m_discarded = false;
  m_error.clear();
  m_otherInstance.clear();
  m_offered.clear();
  QString stateFolder = QDir(folder).filePath(QStringLiteral(".pto"));
  if (!QDir().mkpath(stateFolder)) {
    m_error = tr("cannot create %1, so unsaved edits are not autosaved").arg(stateFolder);
  } else {
    m_lock = std::make_unique<QLockFile>(QDir(stateFolder).filePath(QStringLiteral("studio.lock")));
    // Only a lock whose holder died is stale; a live holder keeps it however old.
    m_lock->setStaleLockTime(0);
    if (!m_lock->tryLock(0)) {
      qint64 pid = 0;
      QString host;
      QString application;
      if (m_lock->error() == QLockFile::LockFailedError && m_lock->getLockInfo(&pid, &host, &application))
        m_otherInstance = tr("process %1 on %2").arg(pid).arg(host);
      else if (m_lock->error() == QLockFile::LockFailedError)
        m_otherInstance = tr("another process");
      else
        m_error = tr("cannot write %1, so unsaved edits are not autosaved").arg(stateFolder);
      m_lock.reset();
    }
  }
  // A second window leaves the recovery to the first: it may be that
  // window's live autosave, not a crash's leftovers.
  if (!m_otherInstance.isEmpty()) return std::nullopt;
  const std::filesystem::path project = folder.toStdString();
  std::error_code ignored;
  if (std::filesystem::exists(recoveryFilePath(project), ignored)) {
    std::optional<EditRecovery> left = readEditRecovery(project, diags);
    if (left && unsavedPartsOf(*left).empty()) {
      removeEditRecovery(project);
    } else if (left) {
      std::string error;
      if (setAsideEditRecovery(project, error).empty()) {
        // Autosaving now would overwrite the only copy of that work.
        diags.error(SourceLocation{recoveryFilePath(project).string()}) << error;
        m_error = tr("unsaved edits are not autosaved, to keep the recovered ones: %1").arg(QString::fromStdString(error));
        m_lock.reset();
        m_otherInstance.clear();
      }
    }
  }
  // The newest recovery nobody settled yet; those whose edits were saved
  // after all go.
  for (const std::filesystem::path& file : setAsideEditRecoveries(project)) {
    std::optional<EditRecovery> recovery = readEditRecoveryFile(file, project, diags);
    if (!recovery) continue;
    EditRecovery unsaved = unsavedPartsOf(*recovery);
    if (unsaved.empty()) {
      std::filesystem::remove(file, ignored);
      continue;
    }
    m_offered = QString::fromStdString(file.string());
    return unsaved;
  }
  return std::nullopt;
}

void EditRecoveryController::offerSettled() {
  if (!m_offered.isEmpty()) QFile::remove(m_offered);
  m_offered.clear();
}

void EditRecoveryController::close() {
  if (m_notices) {
    m_notices->dismiss(QStringLiteral("recovery"));
    m_notices->dismiss(QStringLiteral("recovery-problem"));
    m_notices->dismiss(QStringLiteral("instance"));
  }
  // Unsaved edits nobody decided about stay recoverable; discarded ones do not.
  if (autosaving() && !m_discarded) autosaveNow();  // removes the file when nothing is unsaved
  m_timer.stop();
  m_lock.reset();  // unlocks
  m_folder.clear();
  m_offered.clear();
  m_otherInstance.clear();
}

bool EditRecoveryController::autosaving() const { return m_lock && m_lock->isLocked(); }

void EditRecoveryController::editsChanged() {
  m_discarded = false;
  if (autosaving()) m_timer.start();
}

void EditRecoveryController::autosaveNow() {
  m_timer.stop();
  if (!autosaving()) return;
  EditRecovery edits = m_unsavedEdits();
  if (edits.empty()) {
    removeEditRecovery(m_folder.toStdString());
    Q_EMIT autosaved(false);
    return;
  }
  std::string error;
  if (!writeEditRecovery(m_folder.toStdString(), edits, error)) {
    m_error = tr("autosave failed: %1").arg(QString::fromStdString(error));
    Q_EMIT autosaveFailed(m_error);
    return;
  }
  m_error.clear();
  Q_EMIT autosaved(true);
}

void EditRecoveryController::discard() {
  m_timer.stop();
  m_discarded = true;
  if (autosaving()) removeEditRecovery(m_folder.toStdString());
}

void EditRecoveryController::setNotices(widgets::NoticeArea* notices, Restorer restore) {
  m_notices = notices;
  m_restore = std::move(restore);
}

void EditRecoveryController::guard(const QString& folder) {
  DiagnosticEngine diags;
  std::optional<EditRecovery> recovered = open(folder, diags);
  // An unreadable recovery, or one that could not be set aside, stays where
  // it is: the bar names the file and why.
  if (diags.hasErrors())
    m_notices->show(QStringLiteral("recovery-problem"), widgets::NoticeBar::Kind::Warning,
                    tr("Unsaved edits from an earlier session cannot be offered back; the file is kept for you: %1")
                        .arg(QString::fromStdString(diags.format(diags.diagnostics().front()))));
  if (!m_otherInstance.isEmpty()) {
    m_notices->show(QStringLiteral("instance"), widgets::NoticeBar::Kind::Warning,
                    tr("This project is already open in another PTO Studio (%1). Saving in both windows makes one "
                       "overwrite the other, and this window does not autosave; close one of them.")
                        .arg(m_otherInstance));
  } else if (!m_error.isEmpty()) {
    Q_EMIT statusMessage(m_error, 10000);
  }
  if (recovered) offer(*recovered);
}

void EditRecoveryController::offer(const EditRecovery& recovered) {
  QStringList what;
  if (recovered.editor) what << QFileInfo(QString::fromStdString(recovered.editor->file.string())).fileName();
  if (recovered.project) what << tr("the settings (%1)").arg(QFileInfo(QString::fromStdString(recovered.project->file.string())).fileName());
  QString when = QString::fromStdString(recovered.writtenAt);
  QDateTime written = QDateTime::fromString(when, Qt::ISODate);
  if (written.isValid()) when = QLocale().toString(written.toLocalTime(), QLocale::ShortFormat);
  widgets::NoticeBar* bar = m_notices->show(
      QStringLiteral("recovery"), widgets::NoticeBar::Kind::Information,
      tr("PTO Studio closed with unsaved edits to %1 (autosaved %2). Restore them into the editor and settings (they "
         "stay unsaved until you save), or discard them? Until you choose they are kept in .pto/recovered/.")
          .arg(what.join(tr(" and ")), when));
  bar->addAction(tr("Restore"), [this, recovered] { restore(recovered); });
  bar->addAction(tr("Discard"), [this] { offerSettled(); });
  Q_EMIT editorWanted();
}

bool EditRecoveryController::restore(const EditRecovery& recovered) {
  QStringList restored;
  QStringList failed;
  m_restore(recovered, restored, failed);
  autosaveNow();  // the restored edits are the unsaved edits now
  if (failed.isEmpty()) offerSettled();
  else
    Q_EMIT restoreFailed(tr("Cannot restore the unsaved edits"),
                         tr("Some recovered edits were not restored: %1. They are kept in %2.")
                             .arg(failed.join(QStringLiteral("; ")), m_offered));
  if (!restored.isEmpty())
    Q_EMIT statusMessage(tr("Restored the unsaved edits to %1; Ctrl+S saves them, Ctrl+Z undoes them.")
                             .arg(restored.join(tr(" and "))),
                         10000);
  return failed.isEmpty();
}

} // namespace pto::studio
