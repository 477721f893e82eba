// The dark palette pto-studio uses for --theme dark (Fusion style), shared
// by the executable and the GUI tests that screenshot dark views, so a test
// sees the colours a user sees.
#pragma once

#include <QColor>
#include <QPalette>

namespace pto::widgets {

QPalette darkPalette();

// Whether `palette` is a dark one (its window colour), to pick text colours
// that read on it.
bool isDark(const QPalette& palette);
// Green for a gain or a held prediction, red for a loss or a failure, in the
// shade that reads on `palette`.
QColor goodColour(const QPalette& palette);
QColor badColour(const QPalette& palette);

} // namespace pto::widgets
