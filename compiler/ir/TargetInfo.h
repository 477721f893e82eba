// What the compiler needs to know about the machine it compiles for. The
// simulator's full description (npusim/MachineDescription) fills this in;
// the defaults are the A2-like machine so that compiling needs no file.
#pragma once

#include "compiler/ir/MemoryKind.h"

#include <array>
#include <cstdint>
#include <string>

namespace pto {

struct TargetInfo {
  std::string name = "a2";
  // Per-core capacity of each memory, in bytes (GM: effectively unbounded).
  std::array<std::int64_t, kMemoryKindCount> capacityBytes = {
      std::int64_t{64} << 30,  // GM
      512 * 1024,              // L1
      64 * 1024,               // L0A
      64 * 1024,               // L0B
      128 * 1024,              // L0C
      192 * 1024,              // UB
      1024,                    // BT
      7 * 1024,                // FB
  };
  std::int64_t allocationGranularityBytes = 32;
  // A direct L0C -> UB path lets cube results feed vector ops on chip.
  bool hasL0cToUb = false;
  // A direct UB -> L1 path lets vector results feed the cube (a matmul operand) on chip.
  bool hasUbToL1 = false;
  int aicCores = 24;
  int aivCores = 48;

  std::int64_t capacity(MemoryKind kind) const { return capacityBytes[static_cast<std::size_t>(kind)]; }
};

} // namespace pto
