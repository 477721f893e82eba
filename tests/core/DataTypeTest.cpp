// DataType tables and parsing.
#include "core/DataType.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <utility>

namespace pto {
namespace {

TEST(DataType, SizesMatchNumpy) {
  using enum DataType;
  const std::pair<DataType, std::size_t> numpyItemsizes[] = {
      {Fp32, 4},  {Fp16, 2},  {Bf16, 2},   {Int8, 1},   {Int16, 2},  {Int32, 4},
      {Int64, 8}, {UInt8, 1}, {UInt16, 2}, {UInt32, 4}, {UInt64, 8}, {Bool, 1}};
  for (const auto& [type, bytes] : numpyItemsizes) EXPECT_EQ(sizeOf(type), bytes) << name(type);
}

TEST(DataType, EveryNameParsesBackToItsType) {
  for (std::size_t i = 0; i < kDataTypeCount; ++i) {
    auto type = static_cast<DataType>(i);
    EXPECT_EQ(parseDataType(name(type)), type) << name(type);
    EXPECT_EQ(parseDataType(pyptoName(type)), type) << pyptoName(type);
  }
}

TEST(DataType, AcceptsCommonSpellings) {
  EXPECT_EQ(parseDataType("fp32"), DataType::Fp32);
  EXPECT_EQ(parseDataType("FP16"), DataType::Fp16);
  EXPECT_EQ(parseDataType("bf16"), DataType::Bf16);
  EXPECT_EQ(parseDataType("pypto.DT_INT8"), DataType::Int8);
  EXPECT_EQ(parseDataType("uint64"), DataType::UInt64);
  EXPECT_EQ(parseDataType("half"), DataType::Fp16);
}

TEST(DataType, RejectsUnknownNames) {
  EXPECT_FALSE(parseDataType("float8"));
  EXPECT_FALSE(parseDataType(""));
  EXPECT_FALSE(parseDataType("DT_"));
  EXPECT_FALSE(parseDataType("int"));
}

TEST(DataType, Classification) {
  EXPECT_TRUE(isFloatingPoint(DataType::Bf16));
  EXPECT_FALSE(isFloatingPoint(DataType::Int32));
  EXPECT_TRUE(isSigned(DataType::Int8));
  EXPECT_FALSE(isSigned(DataType::UInt8));
  EXPECT_EQ(dataTypeNameList(),
            "float32, float16, bfloat16, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool");
}

} // namespace
} // namespace pto
