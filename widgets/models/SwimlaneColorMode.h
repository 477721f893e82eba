// What a swimlane slice's colour stands for. Shared by the per-lane colour
// summaries (models) and the renderer (widgets).
#pragma once

namespace pto::widgets {

enum class SwimlaneColorMode {
  Label,     // the task's semantic label (the editor gutter uses the same colours)
  Subgraph,  // the subgraph (program) the task runs
  Bound,     // the pipe class that dominated the task's time (BoundClass)
  Error,     // measured against simulated duration (ErrorClass), when a measured trace is compared
};

} // namespace pto::widgets
