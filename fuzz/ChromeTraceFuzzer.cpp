// Fuzzes the swimlane importer (readChromeTrace: PyPTO's merged_swimlane.json
// and our own exports, opened by `pto trace` and the IDE): any bytes give a
// trace or exactly one located error, and a trace that was read exports
// (writeChromeTrace) to a file that reads again with the same tasks.
#include "FuzzSupport.h"

#include "runtime/trace/ChromeTraceReader.h"
#include "runtime/trace/ChromeTraceWriter.h"

#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pto;
  constexpr fuzz::OutcomeRules kRules{.exactlyOneError = true, .diagnosticsHaveLines = false};
  const std::string text(fuzz::asText(data, size));
  const std::string fileName = "fuzz_swimlane.json";

  DiagnosticEngine diags;
  // The CLI prints the offending line from the file; here the file is `text`.
  diags.setSourceText(fileName, text);
  std::istringstream in(text);
  std::optional<trace::Trace> imported = trace::readChromeTrace(in, diags, fileName);
  fuzz::checkOutcome("readChromeTrace", imported.has_value(), diags, kRules);
  if (!imported) return 0;

  std::ostringstream exported;
  trace::writeChromeTrace(*imported, exported);
  const std::string exportedText = exported.str();
  DiagnosticEngine reimportDiags;
  reimportDiags.setSourceText("exported.json", exportedText);
  std::istringstream back(exportedText);
  std::optional<trace::Trace> reimported = trace::readChromeTrace(back, reimportDiags, "exported.json");
  if (!reimported) fuzz::fail("an imported trace does not import again after writeChromeTrace:\n" + exportedText,
                              reimportDiags);
  if (reimported->tasks().size() != imported->tasks().size() || reimported->lanes().size() != imported->lanes().size())
    fuzz::fail("writeChromeTrace then readChromeTrace changed the number of tasks or lanes", reimportDiags);
  return 0;
}
