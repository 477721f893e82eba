// Graphs the benchmarks share, so that compile and simulate numbers are about the same kernel.
#pragma once

#include "compiler/ir/TensorGraphBuilder.h"

namespace pto {

// A lightning-indexer-sized kernel: [4*64, 128] x [128, 64K] fp16 scores cut
// into 128x128 blocks with k in one step (2 * 512 = 1 024 matmul tiles), then
// a row max over the result.
inline TensorGraph indexerSizedGraph() {
  TensorGraphBuilder builder("indexer", SourceLocation{"indexer.py", 1, 0});
  builder.beginPath();
  SourceLocation at{"indexer.py", 2, 0};
  std::int64_t queries = 256, dim = 128, keys = 65536;
  TensorId q = builder.addArgument("q", DataType::Fp16, {SymbolicScalar(queries), SymbolicScalar(dim)}, at);
  TensorId k = builder.addArgument("k", DataType::Fp16, {SymbolicScalar(dim), SymbolicScalar(keys)}, at);
  TensorId out = builder.addArgument("out", DataType::Fp32, {SymbolicScalar(queries), SymbolicScalar(1)}, at);
  builder.setCubeTile(CubeTileShape{128, 128, 128, 128, 128, 128, 128, false}, at);
  TensorId scores = builder.addOp(TensorOpKind::Matmul, {q, k}, {{"out_dtype", DataType::Fp32}}, at).outputs[0];
  builder.setVecTile({16, 2048}, at);
  TensorId best =
      builder.addOp(TensorOpKind::Amax, {scores}, {{"dims", std::vector<std::int64_t>{1}}, {"keepdim", true}}, at).outputs[0];
  builder.addOp(TensorOpKind::Assemble, {best}, {{"offsets", SymbolicShape{0, 0}}}, at, {out});
  return builder.finish();
}

} // namespace pto
