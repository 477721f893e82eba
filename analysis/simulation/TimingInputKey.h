// A fingerprint of what a timing simulation of a compiled kernel reads, so
// that a sweep simulates two compilations that came out the same only once.
//
// A timing run (simulate() in timing mode) reads three things of the
// compilation: its PTO programs (timed per machine), its execute graph
// (tasks, their regions, dependencies, root calls and loop barriers) and
// where its tensors lie in GM (gmLayoutsOf). The key hashes every field of
// those, and nothing else: two compilations with equal keys give the same
// schedule, bit for bit, on one machine with one set of runtime options,
// whatever settings made them. That happens in real sweeps: a merge count
// larger than the kernel's groups (cube_l1_reuse_setting 64 on groups of
// 32 merges what 32 merges), a tile setting a site clamps, an option the
// kernel gives nothing to act on.
#pragma once

#include "compiler/ir/Compilation.h"
#include "compiler/passes/StageKey.h"

namespace pto {

// Costs one pass over the programs and tasks (well under a compile).
StageKey timingInputKey(const Compilation& compilation);

} // namespace pto
