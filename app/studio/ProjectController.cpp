// The open project: its state, trust, saving, imports and exports.
#include "app/studio/ProjectController.h"

#include "analysis/simulation/TunedConfig.h"
#include "app/studio/DiagnosticText.h"
#include "app/studio/EditRecoveryController.h"
#include "app/studio/SourceFiles.h"
#include "core/AtomicFile.h"
#include "core/project/FolderTrust.h"
#include "core/project/ProjectFile.h"
#include "core/project/ProjectTemplates.h"
#include "widgets/NoticeBar.h"
#include "widgets/ProjectSettingsDocument.h"
#include "widgets/SourceEditor.h"
#include "widgets/SwimlaneView.h"

#include <QAction>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalBlocker>
#include <QStandardPaths>
#include <QUndoStack>

namespace pto::studio {

ProjectController::ProjectController(const Parts& parts, QObject* parent) : QObject(parent), m_parts(parts) {
  m_trustAction = new QAction(tr("&Trust this folder"), this);
  m_trustAction->setCheckable(true);
  m_trustAction->setEnabled(false);
  m_trustAction->setToolTip(tr("Whether the open project's Python may run; remembered per folder (pto trust lists them)"));
  connect(m_trustAction, &QAction::triggered, this, [this] { setTrusted(!m_trusted); });
  connect(m_parts.settings, &widgets::ProjectSettingsDocument::settingsChanged, this, &ProjectController::onSettingsChanged);
  connect(m_parts.settings, &widgets::ProjectSettingsDocument::modifiedChanged, this, &ProjectController::setSettingsModified);
}

void ProjectController::setProject(OperatorProject project) {
  m_brokenProjectFile.clear();
  m_projectFile = QString::fromStdString(project.file.string());
  m_project = std::move(project);
  m_loadingSettings = true;
  m_parts.settings->load(*m_project);
  m_loadingSettings = false;
}

void ProjectController::checkTrust() {
  m_trusted = isFolderTrusted(m_project->directory());
  m_parts.notices->dismiss(QStringLiteral("trust"));
  if (!m_trusted) offerTrust();
  updateTrustAction();
}

void ProjectController::close() {
  m_parts.notices->dismiss(QStringLiteral("trust"));
  m_trusted = false;
  m_project.reset();
  updateTrustAction();
  m_projectFile.clear();
  m_brokenProjectFile.clear();
  setSettingsModified(false);
}

void ProjectController::offerTrust() {
  if (!m_project || m_trusted || m_parts.notices->bar(QStringLiteral("trust"))) return;
  QString folder = QString::fromStdString(std::filesystem::absolute(m_project->directory()).lexically_normal().string());
  widgets::NoticeBar* bar = m_parts.notices->show(
      QStringLiteral("trust"), widgets::NoticeBar::Kind::Warning,
      tr("%1 is not a trusted folder. Running the project runs its Python (%2), which can do anything your account "
         "can. Trust the folder only if you trust where it came from; until then you can read and edit it, but "
         "nothing runs.")
          .arg(folder, QString::fromStdString(m_project->source)));
  bar->addAction(tr("Trust and run"), [this] {
    if (setTrusted(true)) Q_EMIT runWanted();
  });
}

bool ProjectController::setTrusted(bool trusted) {
  if (!m_project) return false;
  std::string error;
  bool ok = trusted ? trustFolder(m_project->directory(), error) : revokeFolderTrust(m_project->directory(), error);
  if (!ok) {
    Q_EMIT errorReported(tr("Cannot change the folder's trust"), QString::fromStdString(error));
    updateTrustAction();
    return false;
  }
  m_trusted = isFolderTrusted(m_project->directory());
  if (m_trusted) m_parts.notices->dismiss(QStringLiteral("trust"));
  else if (!trusted) {
    Q_EMIT trustRevoked();
    Q_EMIT statusMessage(tr("No longer trusted: the project will not run until you trust its folder again."), 8000);
  }
  if (trusted != m_trusted) {
    // Still trusted after a revoke: PTO_TRUST or a bundled example says so.
    Q_EMIT statusMessage(tr("The folder stays trusted: %1.")
                             .arg(trustGrantedByEnvironment() ? tr("PTO_TRUST is set")
                                                              : tr("it is a bundled example or inside a trusted folder")),
                         8000);
  }
  updateTrustAction();
  return m_trusted == trusted;
}

void ProjectController::updateTrustAction() {
  QSignalBlocker quiet(m_trustAction);
  m_trustAction->setEnabled(m_project.has_value());
  m_trustAction->setChecked(m_project && m_trusted);
  // Until the project runs, its empty swimlane says why and what to do.
  if (!m_project) m_parts.swimlane->setEmptyMessage(QString());
  else if (m_trusted)
    m_parts.swimlane->setEmptyMessage(tr("%1 has not run yet.\nCtrl+R runs it.").arg(QString::fromStdString(m_project->name)));
  else
    m_parts.swimlane->setEmptyMessage(tr("%1 has not run: its folder is not trusted, and running it runs its Python.\n"
                                         "Trust it in the bar above (or File > Trust this folder) to run it.")
                                          .arg(QString::fromStdString(m_project->name)));
}

ProjectRunRequest ProjectController::request() const {
  ProjectRunRequest request;  // recorded, and every pass run, unless the caller says otherwise
  request.project = *m_project;
  if (m_parts.editor->isModified()) request.sourceText = m_parts.editor->text().toStdString();
  return request;
}

std::optional<ProjectRunRequest> ProjectController::trustedRequest() const {
  if (!m_project || !m_trusted) return std::nullopt;
  return request();
}

std::optional<ProjectRunRequest> ProjectController::runnableRequest() {
  if (!m_project) {
    if (!m_brokenProjectFile.isEmpty())
      Q_EMIT statusMessage(tr("Fix the errors in %1 and save it (Ctrl+S) to open the project.")
                               .arg(QFileInfo(m_brokenProjectFile).fileName()),
                           8000);
    else
      Q_EMIT statusMessage(tr("Open a project to run it (Ctrl+O), or start one with Ctrl+N."), 8000);
    return std::nullopt;
  }
  if (!m_trusted) {
    offerTrust();
    Q_EMIT statusMessage(tr("Not run: this folder is not trusted (see the bar above the swimlane)."), 8000);
    return std::nullopt;
  }
  return request();
}

void ProjectController::onSettingsChanged() {
  if (m_loadingSettings || !m_project) return;
  m_parts.settings->applyTo(*m_project);
  setSettingsModified(m_parts.settings->isModified());
  Q_EMIT settingsEdited();
}

void ProjectController::setSettingsModified(bool modified) {
  m_settingsModified = modified;
  m_parts.recovery->editsChanged();
  Q_EMIT titleChanged();
}

bool ProjectController::save() {
  bool ok = true;
  QStringList saved;
  widgets::SourceEditor* editor = m_parts.editor;
  if (editor->isModified()) {
    QString error;
    if (editor->save(&error)) saved << QFileInfo(editor->filePath()).fileName();
    else {
      Q_EMIT errorReported(tr("Cannot save"), error);
      ok = false;
    }
  }
  if (m_project && m_settingsModified) {
    DiagnosticEngine diags;
    if (saveProject(*m_project, diags)) {
      saved << QFileInfo(m_projectFile).fileName();
      m_parts.settings->markSaved();
      setSettingsModified(false);
    } else {
      Q_EMIT errorReported(tr("Cannot save"), diagnosticsText(diags));
      ok = false;
    }
  }
  if (!saved.isEmpty()) Q_EMIT statusMessage(tr("Saved %1").arg(saved.join(QStringLiteral(", "))), 5000);
  Q_EMIT titleChanged();
  // What was saved leaves the recovery file (all of it: the file goes); after
  // a failed save the edits stay in it.
  if (ok) m_parts.recovery->autosaveNow();
  return ok;
}

bool ProjectController::confirmDiscardEdits() {
  widgets::SourceEditor* editor = m_parts.editor;
  if (!editor->isModified() && !m_settingsModified) return true;
  if (!m_parts.window->isVisible()) return true;  // headless (tests, --exit): nothing to ask
  QStringList what;
  if (editor->isModified()) what << QFileInfo(editor->filePath()).fileName();
  if (m_settingsModified) what << QFileInfo(m_projectFile).fileName();
  auto answer = QMessageBox::question(m_parts.window, tr("Unsaved changes"),
                                      tr("Save the changes to %1?").arg(what.join(tr(" and "))),
                                      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (answer == QMessageBox::Cancel) return false;
  if (answer == QMessageBox::Save) return save();
  m_parts.recovery->discard();
  return true;
}

EditRecovery ProjectController::unsavedEdits() const {
  EditRecovery edits;
  widgets::SourceEditor* editor = m_parts.editor;
  if (editor->isModified() && !editor->filePath().isEmpty())
    edits.editor = RecoveredFile{editor->filePath().toStdString(), editor->text().toStdString()};
  if (m_project && m_settingsModified) edits.project = RecoveredFile{m_project->file, serializeProject(*m_project)};
  return edits;
}

void ProjectController::restoreEdits(const EditRecovery& recovered, QStringList& restored, QStringList& failed) {
  widgets::SourceEditor* editor = m_parts.editor;
  if (recovered.editor) {
    if (sameFile(QString::fromStdString(recovered.editor->file.string()), editor->filePath())) {
      replaceKernelText(QString::fromStdString(recovered.editor->text), QString());
      restored << QFileInfo(editor->filePath()).fileName();
    } else {
      failed << tr("%1 is not the file in the editor").arg(QString::fromStdString(recovered.editor->file.string()));
    }
  }
  if (recovered.project && m_project) {
    // The recovered settings become one undoable settings edit: a patch from
    // the settings as loaded to the settings as they were being edited.
    DiagnosticEngine diags;
    std::optional<OperatorProject> edited = parseProject(recovered.project->text, m_project->file, diags);
    QString error;
    if (edited) {
      nlohmann::json patch = nlohmann::json::diff(nlohmann::json(m_parts.settings->settings()),
                                                  nlohmann::json(widgets::ProjectSettingsDocument::settingsOf(*edited)));
      if (m_parts.settings->applyPatch(patch, tr("Restore unsaved settings"), &error))
        restored << QFileInfo(m_projectFile).fileName();
      else
        failed << error;
    } else {
      failed << diagnosticsText(diags);
    }
  }
}

void ProjectController::replaceKernelText(const QString& newSource, const QString& summary) {
  // One undo step in the editor, keeping the view where it was.
  widgets::SourceEditor* editor = m_parts.editor;
  int firstLine = editor->firstVisibleLine();
  int line = 0;
  int index = 0;
  editor->getCursorPosition(&line, &index);
  editor->beginUndoAction();
  editor->selectAll();
  editor->replaceSelectedText(newSource);
  editor->endUndoAction();
  editor->setCursorPosition(line, index);
  editor->setFirstVisibleLine(firstLine);
  Q_EMIT statusMessage(summary, 8000);
}

bool ProjectController::importTunedConfig(const QString& path) {
  if (!m_project) {
    Q_EMIT errorReported(tr("Cannot import a tuned config"), tr("Open a project to import a tuned config into."));
    return false;
  }
  OperatorProject imported = *m_project;
  DiagnosticEngine diags;
  if (!applyTunedConfigFile(path.toStdString(), imported, diags)) {
    Q_EMIT problemsFound(diags.diagnostics());
    Q_EMIT errorReported(tr("Cannot import the tuned config"), diagnosticsText(diags));
    return false;
  }
  // Through the settings document, as one undoable edit.
  widgets::ProjectSettingsDocument* settings = m_parts.settings;
  settings->undoStack()->beginMacro(tr("Import %1").arg(QFileInfo(path).fileName()));
  settings->setMachine(QString::fromStdString(imported.machine));
  auto replaceAll = [](const nlohmann::ordered_json& now, const nlohmann::ordered_json& wanted, auto set) {
    if (now.is_object())
      for (const auto& [key, value] : now.items())
        if (!wanted.is_object() || !wanted.contains(key)) set(QString::fromStdString(key), nlohmann::ordered_json());
    if (wanted.is_object())
      for (const auto& [key, value] : wanted.items()) set(QString::fromStdString(key), value);
  };
  for (const char* section : {"vec", "cube"}) {
    QString name = QString::fromLatin1(section);
    nlohmann::ordered_json now = settings->tileSettings().value(section, nlohmann::ordered_json::object());
    nlohmann::ordered_json wanted = imported.tileSettings.value(section, nlohmann::ordered_json::object());
    replaceAll(now, wanted, [&](const QString& key, const nlohmann::ordered_json& value) {
      settings->setTileShape(name, key, value);
    });
  }
  replaceAll(settings->passOptions(), imported.passOptions,
             [&](const QString& key, const nlohmann::ordered_json& value) { settings->setPassOption(key, value); });
  replaceAll(settings->runtimeOptions(), imported.runtimeOptions,
             [&](const QString& key, const nlohmann::ordered_json& value) { settings->setRuntimeOption(key, value); });
  settings->undoStack()->endMacro();
  // Partition overrides are not settings-panel edits: they go in directly.
  if (imported.partitionOverrides != m_project->partitionOverrides) {
    m_project->partitionOverrides = imported.partitionOverrides;
    m_project->partitionOverrideLocations.clear();
    setSettingsModified(true);
  }
  Q_EMIT statusMessage(tr("Imported %1 (Ctrl+Z undoes it)").arg(path), 8000);
  return true;
}

bool ProjectController::exportTunedConfig(const QString& path, const ProjectRunOutcome& lastRun) {
  if (!m_project) {
    Q_EMIT errorReported(tr("Cannot export the tuned config"), tr("Open a project to export its tuned config."));
    return false;
  }
  std::optional<TunedConfigMeasurement> measured;
  if (lastRun.trace) measured = TunedConfigMeasurement{lastRun.makespanUs, lastRun.machine, "timing"};
  std::string error;
  if (!writeFileAtomically(path.toStdString(), tunedConfig(*m_project, measured).dump(2) + "\n", error)) {
    Q_EMIT errorReported(tr("Cannot export the tuned config"), tr("Cannot write %1: %2").arg(path, QString::fromStdString(error)));
    return false;
  }
  Q_EMIT statusMessage(tr("Exported the tuned config to %1").arg(path), 8000);
  return true;
}

std::optional<ProjectController::NewProject> ProjectController::askForNewProject() {
  std::vector<ExampleProject> examples = availableExamples();
  if (examples.empty()) {
    Q_EMIT errorReported(tr("Cannot create a project"),
                         tr("No bundled examples were found beside the executable (../share/pto-studio/examples) or in the "
                            "source tree; rebuild or reinstall PTO Studio, or open an existing project with Ctrl+O."));
    return std::nullopt;
  }
  QDialog dialog(m_parts.window);
  dialog.setWindowTitle(tr("New project"));
  auto* form = new QFormLayout(&dialog);
  auto* exampleBox = new QComboBox(&dialog);
  for (const ExampleProject& example : examples)
    exampleBox->addItem(QString::fromStdString(example.name), QString::fromStdString(example.name));
  auto* description = new QLabel(&dialog);
  description->setWordWrap(true);
  auto describe = [&] {
    description->setText(QString::fromStdString(examples[static_cast<std::size_t>(exampleBox->currentIndex())].description));
  };
  connect(exampleBox, &QComboBox::currentIndexChanged, &dialog, describe);
  describe();
  QString home = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  if (home.isEmpty()) home = QDir::homePath();
  auto* folder = new QLineEdit(QDir(home).filePath(QStringLiteral("pto-projects/my_operator")), &dialog);
  folder->setMinimumWidth(380);
  auto* browse = new QPushButton(tr("Browse…"), &dialog);
  connect(browse, &QPushButton::clicked, &dialog, [&] {
    QString parent = QFileDialog::getExistingDirectory(&dialog, tr("Where to create the project folder"), home);
    if (!parent.isEmpty()) folder->setText(QDir(parent).filePath(QFileInfo(folder->text()).fileName()));
  });
  auto* folderRow = new QHBoxLayout;
  folderRow->addWidget(folder);
  folderRow->addWidget(browse);
  form->addRow(tr("Start from"), exampleBox);
  form->addRow(QString(), description);
  form->addRow(tr("New folder"), folderRow);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Create"));
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  form->addRow(buttons);
  if (dialog.exec() != QDialog::Accepted) return std::nullopt;
  return NewProject{exampleBox->currentData().toString(), folder->text()};
}

std::optional<QString> ProjectController::createFromExample(const QString& example, const QString& folder) {
  if (!confirmDiscardEdits()) return std::nullopt;
  DiagnosticEngine diags;
  auto projectFile = createProjectFromExample(example.toStdString(), folder.toStdString(), diags);
  if (!projectFile) {
    Q_EMIT errorReported(tr("Cannot create the project"), diagnosticsText(diags));
    return std::nullopt;
  }
  return QString::fromStdString(projectFile->string());
}

} // namespace pto::studio
