"""Lightning Indexer of DeepSeek-V3.2-Exp, decode: the 2048 most relevant cached keys for each query token.

For query token t of request b, with L = kv_lengths[b] keys in the paged cache (key j is row j % 128 of
block block_table[b, j // 128]):

    score[t, j] = k_scale[j] * sum_h w[t, h] * q_scale[t, h] * ReLU(q[t, h, :] . k[j, :])     (int8 dot, int32)

for j < L and -inf for j >= L, and topk_indices[t] holds the 2048 positions with the largest scores, largest
first. A request with fewer than 2048 keys fills the slots after its L keys with -1.

Work per request: one cube task per KV block (all heads of all the request's tokens against 128 keys), one
vector task per block that weighs, sums over heads, scales and masks, one vector task per unused block that
writes -inf, then one top-k task per query token once its row is complete.
"""
import pypto

BLOCK = 128      # keys per paged KV-cache block
HEADS = 64       # indexer heads
DIM = 128        # indexer head dim
TOPK = 2048      # keys kept per query token
NEG_INF = float("-inf")


@pypto.frontend.jit
def lightning_indexer(query: pypto.Tensor([pypto.STATIC, HEADS, DIM], pypto.DT_INT8),
                      query_scale: pypto.Tensor([pypto.STATIC, HEADS], pypto.DT_FP16),
                      key_cache: pypto.Tensor([pypto.DYNAMIC, BLOCK, 1, DIM], pypto.DT_INT8),
                      key_scale: pypto.Tensor([pypto.DYNAMIC, BLOCK, 1], pypto.DT_FP16),
                      weights: pypto.Tensor([pypto.STATIC, HEADS], pypto.DT_FP16),
                      kv_lengths: pypto.Tensor([pypto.STATIC], pypto.DT_INT32),
                      block_table: pypto.Tensor([pypto.STATIC, pypto.STATIC], pypto.DT_INT32),
                      scores: pypto.Tensor([pypto.STATIC, pypto.STATIC], pypto.DT_FP32),
                      topk_indices: pypto.Tensor([pypto.STATIC, TOPK], pypto.DT_INT32)):
    # scores is [tokens, max_blocks * BLOCK]; every element is written (scores or -inf).
    tokens = query.shape[0]
    batch = kv_lengths.shape[0]
    max_blocks = block_table.shape[1]
    per_request = tokens // batch      # query tokens of one request (1 + MTP draft tokens)
    rows = per_request * HEADS         # one matmul row per (token, head) of a request
    q = pypto.reshape(query, [tokens * HEADS, DIM])
    keys = pypto.reshape(key_cache, [key_cache.shape[0] * BLOCK, DIM])
    k_scale = pypto.reshape(key_scale, [key_scale.shape[0], BLOCK])

    pypto.set_semantic_label("positions")
    pypto.set_vec_tile_shapes(BLOCK)
    offset_in_block = pypto.reshape(pypto.arange(BLOCK), [1, BLOCK])

    for b in pypto.loop(0, batch, 1, name="request", idx_name="b"):
        length = kv_lengths[b]
        blocks = (length + BLOCK - 1) // BLOCK

        # Per (token, head): the head's gate times the query's dequant scale, as a column for broadcasting.
        pypto.set_semantic_label("head_weight")
        pypto.set_vec_tile_shapes(per_request, HEADS)
        head_weight = pypto.mul(
            pypto.cast(pypto.view(query_scale, [per_request, HEADS], [b * per_request, 0]), pypto.DT_FP32),
            pypto.cast(pypto.view(weights, [per_request, HEADS], [b * per_request, 0]), pypto.DT_FP32))
        head_weight = pypto.reshape(head_weight, [rows, 1])

        for i in pypto.loop(0, blocks, 1, name="kv_block", idx_name="i"):
            block = block_table[b, i]

            pypto.set_semantic_label("qk")
            pypto.set_cube_tile_shapes([128, 128], [128, 128], [128, 128])
            q_b = pypto.view(q, [rows, DIM], [b * rows, 0])
            k_b = pypto.view(keys, [BLOCK, DIM], [block * BLOCK, 0])
            logits = pypto.matmul(q_b, k_b, pypto.DT_INT32, b_trans=True)

            # The ReLU could ride the cube's fixpipe (extend_params relu_type); on a2 that is vector work
            # anyway, so it is written here, where the swimlane shows it as part of this step.
            pypto.set_semantic_label("weigh")
            # Half the heads per tile: with 4 tokens per request the step's tiles then just fit a2's 192 KB
            # unified buffer; whole-head tiles overflow it.
            pypto.set_vec_tile_shapes(HEADS // 2, BLOCK)
            weighted = pypto.relu(pypto.cast(logits, pypto.DT_FP32)) * head_weight
            key_weight = pypto.cast(pypto.view(k_scale, [1, BLOCK], [block, 0]), pypto.DT_FP32)
            # Only the last block can be partial: its keys past the length get -inf.
            in_range = offset_in_block < length - i * BLOCK
            for s in range(per_request):   # unrolled: per_request is known when tracing
                summed = pypto.sum(pypto.view(weighted, [HEADS, BLOCK], [s * HEADS, 0]), dim=0, keepdim=True)
                token_scores = pypto.where(in_range, summed * key_weight, NEG_INF)
                pypto.assemble(token_scores, [b * per_request + s, i * BLOCK], scores)

        # Blocks past the length are never read; -inf there keeps them out of the top-k.
        pypto.set_semantic_label("pad")
        pypto.set_vec_tile_shapes(per_request, BLOCK)
        for i in pypto.loop(blocks, max_blocks, 1, name="pad_block", idx_name="i"):
            pypto.assemble(pypto.full([per_request, BLOCK], NEG_INF), [b * per_request, i * BLOCK], scores)

    pypto.set_semantic_label("topk")
    pypto.set_vec_tile_shapes(1, TOPK)
    for t in pypto.loop(0, tokens, 1, name="token", idx_name="t"):
        row = pypto.view(scores, [1, max_blocks * BLOCK], [t, 0])
        values, index = pypto.topk(row, TOPK, dim=-1, largest=True)
        # With fewer than TOPK keys the remaining slots found only -inf; they hold -1.
        topk_indices[t:t + 1, :] = pypto.where(values > NEG_INF, index, -1)
