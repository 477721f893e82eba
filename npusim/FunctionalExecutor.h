// The functional mode of the NPU simulator: a compiled kernel's tasks run on
// real data, instruction by instruction, so its outputs (and every GM
// intermediate) can be compared with the golden.
//
// Global memory is one tensor per storage tensor of the tile graph: the
// caller's argument tensors (written in place, as runTiles does) and a
// zero-filled tensor per temporary. A task's GM operands are views of its
// copy-list regions (Task::reads / Task::writes) into those tensors. Each
// core keeps its on-chip memories, sized by the machine's capacities
// (Compilation::settings.target unless given).
//
// Order. executeTask runs one task to completion; callers run tasks in any
// order that respects Task::predecessors (the timing executor's timeline is
// one). executeFunctional runs them in id order, which does.
#pragma once

#include "compiler/ir/Compilation.h"
#include "core/HostTensor.h"
#include "npusim/FunctionalCore.h"
#include "npusim/FunctionalLayout.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace pto {

struct FunctionalOptions {
  // Per-core memory capacities in bytes; nullopt: the compilation's target.
  std::optional<std::array<std::int64_t, kMemoryKindCount>> capacityBytes;
  // Checked between tasks; true stops the run with an error.
  std::function<bool()> cancelled;
};

class FunctionalExecutor {
public:
  // `arguments`: one per graph argument, in order, with the graph's shapes
  // under the compilation's bindings; they are written in place. nullptr
  // (with a diagnostic) when they do not match or a temporary cannot be
  // allocated.
  static std::unique_ptr<FunctionalExecutor> create(const Compilation& compilation, std::vector<HostTensor>& arguments,
                                                    DiagnosticEngine& diags, const FunctionalOptions& options = {});

  // Runs `task`'s program on core `core` (of the task's core type; cores are
  // made on first use). False after a diagnostic.
  bool executeTask(const Task& task, int core = 0);
  // Every task of the execute graph in id order.
  bool executeAll();

  // The storage of tensor `id` (argument or temporary): GM as the run left it.
  const HostTensor& tensor(TensorId id) const { return m_storage.at(static_cast<std::size_t>(id)); }
  std::int64_t tasksExecuted() const { return m_tasksExecuted; }
  std::int64_t instructionsExecuted() const { return m_instructionsExecuted; }

private:
  FunctionalExecutor(const Compilation& compilation, DiagnosticEngine& diags, const FunctionalOptions& options);
  const ProgramLayout* layoutOf(const PtoProgram& program, const Task& task);
  std::optional<GmRegion> regionView(const ConcreteRegion& region, const Task& task, bool read);
  FunctionalCore& coreFor(CoreType type, int index);

  const Compilation& m_compilation;
  DiagnosticEngine& m_diags;
  FunctionalOptions m_options;
  std::array<std::int64_t, kMemoryKindCount> m_capacity{};
  std::vector<HostTensor> m_storage;  // by TensorId
  // Per-iteration copies of loop-made temporaries, by (tensor, instance); a
  // folded reshape's entry views its source's copy.
  std::map<std::pair<TensorId, std::uint64_t>, HostTensor> m_instances;
  std::vector<std::optional<ProgramLayout>> m_layouts;  // by programId, resolved on first use
  std::vector<std::unique_ptr<FunctionalCore>> m_cubeCores, m_vectorCores;
  std::int64_t m_tasksExecuted = 0;
  std::int64_t m_instructionsExecuted = 0;
};

// Runs the whole compiled kernel functionally on `arguments` (written in
// place). False after a diagnostic.
bool executeFunctional(const Compilation& compilation, std::vector<HostTensor>& arguments, DiagnosticEngine& diags,
                       const FunctionalOptions& options = {});

} // namespace pto
