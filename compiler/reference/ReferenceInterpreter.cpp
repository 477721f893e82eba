// The reference interpreter's driver: binds arguments, walks regions and loops, owns the run-time buffers,
// runs the memory ops (view, assemble, copy) itself and hands every other op to its kernel.
#include "compiler/reference/ReferenceInterpreter.h"
#include "compiler/ir/ElementBindings.h"
#include "compiler/ir/ProgramWalker.h"

#include "compiler/ir/ShapeInference.h"
#include "compiler/reference/ReferenceKernels.h"
#include "compiler/ir/ValidParts.h"

#include <map>
#include <optional>
#include <string>

namespace pto {
namespace {

using validparts::Dims;
using reference::KernelCall;


// "[offset, offset + size)" for messages, without overflowing on absurd offsets.
std::string rangeText(std::int64_t offset, std::int64_t size) {
  std::int64_t end = 0;
  if (__builtin_add_overflow(offset, size, &end))
    return "[" + std::to_string(offset) + ", " + std::to_string(offset) + " + " + std::to_string(size) + ")";
  return "[" + std::to_string(offset) + ", " + std::to_string(end) + ")";
}

class Interpreter {
public:
  Interpreter(const TensorGraph& graph, std::vector<HostTensor>& arguments, DiagnosticEngine& diags,
              const ReferenceOptions& options)
      : m_graph(graph), m_arguments(arguments), m_diags(diags), m_options(options),
        m_buffers(graph.tensors().size()), m_valid(graph.tensors().size()) {}

  bool run() { return validateIds() && bindArguments() && runRegion(m_graph.body, m_graph.kernelLocation); }

private:
  const SourceLocation& locationOf(const TensorValue& tensor) const {
    return tensor.location.known() ? tensor.location : m_graph.kernelLocation;
  }

  // Every id the graph stores refers to an existing tensor, op or loop (the walk then never throws).
  bool validateIds();
  bool bindArguments();
  bool runRegion(const Region& region, const SourceLocation& where);
  bool runLoop(const Loop& loop);
  bool runOp(const TensorOp& op);
  bool runView(const TensorOp& op);
  bool runInPlaceReshape(const TensorOp& op);
  bool runKernel(KernelCall& call);
  bool isCancelled(const SourceLocation& where);

  std::optional<std::int64_t> evaluate(const SymbolicScalar& value, const SourceLocation& where,
                                       const std::string& what);
  std::optional<std::vector<std::int64_t>> evaluateDims(const SymbolicShape& shape, const SourceLocation& where,
                                                        const std::string& what);
  std::optional<HostTensor> allocate(DataType dtype, const std::vector<std::int64_t>& dims,
                                     const SourceLocation& where, const std::string& what);
  // The current buffer of `id`; a temporary no op produces (pypto.tensor) is made zero-filled on first use.
  std::optional<HostTensor> buffer(TensorId id, const SourceLocation& where);
  // A buffer for an output the op creates: the previous run's storage when it fits and aliases no input.
  std::optional<HostTensor> prepareOutput(const TensorOp& op, TensorId id, const std::vector<HostTensor>& inputs);
  // Output shapes re-derived from the run-time input shapes, for ops that write into existing tensors.
  std::optional<std::vector<std::vector<std::int64_t>>> inferOutputDims(const TensorOp& op,
                                                                        const std::vector<HostTensor>& inputs);
  // Writes `value`'s leading box `valid` (all of it when empty) into the region of `target` at the op's
  // "offsets" (zeros when absent).
  bool writeRegion(const TensorOp& op, TensorId target, const HostTensor& value, const Dims& valid = {});
  // Runs op's kernel on its inputs cut to `boxes` (ValidParts.h); the results fill the leading boxes of its
  // outputs, which become their valid parts.
  bool runOnValidParts(const TensorOp& op, std::vector<HostTensor> inputs, const std::vector<Dims>& boxes,
                       bool writesInto);
  bool runKernelOp(const TensorOp& op, std::vector<HostTensor> inputs, std::vector<HostTensor> outputs,
                   std::vector<HostTensor>& results);

  // Valid parts (ValidParts.h): the leading box of a tensor's current value that holds data.
  Dims validOf(TensorId id, const HostTensor& value) const {
    const Dims& valid = m_valid.at(static_cast<std::size_t>(id));
    return valid.empty() ? value.shape().dims() : valid;
  }
  void setValid(TensorId id, const Dims& valid, const Shape& shape) {
    m_valid.at(static_cast<std::size_t>(id)) = valid == shape.dims() ? Dims{} : valid;
  }
  // The op's "valid_shape" attribute evaluated and clamped to `shape`, or nullopt when it has none.
  std::optional<std::optional<Dims>> givenValid(const TensorOp& op, const Shape& shape);

