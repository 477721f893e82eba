"""pytest plugin used by scripts/pypto-compat.sh --models (loaded with `-p pypto_compat_pytest` in the processes
the runner starts; never by the package under test).

It does what PyPTO's own pytest setup does around its model test scripts, on a CPU host:
- imports the stand-in torch_npu first, as torch 2.5+ loads an installed torch_npu when torch is imported;
- registers the `soc` and `world_size` markers the scripts use, and keeps only the cases whose `soc` marker names
  the simulated machine's class ("950" when pypto.platform.npuarch is DAV_3510, else "910"; a case without the
  marker counts as "910"), as PyPTO's root conftest does with the device's SoC version;
- selects PyPTO's simulator run mode for every kernel (runtime option run_mode = RunMode.SIM in the outermost
  option scope; the scripts' own kernels and scopes do not set run_mode);
- writes what happened as JSON for the runner: in collect mode (PYPTO_COMPAT_COLLECT=FILE) the cases with their
  skip reasons and any file that failed to import; in run mode (PYPTO_COMPAT_RESULT=FILE) the outcome of the
  case, its first error (type, message, and the innermost line of PyPTO's model folder it came from) and the
  warnings the package raised (kernels not simulated, simulated outputs differing from the reference).


PYPTO_COMPAT_MODELS_DIR names the model folder, so locations print relative to it."""
import json
import os

import pytest

MODELS_DIR = os.path.realpath(os.environ.get("PYPTO_COMPAT_MODELS_DIR") or os.getcwd())
MESSAGE_LIMIT = 600

_state = {"soc": None, "run_mode": "", "errors": [], "report": None, "warnings": []}


def relative(path):
    """`path` relative to the model folder when it lies inside it, else as given."""
    real = os.path.realpath(path)
    if real.startswith(MODELS_DIR + os.sep):
        return os.path.relpath(real, MODELS_DIR)
    return path


def in_models(path):
    return os.path.realpath(path).startswith(MODELS_DIR + os.sep)


def short_message(text, limit=MESSAGE_LIMIT):
    """The message on one line: blank and rule-only lines dropped, the rest joined, cut at `limit`."""
    lines = [line.strip() for line in str(text).splitlines()]
    lines = [line for line in lines if line and line.strip("=-* ")]
    joined = " / ".join(lines)
    return joined if len(joined) <= limit else joined[:limit - 3] + "..."


