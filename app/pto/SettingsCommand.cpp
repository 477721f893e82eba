// `pto settings PROJECT [--machine M]`: the project's tuning settings as the
// tuning panel shows them — every tile site with what it governs and its
// buffer use on the machine, and every pass and runtime option with its
// current value, default and meaning.
#include "app/pto/Command.h"
#include "app/pto/TrustCommand.h"
#include "app/pto/CommandOutput.h"

#include "analysis/tuning/OptionCatalog.h"
#include "analysis/tuning/TileBufferCheck.h"
#include "analysis/tuning/TileSites.h"
#include "compiler/frontend/ProjectTrace.h"
#include "core/Version.h"
#include "core/project/ProjectFile.h"
#include "npusim/MachineFile.h"

#include <cstdio>
#include <iostream>
#include <memory>

namespace pto::cli {
namespace {

using Json = nlohmann::ordered_json;

struct SettingsOptions : ProjectCommandOptions {
  std::string machine;
};

const ProjectCommandSpec kSettingsCommand{
    .name = "settings",
    .description = "List the project's tile sites with their buffer use, and its pass and runtime options"};

std::string governsText(const TileSite& site) {
  if (site.governs.empty()) return "nothing (no op uses this key)";
  std::string kinds;
  std::vector<std::string> seen;
  for (const GovernedOp& op : site.governs) {
    std::string kind(name(op.kind));
    if (std::find(seen.begin(), seen.end(), kind) != seen.end()) continue;
    seen.push_back(kind);
    kinds += (kinds.empty() ? "" : ", ") + kind;
  }
  std::string text = std::to_string(site.governs.size()) + (site.governs.size() == 1 ? " op (" : " ops (") + kinds + ")";
  std::vector<std::string> labels = site.labels();
  if (!labels.empty()) {
    text += " label";
    for (const std::string& label : labels) text += " '" + label + "'";
  }
  std::vector<int> lines = site.lines();
  text += lines.size() == 1 ? ", line " : ", lines ";
  for (std::size_t i = 0; i < lines.size(); ++i) text += (i ? "," : "") + std::to_string(lines[i]);
  return text;
}

Json checkJson(const TileBufferCheck& check) {
  Json json;
  json["fit"] = std::string(name(check.fit));
  json["memories"] = Json::array();
  for (const MemoryUse& use : check.memories)
    json["memories"].push_back({{"memory", memoryLabel(use.memory)},
                                {"used_bytes", use.usedBytes},
                                {"available_bytes", use.availableBytes},
                                {"fused_bytes", use.fusedBytes},
                                {"double_buffered_bytes", use.pingPongBytes},
                                {"worst_op", use.worstOp}});
  json["problems"] = check.problems;
  json["notes"] = check.notes;
  json["summary"] = check.summary();
  json["double_buffered"] = check.doubleBuffered();
  json["buffering"] = check.bufferingText();
  return json;
}

// Compiling notes a tile larger than all it cuts once, where the tile is
// set: a site says so when its own value is the one in effect.
void noteClampedTile(const TileSite& site, const TileBufferChecker& checker, const OperatorProject& project,
                     DiagnosticEngine& diags) {
  const bool projectValue = site.effectiveFrom == site.key;
  const bool kernelCall = site.kind == TileSiteKind::CallSite && site.effectiveFrom == "kernel";
  if (!projectValue && !kernelCall) return;
  std::string note = checker.clampNote(site.effectiveValue);
  if (note.empty()) return;
  if (kernelCall) {
    diags.note(site.location) << note;
    return;
  }
  const std::string key = "tile_settings." + std::string(name(site.section)) + "." + site.key;
  diags.note(project.locationOf(key)) << key << ": " << note;
}

int runSettings(const SettingsOptions& options) {
  DiagnosticEngine diags;
  auto project = loadTrustedProject(options.projectPath, diags);
  if (!project) return failCommand("settings", options.jsonTarget, diags);
  const std::string machineName = options.machine.empty() ? project->machine : options.machine;
  auto machine = findMachine(machineName, diags,
                             options.machine.empty() ? project->locationOf("machine") : SourceLocation{"--machine"},
                             options.machine.empty() ? project->directory() : std::filesystem::path());
  auto graph = machine ? traceProject(*project, diags, options.traceOptions()) : std::nullopt;
  if (!graph) return failCommand("settings", options.jsonTarget, diags);
  const TargetInfo target = machine->targetInfo();
  const auto bindings = projectDimBindings(*project, *graph);
  std::vector<TileSite> sites = collectTileSites(*graph, project->tileSettings, bindings);
  const bool text = options.jsonTarget != "-";

  Json report = jsonReportFor("settings");
  report["project"] = project->name;
  report["machine"] = target.name;
  Json capacities = Json::object();
  for (MemoryKind memory : {MemoryKind::UB, MemoryKind::L1, MemoryKind::L0A, MemoryKind::L0B, MemoryKind::L0C})
    capacities[memoryLabel(memory)] = target.capacity(memory);
  report["capacities"] = capacities;

  if (text) {
    std::printf("%s on %s: UB %s, L1 %s, L0A %s, L0B %s, L0C %s per core\n\ntile sites (tile_settings)\n",
                project->name.c_str(), target.name.c_str(), formatBytes(target.capacity(MemoryKind::UB)).c_str(),
                formatBytes(target.capacity(MemoryKind::L1)).c_str(), formatBytes(target.capacity(MemoryKind::L0A)).c_str(),
                formatBytes(target.capacity(MemoryKind::L0B)).c_str(), formatBytes(target.capacity(MemoryKind::L0C)).c_str());
  }
  report["tile_sites"] = Json::array();
  bool anyOverflow = false;
  for (const TileSite& site : sites) {
    Json entry;
    entry["section"] = std::string(name(site.section));
    entry["kind"] = site.kind == TileSiteKind::CallSite ? "call_site" : site.kind == TileSiteKind::Label ? "label" : "default";
    entry["key"] = site.key;
    entry["governs"] = Json::array();
    for (const GovernedOp& op : site.governs)
      entry["governs"].push_back({{"op", op.op}, {"kind", std::string(name(op.kind))}, {"label", op.label}, {"line", op.line}});
    entry["kernel_value"] = site.kernelValue;
    entry["project_value"] = site.projectValue;
    entry["effective_value"] = site.effectiveValue;
    entry["effective_from"] = site.effectiveFrom;
    entry["operand_dtypes"] = Json::array();
    for (DataType dtype : site.operandDtypes) entry["operand_dtypes"].push_back(std::string(name(dtype)));
    std::string status = "not set";
    if (!site.effectiveValue.is_null() && !site.governs.empty()) {
      TileBufferChecker checker(*graph, site, bindings, target);
      TileBufferCheck check = checker.checkJson(site.effectiveValue);
      entry["check"] = checkJson(check);
      status = check.summary();
      if (std::string buffering = check.bufferingText(); !buffering.empty()) status += "\n       " + buffering;
      for (const std::string& note : check.notes) status += "\n       padded: " + note;
      anyOverflow = anyOverflow || !check.fits();
      noteClampedTile(site, checker, *project, diags);
    }
    report["tile_sites"].push_back(entry);
    if (text) {
      std::string value = shapeText(site.section, site.effectiveValue);
      std::string from = site.effectiveFrom.empty() ? "" : site.effectiveFrom == site.key ? " (project)"
                                                    : site.effectiveFrom == "kernel"      ? " (kernel)"
                                                                                          : " (from " + site.effectiveFrom + ")";
      std::printf("  %-4s %-16s %s%s\n       governs %s\n       %s\n", std::string(name(site.section)).c_str(),
                  site.key.c_str(), value.empty() ? "-" : value.c_str(), from.c_str(), governsText(site).c_str(),
                  status.c_str());
    }
  }

  for (OptionScope scope : {OptionScope::Pass, OptionScope::Runtime}) {
    const Json& values = scope == OptionScope::Pass ? project->passOptions : project->runtimeOptions;
    const char* section = scope == OptionScope::Pass ? "pass_options" : "runtime_options";
    Json list = Json::array();
    if (text) std::printf("\n%s\n", section);
    for (const OptionInfo& info : optionCatalog()) {
      if (info.scope != scope) continue;
      Json entry;
      entry["name"] = info.name;
      entry["type"] = std::string(name(info.type));
      entry["default"] = info.defaultValue;
      entry["default_text"] = info.defaultText;
      entry["summary"] = info.summary;
      entry["read_by"] = info.readBy;
      if (info.type == OptionType::Int || info.type == OptionType::Enum) {
        entry["minimum"] = info.minimum;
        entry["maximum"] = info.maximum;
      }
      if (!info.choices.empty()) {
        entry["choices"] = Json::array();
        for (const OptionChoice& choice : info.choices) entry["choices"].push_back({{"value", choice.value}, {"meaning", choice.meaning}});
      }
      if (!info.values.empty()) entry["values"] = info.values;
      bool set = values.is_object() && values.contains(info.name);
      entry["value"] = set ? values[info.name] : Json();
      std::string problem = set ? validateOption(scope, info.name, values[info.name], &*graph) : std::string();
      entry["problem"] = problem;
      list.push_back(entry);
      if (text)
        std::printf("  %-24s %-18s %s\n  %-24s %s\n", info.name.c_str(),
                    set ? values[info.name].dump().c_str() : ("default: " + info.defaultText).c_str(),
                    problem.empty() ? "" : ("error: " + problem).c_str(), "", info.summary.c_str());
    }
    // Keys the project sets that PTO Studio does not read (PyPTO-only options, typos).
    if (values.is_object())
      for (const auto& [key, value] : values.items())
        if (!findOption(key, scope)) {
          list.push_back({{"name", key}, {"value", value}, {"problem", std::string(section) + "." + key + " is not read by PTO Studio"}});
          if (text) std::printf("  %-24s %-18s not read by PTO Studio\n", key.c_str(), value.dump().c_str());
        }
    report[section] = list;
  }
  printDiagnostics(diags);
  if (!options.jsonTarget.empty() && !writeJsonReport(options.jsonTarget, report, diags)) return kExitUserError;
  (void)anyOverflow;  // a report, not a check: overflowing shapes are shown, the exit code stays 0
  return kExitOk;
}

} // namespace

void registerSettingsCommand(CLI::App& app, CommandRegistry& registry) {
  auto [command, options] = addProjectCommand(app, registry, kSettingsCommand, runSettings);
  command->add_option("--machine", options->machine, "Check buffers on MACHINE instead of the project's (a2, a3, 950, tiny, ...)")
      ->type_name("MACHINE");
}

} // namespace pto::cli