  const TensorGraph& m_graph;
  std::vector<HostTensor>& m_arguments;
  DiagnosticEngine& m_diags;
  const ReferenceOptions& m_options;
  Bindings m_bindings;
  std::vector<std::optional<HostTensor>> m_buffers;  // by TensorId
  std::vector<Dims> m_valid;                          // by TensorId; empty: the whole tensor
};

bool Interpreter::validateIds() {
  const auto tensorOk = [&](TensorId id) { return id >= 0 && static_cast<std::size_t>(id) < m_graph.tensors().size(); };
  const auto fail = [&](const SourceLocation& where, const std::string& what) -> bool {
    return m_diags.error(where) << "internal error: the Tensor graph refers to " << what << ", which does not exist";
  };
  for (TensorId id : m_graph.arguments)
    if (!tensorOk(id)) return fail(m_graph.kernelLocation, "argument tensor " + std::to_string(id));
  for (const TensorOp& op : m_graph.ops()) {
    for (TensorId id : op.inputs)
      if (!tensorOk(id)) return fail(op.location, "tensor " + std::to_string(id));
    for (TensorId id : op.outputs)
      if (!tensorOk(id)) return fail(op.location, "tensor " + std::to_string(id));
  }
  const auto regionOk = [&](const Region& region, const SourceLocation& where) -> bool {
    for (const Path& path : region.paths)
      for (const Statement& statement : path.statements) {
        const std::size_t count = statement.kind == Statement::Kind::Op ? m_graph.ops().size() : m_graph.loops().size();
        if (statement.id < 0 || static_cast<std::size_t>(statement.id) >= count)
          return fail(where, std::string(statement.kind == Statement::Kind::Op ? "op " : "loop ") +
                                 std::to_string(statement.id));
      }
    return true;
  };
  if (!regionOk(m_graph.body, m_graph.kernelLocation)) return false;
  for (const Loop& loop : m_graph.loops())
    for (const LoopBody& body : loop.bodies)
      if (!regionOk(body.region, loop.location)) return false;
  return true;
}

bool Interpreter::bindArguments() {
  if (m_arguments.size() != m_graph.arguments.size())
    return m_diags.error(m_graph.kernelLocation) << "kernel '" << m_graph.kernelName << "' takes "
                                                 << m_graph.arguments.size() << " arguments, got "
                                                 << m_arguments.size();
  for (std::size_t i = 0; i < m_arguments.size(); ++i) m_buffers[static_cast<std::size_t>(m_graph.arguments[i])] = m_arguments[i];

  // Where each symbol was bound, to name both places when two disagree.
  std::map<std::string, const SymbolSource*> boundFrom;
  for (const SymbolSource& source : m_graph.dynamicSymbols) {
    if (source.argument < 0 || static_cast<std::size_t>(source.argument) >= m_arguments.size())
      return m_diags.error(m_graph.kernelLocation) << "internal error: dynamic dim '" << source.symbol
                                                   << "' comes from argument " << source.argument
                                                   << ", which does not exist";
    const TensorValue& argument = m_graph.tensor(m_graph.arguments[static_cast<std::size_t>(source.argument)]);
    const HostTensor& given = m_arguments[static_cast<std::size_t>(source.argument)];
    if (source.dim < 0 || static_cast<std::size_t>(source.dim) >= given.rank())
      return m_diags.error(locationOf(argument))
             << "argument '" << argument.name << "' has shape " << given.shape().str() << ", so it has no dim "
             << source.dim << " to bind dynamic dim '" << source.symbol << "' from";
    const std::int64_t size = given.shape()[static_cast<std::size_t>(source.dim)];
    const std::optional<std::int64_t> bound = source.valueFor(size);
    if (!bound)
      return m_diags.error(locationOf(argument))
             << "argument '" << argument.name << "' has " << size << " in dim " << source.dim
             << ", which is not " << source.formula() << " for any whole " << source.symbol << " >= 0";
    const std::int64_t value = *bound;
    auto [found, inserted] = m_bindings.emplace(source.symbol, value);
    if (!inserted && found->second != value) {
      const SymbolSource& first = *boundFrom.at(source.symbol);
      const TensorValue& firstArgument = m_graph.tensor(m_graph.arguments[static_cast<std::size_t>(first.argument)]);
      return m_diags.error(locationOf(argument))
             << "dynamic dim '" << source.symbol << "' is " << found->second << " in argument '" << firstArgument.name
             << "' (dim " << first.dim << ") but " << value << " in argument '" << argument.name << "' (dim "
             << source.dim << ")";
    }
    if (inserted) boundFrom[source.symbol] = &source;
  }

  for (std::size_t i = 0; i < m_arguments.size(); ++i) {
    const TensorValue& argument = m_graph.tensor(m_graph.arguments[i]);
    const HostTensor& given = m_arguments[i];
    if (given.dtype() != argument.dtype)
      return m_diags.error(locationOf(argument)) << "argument '" << argument.name << "' must be "
                                                 << name(argument.dtype) << ", got " << name(given.dtype());
    std::optional<std::vector<std::int64_t>> expected;
    if (argument.shape.size() == given.rank()) {
      expected = evaluateDims(argument.shape, locationOf(argument), "the shape of argument '" + argument.name + "'");
      if (!expected) return false;
    }
    if (!expected || !(Shape(*expected) == given.shape()))
      return m_diags.error(locationOf(argument))
             << "argument '" << argument.name << "' must have shape " << shapeString(argument.shape)
             << (expected ? " = " + Shape(*expected).str() : std::string()) << ", got " << given.shape().str();
  }
  // Elements read as scalars (loop bounds, offsets) take the arguments'
  // values at launch, as the compiled kernel's schedule does.
  if (std::string problem = bindElementReads(m_graph, m_arguments, m_bindings); !problem.empty())
    return m_diags.error(m_graph.kernelLocation) << problem;
  return true;
}

bool Interpreter::isCancelled(const SourceLocation& where) {
  if (!m_options.cancelled || !m_options.cancelled()) return false;
  m_diags.error(where) << "cancelled";
  return true;
}

std::optional<std::int64_t> Interpreter::evaluate(const SymbolicScalar& value, const SourceLocation& where,
                                                  const std::string& what) {
  const SymbolicEvaluation result = value.evaluate(m_bindings);
  if (result.ok()) return result.value;
  return m_diags.error(where) << "cannot evaluate " << what << " '" << value.str() << "': " << result.error;
}

std::optional<std::vector<std::int64_t>> Interpreter::evaluateDims(const SymbolicShape& shape,
                                                                   const SourceLocation& where,
                                                                   const std::string& what) {
  std::vector<std::int64_t> dims;
  dims.reserve(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const std::optional<std::int64_t> value = evaluate(shape[d], where, "dim " + std::to_string(d) + " of " + what);
    if (!value) return std::nullopt;
    dims.push_back(*value);
  }
  return dims;
}

std::optional<HostTensor> Interpreter::allocate(DataType dtype, const std::vector<std::int64_t>& dims,
                                                const SourceLocation& where, const std::string& what) {
  const Shape shape(dims);
  for (std::int64_t dim : dims)
    if (dim < 0) return m_diags.error(where) << what << " has the negative shape " << shape.str() << " at run time";
  const std::optional<std::int64_t> count = shape.checkedElementCount();
  if (!count || *count > m_options.maxElements)
    return m_diags.error(where) << "refusing to allocate " << what << " of shape " << shape.str() << " ("
                                << (count ? std::to_string(*count) : std::string("more than 2^63"))
                                << " elements): the reference interpreter's limit is " << m_options.maxElements
                                << " elements";
  return HostTensor::tryCreate(dtype, shape, m_diags, where);
}

std::optional<HostTensor> Interpreter::buffer(TensorId id, const SourceLocation& where) {
  std::optional<HostTensor>& slot = m_buffers.at(static_cast<std::size_t>(id));
  if (slot) return slot;
  const TensorValue& tensor = m_graph.tensor(id);
  if (tensor.role != TensorRole::Temporary || tensor.producer != kNoId)
    return m_diags.error(where) << "internal error: " << name(tensor.role) << " '" << tensor.name
                                << "' is read before the op that makes it ran";
  std::optional<std::vector<std::int64_t>> dims = evaluateDims(tensor.shape, where, "the shape of '" + tensor.name + "'");
  if (!dims) return std::nullopt;
  slot = allocate(tensor.dtype, *dims, where, "'" + tensor.name + "'");
  return slot;
}

std::optional<HostTensor> Interpreter::prepareOutput(const TensorOp& op, TensorId id,
                                                     const std::vector<HostTensor>& inputs) {
  const TensorValue& tensor = m_graph.tensor(id);
  std::optional<std::vector<std::int64_t>> dims =
      evaluateDims(tensor.shape, op.location, "the shape of " + std::string(name(op.kind)) + "'s output");
  if (!dims) return std::nullopt;
  std::optional<HostTensor>& slot = m_buffers.at(static_cast<std::size_t>(id));
  if (slot && slot->dtype() == tensor.dtype && slot->shape() == Shape(*dims) && slot->isContiguous()) {
    bool aliases = false;
    for (const HostTensor& input : inputs) aliases = aliases || input.sharesStorageWith(*slot);
    if (!aliases) return slot;
  }
  return allocate(tensor.dtype, *dims, op.location, "the output of " + std::string(name(op.kind)));
}

std::optional<std::vector<std::vector<std::int64_t>>> Interpreter::inferOutputDims(
    const TensorOp& op, const std::vector<HostTensor>& inputs) {
  std::vector<TensorType> types;
  for (const HostTensor& input : inputs) {
    SymbolicShape shape;
    for (std::int64_t dim : input.shape()) shape.emplace_back(dim);
    types.push_back(TensorType{input.dtype(), std::move(shape)});
  }
  Attributes attrs = op.attrs;
  const ShapeInferenceResult inferred = inferShapes(op.kind, types, attrs);
  if (!inferred.ok()) return m_diags.error(op.location) << inferred.error;
  std::vector<std::vector<std::int64_t>> result;
  for (const TensorType& type : inferred.outputs) {
    std::optional<std::vector<std::int64_t>> dims =
        evaluateDims(type.shape, op.location, "the shape of " + std::string(name(op.kind)) + "'s result");
    if (!dims) return std::nullopt;
    result.push_back(std::move(*dims));
  }
  return result;
}

bool Interpreter::writeRegion(const TensorOp& op, TensorId target, const HostTensor& value, const Dims& valid) {
  std::optional<HostTensor> destination = buffer(target, op.location);
  if (!destination) return false;
  const TensorValue& targetValue = m_graph.tensor(target);
  const std::size_t rank = destination->rank();
  std::vector<std::int64_t> offsets(rank, 0);
  if (const auto* given = op.attr<SymbolicShape>("offsets")) {
    std::optional<std::vector<std::int64_t>> evaluated = evaluateDims(*given, op.location, "the offsets");
    if (!evaluated) return false;
    offsets = std::move(*evaluated);
  }
  // Only the valid part is written: a pad whose shape reaches past the target but whose valid part fits is
  // PyPTO's way of filling a run-time tail. An assemble that starts inside its target writes what fits
  // there, as PyPTO's does (its 1-D FillPad test assembles a [16] pad into an [8] output).
  Dims written = valid.empty() ? value.shape().dims() : valid;
  if (op.kind == TensorOpKind::Assemble && offsets.size() == rank && written.size() == rank)
    for (std::size_t d = 0; d < rank; ++d)
      if (offsets[d] >= 0 && offsets[d] < destination->shape()[d])
        written[d] = std::min(written[d], destination->shape()[d] - offsets[d]);
  const Shape size(written);
  if (offsets.size() != rank || size.rank() != rank)
    return m_diags.error(op.location) << name(op.kind) << ": a value of shape " << size.str() << " at offsets "
                                      << Shape(offsets).str() << " does not match the rank of '" << targetValue.name
                                      << "' " << destination->shape().str();
  if (op.kind == TensorOpKind::Copy && !(value.shape() == destination->shape()))
    return m_diags.error(op.location) << "copy: shapes differ at run time: '" << targetValue.name << "' is "
                                      << destination->shape().str() << ", the value is " << value.shape().str();
  for (std::size_t d = 0; d < rank; ++d) {
    if (offsets[d] < 0 || offsets[d] > destination->shape()[d] - size[d])
      return m_diags.error(op.location)
             << name(op.kind) << ": region " << rangeText(offsets[d], size[d]) << " of dim " << d
             << " lies outside '" << targetValue.name << "' " << destination->shape().str() << " (offsets "
             << Shape(offsets).str() << ", value " << (valid.empty() ? "shape " : "valid part ") << size.str()
             << ")";
  }
  if (size.elementCount() == 0) return true;
  HostTensor region = destination->view(offsets, size.dims());
  region.copyFrom(size == value.shape() ? value : value.view(Dims(rank, 0), size.dims()));
  if (m_options.onWrite) m_options.onWrite(op, region);
  return true;
}

std::optional<std::optional<Dims>> Interpreter::givenValid(const TensorOp& op, const Shape& shape) {
  const auto* given = op.attr<SymbolicShape>("valid_shape");
  if (!given) return std::optional<Dims>();
  std::optional<Dims> dims = evaluateDims(*given, op.location, "the valid_shape");
  if (!dims) return std::nullopt;
  if (dims->size() != shape.rank())
    return m_diags.error(op.location) << name(op.kind) << ": valid_shape " << Shape(*dims).str() << " does not match the rank of "
                                      << shape.str();
  return std::optional<Dims>(validparts::clampedBox(std::move(*dims), shape.dims()));
}

bool Interpreter::runView(const TensorOp& op) {
  std::optional<HostTensor> base = buffer(op.inputs.at(0), op.location);
  if (!base) return false;
  const auto* offsetsAttr = op.attr<SymbolicShape>("offsets");
  const auto* shapeAttr = op.attr<SymbolicShape>("shape");
  if (!offsetsAttr || !shapeAttr) return m_diags.error(op.location) << "internal error: view needs offsets and shape";
  std::optional<std::vector<std::int64_t>> offsets = evaluateDims(*offsetsAttr, op.location, "the view's offsets");
  if (!offsets) return false;
  std::optional<std::vector<std::int64_t>> sizes = evaluateDims(*shapeAttr, op.location, "the view's shape");
  if (!sizes) return false;
  const TensorValue& baseValue = m_graph.tensor(op.inputs[0]);
  if (offsets->size() != base->rank() || sizes->size() != base->rank())
    return m_diags.error(op.location) << "view: offsets " << Shape(*offsets).str() << " and shape "
                                      << Shape(*sizes).str() << " do not match the rank of '" << baseValue.name
                                      << "' " << base->shape().str();
  // A region may reach past the end of the base, as PyPTO's loops over view blocks make their last block: the
  // part inside holds the base's data and the rest is zero, and the valid part never covers the rest. A region
  // starting outside the base holds no data at all and is an error.
  bool pastEnd = false;
  for (std::size_t d = 0; d < base->rank(); ++d) {
    const std::int64_t offset = (*offsets)[d], size = (*sizes)[d];
    if (offset < 0 || size < 0 || offset >= base->shape()[d] + (size == 0 ? 1 : 0))
      return m_diags.error(op.location) << "view: region " << rangeText(offset, size) << " of dim " << d
                                        << " lies outside '" << baseValue.name << "' " << base->shape().str()
                                        << " (offsets " << Shape(*offsets).str() << ", shape " << Shape(*sizes).str()
                                        << ")";
    pastEnd = pastEnd || offset + size > base->shape()[d];
  }
  Dims inside(sizes->size());
  for (std::size_t d = 0; d < inside.size(); ++d)
    inside[d] = std::min((*sizes)[d], base->shape()[d] - (*offsets)[d]);
  if (pastEnd) {
    HostTensor padded(base->dtype(), Shape(*sizes));
    padded.view(Dims(sizes->size(), 0), inside).copyFrom(base->view(*offsets, inside));
    m_buffers.at(static_cast<std::size_t>(op.outputs.at(0))) = std::move(padded);
  } else {
    m_buffers.at(static_cast<std::size_t>(op.outputs.at(0))) = base->view(*offsets, *sizes);
  }
  // The given valid_shape, else what of the base's valid part the region covers.
  const std::optional<std::optional<Dims>> given = givenValid(op, Shape(*sizes));
  if (!given) return false;
  Dims valid = *given ? **given : Dims(sizes->size());
  if (!*given) {
    const Dims baseValid = validOf(op.inputs[0], *base);
    for (std::size_t d = 0; d < valid.size(); ++d) valid[d] = baseValid[d] - (*offsets)[d];
  }
  valid = validparts::clampedBox(std::move(valid), inside);
  setValid(op.outputs[0], valid, Shape(*sizes));
  return true;
}

// reshape(x, ..., inplace=True): the result shares x's storage, so writes
// through it land in x (the compiler aliases an argument the same way). A
// part of a tensor (a view) is not one run of memory: reshapedView copies it,
// which reads the same (the compiler refuses writes through such a reshape).
bool Interpreter::runInPlaceReshape(const TensorOp& op) {
  std::optional<HostTensor> source = buffer(op.inputs.at(0), op.location);
  if (!source) return false;
  const auto* shapeAttr = op.attr<SymbolicShape>("shape");
  if (!shapeAttr) return m_diags.error(op.location) << "internal error: reshape needs a shape";
  std::optional<std::vector<std::int64_t>> dims = evaluateDims(*shapeAttr, op.location, "the reshape's shape");
  if (!dims) return false;
  const Shape shape(*dims);
  const TensorValue& sourceValue = m_graph.tensor(op.inputs[0]);
  if (shape.elementCount() != source->elementCount())
    return m_diags.error(op.location) << "cannot reshape '" << sourceValue.name << "' " << source->shape().str()
                                      << " (" << source->elementCount() << " elements) to " << shape.str() << " ("
                                      << shape.elementCount() << " elements)";
  m_buffers.at(static_cast<std::size_t>(op.outputs.at(0))) = source->reshapedView(shape);
  const std::optional<std::optional<Dims>> given = givenValid(op, shape);
  if (!given) return false;
  setValid(op.outputs[0],
           *given ? **given : validparts::reshapedValid(source->shape().dims(), validOf(op.inputs[0], *source), *dims),
           shape);
  return true;
}

bool Interpreter::runKernel(KernelCall& call) { return reference::runKernel(call); }

bool Interpreter::runOp(const TensorOp& op) {
  if (isCancelled(op.location)) return false;
  // Kernels index their inputs and outputs freely; a graph built by hand with the wrong counts stops here.
  const int expectedInputs = inputCount(op.kind);
  if ((expectedInputs >= 0 && op.inputs.size() != static_cast<std::size_t>(expectedInputs)) ||
      (expectedInputs < 0 && op.inputs.empty()) || op.outputs.size() != static_cast<std::size_t>(outputCount(op.kind)))
    return m_diags.error(op.location) << "internal error: " << name(op.kind) << " has " << op.inputs.size()
                                      << " inputs and " << op.outputs.size() << " outputs";
  if (op.kind == TensorOpKind::View) return runView(op);
  if (TensorGraph::isInPlaceReshape(op)) return runInPlaceReshape(op);
  std::vector<HostTensor> inputs;
  inputs.reserve(op.inputs.size());
  for (TensorId id : op.inputs) {
    std::optional<HostTensor> input = buffer(id, op.location);
    if (!input) return false;
    inputs.push_back(std::move(*input));
  }
  // Ops recorded with `into` write existing tensors (at "offsets"); the others create their outputs.
  const bool writesInto = m_graph.tensor(op.outputs[0]).producer != op.id;
  const bool isMove = op.kind == TensorOpKind::Assemble || op.kind == TensorOpKind::Copy;

  if (isMove) {
    const Dims valid = validOf(op.inputs[0], inputs[0]);
    if (!writesInto) {
      // clone(): a fresh tensor of the source's shape, valid where the source is.
      std::optional<HostTensor> out = allocate(m_graph.tensor(op.outputs[0]).dtype, inputs[0].shape().dims(),
                                               op.location, "the output of " + std::string(name(op.kind)));
      if (!out) return false;
      m_buffers.at(static_cast<std::size_t>(op.outputs[0])) = *out;
      setValid(op.outputs[0], valid, inputs[0].shape());
    }
    return writeRegion(op, op.outputs[0], inputs[0], validparts::isWhole(valid, inputs[0].shape().dims()) ? Dims{} : valid);
  }

  std::vector<Dims> shapes, valids;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    shapes.push_back(inputs[i].shape().dims());
    valids.push_back(validOf(op.inputs[i], inputs[i]));
  }
  if (std::optional<std::vector<Dims>> boxes = validparts::cutInputs(op, shapes, valids))
    return runOnValidParts(op, std::move(inputs), *boxes, writesInto);

