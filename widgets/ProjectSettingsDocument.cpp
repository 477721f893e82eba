// Implementation of ProjectSettingsDocument.
#include "widgets/ProjectSettingsDocument.h"


#include <QUndoCommand>
#include <QUndoStack>

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <vector>

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

ProjectSettingsDocument::~ProjectSettingsDocument() {
  // The stack is a QObject child, deleted after this class is gone; its
  // destructor clears it and emits indexChanged and cleanChanged, whose
  // listeners (the Graphs tab, this document's own lambda) would call back
  // into a document no longer of this type.
  m_undoStack->blockSignals(true);
}

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

namespace {

// "Tile shape kernel.py:12 → [64, 128]", "... → m 64,64 k 64,128 n 64,64", "... → not set".
QString tileShapeEditText(const QString& key, TileSection section, const std::optional<TileShape>& shape,
                          const Json& asGiven) {
  QString text = QObject::tr("not set");
  if (shape) {
    text = QString::fromStdString(shape->text());
    if (section == TileSection::Vec) text = QStringLiteral("[%1]").arg(text);
  } else if (!asGiven.is_null()) {
    text = shown(asGiven, {});  // malformed: kept as given, the compile names what is wrong with it
  }
  return QObject::tr("Tile shape %1 → %2").arg(key, text);
}

} // namespace

void ProjectSettingsDocument::setTileShape(const QString& section, const QString& key, const Json& value) {
  const TileSection tileSection = section == QLatin1String("cube") ? TileSection::Cube : TileSection::Vec;
  std::string error;
  const std::optional<TileShape> shape = TileShape::fromJson(tileSection, value, error);
  push(Part::TileShape, section, key, value, tileShapeEditText(key, tileSection, shape, value));
}

void ProjectSettingsDocument::setTileShape(TileSection section, const QString& key, const std::optional<TileShape>& shape) {
  const Json value = shape ? shape->json() : Json();
  push(Part::TileShape, QString::fromUtf8(name(section).data(), static_cast<int>(name(section).size())), key, value,
       tileShapeEditText(key, section, shape, value));
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

void ProjectSettingsDocument::setPartitionOverrides(const Json& entries, const QString& text) {
  push(Part::PartitionOverrides, {}, QStringLiteral("partition_overrides"), entries.is_array() ? entries : Json::array(), text);
}

Json ProjectSettingsDocument::settingsOf(const OperatorProject& project) {
  ProjectSettingsDocument document;
  document.load(project);
  return document.settings();
}

Json ProjectSettingsDocument::settings() const {
  Json settings = Json::object();
  settings["machine"] = m_machine.toStdString();
  settings["tile_settings"] = m_tileSettings;
  settings["pass_options"] = m_passOptions;
  settings["runtime_options"] = m_runtimeOptions;
  settings["partition_overrides"] = m_partitionOverrides;
  return settings;
}

bool ProjectSettingsDocument::applyPatch(const nlohmann::json& patch, const QString& text, QString* error) {
  auto fail = [error](const QString& reason) {
    if (error) *error = reason;
    return false;
  };
  if (!patch.is_array()) return fail(tr("not a JSON patch: expected an array of RFC 6902 operations"));
  // Checked before anything applies: a patch is applied whole or not at all.
  const Json settings = this->settings();
  for (const auto& operation : patch) {
    if (!operation.is_object() || !operation.contains("path") || !operation["path"].is_string())
      return fail(tr("not a JSON patch: an operation without a \"path\""));
    for (const char* member : {"path", "from"}) {
      if (!operation.contains(member)) continue;
      const std::string pointer = operation[member].is_string() ? operation[member].get<std::string>() : std::string();
      const std::string first = pointer.size() > 1 && pointer[0] == '/' ? pointer.substr(1, pointer.find('/', 1) - 1) : std::string();
      if (!settings.contains(first))
        return fail(tr("the patch changes %1, which is not a setting the IDE edits (machine, tile_settings, pass_options, "
                       "runtime_options, partition_overrides); nothing was applied")
                        .arg(pointer.empty() ? tr("the whole project") : QString::fromStdString(pointer)));
    }
  }
  Json patched;
  try {
    patched = settings.patch(Json::parse(patch.dump()));
  } catch (const Json::exception& exception) {
    return fail(tr("the patch does not apply to the settings: %1; nothing was applied").arg(QString::fromUtf8(exception.what())));
  }
  // A removed part is the part at its default.
  auto part = [&](const char* key, Json fallback) { return patched.contains(key) ? patched[key] : fallback; };
  const Json machine = part("machine", "a2");
  const Json tiles = part("tile_settings", Json::object());
  const Json passes = part("pass_options", Json::object());
  const Json runtime = part("runtime_options", Json::object());
  const Json overrides = part("partition_overrides", Json::array());
  if (!machine.is_string() || !tiles.is_object() || !passes.is_object() || !runtime.is_object() || !overrides.is_array())
    return fail(tr("the patched settings have the wrong form (machine a name, tile_settings, pass_options and "
                   "runtime_options objects, partition_overrides an array); nothing was applied"));
  for (const auto& [section, shapes] : tiles.items())
    if (!shapes.is_object()) return fail(tr("the patched tile_settings.%1 is not an object; nothing was applied").arg(QString::fromStdString(section)));

  // The edits, gathered first so that a patch that changes nothing pushes nothing.
  std::vector<std::function<void()>> edits;
  auto keysOf = [](const Json& a, const Json& b) {
    std::vector<std::string> keys;
    for (const Json* object : {&a, &b})
      if (object->is_object())
        for (const auto& [key, value] : object->items())
          if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    return keys;
  };
  auto at = [](const Json& object, const std::string& key) { return object.is_object() && object.contains(key) ? object[key] : Json(); };
  if (machine.get<std::string>() != m_machine.toStdString())
    edits.push_back([this, name = QString::fromStdString(machine.get<std::string>())] { setMachine(name); });
  for (const std::string& section : keysOf(m_tileSettings, tiles)) {
    const Json before = at(m_tileSettings, section), after = at(tiles, section);
    for (const std::string& key : keysOf(before, after))
      if (at(before, key) != at(after, key))
        edits.push_back([this, section = QString::fromStdString(section), key = QString::fromStdString(key), value = at(after, key)] {
          setTileShape(section, key, value);
        });
  }
  for (const std::string& name : keysOf(m_passOptions, passes))
    if (at(m_passOptions, name) != at(passes, name))
      edits.push_back([this, name = QString::fromStdString(name), value = at(passes, name)] { setPassOption(name, value); });
  for (const std::string& name : keysOf(m_runtimeOptions, runtime))
    if (at(m_runtimeOptions, name) != at(runtime, name))
      edits.push_back([this, name = QString::fromStdString(name), value = at(runtime, name)] { setRuntimeOption(name, value); });
  if (overrides != m_partitionOverrides)
    edits.push_back([this, overrides, text] { setPartitionOverrides(overrides, text); });
  if (edits.empty()) return true;
  m_undoStack->beginMacro(text);
  for (const auto& edit : edits) edit();
  m_undoStack->endMacro();
  return true;
}

bool ProjectSettingsDocument::isModified() const { return !m_undoStack->isClean(); }

void ProjectSettingsDocument::markSaved() { m_undoStack->setClean(); }

} // namespace pto::widgets
