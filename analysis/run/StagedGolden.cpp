// Implementation of the staged golden.
#include "analysis/run/StagedGolden.h"

#include <algorithm>

namespace pto {
namespace {

bool overlaps(const OutputWrite& a, const OutputWrite& b) {
  if (a.argument != b.argument || a.flatEnd < b.flatBegin || b.flatEnd < a.flatBegin) return false;
  if (!a.boxed || !b.boxed) return true;  // flat ranges meet: assume the elements do
  for (std::size_t d = 0; d < a.start.size(); ++d)
    if (a.start[d] + a.size[d] <= b.start[d] || b.start[d] + b.size[d] <= a.start[d]) return false;
  return true;
}

bool sameWrite(const OutputWrite& a, const OutputWrite& b) {
  return a.argument == b.argument && a.boxed == b.boxed && a.start == b.start && a.size == b.size &&
         a.flatBegin == b.flatBegin && a.flatEnd == b.flatEnd && a.mirrorable == b.mirrorable;
}

// Whether each write is the last to touch its region: no later write overlaps it. Only those hand their
// values over; an earlier write of a region written again (a partial result, an accumulator) is still
// being computed.
std::vector<bool> lastWrites(const std::vector<OutputWrite>& writes) {
  std::vector<bool> last(writes.size(), true);
  for (std::size_t i = 0; i < writes.size(); ++i) {
    if (!writes[i].mirrorable) {
      last[i] = false;
      continue;
    }
    for (std::size_t j = i + 1; j < writes.size() && last[i]; ++j)
      if (overlaps(writes[i], writes[j])) last[i] = false;
  }
  return last;
}

} // namespace

OutputWriteLog::OutputWriteLog(const TensorGraph& graph, const std::vector<HostTensor>& arguments) {
  for (TensorId id : graph.writtenArguments()) {
    const int index = graph.tensor(id).argumentIndex;
    if (index < 0 || static_cast<std::size_t>(index) >= arguments.size()) continue;
    m_outputs.push_back(arguments[static_cast<std::size_t>(index)]);
    m_outputArgument.push_back(index);
  }
}

void OutputWriteLog::onWrite(const TensorOp&, const HostTensor& region) {
  for (std::size_t j = 0; j < m_outputs.size(); ++j) {
    const HostTensor& base = m_outputs[j];
    if (!region.sharesStorageWith(base)) continue;
    OutputWrite write;
    write.argument = m_outputArgument[j];
    write.mirrorable = region.dtype() == base.dtype() && base.isContiguous();
    // A view of another dtype counts its offset in other units: take its bytes' range in base's elements.
    const double scale = static_cast<double>(region.itemBytes()) / static_cast<double>(base.itemBytes());
    std::int64_t span = 0;
    for (std::size_t d = 0; d < region.rank(); ++d)
      if (region.shape()[d] > 0) span += (region.shape()[d] - 1) * region.strides()[d];
    const std::int64_t start = region.offsetElements() - (write.mirrorable ? base.offsetElements() : 0);
    write.flatBegin = static_cast<std::int64_t>(static_cast<double>(start) * scale);
    write.flatEnd = static_cast<std::int64_t>(static_cast<double>(start + span + 1) * scale) - 1;
    if (write.mirrorable && region.rank() == base.rank() && region.strides() == base.strides()) {
      write.boxed = true;
      std::int64_t rest = start;
      for (std::size_t d = 0; d < base.rank(); ++d) {
        const std::int64_t stride = std::max<std::int64_t>(base.strides()[d], 1);
        write.start.push_back(rest / stride);
        rest %= stride;
        write.size.push_back(region.shape()[d]);
      }
    }
    if (region.elementCount() == 0) return;  // wrote nothing
    m_writes.push_back(std::move(write));
    return;
  }
}

namespace {

// Per argument index, whether some op reads it (through any alias; making an alias reads nothing).
std::vector<bool> argumentsRead(const TensorGraph& graph) {
  std::vector<bool> read(graph.arguments.size(), false);
  for (const TensorOp& op : graph.ops()) {
    if (op.kind == TensorOpKind::View || TensorGraph::isInPlaceReshape(op)) continue;
    for (TensorId input : op.inputs) {
      const int index = graph.tensor(graph.aliasRootOf(input)).argumentIndex;
      if (index >= 0 && static_cast<std::size_t>(index) < read.size()) read[static_cast<std::size_t>(index)] = true;
    }
  }
  return read;
}

} // namespace

bool readsItsOutputs(const TensorGraph& graph) {
  const std::vector<bool> read = argumentsRead(graph);
  for (TensorId id : graph.writtenArguments()) {
    const int index = graph.tensor(id).argumentIndex;
    if (index >= 0 && static_cast<std::size_t>(index) < read.size() && read[static_cast<std::size_t>(index)])
      return true;
  }
  return false;
}

StagedGoldenResult stagedGolden(const TensorGraph& graph, const std::vector<HostTensor>& initial,
                                const std::vector<HostTensor>& actual, const std::vector<std::string>& argumentNames,
                                const std::vector<OutputWrite>& chainedWrites, const ReferenceOptions& options) {
  StagedGoldenResult result;
  for (const OutputWrite& write : chainedWrites) {
    const auto index = static_cast<std::size_t>(write.argument);
    if (index >= actual.size() || index >= initial.size() || !actual[index].isContiguous() ||
        actual[index].dtype() != initial[index].dtype() || !(actual[index].shape() == initial[index].shape())) {
      result.reason = "the kernel's outputs do not have the arguments' layout";
      return result;
    }
  }
  const std::vector<bool> last = lastWrites(chainedWrites);
  std::vector<HostTensor> run;
  for (const HostTensor& tensor : initial) run.push_back(tensor.contiguous());
  OutputWriteLog log(graph, run);
  struct Kept {
    HostTensor region;  // in run's storage
    HostTensor computed;
  };
  std::vector<Kept> kept;
  std::vector<bool> handed(run.size(), false);
  bool diverged = false;
  ReferenceOptions staged = options;
  staged.onWrite = [&](const TensorOp& op, const HostTensor& region) {
    const std::size_t before = log.writes().size();
    log.onWrite(op, region);
    if (diverged || log.writes().size() == before) return;
    const std::size_t k = before;
    if (k >= chainedWrites.size() || !sameWrite(log.writes()[k], chainedWrites[k])) {
      diverged = true;
      return;
    }
    if (!last[k]) return;
    const auto argument = static_cast<std::size_t>(chainedWrites[k].argument);
    kept.push_back({region, region.contiguous()});
    HostTensor written = region;  // shares the storage: the hand-over writes the run's argument
    written.copyFrom(region.mirroredIn(run[argument], actual[argument]));
    handed[argument] = true;
  };
  DiagnosticEngine runDiags;
  if (!runReference(graph, run, runDiags, staged)) {
    result.reason = "the staged reference run failed: " +
                    (runDiags.diagnostics().empty() ? std::string("no reason given")
                                                    : runDiags.diagnostics().front().message);
    return result;
  }
  if (diverged || log.writes().size() != chainedWrites.size()) {
    result.reason = "the kernel's own values changed where the reference writes (a data-dependent write)";
    return result;
  }
  // Each kept region was its last write, so no two overlap: put the reference's values back.
  for (Kept& region : kept) region.region.copyFrom(region.computed);
  const std::vector<bool> readBack = argumentsRead(graph);
  for (std::size_t i = 0; i < run.size(); ++i)
    if (handed[i] && i < readBack.size() && readBack[i] && i < argumentNames.size()) result.handedOver.push_back(argumentNames[i]);
  result.golden = std::move(run);
  result.staged = true;
  return result;
}

} // namespace pto
