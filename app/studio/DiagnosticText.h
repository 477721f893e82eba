// A diagnostic engine's messages as one text, each formatted as the CLI
// prints it: what the status bar, stderr and error dialogs show.
#pragma once

#include "core/Diagnostics.h"

#include <QString>

namespace pto::studio {

inline QString diagnosticsText(const DiagnosticEngine& diags) {
  QString message;
  for (const Diagnostic& diagnostic : diags.diagnostics()) message += QString::fromStdString(diags.format(diagnostic)) + '\n';
  return message.trimmed();
}

} // namespace pto::studio