  std::vector<HostTensor> outputs;
  if (writesInto) {
    std::optional<std::vector<std::vector<std::int64_t>>> dims = inferOutputDims(op, inputs);
    if (!dims) return false;
    for (std::size_t i = 0; i < op.outputs.size() && i < dims->size(); ++i) {
      std::optional<HostTensor> scratch = allocate(m_graph.tensor(op.outputs[i]).dtype, (*dims)[i], op.location,
                                                   "the result of " + std::string(name(op.kind)));
      if (!scratch) return false;
      outputs.push_back(std::move(*scratch));
    }
  } else {
    for (TensorId id : op.outputs) {
      std::optional<HostTensor> out = prepareOutput(op, id, inputs);
      if (!out) return false;
      outputs.push_back(std::move(*out));
    }
  }
  std::vector<HostTensor> results;
  if (!runKernelOp(op, std::move(inputs), std::move(outputs), results)) return false;
  for (std::size_t i = 0; i < op.outputs.size(); ++i) {
    if (writesInto) {
      if (!writeRegion(op, op.outputs[i], results[i])) return false;
      continue;
    }
    const TensorId id = op.outputs[i];
    const Shape shape = results[i].shape();
    m_buffers.at(static_cast<std::size_t>(id)) = std::move(results[i]);
    // Whole inputs make a whole result, but for the ops that say or map their valid part.
    Dims valid = shape.dims();
    if (op.kind == TensorOpKind::Full || op.kind == TensorOpKind::Reshape || op.kind == TensorOpKind::ExpandClone) {
      const std::optional<std::optional<Dims>> given = givenValid(op, shape);
      if (!given) return false;
      if (*given) valid = **given;
      else if (op.kind == TensorOpKind::Reshape) valid = validparts::reshapedValid(shapes[0], valids[0], shape.dims());
    } else if (op.kind == TensorOpKind::Bitcast) {
      valid = validparts::bitcastValid(valids[0], sizeOf(m_graph.tensor(op.inputs[0]).dtype),
                                      sizeOf(m_graph.tensor(id).dtype));
    }
    setValid(id, valid, shape);
  }
  return true;
}

bool Interpreter::runKernelOp(const TensorOp& op, std::vector<HostTensor> inputs, std::vector<HostTensor> outputs,
                              std::vector<HostTensor>& results) {
  if (outputs.size() != op.outputs.size())
    return m_diags.error(op.location) << "internal error: " << name(op.kind) << " makes " << outputs.size()
                                      << " outputs, the graph has " << op.outputs.size();
  std::optional<TensorOp> bound;  // the op with symbolic scalar operands evaluated, when it has any
  if (reference::hasRunTimeScalars(op)) {
    bound = reference::bindRunTimeScalars(op, m_bindings, m_diags);
    if (!bound) return false;
  }
  KernelCall call{bound ? *bound : op, std::move(inputs), std::move(outputs), m_diags};
  if (!runKernel(call)) return false;
  results = std::move(call.outputs);
  return true;
}

bool Interpreter::runOnValidParts(const TensorOp& op, std::vector<HostTensor> inputs, const std::vector<Dims>& boxes,
                                  bool writesInto) {
  bool empty = false;
  TensorOp onValid = op;  // expand_clone's target follows its input's valid part
  if (op.kind == TensorOpKind::ExpandClone && !inputs.empty())
    validparts::broadcastValidPart(inputs[0].shape().dims(), boxes[0], onValid.attrs);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!(inputs[i].shape().dims() == boxes[i])) inputs[i] = inputs[i].view(Dims(boxes[i].size(), 0), boxes[i]);
    empty = empty || inputs[i].elementCount() == 0;
  }
  std::optional<std::vector<Dims>> resultDims = inferOutputDims(onValid, inputs);
  if (!resultDims) return false;
  std::vector<HostTensor> results;
  if (!empty) {
    std::vector<HostTensor> scratch;
    for (std::size_t i = 0; i < op.outputs.size() && i < resultDims->size(); ++i) {
      std::optional<HostTensor> out = allocate(m_graph.tensor(op.outputs[i]).dtype, (*resultDims)[i], op.location,
                                               "the result of " + std::string(name(op.kind)));
      if (!out) return false;
      scratch.push_back(std::move(*out));
    }
    if (!runKernelOp(onValid, std::move(inputs), std::move(scratch), results)) return false;
  }
  for (std::size_t i = 0; i < op.outputs.size(); ++i) {
    const TensorId id = op.outputs[i];
    if (writesInto) {
      if (!empty && !writeRegion(op, id, results[i])) return false;
      continue;
    }
    // The result fills the leading box of a fresh output of the op's own shape; the rest holds no data
    // (zeros here, whatever the buffer held on the device).
    const TensorValue& tensor = m_graph.tensor(id);
    std::optional<Dims> dims = evaluateDims(tensor.shape, op.location, "the shape of " + std::string(name(op.kind)) + "'s output");
    if (!dims) return false;
    const Dims& part = (*resultDims)[i];
    bool fits = part.size() == dims->size();
    for (std::size_t d = 0; fits && d < part.size(); ++d) fits = part[d] <= (*dims)[d];
    if (!fits)
      return m_diags.error(op.location) << "internal error: " << name(op.kind) << " on valid parts made "
                                        << Shape(part).str() << ", more than its output " << Shape(*dims).str();
    std::optional<HostTensor> out = allocate(tensor.dtype, *dims, op.location, "the output of " + std::string(name(op.kind)));
    if (!out) return false;
    if (!empty) out->view(Dims(part.size(), 0), part).copyFrom(results[i]);
    m_buffers.at(static_cast<std::size_t>(id)) = std::move(*out);
    // A valid_shape the kernel gives (expand_clone of a block past the end) narrows what holds data.
    Dims valid = part;
    const std::optional<std::optional<Dims>> given = givenValid(op, Shape(*dims));
    if (!given) return false;
    if (*given)
      for (std::size_t d = 0; d < valid.size() && d < (*given)->size(); ++d) valid[d] = std::min(valid[d], (**given)[d]);
    setValid(id, valid, Shape(*dims));
  }
  return true;
}

