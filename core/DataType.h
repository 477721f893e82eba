// Element types of tensors: the list, their sizes, names and parsing.
#pragma once

#include "core/XMacroEnum.h"

#include <cstddef>
#include <optional>
#include <string_view>

namespace pto {

// X(enumerator, canonical name, PyPTO name, bytes, isFloat, isSigned)
// The canonical name is numpy's spelling (what .npy files and the project
// file use); the PyPTO name is the `pypto.DT_*` constant.
#define PTO_FOR_EACH_DATA_TYPE(X)                  \
  X(Fp32, "float32", "DT_FP32", 4, true, true)    \
  X(Fp16, "float16", "DT_FP16", 2, true, true)    \
  X(Bf16, "bfloat16", "DT_BF16", 2, true, true)   \
  X(Int8, "int8", "DT_INT8", 1, false, true)      \
  X(Int16, "int16", "DT_INT16", 2, false, true)   \
  X(Int32, "int32", "DT_INT32", 4, false, true)   \
  X(Int64, "int64", "DT_INT64", 8, false, true)   \
  X(UInt8, "uint8", "DT_UINT8", 1, false, false)  \
  X(UInt16, "uint16", "DT_UINT16", 2, false, false) \
  X(UInt32, "uint32", "DT_UINT32", 4, false, false) \
  X(UInt64, "uint64", "DT_UINT64", 8, false, false) \
  X(Bool, "bool", "DT_BOOL", 1, false, false)

PTO_DECLARE_XMACRO_ENUM(DataType, unsigned char, PTO_FOR_EACH_DATA_TYPE);

// Size of one element in bytes (bool is stored as one byte, as numpy does).
std::size_t sizeOf(DataType type);
// Canonical (numpy-style) name: "float32", "bfloat16", ...
std::string_view name(DataType type);
// PyPTO constant name: "DT_FP32", ...
std::string_view pyptoName(DataType type);
bool isFloatingPoint(DataType type);
bool isSigned(DataType type);

// Accepts the canonical name, the PyPTO name (with or without "DT_"), and the
// common short spellings "fp32", "fp16", "bf16", "f32", "half", "float",
// case-insensitively. Returns nullopt for anything else.
std::optional<DataType> parseDataType(std::string_view text);

// The list of accepted canonical names, for error messages ("expected one of ...").
std::string_view dataTypeNameList();

} // namespace pto
