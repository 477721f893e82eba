// Implementation of the functional executor.
#include "npusim/FunctionalExecutor.h"

namespace pto {

FunctionalExecutor::FunctionalExecutor(const Compilation& compilation, DiagnosticEngine& diags,
                                       const FunctionalOptions& options)
    : m_compilation(compilation), m_diags(diags), m_options(options) {
  m_capacity = options.capacityBytes ? *options.capacityBytes : compilation.settings.target.capacityBytes;
  m_layouts.resize(compilation.programs.size());
}

std::unique_ptr<FunctionalExecutor> FunctionalExecutor::create(const Compilation& compilation,
                                                               std::vector<HostTensor>& arguments,
                                                               DiagnosticEngine& diags,
                                                               const FunctionalOptions& options) {
  const TensorGraph& graph = compilation.tiles.graph;
  if (arguments.size() != graph.arguments.size()) {
    diags.error(graph.kernelLocation) << "functional simulation: expected " << graph.arguments.size()
                                      << " arguments, got " << arguments.size();
    return nullptr;
  }
  std::unique_ptr<FunctionalExecutor> executor(new FunctionalExecutor(compilation, diags, options));
  executor->m_storage.resize(graph.tensors().size());
  for (std::size_t i = 0; i < graph.arguments.size(); ++i) {
    TensorId id = graph.arguments[i];
    const TensorValue& value = graph.tensor(id);
    const std::vector<std::int64_t>& shape = compilation.tiles.shapeOf(id);
    if (arguments[i].shape().dims() != shape || arguments[i].dtype() != value.dtype) {
      diags.error(graph.kernelLocation) << "functional simulation: argument '" << value.name << "' is "
                                        << name(arguments[i].dtype()) << arguments[i].shape().str()
                                        << " but the kernel was compiled for " << name(value.dtype)
                                        << Shape(shape).str();
      return nullptr;
    }
    executor->m_storage[static_cast<std::size_t>(id)] = arguments[i];
  }
  for (const TensorValue& value : graph.tensors()) {
    if (value.role != TensorRole::Temporary || value.reshapeOf != kNoId) continue;
    auto buffer = HostTensor::tryCreate(value.dtype, Shape(compilation.tiles.shapeOf(value.id)), diags, value.location);
    if (!buffer) return nullptr;
    executor->m_storage[static_cast<std::size_t>(value.id)] = std::move(*buffer);
  }
  // Folded reshapes (RemoveRedundantOp) are their source's own bytes.
  for (const TensorValue& value : graph.tensors())
    if (value.role == TensorRole::Temporary && value.reshapeOf != kNoId)
      executor->m_storage[static_cast<std::size_t>(value.id)] =
          executor->m_storage[static_cast<std::size_t>(value.reshapeOf)].reinterpretedView(
              value.dtype, Shape(compilation.tiles.shapeOf(value.id)));
  return executor;
}

FunctionalCore& FunctionalExecutor::coreFor(CoreType type, int index) {
  auto& cores = type == CoreType::AIC ? m_cubeCores : m_vectorCores;
  std::size_t at = static_cast<std::size_t>(std::max(index, 0));
  if (cores.size() <= at) cores.resize(at + 1);
  if (!cores[at]) cores[at] = std::make_unique<FunctionalCore>(m_capacity);
  return *cores[at];
}

const ProgramLayout* FunctionalExecutor::layoutOf(const PtoProgram& program, const Task& task) {
  std::optional<ProgramLayout>& cached = m_layouts[static_cast<std::size_t>(program.programId)];
  if (cached) return &*cached;
  std::string error;
  int failed = -1;
  cached = resolveProgramLayout(m_compilation, program, error, failed);
  if (cached) return &*cached;
  const TensorGraph& graph = m_compilation.tiles.graph;
  SourceLocation location = graph.kernelLocation;
  const PtoInstruction* instruction =
      failed >= 0 ? &program.instructions[static_cast<std::size_t>(failed)] : nullptr;
  if (instruction && instruction->tileOp >= 0 &&
      static_cast<std::size_t>(instruction->tileOp) < m_compilation.tiles.tileOps().size())
    location = graph.op(m_compilation.tiles.tileOp(instruction->tileOp).tensorOp).location;
  DiagnosticBuilder builder = m_diags.error(location);
  builder << "functional simulation: program " << program.programId << " (task " << task.id << ")";
  if (instruction) builder << ", instruction " << failed << " (" << name(instruction->opcode) << ")";
  builder << ": " << error;
  return nullptr;
}

std::optional<GmRegion> FunctionalExecutor::regionView(const ConcreteRegion& region, const Task& task, bool read) {
  const TensorGraph& graph = m_compilation.tiles.graph;
  const char* what = read ? "reads" : "writes";
  if (region.tensor < 0 || static_cast<std::size_t>(region.tensor) >= m_storage.size() ||
      graph.tensor(region.tensor).role == TensorRole::View) {
    m_diags.error(graph.kernelLocation) << "functional simulation: task " << task.id << " " << what
                                        << " tensor " << region.tensor << ", which has no storage";
    return std::nullopt;
  }
  const HostTensor* shared = &m_storage[static_cast<std::size_t>(region.tensor)];
  if (region.instance != 0) {
    // One iteration's own copy of a loop-made temporary (ConcreteRegion::
    // instance), made on first use; a folded reshape's region selects its
    // source's copy. tensor(id) then shows the copy of the iteration that
    // touched it last. The region points into m_instances (whose entries
    // stay put), not at the m_storage slot a later region may repoint.
    const TensorValue& named = graph.tensor(region.tensor);
    const TensorId bytes = named.reshapeOf != kNoId ? named.reshapeOf : region.tensor;
    auto found = m_instances.find({bytes, region.instance});
    if (found == m_instances.end()) {
      const TensorValue& value = graph.tensor(bytes);
      auto buffer = HostTensor::tryCreate(value.dtype, m_storage[static_cast<std::size_t>(bytes)].shape(), m_diags,
                                          value.location);
      if (!buffer) return std::nullopt;
      found = m_instances.emplace(std::make_pair(bytes, region.instance), std::move(*buffer)).first;
    }
    m_storage[static_cast<std::size_t>(bytes)] = found->second;
    shared = &found->second;
    if (bytes != region.tensor) {
      auto reshaped = m_instances.find({region.tensor, region.instance});
      if (reshaped == m_instances.end())
        reshaped = m_instances
                       .emplace(std::make_pair(region.tensor, region.instance),
                                found->second.reinterpretedView(named.dtype,
                                                                Shape(m_compilation.tiles.shapeOf(region.tensor))))
                       .first;
      m_storage[static_cast<std::size_t>(region.tensor)] = reshaped->second;
      shared = &reshaped->second;
    }
  }
  const HostTensor& storage = *shared;
  bool inside = region.offsets.size() == storage.rank() && region.shape.size() == storage.rank();
  for (std::size_t d = 0; inside && d < storage.rank(); ++d)
    inside = region.offsets[d] >= 0 && region.shape[d] >= 0 && region.offsets[d] + region.shape[d] <= storage.shape()[d];
  if (!inside) {
    std::string box;
    for (std::size_t d = 0; d < region.offsets.size() && d < region.shape.size(); ++d)
      box += (d ? ", " : "") + std::to_string(region.offsets[d]) + ":" +
             std::to_string(region.offsets[d] + region.shape[d]);
    m_diags.error(graph.tensor(region.tensor).location)
        << "functional simulation: task " << task.id << " " << what << " " << graph.tensor(region.tensor).name << "["
        << box << "], outside its shape " << storage.shape().str();
    return std::nullopt;
  }
  return GmRegion{shared, &region};
}

bool FunctionalExecutor::executeTask(const Task& task, int core) {
  const TensorGraph& graph = m_compilation.tiles.graph;
  if (task.programId < 0 || static_cast<std::size_t>(task.programId) >= m_compilation.programs.size())
    return m_diags.error(graph.kernelLocation) << "functional simulation: task " << task.id << " names program "
                                               << task.programId << ", which does not exist";
  const PtoProgram& program = m_compilation.programs[static_cast<std::size_t>(task.programId)];
  const ProgramLayout* layout = layoutOf(program, task);
  if (!layout) return false;
  TaskMemory memory;
  memory.task = task.id;
  memory.kernelBindings = &m_compilation.tiles.bindings;
  memory.loopIndices = &task.loopIndices;
  memory.reads.reserve(task.reads.size());
  memory.writes.reserve(task.writes.size());
  for (const ConcreteRegion& region : task.reads) {
    std::optional<GmRegion> view = regionView(region, task, true);
    if (!view) return false;
    memory.reads.push_back(*view);
  }
  for (const ConcreteRegion& region : task.writes) {
    std::optional<GmRegion> view = regionView(region, task, false);
    if (!view) return false;
    memory.writes.push_back(*view);
  }
  if (!coreFor(task.coreType, core).execute(m_compilation, program, *layout, memory, m_diags)) return false;
  ++m_tasksExecuted;
  m_instructionsExecuted += static_cast<std::int64_t>(program.instructions.size());
  return true;
}

bool FunctionalExecutor::executeAll() {
  for (const Task& task : m_compilation.tasks.tasks) {
    if (m_options.cancelled && m_options.cancelled())
      return m_diags.error(m_compilation.tiles.graph.kernelLocation) << "functional simulation cancelled";
    if (!executeTask(task)) return false;
  }
  return true;
}

bool executeFunctional(const Compilation& compilation, std::vector<HostTensor>& arguments, DiagnosticEngine& diags,
                       const FunctionalOptions& options) {
  std::unique_ptr<FunctionalExecutor> executor = FunctionalExecutor::create(compilation, arguments, diags, options);
  return executor && executor->executeAll();
}

} // namespace pto
