// ProjectController: the open project and whether it may run — the project
// as loaded plus unsaved settings, saving, asking before edits are lost,
// tuned-config import/export, new projects from examples, and the bar that
// offers trust for an untrusted folder (running a project runs its Python).
#pragma once

#include "app/studio/ProjectRunJob.h"
#include "core/project/EditRecovery.h"
#include "core/project/OperatorProject.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

class QAction;
class QWidget;

namespace pto::widgets {
class NoticeArea;
class ProjectSettingsDocument;
class SourceEditor;
class SwimlaneView;
} // namespace pto::widgets

namespace pto::studio {

class EditRecoveryController;

class ProjectController : public QObject {
  Q_OBJECT
public:
  struct Parts {
    QWidget* window = nullptr;  // the parent of dialogs; no questions asked while it is hidden
    widgets::SourceEditor* editor = nullptr;
    widgets::ProjectSettingsDocument* settings = nullptr;
    widgets::SwimlaneView* swimlane = nullptr;  // what its empty view says about the project
    widgets::NoticeArea* notices = nullptr;
    EditRecoveryController* recovery = nullptr;  // told of edits, saves and discards
  };
  explicit ProjectController(const Parts& parts, QObject* parent = nullptr);

  // The project as loaded or last saved, plus the unsaved settings (null when none is open).
  const OperatorProject* project() const { return m_project ? &*m_project : nullptr; }
  const QString& projectFile() const { return m_projectFile; }
  // A project file with errors, open in the editor to be fixed (empty: none).
  const QString& brokenProjectFile() const { return m_brokenProjectFile; }
  void setBrokenProjectFile(const QString& file) { m_brokenProjectFile = file; }
  bool trusted() const { return m_trusted; }
  bool settingsModified() const { return m_settingsModified; }

  // A project was loaded: it becomes the open one and its settings the
  // document's (not an edit). checkTrust() follows once the rest is open.
  void setProject(OperatorProject project);
  // Looks up the folder's trust; offers it in a bar when not trusted.
  void checkTrust();
  // No project is open any more (another file took the editor).
  void close();

  // File > Trust this folder (checkable; enabled while a project is open).
  QAction* trustAction() const { return m_trustAction; }
  // Grants (or revokes) trust for the open project's folder in the store
  // pto shares; false when that fails or the folder stays as it was.
  bool setTrusted(bool trusted);
  // The bar that asks to trust the open project's folder (nothing runs until then).
  void offerTrust();

  // What a run, the advisor or the graphs work on: the project with the
  // editor's unsaved kernel text. Call only with a project open.
  ProjectRunRequest request() const;
  // request() when a project is open and its folder trusted, else nullopt.
  std::optional<ProjectRunRequest> trustedRequest() const;
  // The same for a run, and the user is told why not (no project, a broken
  // project file, an untrusted folder: then the trust bar is offered).
  std::optional<ProjectRunRequest> runnableRequest();

  // Saves the kernel and the project file (Ctrl+S).
  bool save();
  // Asks to save unsaved kernel or settings edits; false when the user cancels.
  bool confirmDiscardEdits();
  // The unsaved kernel text and settings, for the recovery file.
  EditRecovery unsavedEdits() const;
  // Puts recovered edits back as undoable, unsaved edits: the kernel's into
  // the editor, the settings' into the settings document. Names what was
  // restored and what failed, and why.
  void restoreEdits(const EditRecovery& recovered, QStringList& restored, QStringList& failed);
  // Replaces the kernel's text as one undo step, keeping the view where it was.
  void replaceKernelText(const QString& newSource, const QString& summary);

  // File > Import tuned config: one undoable settings edit (nothing changes on an error).
  bool importTunedConfig(const QString& path);
  // File > Export > Tuned config, with the makespan of `lastRun` when it has a swimlane.
  bool exportTunedConfig(const QString& path, const ProjectRunOutcome& lastRun);
  // File > New project: asks which example and where; the folder made, or nullopt.
  struct NewProject {
    QString example;
    QString folder;
  };
  std::optional<NewProject> askForNewProject();
  // Copies an example into a new folder (after confirmDiscardEdits); its
  // project file, or nullopt (reported).
  std::optional<QString> createFromExample(const QString& example, const QString& folder);

Q_SIGNALS:
  // The window title's parts changed (the files, or unsaved edits).
  void titleChanged();
  // A settings edit reached the project (not a load).
  void settingsEdited();
  // "Trust and run": the folder is trusted now and the user wants it run.
  void runWanted();
  // Trust was revoked: nothing may run.
  void trustRevoked();
  void statusMessage(const QString& text, int timeoutMs);
  void errorReported(const QString& title, const QString& message);
  // An import failed: its diagnostics, for Problems.
  void problemsFound(const std::vector<Diagnostic>& diagnostics);

private:
  void onSettingsChanged();
  void setSettingsModified(bool modified);
  // The Trust action's state, and what the empty swimlane says about the open project.
  void updateTrustAction();

  Parts m_parts;
  QAction* m_trustAction = nullptr;
  std::optional<OperatorProject> m_project;
  QString m_projectFile;
  QString m_brokenProjectFile;
  bool m_trusted = false;
  bool m_settingsModified = false;
  bool m_loadingSettings = false;  // settingsChanged from load() is not an edit
};

} // namespace pto::studio
