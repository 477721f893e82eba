// The JSON the IR views read: the compiler's dumps as it writes them
// (tensorGraphToJson, irSnapshot), with their keys in the compiler's order.
// Kept as nlohmann's ordered type end to end: converting a big kernel's
// final IR to the unordered type costs more than making it (0.9 s of DIA's
// 1.2 s), and the views only walk it.
#pragma once

#include <nlohmann/json.hpp>

namespace pto {

using IrJson = nlohmann::ordered_json;

} // namespace pto
