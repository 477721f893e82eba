// How the IDE's QCustomPlot charts take their colours from the palette, so
// that every chart follows the light and dark themes the same way.
#pragma once

#include <QPalette>

class QCustomPlot;

namespace pto::widgets {

// Background, axes, tick labels and dotted grid lines from `palette`; the
// area around the axis rect takes `margin` (Window where a plot continues a
// panel's frame, Base elsewhere).
void stylePlot(QCustomPlot* plot, const QPalette& palette, QPalette::ColorRole margin = QPalette::Base);

} // namespace pto::widgets
