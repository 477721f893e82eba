"""Sparse flash attention of DeepSeek-V3.2-Exp (decode, MLA absorbed) with the selected keys gathered by tensor
index, in the two forms of PyPTO's DIA tuning story (README.md):

    through_workspace   gather_in_ub: each step's 64 rows go GM -> UB on a vector core, out to a GM workspace,
                        and the two matmuls load them from there (K for q.K, its first 512 columns as V)
    into_l1             gather_in_l1: the rows go GM -> L1 on the cube core, straight into the matmul that
                        uses them, once for q.K (576 columns) and once for P.V (512 columns)

The attention itself is ../sparse_flash_attention's: for query token t of request b, with L = kv_lengths[b],
the 64 slots of a step are masked where topk_indices[t, i] is -1 or past L, and an online softmax folds the
steps together. What differs is how a step's keys reach the cube: there the kernel copies them row by row
with scalar reads of the indices (which must then be known at launch); here the indices are tensor data, so
the same kernel works on top-k results computed in the same kernel (../deepseek_indexer_attention).
"""
import importlib.util
import os

import pypto
from pypto.experimental import gather_in_l1, gather_in_ub

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("gather_tuning_sfa_kernel",
                                               os.path.join(HERE, "..", "sparse_flash_attention", "kernel.py"))
SFA = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(SFA)

BLOCK, HEADS, NOPE, ROPE, DIM, TILE = SFA.BLOCK, SFA.HEADS, SFA.NOPE, SFA.ROPE, SFA.DIM, SFA.TILE
MASKED = SFA.MASKED


def attention(query, kv_cache, block_table, kv_lengths, topk_indices, attention_out, into_l1):
    tokens = query.shape[0]
    batch = kv_lengths.shape[0]
    per_request = tokens // batch
    slots = int(topk_indices.shape[1])
    if slots % TILE:
        raise ValueError(f"topk_indices has {slots} columns; the kernel takes them {TILE} at a time")
    max_blocks = block_table.shape[1]
    q = pypto.reshape(query, [tokens * HEADS, DIM])
    # The cache as rows without moving it; a gather from this alias reads kv_cache itself.
    cache_rows = pypto.reshape(kv_cache, [kv_cache.shape[0] * BLOCK, DIM], inplace=True)
    out_rows = pypto.reshape(attention_out, [tokens * HEADS, NOPE], inplace=True)

    for t in pypto.loop(0, tokens, 1, name="token", idx_name="t"):
        b = t // per_request
        length = kv_lengths[b]
        q_t = pypto.view(q, [HEADS, DIM], [t * HEADS, 0])
        table = pypto.view(block_table, [1, max_blocks], [b, 0])
        for j in range(slots // TILE):   # unrolled while tracing: the running values pass from step to step
            pypto.set_semantic_label("positions")
            pypto.set_vec_tile_shapes(1, TILE)
            idx = pypto.view(topk_indices, [1, TILE], [t, j * TILE])
            bias = pypto.where(idx >= 0, pypto.where(idx < length, 0.0, MASKED), MASKED)
            # A slot without a key (-1, or past L) reads position 0; the bias drops it.
            positions = pypto.where(idx < length, pypto.clip(idx, min=0), 0)

            pypto.set_semantic_label("gather")
            pypto.set_vec_tile_shapes(TILE, DIM)
            if into_l1:
                keys = gather_in_l1(cache_rows, positions, table, BLOCK, DIM, is_b_matrix=True, is_trans=True)
            else:
                keys = gather_in_ub(cache_rows, positions, table, BLOCK)

            pypto.set_semantic_label("qk")
            pypto.set_cube_tile_shapes([128, 128], [192, 576], [64, 64])
            scores = pypto.matmul(q_t, keys, pypto.DT_FP32, b_trans=True)             # [128, 64]

            step_max, step_sum, weights = SFA.step_softmax(scores, bias, j)

            if into_l1:
                pypto.set_semantic_label("gather")
                pypto.set_vec_tile_shapes(TILE, DIM)
                values = gather_in_l1(cache_rows, positions, table, BLOCK, NOPE, is_b_matrix=True)
            else:
                values = pypto.view(keys, [TILE, NOPE], [0, 0])
            pypto.set_semantic_label("pv")
            pypto.set_cube_tile_shapes([128, 128], [64, 64], [256, 512])
            step_out = pypto.matmul(weights, values, pypto.DT_FP32)                   # [128, 512]

            running = SFA.fold_step(None if j == 0 else running, step_max, step_sum, step_out)

        _, run_sum, acc = running
        pypto.set_semantic_label("normalize")
        pypto.assemble(pypto.cast(acc / run_sum, pypto.DT_FP16), [t * HEADS, 0], out_rows)


ARGS = dict(query=pypto.Tensor([pypto.STATIC, HEADS, DIM], pypto.DT_FP16),
            kv_cache=pypto.Tensor([pypto.DYNAMIC, BLOCK, 1, DIM], pypto.DT_FP16),
            block_table=pypto.Tensor([pypto.STATIC, pypto.STATIC], pypto.DT_INT32),
            kv_lengths=pypto.Tensor([pypto.STATIC], pypto.DT_INT32),
            topk_indices=pypto.Tensor([pypto.STATIC, pypto.STATIC], pypto.DT_INT32),
            attention_out=pypto.Tensor([pypto.STATIC, HEADS, NOPE], pypto.DT_FP16))


@pypto.frontend.jit
def through_workspace(query: ARGS["query"], kv_cache: ARGS["kv_cache"], block_table: ARGS["block_table"],
                      kv_lengths: ARGS["kv_lengths"], topk_indices: ARGS["topk_indices"],
                      attention_out: ARGS["attention_out"]):
    attention(query, kv_cache, block_table, kv_lengths, topk_indices, attention_out, into_l1=False)


@pypto.frontend.jit
def into_l1(query: ARGS["query"], kv_cache: ARGS["kv_cache"], block_table: ARGS["block_table"],
            kv_lengths: ARGS["kv_lengths"], topk_indices: ARGS["topk_indices"], attention_out: ARGS["attention_out"]):
    attention(query, kv_cache, block_table, kv_lengths, topk_indices, attention_out, into_l1=True)
