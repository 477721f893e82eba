// Reading and writing numpy .npy files (format versions 1.0, 2.0 and 3.0).
//
// Choices where numpy offers none:
//  - bfloat16 has no numpy type. It is written with descr '|V2' (two raw
//    bytes, the bf16 bits, little-endian), which numpy loads as a void array
//    that `.view(ml_dtypes.bfloat16)` turns back into numbers; '|V2' and '<V2'
//    (what ml_dtypes arrays save as) are read as bfloat16.
//  - Big-endian data ('>' descr) is byte-swapped on read. Files are always
//    written little-endian.
//  - float64 ('<f8') is rejected: PTO tensors have no float64, and a silent
//    narrowing would hide a wrong reference. The message suggests
//    `.astype(np.float32)`.
//  - fortran_order True is rejected (save with np.ascontiguousarray), except
//    when at most one dimension exceeds 1, where both orders are the same bytes.
//  - Header dict keys other than descr/fortran_order/shape are ignored.
// Every malformed file gives exactly one error diagnostic located at the file,
// saying what is wrong and, where it helps, at which byte offset. Sizes are
// checked against the file's length before anything is allocated.
#pragma once

#include "core/DataType.h"
#include "core/Diagnostics.h"
#include "core/HostTensor.h"
#include "core/Shape.h"
#include "core/SourceLocation.h"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace pto {

// What a .npy header says, without the data.
struct NpyHeader {
  DataType dtype = DataType::Fp32;
  Shape shape;
  int majorVersion = 1;
  int minorVersion = 0;
  bool bigEndian = false;           // data is byte-swapped when read
  std::size_t dataOffsetBytes = 0;  // where the data starts
};

// Reads and checks the header only, including that the file holds exactly
// the data the header announces (from its size; the data is not read).
std::optional<NpyHeader> readNpyHeader(const std::filesystem::path& path, DiagnosticEngine& diags);
std::optional<HostTensor> readNpy(const std::filesystem::path& path, DiagnosticEngine& diags);

// The same on a whole file held in memory; diagnostics point at `where`.
std::optional<NpyHeader> readNpyHeaderFromBytes(std::string_view bytes, DiagnosticEngine& diags,
                                                const SourceLocation& where);
std::optional<HostTensor> readNpyFromBytes(std::string_view bytes, DiagnosticEngine& diags,
                                           const SourceLocation& where);

// Writes C order, little-endian, version 1.0 unless the header needs 2.0,
// with the data starting at a multiple of 64 bytes as numpy does. The file
// appears atomically (written beside it under a temporary name, then renamed).
bool writeNpy(const std::filesystem::path& path, const HostTensor& tensor, DiagnosticEngine& diags);
// The bytes writeNpy would write.
std::string writeNpyToBytes(const HostTensor& tensor);

// numpy's spelling of a shape, as in its messages: "(32, 32)", "(5,)", "()".
std::string pythonShapeStr(const Shape& shape);

} // namespace pto
