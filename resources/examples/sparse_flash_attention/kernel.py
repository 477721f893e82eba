"""Sparse flash attention of DeepSeek-V3.2-Exp, decode, MLA-absorbed: every query token attends only to the
cached tokens the Lightning Indexer picked for it (2048 in the model).

For query token t of request b, with L = kv_lengths[b] tokens in the paged cache (position p is row p % 128 of
block block_table[b, p // 128]) and the k positions idx = topk_indices[t] (k = topk_indices.shape[1]):

    K = the cache rows at idx, [k, 576] (512 latent dims, then 64 rope dims)      V = K[:, :512]
    s[h, i] = q[t, h, :] . K[i, :] / sqrt(576)   where 0 <= idx[i] < L, else -inf     (128 heads)
    out[t, h, :] = softmax(s[h, :]) @ V                                             (fp32 sums, fp16 out)

Slot i is unused when idx[i] is -1 (the indexer writes -1 when L < k) or otherwise outside [0, L).

Per query token the k slots are taken 64 at a time, flash-attention style. Each step gathers its 64 cache
rows, scores them, and weights them against its own row maximum; a running maximum, running sum and running
accumulator, rescaled whenever the maximum grows, fold the steps together. Only that fold is serial.
"""
import math

import pypto

BLOCK = 128                 # tokens per paged KV-cache block
HEADS = 128                 # query heads; absorbed MLA gives them all the one latent KV head
NOPE = 512                  # latent dims: the part of a key that is also its value
ROPE = 64                   # rotary dims
DIM = NOPE + ROPE           # 576
TILE = 64                   # selected slots per flash-attention step
SCALE = 1.0 / math.sqrt(DIM)
# Added to the score of an unused slot. It is finite, unlike -inf, so a step whose 64 slots are all unused
# still has a finite maximum and no inf - inf = NaN can arise. Against any step with a real key, such a step's
# weights are then rescaled by exp(-1e30 - m) = 0.
MASKED = -1e30
ROW_GROUP = 16              # heads per vector tile of the [128, 512] accumulator; 32 needs 1 KiB more than UB has


def step_softmax(scores, bias, scope):
    """One step's scaled and masked scores [128, 64] -> (row max, row sum, fp16 weights for P @ V), in a
    subgraph of its own (sg_set_scope `scope`)."""
    pypto.set_semantic_label("softmax")
    pypto.set_pass_options(sg_set_scope=scope)
    pypto.set_vec_tile_shapes(HEADS, TILE)
    scores = scores * SCALE + bias
    step_max = pypto.amax(scores, dim=-1, keepdim=True)                       # [128, 1]
    weights = pypto.exp(scores - step_max)
    step_sum = pypto.sum(weights, dim=-1, keepdim=True)
    weights = pypto.cast(weights, pypto.DT_FP16)
    pypto.set_pass_options(sg_set_scope=-1)
    return step_max, step_sum, weights


def fold_step(running, step_max, step_sum, step_out):
    """The online softmax's fold: the running (max, sum, accumulator) after one more step, rescaled to the new
    maximum; `running` is None before the first step."""
    pypto.set_semantic_label("update")
    pypto.set_vec_tile_shapes(ROW_GROUP, NOPE)
    if running is None:
        return step_max, step_sum, step_out
    run_max, run_sum, acc = running
    new_max = pypto.maximum(run_max, step_max)
    old_factor = pypto.exp(run_max - new_max)
    step_factor = pypto.exp(step_max - new_max)
    return new_max, run_sum * old_factor + step_sum * step_factor, acc * old_factor + step_out * step_factor


