// The embedded interpreter: start-up, tracing with a watchdog, and turning
// Python exceptions into diagnostics at the user's line.
#include "compiler/frontend/KernelTracer.h"

#include "core/InstallPaths.h"

#include "compiler/frontend/PyptoCoreModule.h"
#include "compiler/frontend/TracedKernel.h"
#include "core/AtomicFile.h"

#include <pybind11/embed.h>
#include <pybind11/stl.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <unistd.h>

namespace py = pybind11;

PYBIND11_EMBEDDED_MODULE(_pypto_core, module) { pto::definePyptoCoreModule(module); }

namespace pto {
namespace {

// Started once per process and never finalised: numpy and other extension
// modules do not survive re-initialisation. The main thread releases the
// lock after start-up so that worker threads (the IDE's) can trace.
// Starts the interpreter and loads pypto once; empty when that worked, else
// why not (the same answer every later time: the process cannot trace).
const std::string& ensureInterpreter() {
  static std::once_flag started;
  static std::string failure;
  std::call_once(started, [] {
    py::initialize_interpreter(/*init_signal_handlers=*/false);
    {
      py::module_ sys = py::module_::import("sys");
      sys.attr("dont_write_bytecode") = true;  // no __pycache__ in users' project folders
      const std::string packages = pyptoPackageDirectory().string();
      sys.attr("path").attr("insert")(0, packages);
      // A program copied away from its install (or a build tree moved) finds
      // no package: say where it looked and how to point it elsewhere,
      // instead of failing as a bug in pto.
      try {
        py::module_::import("pypto");
      } catch (py::error_already_set& error) {
        // Where the folder came from decides what to fix: the variable, or the install.
        const char* named = std::getenv("PTO_PYTHON_PATH");
        const std::string where = named && *named ? "PTO_PYTHON_PATH, which names " + packages
                                                  : packages + " (none in ../python or ../lib/python3/dist-packages "
                                                               "beside the program)";
        failure = "cannot load the pypto package from " + where + ": " + error.what() +
                  "; reinstall PTO Studio, or set PTO_PYTHON_PATH to the folder that holds pypto/";
      }
    }
    PyEval_SaveThread();
  });
  return failure;
}

// Interrupts the tracing thread when the time is up or the caller cancels.
class Watchdog {
public:
  Watchdog(unsigned long threadId, double timeoutSeconds, std::function<bool()> cancelled)
      : m_threadId(threadId), m_cancelled(std::move(cancelled)) {
    m_thread = std::thread([this, timeoutSeconds] { watch(timeoutSeconds); });
  }
  // Call with the GIL held, right after the traced call returns.
  void finish() {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_done = true;
    }
    m_wake.notify_all();
    // An interrupt set just as the call returned must not fire later.
    PyThreadState_SetAsyncExc(m_threadId, nullptr);
  }
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_done = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable()) {
      // The watcher may be waiting for the GIL, which our caller holds.
      py::gil_scoped_release release;
      m_thread.join();
    }
  }
  enum class Reason { None, Timeout, Cancelled };
  Reason fired() const { return m_fired; }

private:
  void watch(double timeoutSeconds) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
    std::unique_lock<std::mutex> lock(m_mutex);
    while (!m_done) {
      m_wake.wait_for(lock, std::chrono::milliseconds(50));
      if (m_done) return;
      Reason reason = Reason::None;
      if (m_cancelled && m_cancelled()) reason = Reason::Cancelled;
      else if (std::chrono::steady_clock::now() >= deadline) reason = Reason::Timeout;
      if (reason == Reason::None) continue;
      lock.unlock();
      py::gil_scoped_acquire gil;
      lock.lock();
      if (m_done) return;  // finished while we waited for the lock
      m_fired = reason;
      py::object timeoutClass = py::module_::import("pypto").attr("KernelTimeout");
      PyThreadState_SetAsyncExc(m_threadId, timeoutClass.ptr());
      return;
    }
  }

  unsigned long m_threadId;
  std::function<bool()> m_cancelled;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_done = false;
  Reason m_fired = Reason::None;
  std::thread m_thread;
};

void reportException(const py::error_already_set& error, const TraceRequest& request, Watchdog::Reason fired,
                     DiagnosticEngine& diags) {
  py::tuple info = py::module_::import("pypto._embedding")
                       .attr("diagnose")(error.value(), request.kernelFile.string())
                       .cast<py::tuple>();
  std::string message = info[0].cast<std::string>();
  if (fired == Watchdog::Reason::Timeout)
    message = "the kernel did not finish within " + std::to_string(static_cast<int>(request.timeoutSeconds)) +
              " s and was stopped here (an endless loop?); allow more time with --timeout SECONDS";
  else if (fired == Watchdog::Reason::Cancelled)
    message = "cancelled while tracing the kernel";
  SourceLocation location{info[1].cast<std::string>(), info[2].cast<int>(), info[3].cast<int>()};
  DiagnosticBuilder builder = diags.error(location);
  builder << message;
  for (const py::handle& note : info[4].cast<py::list>()) {
    py::tuple entry = note.cast<py::tuple>();
    builder.note(SourceLocation{entry[1].cast<std::string>(), entry[2].cast<int>(), 0}, entry[0].cast<std::string>());
  }
}

} // namespace

