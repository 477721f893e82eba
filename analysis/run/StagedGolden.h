// The golden of a kernel whose stages hand each other data through its outputs, judged stage by stage.
//
// A fused kernel (the DIA example: MLA prolog -> indexer prolog -> Lightning Indexer -> attention) writes
// an output in one stage and reads it in the next. The reference interpreter run on the kernel's inputs
// (the "chained" golden) carries its own values from stage to stage, so where a stage's result is a step
// function of its inputs (int8 quantisation, the top-k boundary) one legitimate last-place difference
// upstream becomes a different int8 value, different scores, different indices and a different attention
// output downstream: every later stage "fails" for a difference it did not make. PyPTO's own model tests
// judge each stage on the inputs it actually received instead (their goldens take the kernel's
// intermediates).
//
// The staged golden does that for any kernel: the reference interpreter runs again, and each time it
// finishes writing a region of an output (a write no later write overlaps), it keeps what it computed
// there as that region's golden and puts the kernel's values in its place, so every later read of that
// output, by any stage, sees what the kernel produced. Untouched regions keep their launch values; a
// region written again later (an accumulator) is replaced only after its last write.
#pragma once

#include "compiler/ir/TensorGraph.h"
#include "compiler/reference/ReferenceInterpreter.h"
#include "core/Diagnostics.h"
#include "core/HostTensor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pto {

// Where one write of a reference run landed in an output argument.
struct OutputWrite {
  int argument = -1;  // index into the arguments; -1 when it wrote no output
  // The region in the argument's own index space when it is a box of it (boxed), else only its range of
  // flat storage elements (a write through an in-place reshape of the argument).
  bool boxed = false;
  std::vector<std::int64_t> start, size;
  std::int64_t flatBegin = 0, flatEnd = 0;  // [flatBegin, flatEnd], storage elements of the argument
  bool mirrorable = true;                   // false for a write through a view of another dtype (bitcast)
};

// Records the output writes of a reference run: install onWrite() as ReferenceOptions::onWrite.
class OutputWriteLog {
public:
  OutputWriteLog(const TensorGraph& graph, const std::vector<HostTensor>& arguments);
  void onWrite(const TensorOp& op, const HostTensor& region);
  const std::vector<OutputWrite>& writes() const { return m_writes; }

private:
  std::vector<HostTensor> m_outputs;  // the written arguments, sharing the run's storage
  std::vector<int> m_outputArgument;  // their argument indices
  std::vector<OutputWrite> m_writes;
};

// Whether any op of `graph` reads an argument the kernel also writes (through any alias): only then can a
// staged golden differ from the chained one.
bool readsItsOutputs(const TensorGraph& graph);

struct StagedGoldenResult {
  bool staged = false;             // false: use the chained golden; `reason` says why
  std::string reason;
  std::vector<HostTensor> golden;  // by argument, like the chained golden
  // Outputs whose kernel values later reads were given in place of the reference's, by argument name.
  std::vector<std::string> handedOver;
};

// Runs the reference on `initial` handing over `actual`'s values as described above. `chainedWrites` is the
// chained run's log (it tells which writes are the last to their region). Not staged when the staged run
// writes differently from the chained one or fails: the caller keeps the chained golden. Errors of the
// staged run go to `diags` only when it was cancelled.
StagedGoldenResult stagedGolden(const TensorGraph& graph, const std::vector<HostTensor>& initial,
                                const std::vector<HostTensor>& actual, const std::vector<std::string>& argumentNames,
                                const std::vector<OutputWrite>& chainedWrites, const ReferenceOptions& options);

} // namespace pto
