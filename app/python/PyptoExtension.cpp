// `_pypto_core` as an importable extension module, for plain Python scripts
// (PYTHONPATH=build/release/python python3 -c "import pypto"). Unlike the
// embedded copy inside pto (which only traces kernels), calling a kernel here
// compiles and simulates it, so the module registers the simulator's run.
#include "analysis/simulation/KernelCall.h"
#include "compiler/frontend/KernelRunner.h"
#include "compiler/frontend/PyptoCoreModule.h"

PYBIND11_MODULE(_pypto_core, module) {
  pto::definePyptoCoreModule(module);
  pto::setKernelRunner(pto::runKernelCall);
}
