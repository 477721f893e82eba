// Stable label and subgraph colours.
#include "widgets/models/LabelPalette.h"

#include <array>

namespace pto::widgets {
namespace {

// Tableau 20 reordered so that the first ten are the saturated ones: labels
// of a small kernel mostly land on clearly distinct hues.
constexpr std::array<Rgb, kPaletteSize> kPalette{{
    {78, 121, 167},  {242, 142, 43},  {225, 87, 89},   {118, 183, 178}, {89, 161, 79},
    {237, 201, 72},  {176, 122, 161}, {255, 157, 167}, {156, 117, 95},  {186, 176, 172},
    {160, 203, 232}, {255, 190, 125}, {255, 157, 154}, {134, 188, 182}, {140, 209, 125},
    {241, 206, 99},  {212, 166, 200}, {250, 191, 210}, {215, 181, 166}, {121, 112, 110},
}};

} // namespace

Rgb paletteColor(int index) {
  int wrapped = index % kPaletteSize;
  return kPalette[static_cast<std::size_t>(wrapped < 0 ? wrapped + kPaletteSize : wrapped)];
}

int labelColorIndex(std::string_view label) {
  if (label.empty()) return -1;
  std::uint32_t hash = 2166136261u;
  for (char c : label) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 16777619u;
  }
  return static_cast<int>(hash % kPaletteSize);
}

Rgb labelColor(std::string_view label) {
  int index = labelColorIndex(label);
  return index < 0 ? kUnknownColor : kPalette[static_cast<std::size_t>(index)];
}

Rgb subgraphColor(int subgraph) {
  if (subgraph < 0) return kUnknownColor;
  return paletteColor(subgraph);
}

} // namespace pto::widgets
