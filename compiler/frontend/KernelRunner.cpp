#include "compiler/frontend/KernelRunner.h"

namespace pto {
namespace {

KernelRunner& registeredRunner() {
  static KernelRunner runner;
  return runner;
}

} // namespace

void setKernelRunner(KernelRunner runner) { registeredRunner() = std::move(runner); }
const KernelRunner& kernelRunner() { return registeredRunner(); }

} // namespace pto
