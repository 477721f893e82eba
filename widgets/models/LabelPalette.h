// The stable colour of a semantic label or a subgraph: the same label gets
// the same colour in every run, every trace and every view (the swimlane and
// the editor gutter both call this), so a colour can be learnt.
#pragma once

#include "widgets/models/BoundClass.h"

#include <cstdint>
#include <string_view>

namespace pto::widgets {

struct Rgb {
  std::uint8_t r = 0;
  std::uint8_t g = 0;
  std::uint8_t b = 0;
  friend bool operator==(const Rgb&, const Rgb&) = default;
};

// Number of distinct colours; labels map onto them by a fixed hash (FNV-1a),
// so two labels can share a colour, but a label's colour never changes.
inline constexpr int kPaletteSize = 20;
Rgb paletteColor(int index);  // index modulo kPaletteSize

// The palette index of a label (-1 for the empty label).
int labelColorIndex(std::string_view label);
// The empty label (unknown) is a neutral grey outside the palette.
Rgb labelColor(std::string_view label);
// Subgraph -1 (unknown) is the same grey.
Rgb subgraphColor(int subgraph);
inline constexpr Rgb kUnknownColor{150, 150, 150};
// One fixed colour per bound class (Unknown is the grey above).
Rgb boundColor(BoundClass bound);

} // namespace pto::widgets
