// Binding the elements a kernel reads as scalars (act_seq[b], block_table[b, i])
// to their values, as the device's runtime reads them from tensors that are
// ready on the host when the kernel launches.
//
// Each element of each argument in graph.elementReadArguments becomes one
// binding, SymbolicScalar::elementKey(argument name, flat position) -> value,
// beside the dynamic dims. The values are the arguments' values at launch:
// a kernel that writes such an argument and reads it back as a scalar would
// see the launch value, so tracing rejects reads of arguments it writes.
#pragma once

#include "compiler/ir/TensorGraph.h"
#include "core/HostTensor.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

// Most elements one kernel may read as scalars in all (index tensors are
// small: a block table of 128 requests x 1 024 blocks is 131 072 elements).
inline constexpr std::int64_t kMaxElementReadBindings = 4 << 20;

// Whether a binding key is one element's (elementKey's "tensor[position]"),
// not a dynamic dim or loop index: dumps list only the latter as settings.
bool isElementBinding(std::string_view key);

// Adds the bindings; returns an empty string, or what is wrong (an argument
// that is missing, not an integer tensor, or too large), naming the argument.
std::string bindElementReads(const TensorGraph& graph, const std::vector<HostTensor>& arguments,
                             Bindings& bindings);

} // namespace pto
