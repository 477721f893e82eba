// `pto advise PROJECT`: the advisor's suggestions (analysis/advisor/Advisor.h), each
// with its evidence, its JSON patch and a predicted makespan simulated on the
// patched project. `pto apply PROJECT --suggestion ID | --patch FILE`: applies
// one to pto-project.json (saved atomically; a suggestion that lives in the
// kernel, a loop barrier, edits the kernel file instead), reruns and reports
// predicted against obtained, so that a script or an agent can loop run ->
// advise -> apply without the IDE.
#include "app/pto/Command.h"
#include "app/pto/TrustCommand.h"
#include "app/pto/CommandOutput.h"

#include "analysis/advisor/Advisor.h"
#include "core/AtomicFile.h"
#include "core/Version.h"
#include "core/project/ProjectFile.h"

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

namespace pto::cli {
namespace {

struct AdviseOptions : ProjectCommandOptions {
  std::string suggestion;  // apply: the id
  std::string patchFile;   // apply: a JSON patch file instead
  bool dryRun = false;
};

void printAdvice(const std::string& project, const Advice& advice) {
  std::printf("%s: %.1f us, %s-bound; %zu suggestion%s (%d variants simulated in %.1f s)\n", project.c_str(),
              advice.baselineUs, advice.bound.c_str(), advice.suggestions.size(),
              advice.suggestions.size() == 1 ? "" : "s", advice.variantsSimulated, advice.adviseMs / 1000.0);
  for (const Suggestion& suggestion : advice.suggestions) {
    const std::string change =
        suggestion.kernelEdit ? "kernel edit: " + suggestion.kernelEdit->file + ":" + std::to_string(suggestion.kernelEdit->line) +
                                    ": " + suggestion.kernelEdit->before + " -> " + suggestion.kernelEdit->after
                              : "patch: " + suggestion.patch.dump();
    std::string estimate;
    if (suggestion.estimatedUs && suggestion.baselineUs > 0) {
      char text[80];
      std::snprintf(text, sizeof text, "; the rule's estimate %.1f us (%+.1f %%)", *suggestion.estimatedUs,
                    100.0 * (*suggestion.estimatedUs / suggestion.baselineUs - 1.0));
      estimate = text;
    }
    std::printf("\n%s\n  %s\n  predicted %.1f us (%+.1f %%)%s\n  how sure: %s\n  why: %s\n  %s\n  tried:",
                suggestion.id.c_str(), suggestion.title.c_str(), suggestion.predictedUs, -100.0 * suggestion.gain(),
                estimate.c_str(), suggestion.confidence.c_str(), suggestion.evidence.c_str(), change.c_str());
    for (const auto& [value, us] : suggestion.tried) std::printf(" %s -> %.1f us;", value.c_str(), us);
    std::printf("\n");
  }
  if (advice.suggestions.empty()) std::printf("no rule found a change that makes this kernel faster\n");
}

int runAdvise(const AdviseOptions& options) {
  DiagnosticEngine diags;
  auto traced = traceProjectForVariants(options, diags);
  std::optional<Advice> advice;
  if (traced) advice = advise(*traced, diags);
  if (!advice) return failCommand("advise", options.jsonTarget, diags);
  printDiagnostics(diags);
  if (options.jsonTarget != "-") printAdvice(traced->project.name, *advice);
  return finishCommand("advise", options.jsonTarget, diags, [&](nlohmann::ordered_json& json) {
    json["project"] = traced->project.name;
    json.update(adviceJson(*advice));
  });
}

// Makes a suggestion's kernel edit and simulates the result. A dry run
// simulates the traced program as the edit would trace (the file is left
// alone); otherwise the kernel is rewritten atomically and traced again, and
// put back as it was when the edited kernel does not trace.
std::optional<VariantRun> applyKernelEditAndRun(const TracedProject& traced, const KernelEdit& edit,
                                                const AdviseOptions& options, DiagnosticEngine& diags) {
  const SourceLocation where{edit.file, edit.line, 0};
  std::ifstream in(edit.file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const std::optional<std::string> edited = in ? applyKernelEdit(text.str(), edit) : std::nullopt;
  if (!edited) {
    diags.error(where) << "the kernel no longer says '" << edit.before << "' here; run `pto advise` again";
    return std::nullopt;
  }
  if (options.dryRun) {
    std::optional<TensorGraph> graph = graphWithKernelEdit(traced.graph, edit);
    if (!graph) {
      diags.error(where) << "internal error: the advisor's edit matches no loop barrier of the traced kernel";
      return std::nullopt;
    }
    TracedProject variant{traced.project, std::move(*graph), traced.arguments, traced.traceMs, traced.sourceText};
    return simulateVariant(variant, variant.project, diags);
  }
  std::string error;
  if (!writeFileAtomically(edit.file, *edited, error)) {
    diags.error(where) << "cannot save the edited kernel: " << error << "; the file is unchanged";
    return std::nullopt;
  }
  auto retraced = traceProjectForVariants(options, diags);
  std::optional<VariantRun> run;
  if (retraced) run = simulateVariant(*retraced, retraced->project, diags);
  if (!run) {
    if (!writeFileAtomically(edit.file, text.str(), error))
      diags.error(where) << "the edited kernel does not run, and putting the old one back failed: " << error;
    else
      diags.note(where) << "the edited kernel does not run; the old kernel is back";
  }
  return run;
}

int runApply(const AdviseOptions& options) {
  DiagnosticEngine diags;
  auto traced = traceProjectForVariants(options, diags);
  if (!traced) return failCommand("apply", options.jsonTarget, diags);
  nlohmann::json patch;
  std::optional<double> predicted;
  std::optional<KernelEdit> kernelEdit;
  std::string id = options.suggestion;
  if (!options.patchFile.empty()) {
    std::ifstream in(options.patchFile);
    patch = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!in || patch.is_discarded() || !patch.is_array()) {
      diags.error(SourceLocation{options.patchFile})
          << "not a JSON patch (an array of RFC 6902 operations, as `pto advise --json` lists under \"patch\")";
      return failCommand("apply", options.jsonTarget, diags);
    }
    id = options.patchFile;
  } else {
    auto advice = advise(*traced, diags);
    if (!advice) return failCommand("apply", options.jsonTarget, diags);
    const Suggestion* chosen = nullptr;
    std::string known;
    for (const Suggestion& suggestion : advice->suggestions) {
      if (suggestion.id == options.suggestion) chosen = &suggestion;
      known += (known.empty() ? "" : ", ") + suggestion.id;
    }
    if (!chosen) {
      diags.error(SourceLocation{traced->project.file.string()})
          << "no suggestion '" << options.suggestion << "' for this project as it stands ("
          << (known.empty() ? "the advisor has none" : "it has: " + known) << "); run `pto advise` to list them";
      return failCommand("apply", options.jsonTarget, diags);
    }
    patch = chosen->patch;
    predicted = chosen->predictedUs;
    kernelEdit = chosen->kernelEdit;
  }
  auto before = simulateVariant(*traced, traced->project, diags);
  std::optional<VariantRun> after;
  if (kernelEdit) {
    after = applyKernelEditAndRun(*traced, *kernelEdit, options, diags);
  } else {
    auto patched = patchedProject(traced->project, patch, diags);
    if (before && patched) after = simulateVariant(*traced, *patched, diags);
    // Saved only once the patched project is known to compile and simulate.
    if (after && !options.dryRun && !saveProject(*patched, diags)) after.reset();
  }
  if (!before || !after) return failCommand("apply", options.jsonTarget, diags);
  printDiagnostics(diags);
  const double beforeUs = before->simulation.stats.makespanUs, afterUs = after->simulation.stats.makespanUs;
  if (options.jsonTarget != "-") {
    std::printf("%s %s: %.1f us -> %.1f us (%+.1f %%)", options.dryRun ? "would apply" : "applied", id.c_str(),
                beforeUs, afterUs, 100.0 * (afterUs / beforeUs - 1.0));
    if (predicted) std::printf("; predicted %.1f us", *predicted);
    std::printf("%s\n", options.dryRun ? " (dry run: the project is unchanged)" : "");
  }
  return finishCommand("apply", options.jsonTarget, diags, [&](nlohmann::ordered_json& json) {
    json["project"] = traced->project.name;
    json["applied"] = !options.dryRun;
    json["suggestion"] = id;
    json["patch"] = patch;
    if (kernelEdit)
      json["kernel_edit"] = {{"file", kernelEdit->file}, {"line", kernelEdit->line}, {"before", kernelEdit->before},
                             {"after", kernelEdit->after}};
    json["before_us"] = beforeUs;
    json["obtained_us"] = afterUs;
    json["predicted_us"] = predicted ? nlohmann::ordered_json(*predicted) : nlohmann::ordered_json(nullptr);
  });
}

} // namespace

void registerAdviseCommands(CLI::App& app, CommandRegistry& registry) {
  addProjectCommand(app, registry,
                    {.name = "advise",
                     .description = "Suggest changes to a project's settings, each with its evidence, a JSON patch "
                                    "and "
                                    "a predicted makespan (the patched project simulated)",
                     .jsonOutput = "the suggestions as JSON"},
                    std::make_shared<AdviseOptions>(), runAdvise);

  auto applyOptions = std::make_shared<AdviseOptions>();
  CLI::App* apply = app.add_subcommand(
      "apply", "Apply a suggestion (or a JSON patch) to pto-project.json, saved atomically, and report the "
               "makespan before, predicted and obtained");
  addProjectOptions(*apply, *applyOptions, {.jsonOutput = "the result as JSON"});
  CLI::Option* suggestion =
      apply->add_option("--suggestion", applyOptions->suggestion, "The id `pto advise` gave it (\"l1-reuse:qk\")")
          ->type_name("ID");
  CLI::Option* patch =
      apply->add_option("--patch", applyOptions->patchFile, "A JSON patch file (RFC 6902) to apply instead")
          ->type_name("FILE");
  suggestion->excludes(patch);
  apply->add_flag("--dry-run", applyOptions->dryRun, "Simulate the change but leave the project file alone");
  apply->callback([&registry, applyOptions, suggestion, patch] {
    if (suggestion->count() == 0 && patch->count() == 0)
      throw CLI::RequiredError("--suggestion or --patch");
    registry.selected = [applyOptions] { return runApply(*applyOptions); };
  });
}

} // namespace pto::cli
