// The live check behind the tuning panel: would a candidate tile shape at a
// tile site fit the machine's on-chip buffers, and is it aligned as the
// compiler requires? Cheap enough (microseconds) to run on every keystroke.
//
// What it computes. For each op the site governs, the first (full) tile
// ExpandFunction would cut with the candidate, as a one-op subgraph placed by
// AllocateBuffers' own planner (planSubgraphBuffers: 32-byte padded
// innermost dim, allocation granularity, shared regions counted once): UB for
// vector ops; L1, L0A, L0B and L0C for a matmul k-step (its A and B tiles in
// L1 and L0A/L0B, the mL0 x nL0 accumulator in L0C). The result is the
// largest such working set per memory. Every subgraph holding that op needs
// at least this much, so "does not fit" means the compile will fail at
// AllocateBuffers. GraphPartition also fuses data-connected ops into one
// subgraph; as an estimate of that, the governed ops' first tiles are placed
// together as one subgraph in program order (a tile one op writes and the
// next reads is one buffer). When that exceeds a memory the result is "may
// not fit". Other tiles of a fused subgraph (all partials of a reduction,
// ops of other sites) and n-buffer merges can need more still; the compile's
// AllocateBuffers error then names the subgraph, memory and bytes.
// Rank and padding use the compiler's rules (compiler/settings/TileSettings.h).
//
// The mL1 / kL1 / nL1 parts of a cube shape do not change buffer use in this
// compiler (it stages the L0 blocks in L1), so they are not checked here.
#pragma once

#include "analysis/tuning/TileSites.h"
#include "compiler/ir/MemoryKind.h"
#include "compiler/ir/TargetInfo.h"
#include "compiler/ir/TileGraph.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

struct MemoryUse {
  MemoryKind memory = MemoryKind::UB;
  std::int64_t usedBytes = 0;
  std::int64_t availableBytes = 0;
  std::int64_t fusedBytes = 0;  // the governed ops' first tiles as one subgraph (>= usedBytes)
  // The same placed for double buffering (AllocateBuffers' ping-pong: each
  // buffer kept one op longer; a cube tile as two k-steps), or 0 when not
  // worked out (an invalid or overflowing tile).
  std::int64_t pingPongBytes = 0;
  std::string worstOp;  // "exp at kernel.py:14" — the governed op needing the most
  bool fits() const { return usedBytes <= availableBytes; }
};

enum class TileFit : unsigned char {
  Fits,        // aligned, and every governed op's tile fits every memory
  MayNotFit,   // each op's tile fits, but the governed ops fused into one subgraph would not
  DoesNotFit,  // some op's own tile overflows a memory: the compile will fail
  Invalid,     // not a shape the compiler accepts (rank, alignment, non-positive, unparsable)
};
std::string_view name(TileFit fit);  // "fits", "may not fit", "does not fit", "invalid"

struct TileBufferCheck {
  TileFit fit = TileFit::Invalid;
  std::vector<MemoryUse> memories;    // vec: UB; cube: L1, L0A, L0B, L0C
  std::vector<std::string> problems;  // rank and form, the compiler's words
  std::vector<std::string> notes;     // what the tile costs beyond its elements (rows padded to 32 bytes)
  bool fits() const { return fit == TileFit::Fits; }
  // "UB 48 KiB / 192 KiB", memories joined with ", ".
  std::string usageText() const;
  // One line: "fits: UB 48 KiB / 192 KiB", "may not fit: UB 120 KiB / 192 KiB, 210 KiB fused",
  // "does not fit: UB 320 KiB / 192 KiB (exp at kernel.py:14)" or "invalid: <first problem>".
  std::string summary() const;
  // Whether the compiler can double-buffer these tiles (copies overlapping
  // compute): "double-buffered: UB 4.2 KiB / 192 KiB", or "single-buffered:
  // double buffering needs UB 230 KiB / 192 KiB"; empty when unknown.
  bool doubleBuffered() const;
  std::string bufferingText() const;
};

// "UB", "L1", "L0A", ... (the short names engineers use).
std::string memoryLabel(MemoryKind memory);

// "48 KiB", "1.5 KiB", "96 B", "2 MiB".
std::string formatBytes(std::int64_t bytes);

// Prepared once per (graph, site, machine); check() then costs a few
// microseconds per governed op. Not thread-safe (it reuses scratch space).
class TileBufferChecker {
public:
  TileBufferChecker(const TensorGraph& graph, const TileSite& site, const Bindings& bindings,
                    const TargetInfo& target);
  ~TileBufferChecker();
  TileBufferChecker(TileBufferChecker&&) noexcept;
  TileBufferChecker& operator=(TileBufferChecker&&) noexcept;

  TileBufferCheck checkVec(const std::vector<std::int64_t>& tile) const;
  TileBufferCheck checkCube(const CubeTileShape& shape) const;
  TileBufferCheck check(const TileShape& shape) const;
  // A tile_settings value or panel text for this site's section, parsed
  // (compiler/settings/TileSettings.h) and checked; a malformed one is Invalid.
  TileBufferCheck checkJson(const nlohmann::ordered_json& value) const;
  TileBufferCheck checkText(std::string_view text) const;
  // ExpandFunction's note when a tile_settings value (vec or cube, as the
  // section takes) is larger than everything it would cut at this site, so
  // the compiler clamps it: "vec tile [64, 1024] is larger than what it cuts
  // (...); it is clamped to [32, 100]". Empty when nothing is clamped or the
  // value is malformed.
  std::string clampNote(const nlohmann::ordered_json& value) const;
  std::string clampNote(const TileShape& shape) const;

  TileSection section() const;

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

} // namespace pto
