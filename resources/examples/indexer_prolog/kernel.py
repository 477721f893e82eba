"""Lightning Indexer prolog of DeepSeek-V3.2-Exp, decode: the int8 queries, keys and gates the Lightning Indexer
scores with, for T new tokens.

For token t (x[t] its hidden state, qr[t] the MLA prolog's normalised query latent) and each of 64 heads h:

    q[t, h]    = (qr[t] @ W_QB)[h * 128 : (h + 1) * 128]
    q[t, h]    = [RoPE(q[t, h, :64]) | q[t, h, 64:]] @ H          H: 128 x 128 Hadamard, entries +-1/sqrt(128)
    q_scale[t, h] = max|q[t, h]| / 127,   q_int8[t, h] = round(q[t, h] / q_scale[t, h])   (half to even)
    k[t]       = LayerNorm(x[t] @ W_K) * gamma + beta                                   [128]
    k[t]       = [RoPE(k[t, :64]) | k[t, 64:]] @ H,  quantised like a query row, into the paged key cache
                 (k_cache, k_scale_cache) at slot cache_index[t]
    weights[t] = (x[t] @ W_PROJ) / sqrt(64)                                             [64]

RoPE is the rotate-half form on the first 64 dims of a head, as DeepSeek-V3.2-Exp's indexer applies it: for
v = [v1 | v2] (32 + 32), RoPE(v) = [v1 * cos[:32] - v2 * sin[:32] | v2 * cos[32:] + v1 * sin[32:]]. Slot s is
row s % 128 of block s // 128. Matmuls take fp16 operands and accumulate in fp32; the norm, RoPE and the
quantisation run in fp32; the scale is rounded to fp16 before the values are divided by it, so
q_int8 * q_scale is the dequantised query. These are the Lightning Indexer example's query, query_scale,
key_cache, key_scale and weights.

Work: W_QB in 64 cube tasks of 128 columns (one head each), W_K and W_PROJ in 4 row panels each; then per token
one vector task for RoPE, one cube task for the Hadamard product of its 64 heads and one vector task that
quantises them; the keys of all tokens in one task per step, written to their slots one token at a time.
"""
import pypto

HIDDEN = 7168          # model width
Q_RANK = 1536          # q_lora_rank: the width of qr
HEADS = 64             # indexer heads
DIM = 128              # indexer head dim
ROPE = 64              # RoPE dims at the start of each head
HALF = ROPE // 2
BLOCK = 128            # slots per paged-cache block
EPS = 1e-6             # LayerNorm epsilon
WEIGHT_SCALE = HEADS ** -0.5
INT8_MAX = 127.0
K_SPLIT = 4            # row panels of W_K and W_PROJ, each its own cube task
K_PANEL = HIDDEN // K_SPLIT


def rope_halves(v, cos1, cos2, sin1, sin2):
    """Rotate-half RoPE of v [rows, 64] (fp32) with the tables' halves ([rows, 32], or [1, 32] for all rows):
    the two result halves."""
    rows = v.shape[0]
    v1 = pypto.view(v, [rows, HALF], [0, 0])
    v2 = pypto.view(v, [rows, HALF], [0, HALF])
    return v1 * cos1 - v2 * sin1, v2 * cos2 + v1 * sin2


def sum_of(parts):
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total


def quantise(v):
    """Symmetric int8 quantisation of each row of v [rows, 128] (fp32): (values, fp16 scale [rows, 1]). The
    values are divided by the scale as stored, so a row's largest value can land a hair past 127: the cast
    saturates."""
    scale = pypto.cast(pypto.amax(pypto.abs(v), dim=-1, keepdim=True) * (1.0 / INT8_MAX), pypto.DT_FP16)
    # Rounded to the nearest step (CAST_RINT): a cast to an integer without a mode truncates, as torch does.
    values = pypto.cast(v / pypto.cast(scale, pypto.DT_FP32), pypto.DT_INT8, pypto.CastMode.CAST_RINT,
                        satmode=pypto.SaturationMode.ON)
    return values, scale


