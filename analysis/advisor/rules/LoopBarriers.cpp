// The advisor's loop-barrier rule (Advisor.h): a loop entered behind PyPTO's
// loop barrier (submit_before_loop=True) when nothing after the barrier
// shares data with what came before it. Dependencies are derived from the
// regions tasks touch, so such a barrier orders nothing the data needs; it
// only holds the later tasks until every earlier one has finished. The
// change lives in the kernel, so the suggestion is a kernel edit, and its
// prediction simulates the traced program with the loop's barrier off (what
// tracing the edited kernel gives).
#include "analysis/advisor/rules/Rules.h"
#include "analysis/advisor/rules/RuleSupport.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

namespace pto::advisor {
namespace {

// How far below the loop's own line its keyword arguments may continue.
constexpr int kKeywordSearchLines = 6;

// The kernel edit that turns the loop's barrier off: the line, at or below
// the loop's, that spells submit_before_loop=True. nullopt when the kernel
// says it otherwise (a variable), which an edit of one token cannot change.
// The kernel's text is the one traced: the IDE's unsaved editor text when
// that is what ran, else the file.
std::optional<KernelEdit> barrierEdit(const SourceLocation& loop, const TracedProject& traced) {
  std::istringstream unsaved;
  std::ifstream saved;
  const bool tracedUnsaved = traced.sourceText && std::filesystem::path(loop.file).lexically_normal() ==
                                                       traced.project.sourcePath().lexically_normal();
  if (tracedUnsaved) unsaved.str(*traced.sourceText);
  else saved.open(loop.file);
  std::istream& in = tracedUnsaved ? static_cast<std::istream&>(unsaved) : saved;
  if (!in) return std::nullopt;
  static const std::regex keyword(R"(submit_before_loop\s*=\s*True\b)");
  std::string text;
  for (int line = 1; std::getline(in, text) && line < loop.line + kKeywordSearchLines; ++line) {
    if (line < loop.line) continue;
    std::smatch match;
    if (std::regex_search(text, match, keyword)) return KernelEdit{loop.file, line, match.str(), "submit_before_loop=False"};
  }
  return std::nullopt;
}

bool editsBarrierOf(const Loop& loop, const KernelEdit& edit) {
  return loop.submitBeforeLoop && loop.location.file == edit.file && edit.line >= loop.location.line &&
         edit.line < loop.location.line + kKeywordSearchLines && edit.after == "submit_before_loop=False";
}

} // namespace

void adviseLoopBarriers(Context& context) {
  const ExecuteGraph& tasks = context.compilation().tasks;
  const TensorGraph& traced = context.traced.graph;
  // Per loop: how many times it was entered behind its barrier, and whether any entry kept data apart.
  struct Entries {
    int count = 0;
    bool ordersData = false;
    TaskId firstTask = 0;
  };
  std::map<LoopId, Entries> byLoop;
  for (const LoopBarrier& barrier : tasks.barriers) {
    Entries& entries = byLoop[barrier.loop];
    if (entries.count++ == 0) entries.firstTask = barrier.firstTask;
    entries.ordersData = entries.ordersData || barrier.ordersData;
  }
  for (const auto& [loopId, entries] : byLoop) {
    if (entries.ordersData || loopId < 0 || static_cast<std::size_t>(loopId) >= traced.loops().size()) continue;
    const Loop& loop = traced.loop(loopId);
    std::optional<KernelEdit> edit = barrierEdit(loop.location, context.traced);
    if (!edit) continue;
    const std::optional<TensorGraph> without = graphWithKernelEdit(traced, *edit);
    if (!without) continue;
    const std::optional<double> predicted = context.tryGraph(*without);
    if (!predicted) continue;

    Suggestion suggestion;
    suggestion.rule = "loop-barrier";
    suggestion.id = suggestion.rule + ":" + loop.name;
    const std::string file = std::filesystem::path(loop.location.file).filename().string();
    const std::string line = file + ":" + std::to_string(edit->line);
    suggestion.title = "drop the loop barrier before loop '" + loop.name + "' (submit_before_loop=False at " + line + ")";
    std::ostringstream evidence;
    evidence << "loop '" << loop.name << "' (" << file << ":" << loop.location.line << ") is entered behind a loop barrier "
             << (entries.count == 1 ? "once" : std::to_string(entries.count) + " times") << " (first before task "
             << entries.firstTask << " of " << tasks.tasks.size() << ")"
             << "; no task after " << (entries.count == 1 ? "it" : "any of them")
             << " reads or writes data a task before it touched, so the barrier only holds independent work "
                "until everything before it has finished";
    suggestion.evidence = evidence.str();
    suggestion.patch = nlohmann::json::array();
    suggestion.kernelEdit = std::move(edit);
    suggestion.baselineUs = context.baseline.simulation.stats.makespanUs;
    suggestion.predictedUs = *predicted;
    suggestion.tried = {{"submit_before_loop=False", *predicted}};
    context.proposeSuggestion(std::move(suggestion));
  }
}

} // namespace pto::advisor

namespace pto {

std::optional<TensorGraph> graphWithKernelEdit(const TensorGraph& graph, const KernelEdit& edit) {
  for (const Loop& loop : graph.loops())
    if (advisor::editsBarrierOf(loop, edit)) {
      TensorGraph edited = graph;
      edited.loop(loop.id).submitBeforeLoop = false;
      return edited;
    }
  return std::nullopt;
}

} // namespace pto
