#include "widgets/Theme.h"

namespace pto::widgets {

QPalette darkPalette() {
  QPalette p;
  // setColor without a group sets all three groups, Disabled included; the
  // disabled colours are overridden below.
  p.setColor(QPalette::Window, QColor(45, 45, 48));
  p.setColor(QPalette::WindowText, QColor(225, 225, 225));
  p.setColor(QPalette::Base, QColor(30, 30, 32));
  p.setColor(QPalette::AlternateBase, QColor(40, 40, 44));
  p.setColor(QPalette::Text, QColor(225, 225, 225));
  p.setColor(QPalette::Button, QColor(50, 50, 54));
  p.setColor(QPalette::ButtonText, QColor(225, 225, 225));
  p.setColor(QPalette::Highlight, QColor(38, 110, 200));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::ToolTipBase, QColor(60, 60, 64));
  p.setColor(QPalette::ToolTipText, QColor(230, 230, 230));
  p.setColor(QPalette::PlaceholderText, QColor(140, 140, 140));
  p.setColor(QPalette::Mid, QColor(80, 80, 84));
  p.setColor(QPalette::Dark, QColor(25, 25, 25));
  p.setColor(QPalette::Light, QColor(70, 70, 74));

  // Disabled: text at about a third of the enabled contrast, so a greyed-out
  // button reads as unavailable at a glance yet stays legible; backgrounds a
  // shade flatter; no bright selection or bevel highlight.
  const QColor dimText(115, 115, 118);
  p.setColor(QPalette::Disabled, QPalette::WindowText, dimText);
  p.setColor(QPalette::Disabled, QPalette::Text, dimText);
  p.setColor(QPalette::Disabled, QPalette::ButtonText, dimText);
  p.setColor(QPalette::Disabled, QPalette::PlaceholderText, QColor(90, 90, 92));
  p.setColor(QPalette::Disabled, QPalette::Button, QColor(45, 45, 48));
  p.setColor(QPalette::Disabled, QPalette::Base, QColor(38, 38, 40));
  p.setColor(QPalette::Disabled, QPalette::Light, QColor(55, 55, 58));
  p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(70, 70, 74));
  p.setColor(QPalette::Disabled, QPalette::HighlightedText, QColor(150, 150, 150));
  return p;
}

bool isDark(const QPalette& palette) { return palette.color(QPalette::Window).lightness() < 128; }
QColor goodColour(const QPalette& palette) { return isDark(palette) ? QColor(87, 199, 110) : QColor(26, 127, 55); }
QColor badColour(const QPalette& palette) { return isDark(palette) ? QColor(241, 96, 96) : QColor(198, 40, 40); }

} // namespace pto::widgets
