// The matmul kernel: 2-D and batched (broadcast batch dims) products with optional operand transposes.
// Float operands multiply in fp32 with fp32 accumulation (Eigen's GEMM), after rounding to TF32 when the op asks
// for it (Tf32.h); integer operands accumulate in int64 modulo 2^64, which an int32 out_dtype wraps exactly as
// int32 accumulation would.
#include "compiler/reference/Arithmetic.h"
#include "compiler/reference/ElementAccess.h"
#include "compiler/reference/ReferenceKernels.h"
#include "compiler/reference/Tf32.h"

#include <Eigen/Dense>

namespace pto::reference {
namespace {

using RowMajorMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct MatmulShape {
  std::int64_t aRows = 0, aCols = 0, bRows = 0, bCols = 0;
  std::int64_t m = 0, k = 0, n = 0;
  bool aTrans = false, bTrans = false;
  Tf32Rounding tf32 = Tf32Rounding::None;
};

void multiplyFloat(const float* a, const float* b, float* c, const MatmulShape& s) {
  const Eigen::Map<const RowMajorMatrix> matA(a, s.aRows, s.aCols);
  const Eigen::Map<const RowMajorMatrix> matB(b, s.bRows, s.bCols);
  Eigen::Map<RowMajorMatrix> matC(c, s.m, s.n);
  if (!s.aTrans && !s.bTrans) matC.noalias() = matA * matB;
  else if (s.aTrans && !s.bTrans) matC.noalias() = matA.transpose() * matB;
  else if (!s.aTrans && s.bTrans) matC.noalias() = matA * matB.transpose();
  else matC.noalias() = matA.transpose() * matB.transpose();
}

template <typename C> void multiplyInteger(const C* a, const C* b, C* c, const MatmulShape& s) {
  using Arith = IntegerArithmetic<C>;
  for (std::int64_t i = 0; i < s.m * s.n; ++i) c[i] = 0;
  for (std::int64_t i = 0; i < s.m; ++i) {
    for (std::int64_t p = 0; p < s.k; ++p) {
      const C left = s.aTrans ? a[p * s.aCols + i] : a[i * s.aCols + p];
      for (std::int64_t j = 0; j < s.n; ++j) {
        const C right = s.bTrans ? b[j * s.bCols + p] : b[p * s.bCols + j];
        c[i * s.n + j] = Arith::add(c[i * s.n + j], Arith::mul(left, right));
      }
    }
  }
}

template <typename C>
void matmulTyped(KernelCall& call, const MatmulShape& s, const Shape& batch, const std::vector<std::int64_t>& aStrides,
                 const std::vector<std::int64_t>& bStrides) {
  std::vector<C> a = loadAs<C>(call.inputs[0]);
  std::vector<C> b = loadAs<C>(call.inputs[1]);
  if constexpr (std::is_same_v<C, float>) {
    roundToTf32(a.data(), a.size(), s.tf32);
    roundToTf32(b.data(), b.size(), s.tf32);
  }
  std::vector<C> c(static_cast<std::size_t>(call.outputs[0].elementCount()));
  const std::int64_t aMatrix = s.aRows * s.aCols, bMatrix = s.bRows * s.bCols, cMatrix = s.m * s.n;
  forEachBroadcast<2>(batch, {&aStrides, &bStrides}, [&](std::int64_t i, const std::array<std::int64_t, 2>& at) {
    const C* aPtr = a.data() + at[0] * aMatrix;
    const C* bPtr = b.data() + at[1] * bMatrix;
    C* cPtr = c.data() + i * cMatrix;
    if constexpr (std::is_same_v<C, float>) multiplyFloat(aPtr, bPtr, cPtr, s);
    else multiplyInteger(aPtr, bPtr, cPtr, s);
  });
  storeFrom(call.outputs[0], c);
}

} // namespace

bool runMatmul(KernelCall& call) {
  const HostTensor& a = call.inputs[0];
  const HostTensor& b = call.inputs[1];
  if (a.rank() < 2 || b.rank() < 2)
    return call.fail() << "needs matrices (rank >= 2), got " << a.shape().str() << " and " << b.shape().str();
  if (a.dtype() != b.dtype())
    return call.fail() << "operand dtypes differ (" << name(a.dtype()) << " and " << name(b.dtype()) << ")";
  MatmulShape s;
  s.aTrans = call.attr<bool>("a_trans") && *call.attr<bool>("a_trans");
  s.bTrans = call.attr<bool>("b_trans") && *call.attr<bool>("b_trans");
  if (const auto* mode = call.attr<std::string>("tf32")) s.tf32 = tf32RoundingNamed(*mode);
  s.aRows = a.shape()[a.rank() - 2];
  s.aCols = a.shape()[a.rank() - 1];
  s.bRows = b.shape()[b.rank() - 2];
  s.bCols = b.shape()[b.rank() - 1];
  s.m = s.aTrans ? s.aCols : s.aRows;
  s.k = s.aTrans ? s.aRows : s.aCols;
  const std::int64_t kb = s.bTrans ? s.bCols : s.bRows;
  s.n = s.bTrans ? s.bRows : s.bCols;
  if (s.k != kb)
    return call.fail() << "inner dims differ: " << a.shape().str() << (s.aTrans ? " (transposed)" : "") << " @ "
                       << b.shape().str() << (s.bTrans ? " (transposed)" : "") << " has k = " << s.k << " vs " << kb;
  const Shape aBatch(std::vector<std::int64_t>(a.shape().begin(), a.shape().end() - 2));
  const Shape bBatch(std::vector<std::int64_t>(b.shape().begin(), b.shape().end() - 2));
  const std::optional<Shape> batch = broadcastShape(aBatch, bBatch);
  if (!batch) return call.fail() << "batch dims " << aBatch.str() << " and " << bBatch.str() << " do not broadcast";
  std::vector<std::int64_t> outDims = batch->dims();
  outDims.push_back(s.m);
  outDims.push_back(s.n);
  if (!call.expectOutputShape(0, Shape(outDims))) return false;
  // Batch strides count whole matrices.
  const std::vector<std::int64_t> aStrides = broadcastStrides(aBatch, *batch);
  const std::vector<std::int64_t> bStrides = broadcastStrides(bBatch, *batch);
  visitComputeType(a.dtype(), [&](auto tag) { matmulTyped<decltype(tag)>(call, s, *batch, aStrides, bStrides); });
  return true;
}

} // namespace pto::reference
