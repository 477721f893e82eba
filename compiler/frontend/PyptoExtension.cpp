// `_pypto_core` as an importable extension module, for plain Python scripts
// (PYTHONPATH=build/release/python python3 -c "import pypto").
#include "compiler/frontend/PyptoCoreModule.h"

PYBIND11_MODULE(_pypto_core, module) { pto::definePyptoCoreModule(module); }
