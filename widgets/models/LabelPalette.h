// The stable colour of a semantic label or a subgraph: the same label gets
// the same colour in every run, every trace and every view (the swimlane and
// the editor gutter both call this), so a colour can be learnt.
#pragma once

#include "widgets/models/BoundClass.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

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
// The colours of one kernel's (or trace's) labels, all different while there
// are no more labels than palette colours. The hash above alone puts two of
// five labels on one colour about four times in ten; here each label keeps
// its own colour (labelColor) unless a label before it in alphabetical order
// holds it, and then takes the next free palette colour. So colours depend
// only on the set of labels: the swimlane and the editor gutter agree when
// built from the same set, and a label only changes colour when a new label
// of the same kernel takes its slot first.
class LabelColors {
public:
  LabelColors() = default;
  explicit LabelColors(std::vector<std::string> labels);
  // The label's colour in this set; labelColor() for a label not in it.
  Rgb color(std::string_view label) const;
  int colorIndex(std::string_view label) const;

private:
  std::map<std::string, int, std::less<>> m_index;
};

// One fixed colour per bound class (Unknown is the grey above).
Rgb boundColor(BoundClass bound);

} // namespace pto::widgets
