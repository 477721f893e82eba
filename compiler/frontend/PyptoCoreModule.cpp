// Bindings of `_pypto_core`: what the pure-Python part of `pypto` calls.
#include "compiler/frontend/PyptoCoreModule.h"

#include "compiler/frontend/KernelRunner.h"
#include "compiler/frontend/TracedKernel.h"
#include "compiler/ir/TensorGraphBuilder.h"
#include "compiler/ir/TensorGraphJson.h"
#include "compiler/passes/Pipeline.h"
#include "compiler/reference/ReferenceInterpreter.h"
#include "compiler/settings/Options.h"
#include "core/HostTensor.h"
#include "core/SymbolicSimplify.h"

#include <pybind11/stl.h>

#include <cstring>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <map>

namespace py = pybind11;

namespace pto {
namespace {

SymbolicScalar toSymbolic(const py::handle& value) {
  if (py::isinstance<SymbolicScalar>(value)) return value.cast<SymbolicScalar>();
  if (py::isinstance<py::bool_>(value)) return SymbolicScalar(value.cast<bool>() ? 1 : 0);
  if (py::isinstance<py::int_>(value) || py::hasattr(value, "__index__"))
    return SymbolicScalar(py::int_(py::reinterpret_borrow<py::object>(value)).cast<std::int64_t>());
  throw py::type_error("expected an integer or a symbolic scalar, got " +
                       py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>());
}

SymbolicShape toSymbolicShape(const py::handle& values) {
  SymbolicShape shape;
  for (const py::handle& value : values) shape.push_back(toSymbolic(value));
  return shape;
}

// Attribute values from Python. Shapes and offsets are always symbolic so
// that later stages need not care whether the user wrote constants.
AttributeValue toAttribute(const std::string& key, const py::handle& value) {
  if (key == "shape" || key == "offsets" || key == "valid_shape") return toSymbolicShape(value);
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  if (py::isinstance<DataType>(value)) return value.cast<DataType>();
  if (py::isinstance<SymbolicScalar>(value)) return value.cast<SymbolicScalar>();
  if (py::isinstance<py::int_>(value)) return value.cast<std::int64_t>();
  if (py::isinstance<py::float_>(value)) return value.cast<double>();
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    std::vector<std::int64_t> numbers;
    for (const py::handle& item : value) numbers.push_back(item.cast<std::int64_t>());
    return numbers;
  }
  throw py::type_error("attribute '" + key + "' has an unsupported type");
}

SourceLocation toLocation(const std::string& file, int line, int column) { return SourceLocation{file, line, column}; }

py::object symbolicOrInt(const SymbolicScalar& value) { return py::cast(value); }

// Hands the heap a run freed back to the system. Compiling and simulating a kernel makes many small
// allocations that glibc keeps in its heap once freed (1.1 GiB after PyPTO's DeepSeek-V3.2 MLA prolog at
// s2 = 4K), and the caller's script goes on with that much less memory: the model scripts compare their
// multi-GiB caches right after the call, in torch temporaries of the same size.
void releaseFreedHeap() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

// The argument a Python buffer holds: its own memory when it is aligned as HostTensor storage is (torch's
// tensors are), so binding a multi-GiB cache copies nothing and the simulator writes outputs straight into the
// caller's array; else a copy, which run() writes back.
HostTensor tensorFromBuffer(const py::buffer_info& info, DataType dtype, const std::vector<std::int64_t>& shape) {
  const std::size_t bytes = static_cast<std::size_t>(info.size * info.itemsize);
  if (std::optional<HostTensor> borrowed = HostTensor::borrowing(dtype, Shape(shape), static_cast<std::byte*>(info.ptr));
      borrowed && borrowed->byteCount() == bytes)
    return *borrowed;
  HostTensor tensor(dtype, Shape(shape));
  if (bytes != tensor.byteCount())
    throw py::value_error("argument holds " + std::to_string(bytes) + " bytes, expected " +
                          std::to_string(tensor.byteCount()));
  std::memcpy(tensor.data(), info.ptr, tensor.byteCount());
  return tensor;
}

void defineSymbolicScalar(py::module_& m) {
  py::class_<SymbolicScalar> sym(m, "SymbolicScalar");
  sym.def(py::init<std::int64_t>())
      .def_static("symbol", &SymbolicScalar::symbol)
      .def_static("element", &SymbolicScalar::element)
      .def("is_concrete", [](const SymbolicScalar& s) { return simplify(s).isConstant(); })
      .def("concrete",
           [](const SymbolicScalar& s) {
             auto value = simplify(s).constantValue();
             if (!value)
               throw py::value_error("'" + s.str() + "' is not known while tracing (it depends on " +
                                     [&] {
                                       std::string names;
                                       for (const auto& n : s.symbols()) names += (names.empty() ? "" : ", ") + n;
                                       return names;
                                     }() +
                                     ")");
             return *value;
           })
      .def("symbols", &SymbolicScalar::symbols)
      .def("__bool__",
           [](const SymbolicScalar& s) {
             auto value = simplify(s).constantValue();
             if (!value)
               throw py::type_error("the value of '" + s.str() +
                                    "' is not known while tracing, so a Python `if` cannot test it; write "
                                    "`if pypto.cond(" + s.str() + "):` to branch when the kernel runs");
             return *value != 0;
           })
      .def("__index__",
           [](const SymbolicScalar& s) {
             auto value = simplify(s).constantValue();
             if (!value)
               throw py::type_error("'" + s.str() + "' is not known while tracing; it cannot be used as a Python "
                                    "integer (use pypto.loop for loops over it)");
             return *value;
           })
      .def("__int__",
           [](const SymbolicScalar& s) {
             auto value = simplify(s).constantValue();
             if (!value) throw py::type_error("'" + s.str() + "' is not known while tracing");
             return *value;
           })
      .def("evaluate",
           [](const SymbolicScalar& s, const Bindings& bindings) {
             SymbolicEvaluation result = s.evaluate(bindings);
             if (!result.ok()) throw py::value_error(result.error);
             return *result.value;
           })
      .def("simplified", [](const SymbolicScalar& s) { return simplify(s); })
      // Printed as PyPTO prints it; python_str() keeps Python syntax.
      .def("__str__", [](const SymbolicScalar& s) { return pyptoStr(s); })
      .def("__repr__", [](const SymbolicScalar& s) { return "SymbolicScalar(" + pyptoStr(s) + ")"; })
      .def("python_str", &SymbolicScalar::str)
      .def("__hash__", &SymbolicScalar::hash)
      .def("same_as", [](const SymbolicScalar& a, const SymbolicScalar& b) { return a == b; })
      .def("__neg__", [](const SymbolicScalar& a) { return simplify(SymbolicScalar(0) - a); });
  // Arithmetic with ints on either side; results are kept simplified so
  // that shapes such as (b + 1) - b read as 1.
  auto binary = [&](const char* nameLeft, const char* nameRight, SymbolicScalar (*op)(const SymbolicScalar&, const SymbolicScalar&)) {
    sym.def(nameLeft, [op](const SymbolicScalar& a, const py::object& b) { return simplify(op(a, toSymbolic(b))); },
            py::is_operator());
    sym.def(nameRight, [op](const SymbolicScalar& a, const py::object& b) { return simplify(op(toSymbolic(b), a)); },
            py::is_operator());
  };
  binary("__add__", "__radd__", [](const SymbolicScalar& a, const SymbolicScalar& b) { return a + b; });
  binary("__sub__", "__rsub__", [](const SymbolicScalar& a, const SymbolicScalar& b) { return a - b; });
  binary("__mul__", "__rmul__", [](const SymbolicScalar& a, const SymbolicScalar& b) { return a * b; });
  binary("__floordiv__", "__rfloordiv__", &floorDiv);
  binary("__mod__", "__rmod__", &mod);
  // Comparing with something that is not a number (`Ellipsis in dims`,
  // `dim == None`) is not an error: Python then falls back to identity.
  auto compare = [&](const char* dunder, SymbolicScalar (*op)(const SymbolicScalar&, const SymbolicScalar&)) {
    sym.def(
        dunder,
        [op](const SymbolicScalar& a, const py::object& b) -> py::object {
          bool numeric = py::isinstance<SymbolicScalar>(b) || py::isinstance<py::int_>(b);
          if (!numeric) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
          return py::cast(simplify(op(a, toSymbolic(b))));
        },
        py::is_operator());
  };
  compare("__lt__", &lt);
  compare("__le__", &le);
  compare("__gt__", &gt);
  compare("__ge__", &ge);
  compare("__eq__", &eq);
  compare("__ne__", &ne);
  m.def("sym_min", [](const py::object& a, const py::object& b) { return simplify(min(toSymbolic(a), toSymbolic(b))); });
  m.def("sym_max", [](const py::object& a, const py::object& b) { return simplify(max(toSymbolic(a), toSymbolic(b))); });
  m.def("sym_and", [](const py::object& a, const py::object& b) { return logicalAnd(toSymbolic(a), toSymbolic(b)); });
  m.def("sym_or", [](const py::object& a, const py::object& b) { return logicalOr(toSymbolic(a), toSymbolic(b)); });
  m.def("sym_not", [](const py::object& a) { return logicalNot(toSymbolic(a)); });
  m.def("to_symbolic", [](const py::object& a) { return simplify(toSymbolic(a)); });
}

void defineBuilder(py::module_& m) {
  py::class_<TensorGraphBuilder>(m, "GraphBuilder")
      .def(py::init([](std::string kernelName, std::string file, int line) {
        return std::make_unique<TensorGraphBuilder>(std::move(kernelName), SourceLocation{std::move(file), line, 0});
      }))
      .def("add_argument",
           [](TensorGraphBuilder& b, std::string argName, DataType dtype, const py::list& shape, std::string file,
              int line, bool nzLayout) {
             return b.addArgument(std::move(argName), dtype, toSymbolicShape(shape), toLocation(file, line, 0), nzLayout);
           },
           py::arg("name"), py::arg("dtype"), py::arg("shape"), py::arg("file"), py::arg("line"),
           py::arg("nz_layout") = false)
      .def("add_dynamic_symbol",
           [](TensorGraphBuilder& b, std::string symbol, int argument, int dim, std::int64_t scale,
              std::int64_t offset) { b.addDynamicSymbol(SymbolSource{std::move(symbol), argument, dim, scale, offset}); },
           py::arg("symbol"), py::arg("argument"), py::arg("dim"), py::arg("scale") = 1, py::arg("offset") = 0)
      // Element reads (act_seq[b]): the symbolic scalar, or ValueError with the reason.
      .def("read_element",
           [](TensorGraphBuilder& b, TensorId tensor, const py::object& flatIndex) {
             std::string error;
             SymbolicScalar value = b.readElement(tensor, simplify(toSymbolic(flatIndex)), error);
             if (!error.empty()) throw py::value_error(error);
             return value;
           })
      .def("add_temporary",
           [](TensorGraphBuilder& b, std::string tensorName, DataType dtype, const py::list& shape, std::string file,
              int line) {
             return b.addTemporary(std::move(tensorName), dtype, toSymbolicShape(shape), toLocation(file, line, 0));
           })
      // Returns (output ids, error message); the Python side raises with the kernel line.
      .def("add_op",
           [](TensorGraphBuilder& b, const std::string& kindName, std::vector<TensorId> inputs, const py::dict& attrs,
              std::string file, int line, int column, std::vector<TensorId> into) {
             auto kind = parseTensorOpKind(kindName);
             if (!kind) throw py::value_error("unknown op kind '" + kindName + "'");
             Attributes converted;
             for (const auto& [key, value] : attrs) {
               std::string keyText = py::str(key);
               if (value.is_none()) continue;
               converted[keyText] = toAttribute(keyText, value);
             }
             auto result = b.addOp(*kind, std::move(inputs), std::move(converted), toLocation(file, line, column),
                                   std::move(into));
             return py::make_tuple(result.outputs, result.error, result.errorLocation.file,
                                   result.errorLocation.line);
           },
           py::arg("kind"), py::arg("inputs"), py::arg("attrs"), py::arg("file"), py::arg("line"),
           py::arg("column") = 0, py::arg("into") = std::vector<TensorId>{})
      .def("tensor_type",
           [](const TensorGraphBuilder& b, TensorId id) {
             const TensorValue& value = b.graph().tensor(id);
             py::list shape;
             for (const auto& dim : value.shape) shape.append(symbolicOrInt(dim));
             return py::make_tuple(value.dtype, shape, value.name);
           })
      .def("set_label", &TensorGraphBuilder::setLabel)
      .def("label", &TensorGraphBuilder::label)
      .def("set_vec_tile",
           [](TensorGraphBuilder& b, std::vector<std::int64_t> dims, std::string file, int line) {
             b.setVecTile(std::move(dims), toLocation(file, line, 0));
           })
      .def("vec_tile", [](const TensorGraphBuilder& b) { return b.tiles().vec; })
      .def("vec_tile_site",  // (file, line) of the call that set it, to set it back after an override
           [](const TensorGraphBuilder& b) { return py::make_tuple(b.tiles().vecSite.file, b.tiles().vecSite.line); })
      .def("set_cube_tile",
           [](TensorGraphBuilder& b, std::vector<std::int64_t> m_, std::vector<std::int64_t> k, std::vector<std::int64_t> n,
              bool splitK, std::string file, int line) {
             CubeTileShape shape;
             shape.mL0 = m_.at(0);
             shape.mL1 = m_.at(1);
             shape.kL0 = k.at(0);
             shape.kAL1 = k.at(1);
             shape.kBL1 = k.size() > 2 ? k.at(2) : k.at(1);
             shape.nL0 = n.at(0);
             shape.nL1 = n.at(1);
             shape.enableSplitK = splitK;
             b.setCubeTile(shape, toLocation(file, line, 0));
           })
      .def("cube_tile",
           [](const TensorGraphBuilder& b) -> py::object {
             if (!b.tiles().cube) return py::none();
             const CubeTileShape& c = *b.tiles().cube;
             py::list k;
             k.append(c.kL0);
             k.append(c.kAL1);
             if (c.kBL1 != c.kAL1) k.append(c.kBL1);
             return py::make_tuple(std::vector<std::int64_t>{c.mL0, c.mL1}, k,
                                   std::vector<std::int64_t>{c.nL0, c.nL1}, c.enableSplitK);
           })
      .def("set_pass_options",
           [](TensorGraphBuilder& b, const std::string& json) { b.setPassOptions(nlohmann::ordered_json::parse(json)); })
      .def("pass_options", [](const TensorGraphBuilder& b) { return b.passOptions().dump(); })
      .def("begin_loop",
           [](TensorGraphBuilder& b, std::string loopName, std::string indexName, const py::object& start,
              const py::object& stop, const py::object& step, bool parallel, std::string file, int line) {
             LoopId id = b.beginLoop(std::move(loopName), std::move(indexName), toSymbolic(start), toSymbolic(stop),
                                     toSymbolic(step), parallel, toLocation(file, line, 0));
             return py::make_tuple(id, SymbolicScalar::symbol(b.loop(id).indexSymbol));
           })
      .def("loop_bounds",
           [](const TensorGraphBuilder& b, LoopId id) {
             const Loop& loop = b.loop(id);
             return py::make_tuple(loop.start, loop.stop, loop.step, loop.indexSymbol);
           })
      .def("begin_loop_body", &TensorGraphBuilder::beginLoopBody)
      .def("set_submit_before_loop", &TensorGraphBuilder::setSubmitBeforeLoop)
      .def("set_unroll_list", &TensorGraphBuilder::setUnrollList)
      .def("end_loop", &TensorGraphBuilder::endLoop)
      .def("open_loops", &TensorGraphBuilder::openLoops)
      .def("begin_path", &TensorGraphBuilder::beginPath)
      .def("end_path", &TensorGraphBuilder::endPath)
      .def("decide",
           [](TensorGraphBuilder& b, const py::object& predicate, std::string file, int line) {
             return b.decide(toSymbolic(predicate), toLocation(file, line, 0));
           })
      .def("finish", [](TensorGraphBuilder& b) { return std::make_shared<TracedKernel>(TracedKernel{b.finish()}); });
}

void defineTracedKernel(py::module_& m) {
  py::class_<TracedKernel, std::shared_ptr<TracedKernel>>(m, "TracedKernel")
      .def("to_json", [](const TracedKernel& k) { return printTensorGraphJson(k.graph); })
      .def("op_count", [](const TracedKernel& k) { return k.graph.ops().size(); })
      .def("dynamic_symbols",
           [](const TracedKernel& k) {
             std::vector<std::tuple<std::string, int, int, std::int64_t, std::int64_t>> symbols;
             for (const SymbolSource& s : k.graph.dynamicSymbols)
               symbols.emplace_back(s.symbol, s.argument, s.dim, s.scale, s.offset);
             return symbols;
           })
      .def("written_arguments",
           [](const TracedKernel& k) {
             std::vector<int> indices;
             for (TensorId id : k.graph.writtenArguments()) indices.push_back(k.graph.tensor(id).argumentIndex);
             return indices;
           })
      // Runs the kernel on C-contiguous buffers (numpy arrays, or raw uint16
      // views of bf16 data) and writes the outputs back: through the
      // registered runner (compile + simulate, see KernelRunner.h) when there
      // is one, else the reference interpreter. `jit_options` is the kernel's
      // options as JSON text. Returns ("ok", report JSON text) or
      // ("error", message, file, line, column).
      .def("run", [](const TracedKernel& k, const py::list& buffers, const std::string& jitOptionsText) -> py::object {
        const TensorGraph& graph = k.graph;
        if (buffers.size() != graph.arguments.size())
          throw py::value_error("expected " + std::to_string(graph.arguments.size()) + " tensors, got " +
                                std::to_string(buffers.size()));
        std::vector<char> written(buffers.size(), 0);
        for (TensorId id : graph.writtenArguments()) written[static_cast<std::size_t>(graph.tensor(id).argumentIndex)] = 1;
        std::vector<HostTensor> arguments;
        // The buffers stay requested (and their arrays alive) until the run is over: the arguments may be their
        // memory (tensorFromBuffer). A written one is requested writable, so a read-only array is refused here.
        std::vector<py::buffer> handles;
        std::vector<py::buffer_info> infos;
        for (std::size_t i = 0; i < buffers.size(); ++i) {
          py::buffer buffer = buffers[i].cast<py::buffer>();
          py::buffer_info info;
          try {
            info = buffer.request(written[i] != 0);
          } catch (const py::error_already_set&) {
            throw py::value_error("argument " + std::to_string(i) + " is read-only, but the kernel writes '" +
                                  graph.tensor(graph.arguments[i]).name + "'");
          }
          const TensorValue& declared = graph.tensor(graph.arguments[i]);
          std::vector<std::int64_t> shape(info.shape.begin(), info.shape.end());
          arguments.push_back(tensorFromBuffer(info, declared.dtype, shape));
          handles.push_back(buffer);
          infos.push_back(std::move(info));
        }
        nlohmann::ordered_json jitOptions = nlohmann::ordered_json::parse(jitOptionsText, nullptr, false);
        if (jitOptions.is_discarded()) throw py::value_error("jit options are not valid JSON");
        DiagnosticEngine diags;
        std::optional<nlohmann::ordered_json> report;
        {
          py::gil_scoped_release release;
          if (const KernelRunner& runner = kernelRunner()) {
            report = runner(graph, arguments, jitOptions, diags);
          } else if (runReference(graph, arguments, diags)) {
            report = nlohmann::ordered_json{{"command", "run"}, {"mode", "reference"}};
          }
        }
        if (!report) {
          arguments.clear();
          releaseFreedHeap();
          const Diagnostic& first = diags.diagnostics().front();
          return py::make_tuple("error", first.message, first.location.file, first.location.line,
                                first.location.column);
        }
        // Outputs the run wrote into the caller's memory are there already; the others (a copied argument, or
        // the reference interpreter's copy when the kernel was not simulated) are copied back.
        for (TensorId id : graph.writtenArguments()) {
          const auto index = static_cast<std::size_t>(graph.tensor(id).argumentIndex);
          const HostTensor& result = arguments[index];
          if (result.byteCount() > 0 && result.data() != infos[index].ptr)
            std::memcpy(infos[index].ptr, result.data(), result.byteCount());
        }
        arguments.clear();  // the copies of arguments that could not be bound in place
        releaseFreedHeap();
        return py::make_tuple("ok", report->dump());
      });
}

} // namespace

