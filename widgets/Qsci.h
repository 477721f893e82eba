// QScintilla's headers, included with Qt's `signals`/`slots` keywords
// briefly defined: they use them, while this project builds with
// QT_NO_KEYWORDS (so Python headers never meet Qt's macros).
#pragma once

#define signals Q_SIGNALS
#define slots Q_SLOTS
#include <Qsci/qscilexerpython.h>
#include <Qsci/qsciscintilla.h>
#undef signals
#undef slots
