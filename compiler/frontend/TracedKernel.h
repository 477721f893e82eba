// What tracing a kernel hands to the rest of the engine.
#pragma once

#include "compiler/ir/TensorGraph.h"

namespace pto {

struct TracedKernel {
  TensorGraph graph;
};

} // namespace pto
