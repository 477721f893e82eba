// QCustomPlot's header, included with Qt's keyword macros (`signals`,
// `slots`, `emit`, `foreach`) briefly defined: it uses them, while this
// project builds with QT_NO_KEYWORDS (as for QScintilla, see Qsci.h).
#pragma once

#define signals Q_SIGNALS
#define slots Q_SLOTS
#define emit Q_EMIT
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef slots
#undef emit
#undef foreach
