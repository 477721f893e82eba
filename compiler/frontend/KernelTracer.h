// Tracing a kernel file into a Tensor graph through the embedded Python
// interpreter — what `pto` and `pto-studio` call; no Python types leak out.
#pragma once

#include "compiler/ir/TensorGraph.h"
#include "core/Diagnostics.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pto {

struct ArgumentType {
  DataType dtype = DataType::Fp32;
  std::vector<std::int64_t> shape;
};

struct TraceRequest {
  std::filesystem::path kernelFile;
  // The kernel's text when it differs from the file (an unsaved editor buffer).
  std::optional<std::string> sourceText;
  std::string entry;
  std::vector<ArgumentType> arguments;
  // User code is interrupted after this long, or as soon as `cancelled` says so.
  double timeoutSeconds = 60.0;
  std::function<bool()> cancelled;
  // Largest tensor (in elements) a kernel may create.
  std::int64_t maxElements = std::int64_t{1} << 31;
};

// Traces `request.entry` from a fresh copy of the kernel module. Failures —
// a syntax error, an exception, an op whose shapes do not fit, a timeout —
// become one error diagnostic at the kernel line (with notes for the calling
// lines); warnings flag outputs the kernel never writes. Thread-safe: calls
// are serialised on the interpreter lock.
std::optional<TensorGraph> traceKernel(const TraceRequest& request, DiagnosticEngine& diags);

// Warnings about a traced graph that point at common mistakes (an output
// written as `out = expr`, which only rebinds the Python name).
void checkArgumentsUsed(const TensorGraph& graph, DiagnosticEngine& diags);

// Where the `pypto` package is found: $PTO_PYTHON_PATH, else beside the
// executable (../python in a build tree, ../lib/python3/dist-packages
// installed, where Debian's python3 imports it from too).
std::filesystem::path pyptoPackageDirectory();

} // namespace pto
