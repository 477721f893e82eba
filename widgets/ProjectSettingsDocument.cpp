// Implementation of ProjectSettingsDocument.
#include "widgets/ProjectSettingsDocument.h"

#include "analysis/TileBufferCheck.h"

#include <QUndoCommand>
#include <QUndoStack>

#include <algorithm>

namespace pto::widgets {
namespace {

using Json = nlohmann::ordered_json;

// One settings edit: the value before and after.
class SetSettingCommand : public QUndoCommand {
public:
  SetSettingCommand(ProjectSettingsDocument& document, ProjectSettingsDocument::Part part, QString section, QString key,
                    Json before, Json after, const QString& text)
      : QUndoCommand(text), m_document(document), m_part(part), m_section(std::move(section)), m_key(std::move(key)),
        m_before(std::move(before)), m_after(std::move(after)) {}
  void redo() override { m_document.assign(m_part, m_section, m_key, m_after); }
  void undo() override { m_document.assign(m_part, m_section, m_key, m_before); }

private:
  ProjectSettingsDocument& m_document;
  ProjectSettingsDocument::Part m_part;
  QString m_section, m_key;
  Json m_before, m_after;
};

QString shown(const Json& value, const QString& ifNull) {
  if (value.is_null()) return ifNull;
  return QString::fromStdString(value.dump()).replace(QStringLiteral(","), QStringLiteral(", ")).replace(QStringLiteral(":"), QStringLiteral(": "));
}

Json& objectIn(Json& json) {
  if (!json.is_object()) json = Json::object();
  return json;
}

} // namespace

ProjectSettingsDocument::ProjectSettingsDocument(QObject* parent) : QObject(parent), m_undoStack(new QUndoStack(this)) {
  connect(m_undoStack, &QUndoStack::cleanChanged, this, [this](bool clean) { Q_EMIT modifiedChanged(!clean); });
}

ProjectSettingsDocument::~ProjectSettingsDocument() = default;

void ProjectSettingsDocument::load(const OperatorProject& project) {
  m_undoStack->clear();
  m_machine = QString::fromStdString(project.machine);
  m_tileSettings = project.tileSettings.is_object() ? project.tileSettings : Json::object();
  m_passOptions = project.passOptions.is_object() ? project.passOptions : Json::object();
  m_runtimeOptions = project.runtimeOptions.is_object() ? project.runtimeOptions : Json::object();
  m_partitionOverrides = project.partitionOverrides.is_array() ? project.partitionOverrides : Json::array();
  m_undoStack->setClean();
  Q_EMIT settingsChanged();
}

void ProjectSettingsDocument::applyTo(OperatorProject& project) const {
  project.machine = m_machine.toStdString();
  project.tileSettings = m_tileSettings;
  project.passOptions = m_passOptions;
  project.runtimeOptions = m_runtimeOptions;
  // Entries the IDE added have no place in the file yet: their messages
  // point at the project file itself until it is saved and reloaded.
  if (project.partitionOverrides != m_partitionOverrides) {
    std::size_t same = 0;
    while (same < project.partitionOverrides.size() && same < m_partitionOverrides.size() &&
           project.partitionOverrides[same] == m_partitionOverrides[same])
      ++same;
    project.partitionOverrides = m_partitionOverrides;
    project.partitionOverrideLocations.resize(std::min(project.partitionOverrideLocations.size(), same));
  }
}

Json ProjectSettingsDocument::value(Part part, const QString& section, const QString& key) const {
  const std::string name = key.toStdString();
  auto lookup = [&](const Json& object) { return object.is_object() && object.contains(name) ? object[name] : Json(); };
  switch (part) {
  case Part::Machine: return m_machine.toStdString();
  case Part::TileShape: {
    const std::string sectionName = section.toStdString();
    if (!m_tileSettings.contains(sectionName)) return Json();
    return lookup(m_tileSettings[sectionName]);
  }
  case Part::PassOption: return lookup(m_passOptions);
  case Part::RuntimeOption: return lookup(m_runtimeOptions);
  case Part::PartitionOverrides: return m_partitionOverrides;
  }
  return Json();
}

Json ProjectSettingsDocument::tileShape(const QString& section, const QString& key) const {
  return value(Part::TileShape, section, key);
}
Json ProjectSettingsDocument::passOption(const QString& name) const { return value(Part::PassOption, {}, name); }
Json ProjectSettingsDocument::runtimeOption(const QString& name) const { return value(Part::RuntimeOption, {}, name); }

void ProjectSettingsDocument::assign(Part part, const QString& section, const QString& key, const Json& value) {
  const std::string name = key.toStdString();
  auto set = [&](Json& object) {
    objectIn(object);
    if (value.is_null()) object.erase(name);
    else object[name] = value;
  };
  switch (part) {
  case Part::Machine: m_machine = QString::fromStdString(value.is_string() ? value.get<std::string>() : std::string("a2")); break;
  case Part::TileShape: {
    Json& settings = objectIn(m_tileSettings);
    const std::string sectionName = section.toStdString();
    if (!settings.contains(sectionName) && value.is_null()) break;
    set(settings[sectionName]);
    // An emptied section leaves the file as it was before the first edit.
    if (settings[sectionName].empty()) settings.erase(sectionName);
    break;
  }
  case Part::PassOption: set(m_passOptions); break;
  case Part::RuntimeOption: set(m_runtimeOptions); break;
  case Part::PartitionOverrides: m_partitionOverrides = value.is_array() ? value : Json::array(); break;
  }
  Q_EMIT settingsChanged();
}

void ProjectSettingsDocument::push(Part part, const QString& section, const QString& key, const Json& value,
                                   const QString& text) {
  Json before = this->value(part, section, key);
  if (before == value) return;
  m_undoStack->push(new SetSettingCommand(*this, part, section, key, std::move(before), value, text));
}

void ProjectSettingsDocument::setTileShape(const QString& section, const QString& key, const Json& value) {
  QString text = tr("not set");
  if (!value.is_null()) {
    std::string form = shapeText(section == QLatin1String("cube") ? TileSection::Cube : TileSection::Vec, value);
    text = section == QLatin1String("cube") ? QString::fromStdString(form) : QStringLiteral("[%1]").arg(QString::fromStdString(form));
  }
  push(Part::TileShape, section, key, value, tr("Tile shape %1 → %2").arg(key, text));
}

void ProjectSettingsDocument::setPassOption(const QString& name, const Json& value) {
  push(Part::PassOption, {}, name, value, tr("Pass option %1 → %2").arg(name, shown(value, tr("default"))));
}

void ProjectSettingsDocument::setRuntimeOption(const QString& name, const Json& value) {
  push(Part::RuntimeOption, {}, name, value, tr("Runtime option %1 → %2").arg(name, shown(value, tr("default"))));
}

void ProjectSettingsDocument::setMachine(const QString& name) {
  push(Part::Machine, {}, QStringLiteral("machine"), name.toStdString(), tr("Machine → %1").arg(name));
}

void ProjectSettingsDocument::addPartitionOverride(const Json& entry, const QString& text) {
  Json after = m_partitionOverrides;
  after.push_back(entry);
  push(Part::PartitionOverrides, {}, QStringLiteral("partition_overrides"), after, text);
}

void ProjectSettingsDocument::addPartitionOverrides(const Json& entries, const QString& text) {
  Json after = m_partitionOverrides;
  for (const Json& entry : entries) after.push_back(entry);
  push(Part::PartitionOverrides, {}, QStringLiteral("partition_overrides"), after, text);
}

void ProjectSettingsDocument::removePartitionOverride(std::size_t index) {
  if (index >= m_partitionOverrides.size()) return;
  Json after = m_partitionOverrides;
  after.erase(after.begin() + static_cast<std::ptrdiff_t>(index));
  push(Part::PartitionOverrides, {}, QStringLiteral("partition_overrides"), after,
       tr("Remove partition override %1").arg(index + 1));
}

bool ProjectSettingsDocument::isModified() const { return !m_undoStack->isClean(); }

void ProjectSettingsDocument::markSaved() { m_undoStack->setClean(); }

} // namespace pto::widgets
