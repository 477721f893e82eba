// TuningPanel: the tuning dock — machine selector, tile shapes per site with
// a live buffer check while typing, pass and runtime options with typed
// editors, defaults and one-line explanations. Every edit goes through the
// ProjectSettingsDocument (undo, settingsChanged); the panel never runs
// anything itself.
//
// Use:
//   auto* settings = new ProjectSettingsDocument(window);
//   settings->load(project);                     // when a project opens
//   auto* panel = new TuningPanel(settings, window);
//   panel->setProject(project, tracedGraph);     // after each trace/run: refreshes the sites
//   connect(settings, &ProjectSettingsDocument::settingsChanged, ...);  // apply + rerun
//   connect(panel, &TuningPanel::kernelRewriteRequested, ...);          // put the text into the editor
#pragma once

#include "widgets/ProjectSettingsDocument.h"
#include "widgets/models/TileSettingsModel.h"

#include <QWidget>

#include <functional>
#include <map>
#include <memory>

class QComboBox;
class QLabel;
class QPushButton;
class QTableView;
class QVBoxLayout;

namespace pto::widgets {

class TuningPanel : public QWidget {
  Q_OBJECT
public:
  explicit TuningPanel(ProjectSettingsDocument* document, QWidget* parent = nullptr);
  ~TuningPanel() override;

  // The project (its folder, kernel file and argument shapes) and its traced
  // kernel (null before the first successful trace: no tile sites then).
  void setProject(const OperatorProject& project, std::shared_ptr<const TensorGraph> traced);
  void setProject(const OperatorProject& project, const TensorGraph* traced);  // copies the graph

  // Where "Write shapes back into kernel" reads the kernel's current text
  // (the editor's, with unsaved edits); by default the project's file on disk.
  void setKernelSourceProvider(std::function<QString()> provider);

  TileSettingsModel* tileModel() const { return m_tileModel; }
  // What the shape editor shows under itself for `text` at `row`: bytes used
  // / available per memory and any problem; `fits` false paints it red.
  QString liveCheckText(int row, const QString& text, bool* fits = nullptr) const;
  // The editor of an option (for tests and keyboard focus); null if unknown.
  QWidget* optionEditor(const QString& name) const;
  QString messageText() const;  // the panel's last message (write-back result, option errors)

public Q_SLOTS:
  // Rewrites every call-site shape the project overrides into the kernel's
  // set_*_tile_shapes calls, emits kernelRewriteRequested with the new text
  // and removes those overrides (one undo step). Sites it cannot rewrite are
  // named in messageText() and keep their override.
  void writeShapesBack();

Q_SIGNALS:
  // The kernel's whole new text (the lead replaces the editor's text with it,
  // as one editor undo step, and saves or marks it modified); `summary` lists
  // the changed lines ("kernel.py:22 → pypto.set_vec_tile_shapes(1, 8, 1, 32)").
  void kernelRewriteRequested(const QString& newSource, const QString& summary);

private:
  void refreshFromDocument();
  void refreshTarget();
  void showDetails();
  void setMessage(const QString& text, bool error);
  QWidget* buildOptionForm(int scope);
  void refreshOptionEditors();

  ProjectSettingsDocument* m_document;
  TileSettingsModel* m_tileModel;
  QComboBox* m_machine = nullptr;
  QTableView* m_table = nullptr;
  QLabel* m_details = nullptr;
  QPushButton* m_writeBack = nullptr;
  QLabel* m_message = nullptr;
  std::shared_ptr<const TensorGraph> m_graph;
  bool m_machineProblem = false;  // the message shows an unknown machine
  OperatorProject m_project;
  std::function<QString()> m_sourceProvider;
  struct OptionEditor;
  std::map<QString, std::unique_ptr<OptionEditor>> m_optionEditors;  // "pass:name" / "runtime:name"
};

} // namespace pto::widgets
