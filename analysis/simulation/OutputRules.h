// Which rule judges an output against its golden, chosen from how the kernel computes it, as PyPTO's own
// model tests choose per output:
//  - allclose:  float outputs, |actual - golden| <= atol + rtol |golden| per element (numpy's allclose);
//  - exact:     integer outputs the kernel copies or computes exactly (indices, masks, cache rows);
//  - quantized: integer outputs cast from floats (int8 quantisation): within one quantisation step, since
//               a value at the rounding boundary legitimately lands on either side (PyPTO's quant tests
//               compare q_int8 with atol 1);
//  - topk:      the indices of a top-k or sort: each row (last dim) as a set, order ignored, with at most
//               floor(k / 2000) golden indices missing per row (PyPTO's Lightning Indexer test allows
//               k * 5e-4), since scores that tie within rounding may select either index.
#pragma once

#include "analysis/simulation/PrecisionCompare.h"
#include "compiler/ir/TensorGraph.h"

#include <optional>
#include <string_view>

namespace pto {

enum class CompareRule { Allclose, Exact, Quantized, Topk };

std::string_view name(CompareRule rule);
std::optional<CompareRule> parseCompareRule(std::string_view text);

// The rule for the output argument `argument` (a tensor id of graph.arguments) from the ops that write it:
// what their values come from, through views, reshapes, copies, concatenation, clips, where and gathers.
CompareRule compareRuleFor(const TensorGraph& graph, TensorId argument);

// `actual` against `expected` (same shape) under `rule`; `tolerance` is allclose's.
OutputComparison compareOutputByRule(const HostTensor& actual, const HostTensor& expected, CompareRule rule,
                                     const Tolerance& tolerance);

} // namespace pto
