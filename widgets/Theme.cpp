#include "widgets/Theme.h"

namespace pto::widgets {

QPalette darkPalette() {
  QPalette p;
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
  return p;
}

} // namespace pto::widgets
