// One core of the functional simulator: its on-chip memories as byte arrays
// and the execution of a PTO program on them for one task.
//
// Semantics. Instructions run one after the other in list order: the list
// order respects every data dependence (PtoProgram.h), so the flags and
// barriers that let pipes overlap on the chip change nothing here and are
// skipped. Values are what the chip holds: each memory keeps the bytes of
// its dtype, every result is rounded to its destination dtype when written
// (vector ops compute in float as the reference kernels do; TMATMUL
// multiplies fp16/bf16/fp32 tiles in fp32 with fp32 accumulation in L0C;
// TSTORE_ACC / TMOV_ACC convert on the way out). An accumulating
// instruction combines its result with what its destination holds.
//
// Memories persist between tasks, as on the chip: a task sees stale bytes
// only where its program reads what it did not write, which a correct
// program never does.
#pragma once

#include "compiler/ir/Compilation.h"
#include "core/HostTensor.h"
#include "npusim/FunctionalLayout.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pto {

// One copy-list region of a task: the tensor that holds its bytes (an
// argument, a temporary or one iteration's copy of it; it outlives the task)
// and the box (Task::reads / Task::writes, checked to lie inside it).
// Held as two pointers rather than a HostTensor view, whose shape and
// strides would be allocated for every region of every task.
struct GmRegion {
  const HostTensor* storage = nullptr;
  const ConcreteRegion* region = nullptr;
  HostTensor view() const { return storage->view(region->offsets, region->shape); }
};

// What one task sees of global memory: its copy lists' regions, in order,
// sharing the run's tensors.
struct TaskMemory {
  std::vector<GmRegion> reads;
  std::vector<GmRegion> writes;
  TaskId task = kNoId;
  // The compilation's dynamic dims and the task's loop indices (for
  // run-time scalars and valid parts), merged on first use: most
  // instructions need neither.
  const Bindings* kernelBindings = nullptr;
  const std::vector<std::pair<std::string, std::int64_t>>* loopIndices = nullptr;
  const Bindings& bindings();

private:
  std::optional<Bindings> m_bindings;
};

// How a program's instructions run on a core, decided on its first run (FunctionalCore.cpp).
struct ProgramPlan;

class FunctionalCore {
public:
  // Capacities in bytes per memory kind (the GM entry is ignored).
  explicit FunctionalCore(const std::array<std::int64_t, kMemoryKindCount>& capacityBytes);
  ~FunctionalCore();

  std::int64_t capacityBytes(MemoryKind kind) const { return m_capacity[static_cast<std::size_t>(kind)]; }

  // Runs every instruction of `program` (whose operand layouts are `layout`)
  // for one task. An instruction it cannot execute or an operand outside its
  // memory is an error naming the program, the instruction index and the
  // kernel line of the tile op; the instructions before it have run.
  bool execute(const Compilation& compilation, const PtoProgram& program, const ProgramLayout& layout,
               TaskMemory& task, DiagnosticEngine& diags);

  // The operand's elements as a contiguous tensor of its dtype and shape.
  // The layout must lie inside its memory (checked by execute()).
  HostTensor read(const OperandLayout& layout) const;
  // Writes `values` (same element count, any dtype: converted as astype
  // does) into the operand's elements in C order.
  void write(const OperandLayout& layout, const HostTensor& values);

  std::byte* bytes(MemoryKind kind) { return m_memory[static_cast<std::size_t>(kind)].data(); }
  const std::byte* bytes(MemoryKind kind) const { return m_memory[static_cast<std::size_t>(kind)].data(); }

  // Scratch rows of fp32 values (at least `length`) for the instructions computed row by row; `which` is
  // 0 or 1. One core runs one instruction at a time, so they are reused, not allocated per instruction.
  std::vector<float>& rowBuffer(std::size_t which, std::int64_t length);

private:
  std::array<std::int64_t, kMemoryKindCount> m_capacity{};
  std::array<std::vector<float>, 2> m_rowBuffers;
  // By program id: the common instructions are planned once to run straight on the memories' bytes.
  std::vector<std::unique_ptr<ProgramPlan>> m_plans;
  std::array<std::vector<std::byte>, kMemoryKindCount> m_memory;
};

} // namespace pto