void definePyptoCoreModule(py::module_& m) {
  m.doc() = "C++ core of the pypto package (PTO Studio)";
  py::enum_<DataType> dtype(m, "DataType");
#define PTO_PY_DATA_TYPE(id, name, pyptoName, bytes, isFloat, isSigned) dtype.value(pyptoName, DataType::id);
  PTO_FOR_EACH_DATA_TYPE(PTO_PY_DATA_TYPE)
#undef PTO_PY_DATA_TYPE
  dtype.def_property_readonly("itemsize", [](DataType t) { return sizeOf(t); })
      .def_property_readonly("numpy_name", [](DataType t) { return std::string(name(t)); })
      .def("is_float", [](DataType t) { return isFloatingPoint(t); });
  m.def("op_kinds", [] {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < kTensorOpKindCount; ++i) names.emplace_back(name(static_cast<TensorOpKind>(i)));
    return names;
  });
  // The options the compiler's passes and the runtime declare (compiler/settings/Options.h), by group:
  // pypto's option checks accept and pass on exactly these.
  m.def("declared_options", [] {
    std::map<std::string, std::vector<std::string>> groups;
    for (const OptionInfo& info : passOptionDeclarations()) groups[std::string(name(info.scope))].push_back(info.name);
    for (const OptionInfo& info : runtimeOptionDeclarations())
      groups[std::string(name(info.scope))].push_back(info.name);
    return groups;
  });
  defineSymbolicScalar(m);
  defineBuilder(m);
  defineTracedKernel(m);
}

} // namespace pto
