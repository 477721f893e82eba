// EditRecoveryController: nothing typed is lost. While a project is open it
// holds the project's lock (PROJECT/.pto/studio.lock) so that a second
// PTO Studio on the same project is detected and warned about, and it
// autosaves the unsaved kernel and settings edits a second after each change
// into the recovery file (core/project/EditRecovery). The window saves and
// discards; this object is told and removes the recovery file. On opening a
// project it offers back, in a bar above the views, what a crashed or killed
// session left behind, and warns there about another window on the project.
#pragma once

// moc cannot parse <concepts>, which the diagnostics header brings in.
#ifndef Q_MOC_RUN
#include "core/project/EditRecovery.h"
#endif

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>

class QLockFile;

namespace pto::widgets {
class NoticeArea;
} // namespace pto::widgets

namespace pto::studio {

class EditRecoveryController : public QObject {
  Q_OBJECT

public:
  // `unsavedEdits` returns the window's unsaved edits now (empty when all is saved).
  explicit EditRecoveryController(std::function<EditRecovery()> unsavedEdits, QObject* parent = nullptr);
  ~EditRecoveryController() override;

  // The project in `folder` is open: takes its lock and returns what a
  // previous session left unsaved (only what differs from the files on
  // disk; nullopt when nothing). An unreadable recovery file is reported in
  // `diags` and left in place.
  std::optional<EditRecovery> open(const QString& folder, DiagnosticEngine& diags);
  // The project is closed: releases the lock (and takes down the bars
  // guard() showed); the recovery file stays only while it holds unsaved
  // work (a close the user did not decide on).
  void close();

  // Where guard() speaks: bars in `notices`. `restore` puts recovered edits
  // back as unsaved edits and names what it restored and what failed, and why
  // (ProjectController::restoreEdits).
  using Restorer = std::function<void(const EditRecovery&, QStringList& restored, QStringList& failed)>;
  void setNotices(widgets::NoticeArea* notices, Restorer restore);
  // The project in `folder` opened: open()s it and says in bars what stands
  // in the way (another window on it, a recovery that cannot be offered) and
  // offers what a previous session left unsaved (Restore, Discard).
  void guard(const QString& folder);
  // The bar's Restore: false when a part could not be restored (the reason
  // is reported and the recovery kept).
  bool restore(const EditRecovery& recovered);

  // An edit happened: autosave after a pause.
  void editsChanged();
  // Writes (or, with nothing unsaved, removes) the recovery file now.
  void autosaveNow();
  // The user chose to throw the unsaved edits away: the recovery goes.
  void discard();
  // The user restored or discarded the offered recovery: its set-aside
  // copy goes.
  void offerSettled();
  // The set-aside file of the recovery open() offered; empty when none.
  QString offeredFile() const { return m_offered; }

  // "process 1234 on host" when another PTO Studio holds the project's
  // lock; empty otherwise. That window autosaves; this one does not, so the
  // two never overwrite each other's recovery.
  QString otherInstance() const { return m_otherInstance; }
  // False when no project is open, another window holds the lock, or the
  // project folder cannot be written (autosaveError() says why).
  bool autosaving() const;
  QString autosaveError() const { return m_error; }
  QString folder() const { return m_folder; }

  static constexpr int kAutosaveDelayMs = 1000;

Q_SIGNALS:
  // The recovery file was written (true) or removed (false).
  void autosaved(bool holdsEdits);
  void autosaveFailed(const QString& message);
  // A recovery is offered: show the editor beside its bar.
  void editorWanted();
  void statusMessage(const QString& text, int timeoutMs);
  void restoreFailed(const QString& title, const QString& message);

private:
  void offer(const EditRecovery& recovered);

  std::function<EditRecovery()> m_unsavedEdits;
  widgets::NoticeArea* m_notices = nullptr;
  Restorer m_restore;
  QTimer m_timer;
  QString m_folder;
  std::unique_ptr<QLockFile> m_lock;
  QString m_otherInstance;
  QString m_error;
  QString m_offered;
  bool m_discarded = false;  // since the last edit: closing must not autosave again
};

} // namespace pto::studio
