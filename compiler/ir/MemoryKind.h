// The memories of the modelled chip: global memory and each core's buffers.
#pragma once

#include "core/XMacroEnum.h"

#include <cstddef>
#include <optional>
#include <string_view>

namespace pto {

// X(Enumerator, "short name", "what people call it"). The short name is the
// spelling of machine files ("l0a_bytes", "gm_to_l1") and dumps.
//   GM   global memory (HBM), shared by all cores, behind the L2 cache
//   L1   cube core input buffer, feeds L0A/L0B
//   L0A  cube left-operand buffer, L0B right-operand buffer
//   L0C  cube accumulator; drained by the fixpipe
//   UB   vector core unified buffer
//   BT   cube bias table, FB fixpipe buffer (quantisation parameters)
#define PTO_FOR_EACH_MEMORY_KIND(X)        \
  X(GM, "gm", "global memory")             \
  X(L1, "l1", "L1 buffer")                 \
  X(L0A, "l0a", "L0A buffer")              \
  X(L0B, "l0b", "L0B buffer")              \
  X(L0C, "l0c", "L0C buffer")              \
  X(UB, "ub", "unified buffer")            \
  X(BT, "bt", "bias table")                \
  X(FB, "fb", "fixpipe buffer")

PTO_DECLARE_XMACRO_ENUM(MemoryKind, unsigned char, PTO_FOR_EACH_MEMORY_KIND);

// "gm", "l1", "l0a", ...
std::string_view name(MemoryKind kind);
// "global memory", "L1 buffer", ... for messages.
std::string_view title(MemoryKind kind);
std::optional<MemoryKind> parseMemoryKind(std::string_view text);

} // namespace pto
