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

// for i in range(trips): o[32i:32i+32] = exp(q[32i:32i+32] @ k * 0.125) with
// q [32*trips, 64] and k [64, 64] fp16: per iteration a matmul (cube) into a
// temporary of its own and the vector work that reads it. Iterations share
// no data, so the tasks and their dependencies grow linearly with `trips`.
inline TensorGraph independentIterationsGraph(std::int64_t trips) {
  TensorGraphBuilder builder("scores_then_exp", SourceLocation{"scores.py", 1, 0});
  SourceLocation at{"scores.py", 2, 0};
  const std::int64_t rows = 32 * trips;
  TensorId q = builder.addArgument("q", DataType::Fp16, {SymbolicScalar(rows), SymbolicScalar(64)}, at);
  TensorId k = builder.addArgument("k", DataType::Fp16, {SymbolicScalar(64), SymbolicScalar(64)}, at);
  TensorId o = builder.addArgument("o", DataType::Fp32, {SymbolicScalar(rows), SymbolicScalar(64)}, at);
  builder.beginPath();
  builder.setCubeTile(CubeTileShape{32, 32, 64, 64, 64, 64, 64, false}, at);
  builder.setVecTile({32, 64}, at);
  LoopId loop = builder.beginLoop("rows", "i", 0, trips, 1, false, at);
  builder.beginLoopBody(loop, 1);
  builder.beginPath();
  SymbolicScalar row = SymbolicScalar::symbol(builder.loop(loop).indexSymbol) * 32;
  TensorId block =
      builder.addOp(TensorOpKind::View, {q}, {{"offsets", SymbolicShape{row, 0}}, {"shape", SymbolicShape{32, 64}}}, at).outputs[0];
  TensorId scores = builder.addOp(TensorOpKind::Matmul, {block, k}, {{"out_dtype", DataType::Fp32}}, at).outputs[0];
  TensorId scaled = builder.addOp(TensorOpKind::MulS, {scores}, {{"scalar", 0.125}}, at).outputs[0];
  TensorId exp = builder.addOp(TensorOpKind::Exp, {scaled}, {}, at).outputs[0];
  builder.addOp(TensorOpKind::Assemble, {exp}, {{"offsets", SymbolicShape{row, 0}}}, at, {o});
  builder.endPath();
  builder.endLoop(loop);
  builder.endPath();
  return builder.finish();
}

// Five exps and an assemble over a [rows, 256] fp32 tensor in [1, 64] tiles
// (kernel lines 3-7 and 2): 4 tile ops per row per op, so `rows` sweeps the
// tile-op count linearly.
inline TensorGraph vectorChainGraph(std::int64_t rows) {
  TensorGraphBuilder builder("chain", SourceLocation{"chain.py", 1, 0});
  builder.beginPath();
  SourceLocation at{"chain.py", 2, 0};
  TensorId x = builder.addArgument("x", DataType::Fp32, {SymbolicScalar(rows), SymbolicScalar(256)}, at);
  TensorId y = builder.addArgument("y", DataType::Fp32, {SymbolicScalar(rows), SymbolicScalar(256)}, at);
  builder.setVecTile({1, 64}, at);
  TensorId value = x;
  for (int i = 0; i < 5; ++i)
    value = builder.addOp(TensorOpKind::Exp, {value}, {}, SourceLocation{"chain.py", 3 + i, 0}).outputs[0];
  builder.addOp(TensorOpKind::Assemble, {value}, {{"offsets", SymbolicShape{0, 0}}}, at, {y});
  return builder.finish();
}

} // namespace pto