std::filesystem::path pyptoPackageDirectory() {
  if (const char* fromEnvironment = std::getenv("PTO_PYTHON_PATH"); fromEnvironment && *fromEnvironment)
    return fromEnvironment;
  std::filesystem::path bin = executableDirectory();
  for (const auto& candidate : {bin / ".." / "python", bin / ".." / "lib" / "python3" / "dist-packages"}) {
    std::error_code ec;
    if (std::filesystem::exists(candidate / "pypto" / "__init__.py", ec))
      return std::filesystem::weakly_canonical(candidate, ec);
  }
  return bin / ".." / "python";
}

std::optional<TensorGraph> traceKernel(const TraceRequest& request, DiagnosticEngine& diags) {
  std::string source;
  if (request.sourceText) {
    source = *request.sourceText;
  } else {
    std::string reason;
    if (!readFile(request.kernelFile, source, reason))
      return diags.error(SourceLocation{request.kernelFile.string()}) << "cannot read the kernel file: " << reason;
  }
  diags.setSourceText(request.kernelFile.string(), source);

  if (const std::string& failure = ensureInterpreter(); !failure.empty())
    return diags.error(SourceLocation{request.kernelFile.string()}) << failure;
  // One trace at a time in the process. Kernels share the interpreter's
  // modules — pypto and whatever a kernel patches in it (the DIA example
  // prefixes its stages' labels by swapping pypto.set_semantic_label for the
  // length of a stage) — so two traces interleaving under the GIL (the
  // IDE's run beside its tuning panel or advisor) saw each other's state:
  // the same kernel traced with other labels from run to run. Waiting here
  // holds no GIL, so the trace in progress goes on, and a cancel is heard.
  static std::timed_mutex oneTraceAtATime;
  std::unique_lock<std::timed_mutex> turn(oneTraceAtATime, std::defer_lock);
  while (!turn.try_lock_for(std::chrono::milliseconds(20)))
    if (request.cancelled && request.cancelled())
      return diags.error(SourceLocation{request.kernelFile.string()}) << "cancelled while tracing the kernel";
  py::gil_scoped_acquire gil;
  try {
    py::object traceFile = py::module_::import("pypto._embedding").attr("trace_file");
    py::list types;
    py::object dataTypeClass = py::module_::import("_pypto_core").attr("DataType");
    for (const ArgumentType& argument : request.arguments)
      types.append(py::make_tuple(py::cast(argument.dtype), py::cast(argument.shape)));

    Watchdog watchdog(PyThread_get_thread_ident(), request.timeoutSeconds, request.cancelled);
    py::object traced;
    try {
      traced = traceFile(request.kernelFile.string(), source, request.entry, types, request.maxElements);
      watchdog.finish();
    } catch (py::error_already_set& error) {
      watchdog.finish();
      reportException(error, request, watchdog.fired(), diags);
      return std::nullopt;
    }
    py::tuple result = traced.cast<py::tuple>();
    TensorGraph graph = std::move(result[0].cast<TracedKernel&>().graph);
    graph.kernelOptions = nlohmann::ordered_json::parse(result[1].cast<std::string>(), nullptr, false);
    if (graph.kernelOptions.is_discarded()) graph.kernelOptions = nlohmann::ordered_json::object();
    checkArgumentsUsed(graph, diags);
    return graph;
  } catch (py::error_already_set& error) {
    return diags.error(SourceLocation{request.kernelFile.string()})
           << "internal error while tracing: " << error.what();
  }
}

void checkArgumentsUsed(const TensorGraph& graph, DiagnosticEngine& diags) {
  std::set<TensorId> read, written;
  // Through views and in-place reshapes: writing reshape(out, ..., inplace=True) writes out.
  for (const TensorOp& op : graph.ops()) {
    for (TensorId input : op.inputs) read.insert(graph.aliasRootOf(input));
    if (op.kind == TensorOpKind::View || TensorGraph::isInPlaceReshape(op)) continue;
    for (TensorId output : op.outputs) written.insert(graph.aliasRootOf(output));
  }
  // Elements read as scalars (act_seq[b]) are reads too; a kernel that also
  // writes such an argument would see its launch values in those reads.
  for (int index : graph.elementReadArguments) {
    TensorId argument = graph.arguments[static_cast<std::size_t>(index)];
    read.insert(argument);
    if (written.count(argument)) {
      const TensorValue& value = graph.tensor(argument);
      diags.warning(value.location.line > 0 ? value.location : graph.kernelLocation)
          << "argument '" << value.name << "' is read element by element (loop bounds, offsets) and also written; "
          << "those reads see its values when the kernel starts, not what the kernel writes";
    }
  }
  bool anyWritten = false;
  for (TensorId argument : graph.arguments) anyWritten = anyWritten || written.count(argument);
  for (TensorId argument : graph.arguments) {
    if (read.count(argument) || written.count(argument)) continue;
    const TensorValue& value = graph.tensor(argument);
    diags.warning(graph.kernelLocation) << "argument '" << value.name
                                        << "' is never read or written; if it is an output, write it in place with "
                                        << value.name << "[:] = ... (a plain " << value.name
                                        << " = ... only rebinds the Python name)";
  }
  if (!anyWritten)
    diags.warning(graph.kernelLocation) << "kernel '" << graph.kernelName
                                        << "' writes none of its arguments, so it has no outputs; write results "
                                           "in place, e.g. out[:] = expr";
}

} // namespace pto
