// A small trace with every kind of content, shared by the writer and reader tests.
#pragma once

#include "runtime/trace/Trace.h"

namespace pto::trace::testing {

// Lanes AIC_0, AIV_0, AIV_1; six tasks with a fan-out and a fan-in, one
// zero-length task, pipe intervals, extra args (string and raw JSON), and
// the three ReadyCount counters. Finalized.
inline Trace sampleTrace() {
  Trace trace;
  LaneIndex aic = trace.addLane("AIC_0", 0);
  LaneIndex aiv0 = trace.addLane("AIV_0", 1);
  LaneIndex aiv1 = trace.addLane("AIV_1", 2);
  auto add = [&](LaneIndex lane, std::int64_t id, std::int64_t start, std::int64_t end, const char* name, const char* label) {
    Task task;
    task.id = id;
    task.seq = static_cast<std::int32_t>(id % 4);
    task.subgraph = static_cast<std::int32_t>(id / 2);
    task.lane = lane;
    task.dispatchNs = start - 250;
    task.startNs = start;
    task.endNs = end;
    task.name = trace.intern(name);
    task.label = trace.intern(label);
    task.sourceFile = trace.intern("kernels/attn \"v2\".py");
    task.sourceLine = static_cast<std::int32_t>(10 + id);
    task.inputs = trace.intern("q[0:64,0:128]");
    task.outputs = trace.intern("s[0:64]");
    PipeInterval pipes[] = {{start, start + (end - start) / 2, trace.intern("MTE2")}, {start + 1, end, trace.intern("V")}};
    TaskArg args[] = {{trace.intern("color"), trace.intern("#ff8800"), false},
                      {trace.intern("event-hint"), trace.intern("{\"wait\":[1,2]}"), true}};
    return trace.addTask(task, std::span(pipes, id % 2 ? 2 : 0), std::span(args, id % 3 ? 2 : 1));
  };
  TaskIndex load = add(aiv0, 100, 0, 1500, "0-attn-load-0-0(load)", "load");
  TaskIndex qk = add(aic, 101, 1600, 4100, "1-attn-qk-0-1(qk)", "qk");
  TaskIndex exp0 = add(aiv0, 102, 4200, 5123, "2-attn-exp-1-2(softmax)", "softmax");
  TaskIndex exp1 = add(aiv1, 103, 4200, 5001, "3-attn-exp-1-2(softmax)", "softmax");
  TaskIndex mark = add(aiv1, 104, 5001, 5001, "marker", "");
  TaskIndex pv = add(aic, 105, 5200, 9999, "5-attn-pv-2-3(pv)", "pv");
  trace.addDependency(load, qk);
  trace.addDependency(qk, exp0);
  trace.addDependency(qk, exp1);
  trace.addDependency(exp1, mark);
  trace.addDependency(exp0, pv);
  trace.addDependency(mark, pv);
  for (std::int64_t ts : {0, 1600, 4200, 5200}) {
    trace.addCounterSample("ReadyCount_AIC", ts, static_cast<double>(ts % 3));
    trace.addCounterSample("ReadyCount_AIV", ts, static_cast<double>(ts % 5) + 0.5);
    trace.addCounterSample("ReadyCount_Total", ts, static_cast<double>(ts % 3 + ts % 5) + 0.5);
  }
  trace.finalize();
  return trace;
}

} // namespace pto::trace::testing
