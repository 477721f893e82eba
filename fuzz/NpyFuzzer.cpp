// Fuzzes the .npy reader (readNpyHeaderFromBytes, readNpyFromBytes: argument
// data, goldens and outputs users point a project at): any bytes give a
// tensor or exactly one error, sizes are checked before anything is
// allocated, and a tensor read writes back (writeNpyToBytes) to bytes that
// read as the same tensor.
#include "FuzzSupport.h"

#include "core/Npy.h"

#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pto;
  constexpr fuzz::OutcomeRules kRules{.exactlyOneError = true, .diagnosticsHaveLines = false};
  const std::string_view bytes = fuzz::asText(data, size);
  const SourceLocation where{"fuzz.npy"};

  DiagnosticEngine headerDiags;
  std::optional<NpyHeader> header = readNpyHeaderFromBytes(bytes, headerDiags, where);
  fuzz::checkOutcome("readNpyHeaderFromBytes", header.has_value(), headerDiags, kRules);

  DiagnosticEngine diags;
  std::optional<HostTensor> tensor = readNpyFromBytes(bytes, diags, where);
  fuzz::checkOutcome("readNpyFromBytes", tensor.has_value(), diags, kRules);
  if (tensor && !header) fuzz::fail("readNpyFromBytes read a file whose header readNpyHeaderFromBytes refused", diags);
  if (!tensor) return 0;
  if (tensor->dtype() != header->dtype || tensor->shape() != header->shape)
    fuzz::fail("readNpyFromBytes and readNpyHeaderFromBytes disagree on dtype or shape", diags);

  const std::string written = writeNpyToBytes(*tensor);
  DiagnosticEngine rereadDiags;
  std::optional<HostTensor> reread = readNpyFromBytes(written, rereadDiags, where);
  if (!reread) fuzz::fail("a tensor that was read does not read back after writeNpyToBytes", rereadDiags);
  if (reread->dtype() != tensor->dtype() || reread->shape() != tensor->shape() ||
      reread->byteCount() != tensor->byteCount() ||
      (tensor->byteCount() > 0 && std::memcmp(reread->data(), tensor->data(), tensor->byteCount()) != 0))
    fuzz::fail("writeNpyToBytes then readNpyFromBytes changed the tensor", rereadDiags);
  return 0;
}
