// The summary panel's input: a run's numbers as plain data. The struct lives
// in analysis/ (beside summarizeRun, which fills it from a ProjectRunResult)
// so the engine can produce it; widgets name it here.
#pragma once

#include "analysis/run/RunSummary.h"

namespace pto::widgets {

using RunSummary = pto::RunSummary;
using CoreTypeSummary = pto::CoreTypeSummary;
using OutputSummary = pto::OutputSummary;

} // namespace pto::widgets
