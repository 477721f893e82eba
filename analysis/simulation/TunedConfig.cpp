// Exporting and importing tuned configurations.
#include "analysis/simulation/TunedConfig.h"

#include "analysis/simulation/Simulation.h"
#include "core/AtomicFile.h"
#include "core/json/JsonReader.h"
#include "core/project/ProjectFile.h"
#include "npusim/MachineFile.h"

#include <array>

namespace pto {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::array<std::string_view, 9> kTunedConfigKeys = {
    "format",          "version",           "project",  "machine", "tile_settings", "pass_options",
    "runtime_options", "partition_overrides", "measured"};

} // namespace

Json tunedConfig(const OperatorProject& project, const std::optional<TunedConfigMeasurement>& measured) {
  Json config;
  config["format"] = kTunedConfigFormat;
  config["version"] = kTunedConfigVersion;
  config["project"] = project.name;
  config["machine"] = project.machine;
  config["tile_settings"] = project.tileSettings.is_null() ? Json::object() : project.tileSettings;
  config["pass_options"] = project.passOptions.is_null() ? Json::object() : project.passOptions;
  config["runtime_options"] = project.runtimeOptions.is_null() ? Json::object() : project.runtimeOptions;
  config["partition_overrides"] = project.partitionOverrides.is_null() ? Json::array() : project.partitionOverrides;
  if (measured)
    config["measured"] = {{"makespan_us", measured->makespanUs}, {"machine", measured->machine}, {"mode", measured->mode}};
  return config;
}

bool applyTunedConfig(std::string_view text, const std::filesystem::path& file, OperatorProject& project,
                      DiagnosticEngine& diags) {
  auto document = parseJsonDocument(text, file, diags,
                                    "the tuned-config file is empty; it is a JSON object such as `pto export-config` "
                                    "writes");
  if (!document) return false;
  JsonReader reader(text, file, diags);
  if (!reader.readTopLevelObject(*document, "a tuned config, as `pto export-config` writes it,", kTunedConfigKeys))
    return false;
  const KeyPath root;
  std::size_t errorsBefore = diags.errorCount();

  if (const Json* format = reader.member(*document, root / "format")) {
    std::string value;
    if (reader.readString(*format, root / "format", value) && value != kTunedConfigFormat)
      reader.error(root / "format") << "expected \"" << kTunedConfigFormat << "\", got \"" << value
                                    << "\"; this is not a tuned-config file";
  }
  if (const Json* version = reader.member(*document, root / "version")) {
    auto value = reader.readInteger(*version, root / "version");
    if (value && *value != kTunedConfigVersion)
      reader.error(root / "version") << "version " << *value << " is not supported; this pto reads version "
                                     << kTunedConfigVersion;
  }
  if (const Json* name = reader.member(*document, root / "project")) {
    std::string value;
    if (reader.readString(*name, root / "project", value) && value != project.name)
      reader.warning(root / "project") << "exported from project '" << value << "', applied to '" << project.name
                                       << "'";
  }
  std::optional<std::string> machine;
  if (const Json* value = reader.member(*document, root / "machine")) {
    std::string machineName;
    // Resolving the machine reports an unknown name with the ones there are.
    if (reader.readString(*value, root / "machine", machineName) &&
        findMachine(machineName, diags, reader.valueLocation(root / "machine")))
      machine = machineName;
  }
  const Json* tileSettings = reader.member(*document, root / "tile_settings");
  if (tileSettings) checkTileSettings(*tileSettings, root / "tile_settings", reader);
  const Json* passOptions = reader.member(*document, root / "pass_options");
  if (passOptions) reader.expectType(*passOptions, root / "pass_options", Json::value_t::object);
  const Json* runtimeOptions = reader.member(*document, root / "runtime_options");
  if (runtimeOptions && reader.expectType(*runtimeOptions, root / "runtime_options", Json::value_t::object))
    runtimeSettingsFrom(*runtimeOptions, reader.valueLocation(root / "runtime_options"), diags);
  const Json* overrides = reader.member(*document, root / "partition_overrides");
  // Entries are checked where they are applied, against the compiled kernel
  // (ApplyPartitionOverrides); here only their outer form.
  if (overrides && reader.expectType(*overrides, root / "partition_overrides", Json::value_t::array))
    for (std::size_t i = 0; i < overrides->size(); ++i)
      reader.expectType((*overrides)[i], root / "partition_overrides" / i, Json::value_t::object);
  if (const Json* measured = reader.member(*document, root / "measured"))
    reader.expectType(*measured, root / "measured", Json::value_t::object);
  if (diags.errorCount() > errorsBefore) return false;

  if (machine) project.machine = *machine;
  if (tileSettings) project.tileSettings = *tileSettings;
  if (passOptions) project.passOptions = *passOptions;
  if (runtimeOptions) project.runtimeOptions = *runtimeOptions;
  if (overrides) {
    project.partitionOverrides = *overrides;
    // Until the project is saved and reloaded, errors about an entry point
    // at the entry in the imported file.
    project.partitionOverrideLocations.clear();
    for (std::size_t i = 0; i < overrides->size(); ++i)
      project.partitionOverrideLocations.push_back(reader.valueLocation(root / "partition_overrides" / i));
  }
  for (const char* key : {"machine", "pass_options", "runtime_options"})
    if (reader.member(*document, root / key)) project.settingLocations[key] = reader.valueLocation(root / key);
  return true;
}

bool applyTunedConfigFile(const std::filesystem::path& file, OperatorProject& project, DiagnosticEngine& diags) {
  std::string text;
  std::string reason;
  if (!readFile(file, text, reason))
    return diags.error(SourceLocation{file.string()}) << "cannot read the tuned config: " << reason;
  return applyTunedConfig(text, file, project, diags);
}

} // namespace pto
