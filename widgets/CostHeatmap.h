// CostHeatmap: how the editor shows a run's busy time per kernel line
// (analysis/report/LineCost.h): the colour of a line's share, its margin
// text and what hovering it says. Pure functions; SourceEditor draws them.
#pragma once

#include "analysis/report/LineCost.h"

#include <QColor>
#include <QString>

namespace pto::widgets {

// Levels of the colour scale; a line's level is ceil(its share / the
// hottest line's share x kHeatLevels), 0 for no share at all.
inline constexpr int kHeatLevels = 10;
int heatLevel(double share, double hottestShare);
// White (level 0) through yellow (half way) to red (kHeatLevels), as
// Compiler Explorer's heatmaps run; and a text colour readable on it.
QColor heatColour(int level);
QColor heatTextColour(int level);

// The margin's text for a share of 0..1: "13.3%", "<0.1%" for a sliver,
// "0%" for none.
QString heatShareText(double share);

// What hovering a line's heatmap shows, plain text, one fact per line: its
// share, its cycles by core type and by pipe, its tasks (how many, the
// first ids) and subgraphs, its instructions by opcode.
QString costTooltipText(const SourceLineCost& line, const LineCostReport& report);

} // namespace pto::widgets
