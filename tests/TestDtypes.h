// Short names for the dtypes the compiler tests write kernels in, shared so
// that the test files of one executable can be compiled as one unit.
#pragma once

#include "core/DataType.h"

namespace pto::testing {

inline constexpr DataType kF32 = DataType::Fp32;
inline constexpr DataType kF16 = DataType::Fp16;

} // namespace pto::testing