@pypto.frontend.jit
def sparse_flash_attention(query: pypto.Tensor([pypto.STATIC, HEADS, DIM], pypto.DT_FP16),
                           kv_cache: pypto.Tensor([pypto.DYNAMIC, BLOCK, 1, DIM], pypto.DT_FP16),
                           block_table: pypto.Tensor([pypto.STATIC, pypto.STATIC], pypto.DT_INT32),
                           kv_lengths: pypto.Tensor([pypto.STATIC], pypto.DT_INT32),
                           topk_indices: pypto.Tensor([pypto.STATIC, pypto.STATIC], pypto.DT_INT32),
                           attention_out: pypto.Tensor([pypto.STATIC, HEADS, NOPE], pypto.DT_FP16)):
    tokens = query.shape[0]
    batch = kv_lengths.shape[0]
    per_request = tokens // batch          # query tokens of one request (1 + MTP draft tokens)
    slots = int(topk_indices.shape[1])     # 2048 in the model
    if slots % TILE:
        raise ValueError(f"topk_indices has {slots} columns; the kernel takes them {TILE} at a time")
    q = pypto.reshape(query, [tokens * HEADS, DIM])
    cache_rows = pypto.reshape(kv_cache, [kv_cache.shape[0] * BLOCK, DIM])
    # The output as rows of heads: its own bytes (inplace), so writing a token's [128, 512] rows writes it.
    out_rows = pypto.reshape(attention_out, [tokens * HEADS, NOPE], inplace=True)

    for t in pypto.loop(0, tokens, 1, name="token", idx_name="t"):
        b = t // per_request
        length = kv_lengths[b]
        q_t = pypto.view(q, [HEADS, DIM], [t * HEADS, 0])
        # A Python loop, unrolled while tracing: the running max, sum and accumulator are Python values that
        # each step hands to the next.
        for j in range(slots // TILE):
            # sg_set_scope gives each step's gather one subgraph, hence one task (without it every row copy
            # is a task of its own), and the step's softmax one of its own. Left alone, the partitioner puts
            # the previous step's update arithmetic into the softmax task, and then every softmax waits for
            # the serial chain.
            gather_scope, softmax_scope = 2 * j, 2 * j + 1

            pypto.set_semantic_label("gather")
            pypto.set_pass_options(sg_set_scope=gather_scope)
            pypto.set_vec_tile_shapes(1, TILE)
            idx = pypto.view(topk_indices, [1, TILE], [t, j * TILE])
            bias = pypto.where(idx >= 0, pypto.where(idx < length, 0.0, MASKED), MASKED)
            # Each slot's position is read as a scalar, like the block-table entry it leads to. Unused slots
            # are clamped into [0, L), so their copies stay inside the request's blocks; the bias drops them.
            pypto.set_vec_tile_shapes(1, DIM)
            keys = pypto.tensor([TILE, DIM], pypto.DT_FP16, "selected_keys")
            for r in range(TILE):
                position = topk_indices[t, j * TILE + r].max(0).min(length - 1)
                block = block_table[b, position // BLOCK]
                row = pypto.view(cache_rows, [1, DIM], [block * BLOCK + position % BLOCK, 0])
                pypto.assemble(row, [r, 0], keys)
            pypto.set_pass_options(sg_set_scope=-1)

            pypto.set_semantic_label("qk")
            pypto.set_cube_tile_shapes([128, 128], [192, 576], [64, 64])
            scores = pypto.matmul(q_t, keys, pypto.DT_FP32, b_trans=True)             # [128, 64]

            step_max, step_sum, weights = step_softmax(scores, bias, softmax_scope)

            pypto.set_semantic_label("pv")
            pypto.set_cube_tile_shapes([128, 128], [64, 64], [256, 512])
            values = pypto.view(keys, [TILE, NOPE], [0, 0])
            step_out = pypto.matmul(weights, values, pypto.DT_FP32)                   # [128, 512]

            running = fold_step(None if j == 0 else running, step_max, step_sum, step_out)

        _, run_sum, acc = running
        pypto.set_semantic_label("normalize")
        pypto.assemble(pypto.cast(acc / run_sum, pypto.DT_FP16), [t * HEADS, 0], out_rows)
