// Implementation of bindElementReads.
#include "compiler/ir/ElementBindings.h"

namespace pto {

bool isElementBinding(std::string_view key) { return !key.empty() && key.back() == ']'; }

std::string bindElementReads(const TensorGraph& graph, const std::vector<HostTensor>& arguments,
                             Bindings& bindings) {
  std::int64_t total = 0;
  for (int index : graph.elementReadArguments) {
    if (index < 0 || static_cast<std::size_t>(index) >= graph.arguments.size() ||
        static_cast<std::size_t>(index) >= arguments.size())
      return "the kernel reads elements of argument " + std::to_string(index) + ", which was not given";
    const TensorValue& argument = graph.tensor(graph.arguments[static_cast<std::size_t>(index)]);
    const HostTensor& values = arguments[static_cast<std::size_t>(index)];
    if (isFloatingPoint(values.dtype()))
      return "the kernel reads elements of '" + argument.name + "' as loop bounds or offsets, so it must be an integer "
             "tensor, not " + std::string(name(values.dtype()));
    total += values.elementCount();
    if (total > kMaxElementReadBindings)
      return "the kernel reads elements of '" + argument.name + "' (" + values.shape().str() +
             "), more than the " + std::to_string(kMaxElementReadBindings) +
             " elements that scalar reads may cover in all; read a smaller index tensor";
    for (std::int64_t position = 0; position < values.elementCount(); ++position)
      bindings[SymbolicScalar::elementKey(argument.name, position)] = values.getAsInt64(position);
  }
  return {};
}

} // namespace pto
