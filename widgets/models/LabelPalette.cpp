// Stable label and subgraph colours.
#include "widgets/models/LabelPalette.h"

#include "core/XMacroEnum.h"

#include <algorithm>
#include <array>

namespace pto::widgets {
namespace {

// Tableau 10's hues (less its grey, which reads as "unknown"), then eleven
// more picked to be far from all earlier ones in CIELAB (every pair is at
// least 25 apart), of moderate chroma, and visible on both a light and a
// dark lane background (tests/widgets/LabelPaletteTest.cpp checks all
// three). Tableau 20's light variants were dropped: pairs like its two
// teals were 4 apart, so two labels could look the same.
constexpr std::array<Rgb, kPaletteSize> kPalette{{
    {78, 121, 167},  {242, 142, 43},  {225, 87, 89},   {118, 183, 178}, {89, 161, 79},
    {237, 201, 72},  {176, 122, 161}, {255, 157, 167}, {156, 117, 95},  {112, 96, 200},
    {120, 112, 0},   {0, 224, 176},   {248, 144, 240}, {200, 200, 136}, {192, 56, 128},
    {0, 200, 248},   {168, 168, 248}, {248, 176, 128}, {0, 128, 96},    {176, 208, 88},
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

LabelColors::LabelColors(std::vector<std::string> labels) {
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  std::array<bool, kPaletteSize> taken{};
  int used = 0;
  for (const std::string& label : labels) {
    int index = labelColorIndex(label);
    if (index < 0) continue;  // the empty label stays grey
    // Past kPaletteSize labels colours must repeat: start over.
    if (used == kPaletteSize) {
      taken.fill(false);
      used = 0;
    }
    while (taken[static_cast<std::size_t>(index)]) index = (index + 1) % kPaletteSize;
    taken[static_cast<std::size_t>(index)] = true;
    ++used;
    m_index.emplace(label, index);
  }
}

int LabelColors::colorIndex(std::string_view label) const {
  auto it = m_index.find(label);
  return it != m_index.end() ? it->second : labelColorIndex(label);
}

Rgb LabelColors::color(std::string_view label) const {
  int index = colorIndex(label);
  return index < 0 ? kUnknownColor : paletteColor(index);
}

Rgb boundColor(BoundClass bound) {
  // Hues far apart so the five classes read at a glance: memory traffic in
  // cool blue (in) and purple (out), compute in red (cube) and green
  // (vector), scalar/sync in yellow. Indexed by BoundClass.
  static constexpr Rgb kBoundColors[] = {kUnknownColor, {78, 121, 167},  {225, 87, 89},
                                         {89, 161, 79}, {176, 122, 161}, {237, 201, 72}};
  static_assert(std::size(kBoundColors) == kBoundClassCount);
  return enumRow(kBoundColors, bound);
}

Rgb subgraphColor(int subgraph) {
  if (subgraph < 0) return kUnknownColor;
  return paletteColor(subgraph);
}

} // namespace pto::widgets
