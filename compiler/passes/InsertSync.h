// InsertSync: the set/wait flags that order dependent instructions of
// different pipes.
//
// Pre:  the programs' instructions are in their final issue order
//       (OoOSchedule) and hold no sync instructions.
// Post: for every dependence (instructionsConflict) between instructions on
//       different pipes, the consumer cannot start before the producer has
//       finished: a SET_FLAG(producer pipe -> consumer pipe, e) right after
//       the producer and a WAIT_FLAG of the same flag right before the
//       consumer, or a BARRIER before the consumer. Same-pipe dependences
//       need nothing (a pipe runs in order).
//       - No redundant flags: a dependence already implied by earlier flags
//         (through any chain of pipes, tracked with a vector clock per pipe)
//         or by a later producer on the same pipe gets none, so one wait
//         covers every earlier instruction of the producer's pipe.
//       - Event ids: at most `eventIds` per pipe pair (8 on the machine);
//         an id's set..wait spans never overlap in issue order, so its sets
//         and waits alternate and an id is reused once its wait is issued.
//         When every id of the pair is taken, the consumer gets a BARRIER.
//       - Deadlock-free: every WAIT_FLAG follows its SET_FLAG in issue order
//         (the k-th wait of a pair and id consumes its k-th set), so pipes
//         running in order with these flags always make progress.
//       The instructions' original order is kept; pipeCounts are updated.
// Options: none. Cost: the dependence DAG (dependencePredecessors) plus
// O(edges x pipes).
#pragma once

#include "compiler/ir/Compilation.h"

namespace pto {

inline constexpr int kEventIdsPerPipePair = 8;

bool insertSync(Compilation& compilation, DiagnosticEngine& diags);

// The synchronisation of one program; for tests (e.g. with few event ids).
void insertSyncInto(PtoProgram& program, int eventIds = kEventIdsPerPipePair);

} // namespace pto
