// The initial contents of a kernel argument, made from its init spec.
#pragma once

#include "core/Diagnostics.h"
#include "core/HostTensor.h"
#include "core/SourceLocation.h"
#include "core/project/OperatorProject.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pto {

// A tensor of arg.dtype and `concreteShape` filled per arg.init:
//  - zeros.
//  - arange: 0, 1, 2, ... in C order, converted as HostTensor::setFromInt64
//    does (integer dtypes wrap, float dtypes round to nearest-even).
//  - uniform(low, high, seed): low + (high - low) * u with u in [0, 1) from
//    53 random bits, rounded to the dtype (a float value just below `high`
//    may round up to it); integer and bool dtypes floor the draw, which gives
//    integers in [low, high).
//  - normal(mean, std, seed): Box-Muller on the same uniform stream, rounded
//    to the dtype (integer dtypes truncate toward zero).
//  - npy: the file at `path` (relative to projectDir), whose dtype and shape
//    must equal the argument's.
// Random values come from our own xoshiro256** generator seeded through
// splitmix64, so uniform bits are the same on every machine for one seed.
// Normal draws also go through std::log, std::cos and std::sin, which the C
// standard does not require to be correctly rounded: another C library may
// differ in the last bit of a double, which after rounding to the dtype
// almost never changes a value.
// Errors point at `where` and name the argument "args[<argIndex>] '<name>'"
// (or "argument '<name>'" when argIndex is negative).
std::optional<HostTensor> makeArgumentData(const KernelArgument& arg, const std::vector<std::int64_t>& concreteShape,
                                           const std::filesystem::path& projectDir, DiagnosticEngine& diags,
                                           const SourceLocation& where, int argIndex = -1);

// How messages name an argument: "args[<argIndex>] '<name>'", or "argument '<name>'" when argIndex < 0.
std::string argumentLabel(const KernelArgument& arg, int argIndex);

} // namespace pto
