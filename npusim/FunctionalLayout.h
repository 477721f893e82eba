// Where the elements of each on-chip operand of a PTO program lie, for the
// functional simulator.
//
// Meaning. A PtoOperand names a byte range of a core memory and a shape; the
// element layout inside that range is the layout of the buffer it belongs to
// (PtoProgram.h): row-major over the *buffer's* shape with the innermost dim
// padded to 32 bytes. An operand that is a sub-tile of a buffer therefore
// has the buffer's strides, not its own. The buffer is found among the
// AllocateBuffers placements of the program's subgraph: the one in the same
// memory whose byte range holds the operand's, preferring one live at the
// instruction's op. Operands in no placed buffer (UB tiles LowerToPto stacks
// above them) are a tile of their own shape.
//
// A source spread over several buffers (PtoInstruction::srcs lists each
// piece) is resolved against the tile op's input region: each piece covers
// the intersection of its buffer's region with the input, at an origin
// found by subtracting the regions' (symbolic, per-task equal) offsets.
//
// Units: offsets in bytes, strides and shapes in elements.
#pragma once

#include "compiler/ir/Compilation.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pto {

struct OperandLayout {
  MemoryKind memory = MemoryKind::UB;
  DataType dtype = DataType::Fp32;
  std::int64_t offsetBytes = 0;  // the first element
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;  // elements; the innermost is 1
  // The end of the bytes touched: offsetBytes + (last element + 1) * item.
  std::int64_t endBytes() const;
  std::int64_t elementCount() const;
};

// One piece of a tile op's input: `layout` holds the elements of the input
// box [origin, origin + layout.shape).
struct SourcePiece {
  OperandLayout layout;
  std::vector<std::int64_t> origin;
};

// One tile-op input as an instruction reads it: its shape (elements) and
// the pieces covering it (one for an input held whole).
struct SourceLayout {
  std::vector<std::int64_t> shape;
  DataType dtype = DataType::Fp32;
  std::vector<SourcePiece> pieces;
};

struct InstructionLayout {
  std::vector<SourceLayout> srcs;      // on-chip sources, by tile-op input (GM sources: empty pieces)
  std::vector<OperandLayout> dst;      // per destination (GM destinations: memory GM)
};

struct ProgramLayout {
  std::vector<InstructionLayout> instructions;  // by instruction index
};

// Row-major strides of `shape` with the innermost dim padded to 32 bytes.
std::vector<std::int64_t> paddedStrides(const std::vector<std::int64_t>& shape, DataType dtype);

// The layouts of every operand of `program`; nullopt with `error` set when an
// operand cannot be placed (the message names the instruction index).
std::optional<ProgramLayout> resolveProgramLayout(const Compilation& compilation, const PtoProgram& program,
                                                  std::string& error, int& failedInstruction);

} // namespace pto
