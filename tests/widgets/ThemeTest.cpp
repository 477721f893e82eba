// The dark palette's disabled colour group: a disabled button's text must
// stand out from its face much less than an enabled one's (else disabled
// buttons look clickable), yet stay legible. Contrast is the WCAG 2 ratio of
// relative luminances, computed here from the sRGB definition.
#include "widgets/Theme.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace pto::widgets {
namespace {

double relativeLuminance(const QColor& colour) {
  auto linear = [](double channel) {
    return channel <= 0.04045 ? channel / 12.92 : std::pow((channel + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * linear(colour.redF()) + 0.7152 * linear(colour.greenF()) + 0.0722 * linear(colour.blueF());
}

double contrast(const QColor& a, const QColor& b) {
  double la = relativeLuminance(a);
  double lb = relativeLuminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

double contrast(const QPalette& palette, QPalette::ColorGroup group, QPalette::ColorRole text, QPalette::ColorRole back) {
  return contrast(palette.color(group, text), palette.color(group, back));
}

TEST(DarkPalette, DisabledButtonTextIsClearlyDimmerThanEnabled) {
  QPalette palette = darkPalette();
  double active = contrast(palette, QPalette::Active, QPalette::ButtonText, QPalette::Button);
  double disabled = contrast(palette, QPalette::Disabled, QPalette::ButtonText, QPalette::Button);
  EXPECT_GE(active, 7.0);                 // WCAG AAA for enabled text
  EXPECT_LT(disabled, active / 2.0);      // clearly lower, not a shade off
  EXPECT_GE(disabled, 2.0);               // still readable as a label
}

TEST(DarkPalette, DisabledTextRolesAreDimToo) {
  QPalette palette = darkPalette();
  struct Pair { QPalette::ColorRole text, back; };
  for (Pair pair : {Pair{QPalette::WindowText, QPalette::Window}, Pair{QPalette::Text, QPalette::Base}}) {
    double active = contrast(palette, QPalette::Active, pair.text, pair.back);
    double disabled = contrast(palette, QPalette::Disabled, pair.text, pair.back);
    EXPECT_LT(disabled, active / 2.0) << pair.text;
    EXPECT_GE(disabled, 2.0) << pair.text;
  }
  // The bevel highlight does not make a disabled button look raised.
  EXPECT_LT(relativeLuminance(palette.color(QPalette::Disabled, QPalette::Light)),
            relativeLuminance(palette.color(QPalette::Active, QPalette::Light)));
}

} // namespace
} // namespace pto::widgets
