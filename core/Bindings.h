// Values of the names an expression reads: dynamic dims ("N"), loop indices,
// and the elements of index tensors a kernel reads (SymbolicScalar::
// elementKey). Named once, here, so that its representation can change in
// one place: BuildExecuteGraph looks elements up in it for every task, and
// a string-keyed tree is most of what those lookups cost.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace pto {

using Bindings = std::map<std::string, std::int64_t>;

} // namespace pto
