#!/usr/bin/python3
"""Writes sample_swimlane.json: a small, deterministic Chrome-trace swimlane
shaped like the muls_add_matmul_rowsum example (scale_add on the vector
cores, matmul on the cube cores, rowsum on the vector cores), for the widget
tests and the IDE screenshots.

It list-schedules a hand-made task graph (3 loop iterations x 16 tiles) over
2 AIC and 4 AIV cores with a fixed dispatch cost, so the file has everything
the importer understands: thread names and sort indices, task args (taskId,
seqNo, subgraph, label, source, inputs, outputs, dispatchTs, pipes), v1 flow
pairs with "bp":"e" for every dependency, and ReadyCount counters.
Rerun it after changing it:  /usr/bin/python3 make_sample_swimlane.py
"""
import json
import os
import random

DISPATCH_US = 0.25
rng = random.Random(7)

# Each task: (label, core type, source line, duration in µs, pipes, predecessors).
tasks = []


def add(label, core, line, dur, pipes, preds, subgraph, inputs, outputs):
    tasks.append(dict(label=label, core=core, line=line, dur=round(dur, 3), pipes=pipes, preds=preds,
                      subgraph=subgraph, inputs=inputs, outputs=outputs))
    return len(tasks) - 1


for it in range(3):
    scale = []
    for tile in range(16):
        r, c = (tile // 2) * 32 + it * 256, (tile % 2) * 32
        dur = 1.1 + rng.random() * 0.5
        pipes = [("MTE2", 0.0, dur * 0.45), ("V", dur * 0.4, dur * 0.25), ("MTE3", dur * 0.7, dur * 0.3)]
        scale.append(add("scale_add", "AIV", 18, dur, pipes, [], 0,
                         f"a[{r}:{r + 32},{c}:{c + 32}]; b[{r}:{r + 32},{c}:{c + 32}]",
                         f"hidden[{r}:{r + 32},{c}:{c + 32}]"))
    mm = []
    for block in range(8):
        r = block * 32 + it * 256
        dur = 2.6 + rng.random() * 0.8
        pipes = [("MTE2", 0.0, dur * 0.3), ("MTE1", dur * 0.25, dur * 0.2), ("CUBE", dur * 0.4, dur * 0.45),
                 ("FIXPIPE", dur * 0.85, dur * 0.15)]
        mm.append(add("matmul", "AIC", 22, dur, pipes, [scale[2 * block], scale[2 * block + 1]], 1,
                      f"hidden[{r}:{r + 32},0:64]; w[0:64,0:32]", f"product[{r}:{r + 32},0:32]"))
    for block in range(8):
        r = block * 32 + it * 256
        dur = 0.8 + rng.random() * 0.3
        pipes = [("MTE2", 0.0, dur * 0.4), ("V", dur * 0.4, dur * 0.35), ("MTE3", dur * 0.75, dur * 0.25)]
        add("rowsum", "AIV", 26, dur, pipes, [mm[block]], 2, f"product[{r}:{r + 32},0:32]", f"out[{r}:{r + 32},0:1]")

cores = {"AIC": ["AIC_0", "AIC_1"], "AIV": ["AIV_0", "AIV_1", "AIV_2", "AIV_3"]}
free_at = {name: 0.0 for names in cores.values() for name in names}
end = [None] * len(tasks)
start = [None] * len(tasks)
lane = [None] * len(tasks)
dispatch = [None] * len(tasks)
ready_changes = []  # (time, core type, +1/-1)
# A FIFO per core type: among the tasks whose producers are placed, the one
# ready first (then the lowest id) is dispatched next, on the core that frees
# first.
placed = set()
while len(placed) < len(tasks):
    candidates = [i for i, t in enumerate(tasks) if i not in placed and all(p in placed for p in t["preds"])]
    i = min(candidates, key=lambda i: (max([end[p] for p in tasks[i]["preds"]], default=0.0), i))
    t = tasks[i]
    ready = max([end[p] for p in t["preds"]], default=0.0)
    core = min(cores[t["core"]], key=lambda name: (free_at[name], name))
    dispatch[i] = max(ready, free_at[core])
    start[i] = round(dispatch[i] + DISPATCH_US, 3)
    end[i] = round(start[i] + t["dur"], 3)
    free_at[core] = end[i]
    lane[i] = core
    placed.add(i)
    ready_changes += [(ready, t["core"], 1), (dispatch[i], t["core"], -1)]

tids = {name: n for n, name in enumerate(cores["AIC"] + cores["AIV"])}
events = [{"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "Machine View"}}]
for name, tid in tids.items():
    events.append({"ph": "M", "name": "thread_name", "pid": 0, "tid": tid, "args": {"name": name}})
    events.append({"ph": "M", "name": "thread_sort_index", "pid": 0, "tid": tid, "args": {"sort_index": tid}})
for i, t in enumerate(tasks):
    pipes = ";".join(f"{p}@{round(start[i] + s, 3)}+{round(d, 3)}" for p, s, d in t["pipes"])
    events.append({"ph": "X", "name": f"{i}-muls_add_matmul_rowsum-{t['label']}-0-{t['subgraph']}({t['label']})",
                   "pid": 0, "tid": tids[lane[i]], "ts": start[i], "dur": t["dur"],
                   "args": {"taskId": 1000 + i, "seqNo": i, "subgraph": t["subgraph"], "label": t["label"],
                            "source": f"kernel.py:{t['line']}", "inputs": t["inputs"], "outputs": t["outputs"],
                            "dispatchTs": round(dispatch[i], 3), "pipes": pipes}})
flow = 0
for i, t in enumerate(tasks):
    for p in t["preds"]:
        events.append({"ph": "s", "id": flow, "cat": "dep", "name": "dep", "pid": 0, "tid": tids[lane[p]],
                       "ts": round((start[p] + end[p]) / 2, 3)})
        events.append({"ph": "f", "bp": "e", "id": flow, "cat": "dep", "name": "dep", "pid": 0,
                       "tid": tids[lane[i]], "ts": start[i]})
        flow += 1
counts = {"AIC": 0, "AIV": 0}
for ts, core, delta in sorted(ready_changes):
    counts[core] += delta
    events.append({"ph": "C", "name": f"ReadyCount_{core}", "pid": 0, "ts": round(ts, 3), "args": {"value": counts[core]}})

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sample_swimlane.json")
with open(out, "w") as f:
    f.write('{"displayTimeUnit": "us", "otherData": {"version": "pto-studio widget fixture"},\n"traceEvents": [\n')
    f.write(",\n".join(json.dumps(e) for e in events))
    f.write("\n]}\n")
print(f"{out}: {len(tasks)} tasks, {flow} dependencies, makespan {max(end):.3f} us")
