// Gaps between each core's tasks, split by what the task waited for, and
// each core's pipe use.
#include "analysis/report/CoreBubbles.h"

#include "compiler/ir/PtoProgram.h"

#include <algorithm>
#include <limits>

namespace pto {
namespace {

void keepLongest(std::vector<TaskWait>& waits, std::size_t count) {
  std::stable_sort(waits.begin(), waits.end(), [](const TaskWait& a, const TaskWait& b) { return a.cycles > b.cycles; });
  if (waits.size() > count) waits.resize(count);
}

} // namespace

BubbleReport bubbleReport(const ExecuteGraph& graph, const Schedule& schedule) {
  BubbleReport report;
  std::map<CoreId, std::vector<const TaskRecord*>> byCore;
  std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = 0;
  for (const TaskRecord& record : schedule.tasks) {
    if (record.task == kNoId) continue;
    byCore[record.core].push_back(&record);
    first = std::min(first, record.startCycle);
    last = std::max(last, record.endCycle);
  }
  if (byCore.empty()) return report;
  report.firstStartCycle = first;
  report.spanCycles = last - first;

  std::vector<TaskWait> allWaits;
  for (auto& [core, records] : byCore) {
    std::sort(records.begin(), records.end(), [](const TaskRecord* a, const TaskRecord* b) {
      return a->startCycle < b->startCycle || (a->startCycle == b->startCycle && a->task < b->task);
    });
    CoreBubbles row;
    row.coreType = std::string(name(core.type));
    row.index = core.index;
    row.core = row.coreType + " " + std::to_string(core.index);
    row.tasks = static_cast<int>(records.size());
    row.firstStartCycle = records.front()->startCycle;
    std::int64_t previousEnd = first;
    std::vector<TaskWait> waits;
    for (const TaskRecord* record : records) {
      std::int64_t dataReady = first;
      if (static_cast<std::size_t>(record->task) < graph.tasks.size())
        for (TaskId producer : graph.tasks[static_cast<std::size_t>(record->task)].predecessors)
          dataReady = std::max(dataReady, schedule.tasks.at(static_cast<std::size_t>(producer)).endCycle);
      const std::int64_t gap = std::max<std::int64_t>(0, record->startCycle - previousEnd);
      const std::int64_t scheduleWait =
          std::clamp<std::int64_t>(record->startCycle - std::max(previousEnd, dataReady), 0, gap);
      if (gap > 0) ++row.gaps;
      row.gapCycles += gap;
      if (gap > row.maxGapCycles) {
        row.maxGapCycles = gap;
        row.maxGapBefore = record->task;
      }
      row.scheduleWaitCycles += scheduleWait;
      row.predecessorWaitCycles += gap - scheduleWait;
      waits.push_back({record->task, scheduleWait});
      row.busyCycles += record->endCycle - record->startCycle;
      for (const PipeInterval& interval : schedule.pipes(*record))
        row.pipeBusyCycles[std::string(interval.pipe())] += interval.endCycle - interval.startCycle;
      previousEnd = std::max(previousEnd, record->endCycle);
    }
    row.lastEndCycle = previousEnd;
    row.workCycles = previousEnd - first;
    const double span = static_cast<double>(std::max<std::int64_t>(1, row.lastEndCycle - row.firstStartCycle));
    for (const auto& [pipe, cycles] : row.pipeBusyCycles) row.pipeUsage[pipe] = static_cast<double>(cycles) / span;
    allWaits.insert(allWaits.end(), waits.begin(), waits.end());
    keepLongest(waits, 3);
    row.topScheduleWaits = std::move(waits);
    report.cores.push_back(std::move(row));
  }
  keepLongest(allWaits, 10);
  report.topScheduleWaits = std::move(allWaits);

  for (CoreType type : {CoreType::AIC, CoreType::AIV}) {
    const std::string typeName(name(type));
    int cores = 0;
    std::map<std::string, std::int64_t> busy;
    for (const CoreBubbles& row : report.cores) {
      if (row.coreType != typeName) continue;
      ++cores;
      for (const auto& [pipe, cycles] : row.pipeBusyCycles) busy[pipe] += cycles;
    }
    for (std::size_t p = 0; p < kPipeCount && cores > 0; ++p) {
      const std::string pipe(name(static_cast<Pipe>(p)));
      auto found = busy.find(pipe);
      if (found == busy.end()) continue;
      PipeUsageSummary summary;
      summary.coreType = typeName;
      summary.pipe = pipe;
      summary.cores = cores;
      summary.meanBusyCycles = static_cast<double>(found->second) / cores;
      summary.usage = report.spanCycles > 0 ? summary.meanBusyCycles / static_cast<double>(report.spanCycles) : 0.0;
      report.pipes.push_back(summary);
    }
  }
  return report;
}

nlohmann::ordered_json bubbleReportJson(const BubbleReport& report) {
  using json = nlohmann::ordered_json;
  auto waitsJson = [](const std::vector<TaskWait>& waits) {
    json list = json::array();
    for (const TaskWait& wait : waits) list.push_back({{"task", wait.task}, {"cycles", wait.cycles}});
    return list;
  };
  json cores = json::array();
  for (const CoreBubbles& row : report.cores) {
    json pipes = json::object();
    for (const auto& [pipe, cycles] : row.pipeBusyCycles)
      pipes[pipe] = {{"busy_cycles", cycles}, {"usage", row.pipeUsage.at(pipe)}};
    cores.push_back({{"core", row.core},
                     {"tasks", row.tasks},
                     {"first_start_cycle", row.firstStartCycle},
                     {"last_end_cycle", row.lastEndCycle},
                     {"work_cycles", row.workCycles},
                     {"busy_cycles", row.busyCycles},
                     {"gaps", row.gaps},
                     {"gap_cycles", row.gapCycles},
                     {"max_gap_cycles", row.maxGapCycles},
                     {"max_gap_before_task", row.maxGapBefore},
                     {"schedule_wait_cycles", row.scheduleWaitCycles},
                     {"predecessor_wait_cycles", row.predecessorWaitCycles},
                     {"top_schedule_waits", waitsJson(row.topScheduleWaits)},
                     {"pipes", std::move(pipes)}});
  }
  json pipes = json::array();
  for (const PipeUsageSummary& pipe : report.pipes)
    pipes.push_back({{"core_type", pipe.coreType},
                     {"pipe", pipe.pipe},
                     {"cores", pipe.cores},
                     {"mean_busy_cycles", pipe.meanBusyCycles},
                     {"usage", pipe.usage}});
  return {{"first_start_cycle", report.firstStartCycle},
          {"span_cycles", report.spanCycles},
          {"pipe_usage", std::move(pipes)},
          {"top_schedule_waits", waitsJson(report.topScheduleWaits)},
          {"cores", std::move(cores)}};
}

} // namespace pto
