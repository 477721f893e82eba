// Fuzzes the machine-description loader (parseMachine: resources/machines and
// the user's own files on PTO_MACHINES_PATH): any bytes give a machine or
// located errors, and the cost formulas of a machine that loads stay defined
// (no overflow, no out-of-range conversion) for ordinary tile sizes.
#include "FuzzSupport.h"

#include "npusim/MachineFile.h"

#include <cstddef>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pto;
  constexpr fuzz::OutcomeRules kRules{.exactlyOneError = false, .diagnosticsHaveLines = true};

  DiagnosticEngine diags;
  std::optional<MachineDescription> machine = parseMachine(fuzz::asText(data, size), "fuzz_machine.json", diags);
  fuzz::checkOutcome("parseMachine", machine.has_value(), diags, kRules);
  if (!machine) return 0;

  // What the compiler and the timing model ask of every machine.
  static_cast<void>(machine->targetInfo());
  static_cast<void>(machine->sustainedGmBytesPerCycle());
  constexpr std::int64_t kTileBytes = 64 * 1024;
  for (std::size_t path = 0; path < kDataPathCount; ++path)
    static_cast<void>(machine->transferCycles(static_cast<DataPath>(path), kTileBytes));
  for (std::size_t opClass = 0; opClass < kVectorOpClassCount; ++opClass)
    static_cast<void>(machine->vectorCycles(static_cast<VectorOpClass>(opClass), kTileBytes));
  for (DataType dtype : {DataType::Fp16, DataType::Bf16, DataType::Fp32, DataType::Int8})
    static_cast<void>(machine->cubeMatmulCycles(128, 256, 128, dtype));
  return 0;
}
