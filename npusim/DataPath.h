// The data paths a machine may have between its memories (each one a copy
// engine with its own rate), as one list.
#pragma once

#include "core/XMacroEnum.h"

#include "compiler/ir/MemoryKind.h"

#include <cstddef>
#include <optional>
#include <string_view>

namespace pto {

// X(Enumerator, from, to, "name"); the name is the key in machine files.
// A2/A3 have the first six only: a vector op that consumes a matmul result
// reads it back from GM. The 950 adds L0C->UB; UB<->L1 is listed so a
// machine file can describe chips that have it.
//   GM->L1, GM->UB    MTE2 copy-in
//   L1->L0A, L1->L0B  MTE1
//   L0C->GM, L0C->UB  FIXPIPE
//   UB->GM, UB->L1    MTE3 copy-out;  L1->UB  MTE1
#define PTO_FOR_EACH_DATA_PATH(X)        \
  X(GmToL1, GM, L1, "gm_to_l1")          \
  X(GmToUb, GM, UB, "gm_to_ub")          \
  X(L1ToL0A, L1, L0A, "l1_to_l0a")       \
  X(L1ToL0B, L1, L0B, "l1_to_l0b")       \
  X(L0CToGm, L0C, GM, "l0c_to_gm")       \
  X(UbToGm, UB, GM, "ub_to_gm")          \
  X(L0CToUb, L0C, UB, "l0c_to_ub")       \
  X(UbToL1, UB, L1, "ub_to_l1")          \
  X(L1ToUb, L1, UB, "l1_to_ub")

PTO_DECLARE_XMACRO_ENUM(DataPath, unsigned char, PTO_FOR_EACH_DATA_PATH);

MemoryKind source(DataPath path);
MemoryKind destination(DataPath path);
// "gm_to_l1", ...
std::string_view name(DataPath path);
std::optional<DataPath> parseDataPath(std::string_view text);
// The listed path from `from` to `to`, if the list has one.
std::optional<DataPath> dataPathBetween(MemoryKind from, MemoryKind to);

} // namespace pto
