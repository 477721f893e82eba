// A compilation's steps from the pass runner's records (see PassSteps.h).
#include "analysis/irviews/PassSteps.h"

namespace pto {

void appendPassSteps(PassHistory& history, std::vector<PassRecord> records) {
  std::vector<IrNode> previous;
  std::shared_ptr<const IrJson> previousSnapshot = std::make_shared<IrJson>(IrJson::object());
  for (PassRecord& record : records) {
    PassStep step;
    step.name = record.name;
    step.milliseconds = record.milliseconds;
    step.changed = record.changed;
    step.skipped = record.skipped;
    if (record.skipped || record.snapshotJson.empty() || (!record.changed && !history.steps.empty())) {
      // Nothing changed: the step before's IR, nodes and counts.
      step.snapshot = previousSnapshot;
      if (!history.steps.empty()) {
        for (std::size_t level = 0; level < kIrLevelCount; ++level)
          step.counts[level].count = history.steps.back().counts[level].count;
        step.diverged = static_cast<int>(history.steps.size()) == history.divergedAt;
        history.steps.push_back(std::move(step));
        continue;
      }
    } else {
      step.snapshot = std::make_shared<IrJson>(IrJson::parse(record.snapshotJson));
      record.snapshotJson.clear();
    }
    std::vector<IrNode> nodes = irNodes(*step.snapshot);
    step.changes = diffNodes(previous, nodes);
    step.counts = countChanges(nodes, step.changes);
    step.diverged = static_cast<int>(history.steps.size()) == history.divergedAt;
    previous = std::move(nodes);
    previousSnapshot = step.snapshot;
    history.steps.push_back(std::move(step));
  }
}

int partitionStep(const PassHistory& history) {
  for (std::size_t i = 0; i < history.steps.size(); ++i)
    if (history.steps[i].name == "ApplyPartitionOverrides") return static_cast<int>(i);
  return -1;
}

} // namespace pto
