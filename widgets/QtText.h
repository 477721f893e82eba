// Engine strings as Qt strings: the conversions every panel makes.
#pragma once

#include "widgets/models/TimeFormat.h"

#include <QString>

#include <string_view>

namespace pto::widgets {

// UTF-8 text from the engine (names, labels, messages) as a QString.
inline QString qtext(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }
// A duration in nanoseconds the way every view writes it ("1.25 us").
inline QString qtime(double ns) { return QString::fromStdString(formatDurationNs(ns)); }

} // namespace pto::widgets
