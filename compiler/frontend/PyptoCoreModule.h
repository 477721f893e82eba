// The C++ half of the `pypto` Python package (module `_pypto_core`): symbolic
// scalars, the graph builder the tracer drives, and running a traced graph.
// Defined once here and registered twice: built into the embedding
// executables (PYBIND11_EMBEDDED_MODULE) and as an importable extension for
// plain Python scripts.
#pragma once

#include <pybind11/pybind11.h>

namespace pto {

void definePyptoCoreModule(pybind11::module_& module);

} // namespace pto