def describe_exception(exc, tb):
    """{type, message, location, stack} of an exception: `location` is the kernel line a pypto KernelError
    names, else the innermost frame inside the model folder; `stack` lists the model-folder frames, outermost
    first, as "file:line in function"."""
    frames = []
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append((code.co_filename, tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    stack = [f"{relative(f)}:{line} in {name}" for f, line, name in frames if in_models(f)]
    message = str(exc)
    location = ""
    kernel_file, kernel_line = getattr(exc, "file", ""), getattr(exc, "line", 0)
    if isinstance(kernel_file, str) and kernel_file and isinstance(kernel_line, int) and kernel_line:
        location = f"{relative(kernel_file)}:{kernel_line}"
        message = getattr(exc, "message", message)
    elif isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        location = f"{relative(exc.filename)}:{exc.lineno}"
    else:
        inner = [(f, line) for f, line, _ in frames if in_models(f)]
        if inner:
            location = f"{relative(inner[-1][0])}:{inner[-1][1]}"
    # Absolute paths of the scratch copy inside messages read better relative to the model folder.
    message = message.replace(MODELS_DIR + os.sep, "")
    return {"type": type(exc).__name__, "message": short_message(message), "location": location, "stack": stack}


def soc_tag():
    """"950" when the simulated machine is 950-like, else "910" (PyPTO's conftest: SoC 260 is "950")."""
    if _state["soc"] is None:
        try:
            import pypto
            arch = pypto.platform.npuarch
        except Exception:  # an older package without pypto.platform: read the machine as it does
            machine = os.environ.get("PTO_MACHINE") or "a2"
            arch = "DAV_3510" if "950" in os.path.basename(machine) else "DAV_2201"
        _state["soc"] = "950" if arch == "DAV_3510" else "910"
    return _state["soc"]


def supported_socs(item):
    """The SoC classes a case's `soc` marker names ("910" without one, as in PyPTO's conftest)."""
    marker = item.get_closest_marker("soc")
    if marker is None or not marker.args:
        return ["910"]
    if isinstance(marker.args[0], (list, tuple)):
        return [str(s).strip() for s in marker.args[0]]
    return [str(s).strip() for s in marker.args]


def soc_skip_reason(item):
    supported = supported_socs(item)
    if soc_tag() in supported:
        return None
    machine = os.environ.get("PTO_MACHINE") or "a2"
    return (f"marked soc({', '.join(repr(s) for s in supported)}); the simulated machine ({machine}) is "
            f"{soc_tag()}-class (PTO_MACHINE=950 selects a 950-class machine)")


def skip_reason(item):
    """Why PyPTO's pytest run would not run this case here, or None."""
    for marker in item.iter_markers("skip"):
        return "marked skip" + (f": {marker.kwargs.get('reason') or (marker.args[0] if marker.args else '')}"
                                if marker.kwargs.get("reason") or marker.args else "")
    return soc_skip_reason(item)


def pytest_configure(config):
    # torch 2.5+ imports an installed device extension (torch_npu) with torch itself; some scripts (models/kimi)
    # use torch.npu without importing torch_npu, so the stand-in is imported here as that autoload would.
    import torch_npu  # noqa: F401
    config.addinivalue_line("markers", "soc(*versions): SoC classes a case runs on (PyPTO: '950', '910')")
    config.addinivalue_line("markers", "world_size(n): number of NPU cards a case needs")
    try:
        import pypto
        pypto.set_runtime_options(run_mode=pypto.RunMode.SIM)
        _state["run_mode"] = "SIM"
    except Exception as error:  # reported by the runner; the case still runs in the package's default mode
        _state["run_mode"] = f"could not select RunMode.SIM: {type(error).__name__}: {error}"


def pytest_collection_modifyitems(session, config, items):
    if os.environ.get("PYPTO_COMPAT_COLLECT"):
        return
    for item in items:
        reason = soc_skip_reason(item)
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))


def pytest_exception_interact(node, call, report):
    if isinstance(node, pytest.Item) or call.excinfo is None:
        return
    exc, tb = call.excinfo.value, call.excinfo.tb
    while type(exc).__name__ == "CollectError" and exc.__cause__ is not None:
        exc = exc.__cause__  # pytest wraps the script's own ImportError / SyntaxError
        tb = exc.__traceback__
    error = describe_exception(exc, tb)
    error["file"] = relative(str(getattr(node, "fspath", "") or node.nodeid))
    _state["errors"].append(error)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    previous = _state["report"]
    if previous and previous["outcome"] != "passed":
        return  # the first failing phase is the one that counts
    entry = {"nodeid": item.nodeid, "phase": report.when, "outcome": report.outcome,
             "seconds": round(getattr(report, "duration", 0.0), 3)}
    if previous:
        entry["seconds"] = round(previous["seconds"] + entry["seconds"], 3)
    if report.skipped:
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
        entry["reason"] = reason[len("Skipped: "):] if reason.startswith("Skipped: ") else reason
    elif report.failed and call.excinfo is not None:
        entry["error"] = describe_exception(call.excinfo.value, call.excinfo.tb)
    _state["report"] = entry


def pytest_warning_recorded(warning_message, when, nodeid, location):
    text = f"{warning_message.category.__name__}: {warning_message.message}"
    if text not in _state["warnings"]:
        _state["warnings"].append(text)


def _write(path, data):
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1)


def pytest_collection_finish(session):
    path = os.environ.get("PYPTO_COMPAT_COLLECT")
    if not path:
        return
    cases = []
    for item in session.items:
        cases.append({"nodeid": item.nodeid, "file": relative(str(item.fspath)), "name": item.name,
                      "skip": skip_reason(item), "socs": supported_socs(item),
                      "marked_skip": any(True for _ in item.iter_markers("skip"))})
    _write(path, {"cases": cases, "errors": _state["errors"], "soc": soc_tag()})


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("PYPTO_COMPAT_RESULT")
    if path:
        _write(path, {"report": _state["report"], "collect_errors": _state["errors"], "warnings": _state["warnings"],
                      "run_mode": _state["run_mode"], "exit_status": int(exitstatus)})
