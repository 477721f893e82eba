// The chosen tasks of a StepRecorder and what was recorded for them.
#include "npusim/StepRecorder.h"

#include <algorithm>

namespace pto {

bool StepRecorder::wants(TaskId task) const { return std::find(m_tasks.begin(), m_tasks.end(), task) != m_tasks.end(); }

const TaskSteps* StepRecorder::steps(TaskId task) const {
  for (const TaskSteps& steps : recorded)
    if (steps.task == task) return &steps;
  return nullptr;
}

} // namespace pto