@pypto.frontend.jit
def indexer_prolog(x: pypto.Tensor([pypto.STATIC, HIDDEN], pypto.DT_FP16),
                   qr: pypto.Tensor([pypto.STATIC, Q_RANK], pypto.DT_FP16),
                   w_qb: pypto.Tensor([Q_RANK, HEADS * DIM], pypto.DT_FP16),
                   w_k: pypto.Tensor([HIDDEN, DIM], pypto.DT_FP16),
                   w_proj: pypto.Tensor([HIDDEN, HEADS], pypto.DT_FP16),
                   ln_gamma: pypto.Tensor([DIM], pypto.DT_FP16),
                   ln_beta: pypto.Tensor([DIM], pypto.DT_FP16),
                   cos: pypto.Tensor([pypto.STATIC, ROPE], pypto.DT_FP16),
                   sin: pypto.Tensor([pypto.STATIC, ROPE], pypto.DT_FP16),
                   hadamard: pypto.Tensor([DIM, DIM], pypto.DT_FP16),
                   cache_index: pypto.Tensor([pypto.STATIC], pypto.DT_INT32),
                   k_cache: pypto.Tensor([pypto.DYNAMIC, BLOCK, 1, DIM], pypto.DT_INT8),
                   k_scale_cache: pypto.Tensor([pypto.DYNAMIC, BLOCK, 1], pypto.DT_FP16),
                   q_int8: pypto.Tensor([pypto.STATIC, HEADS, DIM], pypto.DT_INT8),
                   q_scale: pypto.Tensor([pypto.STATIC, HEADS], pypto.DT_FP16),
                   weights: pypto.Tensor([pypto.STATIC, HEADS], pypto.DT_FP16)):
    # k_cache and k_scale_cache are read and written: only the slots at cache_index change.
    tokens = x.shape[0]
    # Whole inputs seen in another shape are their own bytes (no copy, no task).
    gamma = pypto.reshape(ln_gamma, [1, DIM])
    beta = pypto.reshape(ln_beta, [1, DIM])

    pypto.set_semantic_label("rope_table")
    pypto.set_vec_tile_shapes(tokens, HALF)
    cos1 = pypto.cast(pypto.view(cos, [tokens, HALF], [0, 0]), pypto.DT_FP32)
    cos2 = pypto.cast(pypto.view(cos, [tokens, HALF], [0, HALF]), pypto.DT_FP32)
    sin1 = pypto.cast(pypto.view(sin, [tokens, HALF], [0, 0]), pypto.DT_FP32)
    sin2 = pypto.cast(pypto.view(sin, [tokens, HALF], [0, HALF]), pypto.DT_FP32)

    # The projections read 28 MB of weights, most of it W_QB: one head's 128 columns per cube task. W_K (256
    # bytes a row) and W_PROJ (128) are too narrow to split by columns without two tasks reading the same
    # 512-byte L2 lines, so they are split along k into K_SPLIT row panels whose fp32 sums are added after.
    pypto.set_cube_tile_shapes([tokens, tokens], [256, K_PANEL], [DIM, DIM])
    pypto.set_semantic_label("k_proj")
    k_parts = [pypto.matmul(pypto.view(x, [tokens, K_PANEL], [0, i * K_PANEL]),
                            pypto.view(w_k, [K_PANEL, DIM], [i * K_PANEL, 0]), pypto.DT_FP32) for i in range(K_SPLIT)]
    pypto.set_semantic_label("weights_proj")
    gate_parts = [pypto.matmul(pypto.view(x, [tokens, K_PANEL], [0, i * K_PANEL]),
                               pypto.view(w_proj, [K_PANEL, HEADS], [i * K_PANEL, 0]), pypto.DT_FP32)
                  for i in range(K_SPLIT)]
    pypto.set_semantic_label("q_up")
    pypto.set_cube_tile_shapes([tokens, tokens], [128, 512], [DIM, DIM])
    q = pypto.matmul(qr, w_qb, pypto.DT_FP16)

    pypto.set_semantic_label("weights")
    pypto.set_vec_tile_shapes(tokens, HEADS)
    weights[:] = pypto.cast(sum_of(gate_parts) * WEIGHT_SCALE, pypto.DT_FP16)

    # Keys: all tokens at once ([T, 128] is small).
    pypto.set_semantic_label("k_norm_rope")
    pypto.set_vec_tile_shapes(tokens, DIM)
    k = pypto.layer_norm(sum_of(k_parts), pypto.cast(gamma, pypto.DT_FP32), pypto.cast(beta, pypto.DT_FP32), EPS)
    pypto.set_vec_tile_shapes(tokens, HALF)
    k1, k2 = rope_halves(pypto.view(k, [tokens, ROPE], [0, 0]), cos1, cos2, sin1, sin2)
    k1 = pypto.cast(k1, pypto.DT_FP16)
    k2 = pypto.cast(k2, pypto.DT_FP16)
    pypto.set_vec_tile_shapes(tokens, DIM - ROPE)
    k_rest = pypto.cast(pypto.view(k, [tokens, DIM - ROPE], [0, ROPE]), pypto.DT_FP16)
    pypto.set_vec_tile_shapes(tokens, DIM)
    k_rot = pypto.concat([k1, k2, k_rest], dim=1)

    pypto.set_semantic_label("k_hadamard")
    pypto.set_cube_tile_shapes([tokens, tokens], [DIM, DIM], [DIM, DIM])
    k_had = pypto.matmul(k_rot, hadamard, pypto.DT_FP32)

    pypto.set_semantic_label("k_quant")
    pypto.set_vec_tile_shapes(tokens, DIM)
    k_values, k_scales = quantise(k_had)

    # Each token's key and scale go to its slot, read from cache_index when the kernel starts.
    pypto.set_semantic_label("k_write")
    for t in pypto.loop(0, tokens, 1, name="token", idx_name="t"):
        slot = cache_index[t]
        block, row = slot // BLOCK, slot % BLOCK
        pypto.set_vec_tile_shapes(1, 1, 1, DIM)
        key = pypto.reshape(pypto.view(k_values, [1, DIM], [t, 0]), [1, 1, 1, DIM])
        pypto.assemble(key, [block, row, 0, 0], k_cache)
        pypto.set_vec_tile_shapes(1, 1, 16)
        scale = pypto.reshape(pypto.view(k_scales, [1, 1], [t, 0]), [1, 1, 1])
        pypto.assemble(scale, [block, row, 0], k_scale_cache)

    # Queries: one token's 64 heads at a time, as 64 rows of 128 (q's row t seen as [64, 128]: a 16 KB copy,
    # since q is computed), so each token's RoPE, Hadamard and quantisation are tasks of their own.
    for t in pypto.loop(0, tokens, 1, name="q_token", idx_name="t"):
        pypto.set_semantic_label("q_rope")
        pypto.set_vec_tile_shapes(HEADS, DIM)
        heads = pypto.reshape(pypto.view(q, [1, HEADS * DIM], [t, 0]), [HEADS, DIM])
        pypto.set_vec_tile_shapes(HEADS, HALF)
        q_pe = pypto.cast(pypto.view(heads, [HEADS, ROPE], [0, 0]), pypto.DT_FP32)
        # This token's angles, the same for all 64 heads (broadcast over the rows).
        q1, q2 = rope_halves(q_pe, pypto.view(cos1, [1, HALF], [t, 0]), pypto.view(cos2, [1, HALF], [t, 0]),
                             pypto.view(sin1, [1, HALF], [t, 0]), pypto.view(sin2, [1, HALF], [t, 0]))
        q1 = pypto.cast(q1, pypto.DT_FP16)
        q2 = pypto.cast(q2, pypto.DT_FP16)
        pypto.set_vec_tile_shapes(HEADS, DIM)
        q_rot = pypto.concat([q1, q2, pypto.view(heads, [HEADS, DIM - ROPE], [0, ROPE])], dim=1)

        pypto.set_semantic_label("q_hadamard")
        pypto.set_cube_tile_shapes([HEADS, HEADS], [DIM, DIM], [DIM, DIM])
        q_had = pypto.matmul(q_rot, hadamard, pypto.DT_FP32)

        pypto.set_semantic_label("q_quant")
        pypto.set_vec_tile_shapes(HEADS, DIM)
        q_values, q_scales = quantise(q_had)
        pypto.set_vec_tile_shapes(1, HEADS, DIM)
        pypto.assemble(pypto.reshape(q_values, [1, HEADS, DIM]), [t, 0, 0], q_int8)
        pypto.set_vec_tile_shapes(1, HEADS)
        pypto.assemble(pypto.reshape(q_scales, [1, HEADS]), [t, 0], q_scale)
