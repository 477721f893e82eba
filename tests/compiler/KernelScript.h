// A small text form of a kernel, one statement per line, so that the golden pass tests can state their
// input next to the expected dump. It is read into a TensorGraph with TensorGraphBuilder, as tracing does.
//
//   kernel softmax                        the kernel's name (optional, first)
//   arg x float32 [N, 40]                 an argument; dims are integers or symbol expressions
//   symbol N from x 0                     dynamic dim N is dim 0 of argument x (graph.dynamicSymbols)
//   bind N = 6                            CompileSettings.bindings
//   tensor acc float32 [4, 16]            a temporary no op produces (pypto.tensor)
//   vec_tile [4, 16]                      set_vec_tile_shapes, for the ops that follow
//   cube_tile m=[32, 64] k=[64, 128] n=[32, 64]
//   label rows                            set_semantic_label
//   for b in range(0, 3, 1):              a loop; its body runs to the matching `end`
//   end
//   e = exp(x)                            an op; its result is named e in dumps
//   s = sum(x, dims=[1], keepdim=true)    attributes by name (docs/ir.md), values typed by the name
//   assemble(e, offsets=[b*2, 0]) -> y    an op writing into an existing tensor
//
// '#' starts a comment. The script ends at the first line starting with "pass" (the golden file's
// expectations follow). Every statement's location is kernel.py:<its line number>, so dumps and
// diagnostics point into the script.
#pragma once

#include "compiler/ir/TensorGraph.h"

#include <cstdint>
#include <map>
#include <string>

namespace pto::testing {

struct KernelScript {
  TensorGraph graph;
  Bindings bindings;
  std::string error;  // "line 7: ..." when the script is malformed or an op is rejected
};

KernelScript parseKernelScript(const std::string& text);

} // namespace pto::testing
