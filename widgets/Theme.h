// The dark palette pto-studio uses for --theme dark (Fusion style), shared
// by the executable and the GUI tests that screenshot dark views, so a test
// sees the colours a user sees.
#pragma once

#include <QPalette>

namespace pto::widgets {

QPalette darkPalette();

} // namespace pto::widgets