bool Interpreter::runLoop(const Loop& loop) {
  const std::string what = "loop '" + loop.name + "'";
  const std::optional<std::int64_t> start = evaluate(loop.start, loop.location, "the start of " + what);
  if (!start) return false;
  const std::optional<std::int64_t> stop = evaluate(loop.stop, loop.location, "the stop of " + what);
  if (!stop) return false;
  const std::optional<std::int64_t> step = evaluate(loop.step, loop.location, "the step of " + what);
  if (!step) return false;
  if (*step <= 0) return m_diags.error(loop.location) << what << ": the step must be positive, got " << *step;

  const std::optional<std::int64_t> previous =
      m_bindings.count(loop.indexSymbol) ? std::optional<std::int64_t>(m_bindings.at(loop.indexSymbol)) : std::nullopt;
  bool ok = true;
  std::int64_t position = *start;
  while (ok && position < *stop) {
    // Counted in uint64: stop - position and the iteration count fit there even where int64 would overflow.
    const std::uint64_t distance = static_cast<std::uint64_t>(*stop) - static_cast<std::uint64_t>(position);
    const std::uint64_t remaining = (distance - 1) / static_cast<std::uint64_t>(*step) + 1;
    // The body with the largest unroll factor whose iterations all fit.
    const LoopBody* chosen = nullptr;
    for (const LoopBody& body : loop.bodies)
      if (body.unrollFactor > 0 && static_cast<std::uint64_t>(body.unrollFactor) <= remaining &&
          (!chosen || body.unrollFactor > chosen->unrollFactor))
        chosen = &body;
    if (!chosen) {
      ok = m_diags.error(loop.location) << what << ": no body covers the remaining " << remaining
                                        << " iteration(s) from index " << position;
      break;
    }
    if (isCancelled(loop.location)) {
      ok = false;
      break;
    }
    m_bindings[loop.indexSymbol] = position;
    ok = runRegion(chosen->region, loop.location);
    const auto factor = static_cast<std::uint64_t>(chosen->unrollFactor);
    if (factor >= remaining) break;
    // factor < remaining, so position + factor * step < stop: no overflow.
    position = static_cast<std::int64_t>(static_cast<std::uint64_t>(position) +
                                         factor * static_cast<std::uint64_t>(*step));
  }
  if (previous) m_bindings[loop.indexSymbol] = *previous;
  else m_bindings.erase(loop.indexSymbol);
  return ok;
}

bool Interpreter::runRegion(const Region& region, const SourceLocation& where) {
  for (const Path& path : region.paths) {
    bool applies = true;
    for (const Condition& condition : path.conditions) {
      const std::optional<std::int64_t> value =
          evaluate(condition.predicate, condition.location.known() ? condition.location : where, "the condition");
      if (!value) return false;
      if ((*value != 0) != condition.expected) {
        applies = false;
        break;
      }
    }
    if (!applies) continue;
    for (const Statement& statement : path.statements) {
      const bool ok = statement.kind == Statement::Kind::Op ? runOp(m_graph.op(statement.id))
                                                            : runLoop(m_graph.loop(statement.id));
      if (!ok) return false;
    }
    return true;
  }
  if (region.paths.empty()) return true;  // an empty body
  return m_diags.error(where) << "internal error: no path of the region applies under the current bindings";
}

} // namespace

bool runReference(const TensorGraph& graph, std::vector<HostTensor>& arguments, DiagnosticEngine& diags,
                  const ReferenceOptions& options) {
  return Interpreter(graph, arguments, diags, options).run();
}

} // namespace pto
