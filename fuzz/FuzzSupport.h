// The checks every fuzz target applies to a reader's outcome: a reader
// either returns a result and reports no error, or returns nothing and
// reports errors that name the user's file. Crashes, sanitizer reports and
// these checks failing are what the fuzzers look for (fuzz/README.md).
#pragma once

#include "core/Diagnostics.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

namespace pto::fuzz {

inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Aborts, so that libFuzzer saves the input as a crash and the replay test
// fails; the diagnostics show what the reader said about it.
[[noreturn]] inline void fail(std::string_view what, const DiagnosticEngine& diags) {
  std::cerr << "fuzz check failed: " << what << "\n";
  diags.print(std::cerr);
  std::cerr.flush();
  std::abort();
}

struct OutcomeRules {
  // Npy and trace readers promise exactly one error on malformed input.
  bool exactlyOneError = false;
  // JSON loaders locate every diagnostic at a line of the file.
  bool diagnosticsHaveLines = false;
};

// Checks `succeeded` against what `diags` holds, then formats every
// diagnostic as the CLI prints it (quoting the offending line with a caret
// walks the user's bytes once more).
inline void checkOutcome(std::string_view reader, bool succeeded, const DiagnosticEngine& diags,
                         OutcomeRules rules = {}) {
  if (succeeded && diags.hasErrors()) fail(std::string(reader) + " returned a result but reported errors", diags);
  if (!succeeded && !diags.hasErrors()) fail(std::string(reader) + " failed without reporting an error", diags);
  if (!succeeded && rules.exactlyOneError && diags.errorCount() != 1)
    fail(std::string(reader) + " reported " + std::to_string(diags.errorCount()) + " errors, not exactly one", diags);
  for (const Diagnostic& diagnostic : diags.diagnostics()) {
    if (!diagnostic.location.known()) fail(std::string(reader) + " reported a diagnostic without a file", diags);
    if (rules.diagnosticsHaveLines && diagnostic.location.line <= 0)
      fail(std::string(reader) + " reported a diagnostic without a line", diags);
    const std::string printed = diags.format(diagnostic);
    if (printed.empty()) fail(std::string(reader) + " reported a diagnostic that prints as nothing", diags);
  }
}

} // namespace pto::fuzz
