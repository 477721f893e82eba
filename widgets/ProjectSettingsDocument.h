// ProjectSettingsDocument: the editable tuning settings of an operator
// project — machine, tile_settings, pass_options, runtime_options and
// partition_overrides (the graph view's drag edits) — with
// undo. Every setter pushes a command onto undoStack() with a readable text
// ("Tile shape kernel.py:12 → [64, 128]"), so Ctrl+Z / Ctrl+Shift+Z undo and
// redo settings edits; the stack's clean state is "saved".
//
// Values are the project file's JSON forms (docs/project-format.md). A null
// value removes the key: for a tile shape the kernel's own value (or the next
// key in ExpandFunction's precedence) applies again; for an option its
// default. Setting a value equal to the current one pushes nothing.
#pragma once

#include "compiler/settings/TileSettings.h"
#include "core/project/OperatorProject.h"

#include <QObject>
#include <QString>

#include <nlohmann/json.hpp>

class QUndoStack;

namespace pto::widgets {

class ProjectSettingsDocument : public QObject {
  Q_OBJECT
public:
  // Which part of the project a setting lives in.
  enum class Part { Machine, TileShape, PassOption, RuntimeOption, PartitionOverrides };

  explicit ProjectSettingsDocument(QObject* parent = nullptr);
  ~ProjectSettingsDocument() override;

  // Takes the settings of `project`; clears the undo stack and marks them saved.
  void load(const OperatorProject& project);
  // Writes the settings into `project` (its other fields untouched).
  void applyTo(OperatorProject& project) const;

  QString machine() const { return m_machine; }
  const nlohmann::ordered_json& tileSettings() const { return m_tileSettings; }
  const nlohmann::ordered_json& passOptions() const { return m_passOptions; }
  const nlohmann::ordered_json& runtimeOptions() const { return m_runtimeOptions; }
  // The partition_overrides array (docs/project-format.md).
  const nlohmann::ordered_json& partitionOverrides() const { return m_partitionOverrides; }
  // tile_settings.<section>.<key>, null when absent.
  nlohmann::ordered_json tileShape(const QString& section, const QString& key) const;
  nlohmann::ordered_json passOption(const QString& name) const;
  nlohmann::ordered_json runtimeOption(const QString& name) const;

  // `section` is "vec" or "cube"; `key` a call site "kernel.py:12", a label or "DEFAULT".
  void setTileShape(const QString& section, const QString& key, const nlohmann::ordered_json& value);
  // The same for a shape already parsed (the tuning panel's edits); nullopt removes the key.
  void setTileShape(TileSection section, const QString& key, const std::optional<TileShape>& shape);
  void setPassOption(const QString& name, const nlohmann::ordered_json& value);
  void setRuntimeOption(const QString& name, const nlohmann::ordered_json& value);
  void setMachine(const QString& name);
  // Appends one partition_overrides entry; `text` names the edit for Undo
  // ("Move add 'scale_add' tile 1 into sg0").
  void addPartitionOverride(const nlohmann::ordered_json& entry, const QString& text);
  // Several entries as one undoable edit (a selection moved together).
  void addPartitionOverrides(const nlohmann::ordered_json& entries, const QString& text);
  // Removes entry `index` (the overrides list's Delete).
  void removePartitionOverride(std::size_t index);
  // Replaces the whole partition_overrides array.
  void setPartitionOverrides(const nlohmann::ordered_json& entries, const QString& text);

  // Applies a JSON patch (RFC 6902) of pto-project.json — an advisor
  // suggestion or a tuner point — as one undoable edit named `text`: each
  // changed machine, tile shape, pass option, runtime option or the
  // partition overrides becomes its setter's edit inside one undo macro, so
  // one Ctrl+Z undoes all of it. A patch that touches anything else (the
  // kernel's arguments, bindings, ...) or does not apply changes nothing:
  // false with the reason in `error`. True also when the patch changes
  // nothing (the settings already have its values).
  bool applyPatch(const nlohmann::json& patch, const QString& text, QString* error = nullptr);

  // The settings the IDE edits — machine, tile_settings, pass_options,
  // runtime_options, partition_overrides — as one object keyed as in
  // pto-project.json: of `project`, or as currently edited.
  static nlohmann::ordered_json settingsOf(const OperatorProject& project);
  nlohmann::ordered_json settings() const;

  QUndoStack* undoStack() const { return m_undoStack; }
  bool isModified() const;
  void markSaved();

  // For the undo commands: sets a value without pushing a command.
  void assign(Part part, const QString& section, const QString& key, const nlohmann::ordered_json& value);
  nlohmann::ordered_json value(Part part, const QString& section, const QString& key) const;

Q_SIGNALS:
  // After any change: an edit, an undo or redo, load().
  void settingsChanged();
  // isModified() changed.
  void modifiedChanged(bool modified);

private:
  void push(Part part, const QString& section, const QString& key, const nlohmann::ordered_json& value,
            const QString& text);

  QUndoStack* m_undoStack = nullptr;
  QString m_machine;
  nlohmann::ordered_json m_tileSettings = nlohmann::ordered_json::object();
  nlohmann::ordered_json m_passOptions = nlohmann::ordered_json::object();
  nlohmann::ordered_json m_runtimeOptions = nlohmann::ordered_json::object();
  nlohmann::ordered_json m_partitionOverrides = nlohmann::ordered_json::array();
};

} // namespace pto::widgets
