// PTO program dumps: an assembly-like listing per program and a JSON form,
// for `pto compile --dump-passes` and the tests.
#pragma once

#include "compiler/ir/Compilation.h"

#include <nlohmann/json.hpp>

#include <string>

namespace pto {

// program 0: AIV, from subgraph 3 'softmax', 9 instructions (MTE2 2, VECTOR 3, MTE3 1, ...)
//     0  MTE2     TLOAD        ub[0:1024] <- gm:x[0:4, 0:64]           f32 [4, 64]  ; exp @ kernel.py:14
//     1  MTE2     SET_FLAG     MTE2->VECTOR e0
//     2  VECTOR   WAIT_FLAG    MTE2->VECTOR e0
//     3  VECTOR   TEXP         ub[1024:2048] <- ub[0:1024]             f32 [4, 64]  ; exp @ kernel.py:14
// On-chip operands print as memory[begin:end) in bytes, GM operands as
// "gm:" and the region of the lowered subgraph's copy list; the dtype and
// shape are the destination's ("f32->f16" when a source differs), "acc+"
// (acc max, ...) marks accumulation, TVEC and TCMP name their op kind.
std::string ptoProgramToText(const Compilation& compilation, const PtoProgram& program);
// Every program, separated by blank lines.
std::string ptoProgramsToText(const Compilation& compilation);

// {"stage": "pto", "kernel", "programs": [{"program_id", "core_type", "subgraph",
//   "pipe_counts": {"MTE2": n, ...},
//   "instructions": [{"index", "pipe", "opcode", "op_kind", "tile_op", "tensor_op", "location",
//                     "dst": [operand], "srcs": [operand], "bytes", "elements", "accumulate",
//                     "src_pipe", "dst_pipe", "event" (flags only)}]}]}
// operand: {"memory", "offset", "bytes", "shape", "dtype"} on chip, or
//          {"memory": "gm", "region" (copy-list index), "list" ("copy_ins"/"copy_outs"), "alias",
//           "tensor", "bytes", "shape", "dtype"}.
nlohmann::ordered_json ptoProgramsToJson(const Compilation& compilation);

} // namespace pto
