"""The submodules PyPTO kernels import by name: pypto.experimental, pypto.operation, pypto.platform,
pypto.pypto_impl and pypto.runtime (`from pypto.experimental import gather_in_ub`, `from pypto import pypto_impl`,
`from pypto.operation import op_wrapper`, `pypto.platform.npuarch`, `pypto.runtime._device_synchronize()`).

The package is a folder of flat files that the build copies as they are, so these are module objects made
here and registered in sys.modules under their dotted names: `import pypto.x` and `from pypto.x import y`
then find them like files of the package."""
import os
import sys
import types

from . import _experimental
from ._errors import KernelError
from ._location import user_location


def _register(module, names):
    module.__dict__.update(names)
    module.__all__ = sorted(name for name in names if not name.startswith("_"))
    sys.modules[module.__name__] = module
    return module


# --- pypto.platform ----------------------------------------------------------------------------------------

# The chip generations PyPTO names (NPUArch in its platform.h): A2/A3 are DAV_2201, Ascend 950 is DAV_3510.
_ARCH_OF_A2_A3 = "DAV_2201"
_ARCH_OF_950 = "DAV_3510"


def npu_arch():
    """The NPU architecture of the machine kernels run on here: the machine named by PTO_MACHINE (default a2,
    read the same way as the simulator reads it, analysis/simulation/KernelCall.cpp), DAV_3510 when it is a 950-like
    machine (its name or file name has 950 in it: resources/machines/950.json) and DAV_2201 for the
    A2/A3-like ones (a2, a3, tiny and the user's own machine files)."""
    machine = os.environ.get("PTO_MACHINE") or "a2"
    name = os.path.splitext(os.path.basename(machine))[0].lower()
    return _ARCH_OF_950 if "950" in name else _ARCH_OF_A2_A3


class _PlatformModule(types.ModuleType):
    """pypto.platform. In PyPTO the name is bound to an object with an npuarch property; a module with the
    property serves both `pypto.platform.npuarch` and `from pypto.platform import platform`."""

    @property
    def npuarch(self):
        """The NPU architecture name, a string: "DAV_2201" (A2/A3-like) or "DAV_3510" (950-like)."""
        return npu_arch()

    @npuarch.setter
    def npuarch(self, value):
        # PyPTO retargets its compiler this way. Here the machine is the simulator's, chosen before the run, so
        # accepting the value would make kernels take one chip's branches while running on another.
        file, line, _ = user_location()
        raise KernelError(f"pypto.platform.npuarch cannot be set to {value!r} here: it follows the simulated "
                          f"machine, which PTO_MACHINE chooses (PTO_MACHINE=950 for DAV_3510, a2 or a3 for "
                          f"DAV_2201)", file, line)


def _platform():
    module = _PlatformModule("pypto.platform", "The NPU architecture of the simulated machine (npuarch).")
    return _register(module, {"platform": module, "npu_arch": npu_arch})


# --- pypto.pypto_impl ----------------------------------------------------------------------------------------

def _internal_binding(name):
    """What any pypto.pypto_impl.<name> is: a callable that fails at the call, naming it."""
    if name.startswith("__"):
        raise AttributeError(name)  # module protocol lookups (__path__, __file__, ...) find nothing

    def binding(*args, **kwargs):
        file, line, column = user_location()
        raise KernelError(f"pypto.pypto_impl.{name} is PyPTO's internal C++ binding, which PTO Studio does not "
                          f"have; use the public pypto operations instead", file, line, column)
    binding.__name__ = name
    binding.__qualname__ = f"pypto_impl.{name}"
    return binding


def GetCompilerMonitorTotalElapsed():  # noqa: N802 - PyPTO's name
    """PyPTO's compiler monitor: the seconds the last compilation took. Here, the seconds the latest kernel call
    spent tracing and compiling (GLM's MoE test checks its kernel compiles within 30 s)."""
    from . import _jit
    return _jit.last_compile_seconds()


def _pypto_impl():
    module = types.ModuleType("pypto.pypto_impl", "PyPTO's internal C++ binding: GetCompilerMonitorTotalElapsed "
                                                  "answers; every other member fails when called.")
    from ._conv import ConvReLuType, TileL0Info, TileL1Info
    return _register(module, {"__getattr__": _internal_binding,
                              "GetCompilerMonitorTotalElapsed": GetCompilerMonitorTotalElapsed,
                              "TileL1Info": TileL1Info, "TileL0Info": TileL0Info, "ConvReLuType": ConvReLuType})


# --- pypto.operation -----------------------------------------------------------------------------------------

def op_wrapper(function):
    """PyPTO's decorator that converts its operations' arguments and results to and from its C++ binding.
    pypto's tensors need no conversion, so it returns the function as it is."""
    return function


_OPERATION_NAMES = ("assemble", "atomic_add", "clone", "max", "min", "reshape", "unsqueeze", "view")


def _operation(package):
    module = types.ModuleType("pypto.operation", "PyPTO's pypto.operation: op_wrapper and the view, reshape and "
                                                 "assemble family, the same functions as pypto's own.")
    names = {name: package[name] for name in _OPERATION_NAMES}
    names["op_wrapper"] = op_wrapper
    return _register(module, names)


# --- pypto.experimental --------------------------------------------------------------------------------------

def _experimental_module():
    module = types.ModuleType("pypto.experimental", _experimental.__doc__)
    return _register(module, _experimental.public_names())


# --- pypto.runtime -------------------------------------------------------------------------------------------

def _device_synchronize():
    """PyPTO's `pypto.runtime._device_synchronize()` waits until the device has run every kernel launched on the
    current stream (its model test scripts call it before reading outputs). A kernel call here returns after the
    simulation has written its outputs, so there is never anything left to wait for."""
    return None


def _runtime(package):
    module = types.ModuleType("pypto.runtime", "PyPTO's pypto.runtime: RunMode, set_verify_golden_data and "
                              "_device_synchronize (nothing to wait for: kernel calls return when done).")
    names = {name: package[name] for name in ("RunMode", "set_verify_golden_data")}
    names["_device_synchronize"] = _device_synchronize
    module = _register(module, names)
    return module


def install(package):
    """Makes the submodules and returns them by name, for the package to bind (`package` is its globals:
    pypto.operation re-exports the package's own functions)."""
    return {"experimental": _experimental_module(), "operation": _operation(package), "platform": _platform(),
            "pypto_impl": _pypto_impl(), "runtime": _runtime(package)}
