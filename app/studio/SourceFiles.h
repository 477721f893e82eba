// SourceFiles: finding a kernel's source file — the one a trace's tasks
// name, where it is on this machine, whether two paths are one file — and
// what the editor says instead when it cannot show it.
#pragma once

#include <QString>

namespace pto::trace {
class Trace;
} // namespace pto::trace

namespace pto::studio {

// The source file most of a trace's tasks name, as the trace writes it
// (empty when none names one).
QString mainSourceFile(const trace::Trace& trace);
// Where `source` (as a trace names it) is on this machine: the path itself
// when absolute, else relative to the trace's folder or the nearest folder
// above it that has it (a simulator's output folder sits below the kernel's).
// Empty when not found.
QString locateTraceSource(const QString& source, const QString& traceFile);
// Both paths name one existing file.
bool sameFile(const QString& a, const QString& b);
// The editor's placeholder for the kernel of `traceFile`: it names no
// source, or `source` was `found` but not readable (`error`), or not found.
QString missingSourceText(const QString& traceFile, const QString& source, const QString& found, const QString& error);

} // namespace pto::studio
