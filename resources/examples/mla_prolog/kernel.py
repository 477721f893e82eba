"""MLA prolog of DeepSeek-V3.2-Exp, decode: the attention inputs of T new tokens and their paged KV-cache rows.

For token t (x[t] its hidden state, 7168 wide):

    qr[t]      = RMSNorm(x[t] @ W_DQ) * gamma_cq                                    [1536]   (also an output)
    q[t, h]    = (qr[t] @ W_UQ)[h * 192 : (h + 1) * 192]  = [q_nope (128) | q_pe (64)]   for each of 128 heads
    q_out[t, h] = [ q_nope @ W_UK[h]  (512: absorbed into the latent space) | RoPE(q_pe) (64) ]
    ckv[t]     = x[t] @ W_DKV = [c_kv (512) | k_pe (64)]
    kv_cache row cache_index[t] = [ RMSNorm(c_kv) * gamma_ckv | RoPE(k_pe) ]

RoPE is the rotate-half form: for v = [v1 | v2] (32 + 32) and cos, sin [t, 64],
    RoPE(v) = [v1 * cos[:32] - v2 * sin[:32] | v2 * cos[32:] + v1 * sin[32:]].
Slot s of the cache is row s % 128 of block s // 128. Matmuls take fp16 operands and accumulate in fp32; the
norms and RoPE run in fp32; every stored tensor is fp16.

Work: one cube task per 64 columns of W_DQ and W_DKV (24 + 9), the q norm, then one cube task per head for the
q up-projection and one for the absorption, and one vector task per head for the RoPE; each token's cache row is
written at its slot.
"""
import pypto

HIDDEN = 7168         # model width
HEADS = 128           # attention heads
Q_RANK = 1536         # q_lora_rank
KV_RANK = 512         # kv_lora_rank
NOPE = 128            # qk_nope_head_dim
ROPE = 64             # qk_rope_head_dim
HALF = ROPE // 2      # the two halves RoPE rotates against each other
QK = NOPE + ROPE      # 192 columns of W_UQ per head
OUT = KV_RANK + ROPE  # 576: a q_out head and a cache row
BLOCK = 128           # slots per paged-cache block
EPS = 1e-6            # RMSNorm epsilon


def rope_halves(v, cos1, cos2, sin1, sin2):
    """Rotate-half RoPE of v [rows, 64] (fp32) with the tables' halves [rows, 32]: the two result halves."""
    rows = v.shape[0]
    v1 = pypto.view(v, [rows, HALF], [0, 0])
    v2 = pypto.view(v, [rows, HALF], [0, HALF])
    return v1 * cos1 - v2 * sin1, v2 * cos2 + v1 * sin2


def as_row3(v, heads_axis_width):
    """[T, w] -> [T, 1, w], so it can be assembled into one head of a [T, heads, w'] tensor."""
    return pypto.reshape(v, [v.shape[0], 1, heads_axis_width])


@pypto.frontend.jit
def mla_prolog(x: pypto.Tensor([pypto.STATIC, HIDDEN], pypto.DT_FP16),
               w_dq: pypto.Tensor([HIDDEN, Q_RANK], pypto.DT_FP16),
               gamma_cq: pypto.Tensor([Q_RANK], pypto.DT_FP16),
               w_uq: pypto.Tensor([Q_RANK, HEADS * QK], pypto.DT_FP16),
               w_uk: pypto.Tensor([HEADS, NOPE, KV_RANK], pypto.DT_FP16),
               w_dkv: pypto.Tensor([HIDDEN, OUT], pypto.DT_FP16),
               gamma_ckv: pypto.Tensor([KV_RANK], pypto.DT_FP16),
               cos: pypto.Tensor([pypto.STATIC, ROPE], pypto.DT_FP16),
               sin: pypto.Tensor([pypto.STATIC, ROPE], pypto.DT_FP16),
               cache_index: pypto.Tensor([pypto.STATIC], pypto.DT_INT32),
               kv_cache: pypto.Tensor([pypto.DYNAMIC, BLOCK, 1, OUT], pypto.DT_FP16),
               qr: pypto.Tensor([pypto.STATIC, Q_RANK], pypto.DT_FP16),
               q_out: pypto.Tensor([pypto.STATIC, HEADS, OUT], pypto.DT_FP16)):
    # kv_cache is read and written: only the rows at cache_index change.
    tokens = x.shape[0]
    # Whole inputs seen in another shape are their own bytes (no copy, no task).
    w_uk_rows = pypto.reshape(w_uk, [HEADS * NOPE, KV_RANK])
    gamma_q = pypto.reshape(gamma_cq, [1, Q_RANK])
    gamma_kv = pypto.reshape(gamma_ckv, [1, KV_RANK])

    pypto.set_semantic_label("rope_table")
    pypto.set_vec_tile_shapes(tokens, HALF)
    cos1 = pypto.cast(pypto.view(cos, [tokens, HALF], [0, 0]), pypto.DT_FP32)
    cos2 = pypto.cast(pypto.view(cos, [tokens, HALF], [0, HALF]), pypto.DT_FP32)
    sin1 = pypto.cast(pypto.view(sin, [tokens, HALF], [0, 0]), pypto.DT_FP32)
    sin2 = pypto.cast(pypto.view(sin, [tokens, HALF], [0, HALF]), pypto.DT_FP32)

    # The down-projections read 7168 x 2112 weights once: 64 columns per cube task, so W_DQ alone fills the
    # 24 cube cores.
    pypto.set_cube_tile_shapes([tokens, tokens], [256, 1024], [64, 64])
    pypto.set_semantic_label("q_down")
    c_q = pypto.matmul(x, w_dq, pypto.DT_FP32)
    pypto.set_semantic_label("kv_down")
    c_kv = pypto.matmul(x, pypto.view(w_dkv, [HIDDEN, KV_RANK], [0, 0]), pypto.DT_FP32)
    k_pe = pypto.matmul(x, pypto.view(w_dkv, [HIDDEN, ROPE], [0, KV_RANK]), pypto.DT_FP32)

    pypto.set_semantic_label("q_norm")
    pypto.set_vec_tile_shapes(2, Q_RANK)   # whole rows: the norm reduces over them
    qr[:] = pypto.cast(pypto.rms_norm(c_q, pypto.cast(gamma_q, pypto.DT_FP32), EPS), pypto.DT_FP16)

    pypto.set_semantic_label("kv_norm")
    pypto.set_vec_tile_shapes(tokens, KV_RANK)
    kv_latent = pypto.cast(pypto.rms_norm(c_kv, pypto.cast(gamma_kv, pypto.DT_FP32), EPS), pypto.DT_FP16)

    pypto.set_semantic_label("k_rope")
    pypto.set_vec_tile_shapes(tokens, HALF)
    k1, k2 = rope_halves(k_pe, cos1, cos2, sin1, sin2)
    k1 = pypto.cast(k1, pypto.DT_FP16)
    k2 = pypto.cast(k2, pypto.DT_FP16)

    # Each token's row goes to its slot; the slot is read from cache_index when the kernel starts.
    pypto.set_semantic_label("kv_write")
    for t in pypto.loop(0, tokens, 1, name="token", idx_name="t"):
        slot = cache_index[t]
        block, row = slot // BLOCK, slot % BLOCK
        pypto.set_vec_tile_shapes(1, 1, 1, KV_RANK)
        latent = pypto.reshape(pypto.view(kv_latent, [1, KV_RANK], [t, 0]), [1, 1, 1, KV_RANK])
        pypto.assemble(latent, [block, row, 0, 0], kv_cache)
        pypto.set_vec_tile_shapes(1, 1, 1, HALF)
        pypto.assemble(pypto.reshape(pypto.view(k1, [1, HALF], [t, 0]), [1, 1, 1, HALF]),
                       [block, row, 0, KV_RANK], kv_cache)
        pypto.assemble(pypto.reshape(pypto.view(k2, [1, HALF], [t, 0]), [1, 1, 1, HALF]),
                       [block, row, 0, KV_RANK + HALF], kv_cache)

    # The q up-projection for all heads at once, one cube task per head's 192 columns. It must not sit in
    # the head loop below: there its fp16 result would share a cube subgraph with the absorption that
    # reads it, which a2 cannot compile (the fp16 conversion is routed L0C -> UB, a path a2 lacks).
    pypto.set_semantic_label("q_up")
    pypto.set_cube_tile_shapes([tokens, tokens], [128, 512], [QK, QK])
    q = pypto.matmul(qr, w_uq, pypto.DT_FP16)

    for h in pypto.loop(0, HEADS, 1, name="head", idx_name="h"):
        # q_nope of head h times W_UK[h]: the 128-dim query moves into the 512-dim latent space of the cache.
        pypto.set_semantic_label("q_absorb")
        pypto.set_cube_tile_shapes([tokens, tokens], [64, 128], [KV_RANK, KV_RANK])
        q_nope = pypto.view(q, [tokens, NOPE], [0, h * QK])
        absorbed = pypto.matmul(q_nope, pypto.view(w_uk_rows, [NOPE, KV_RANK], [h * NOPE, 0]), pypto.DT_FP16)
        # [T, 512] -> [T, 1, 512] moves nothing; assembling it into q_out is a copy here: a small vector task.
        pypto.set_vec_tile_shapes(tokens, 1, KV_RANK)
        pypto.assemble(as_row3(absorbed, KV_RANK), [0, h, 0], q_out)

        pypto.set_semantic_label("q_rope")
        pypto.set_vec_tile_shapes(tokens, HALF)
        q_pe = pypto.cast(pypto.view(q, [tokens, ROPE], [0, h * QK + NOPE]), pypto.DT_FP32)
        q1, q2 = rope_halves(q_pe, cos1, cos2, sin1, sin2)
        q1 = pypto.cast(q1, pypto.DT_FP16)
        q2 = pypto.cast(q2, pypto.DT_FP16)
        pypto.set_vec_tile_shapes(tokens, 1, HALF)
        pypto.assemble(as_row3(q1, HALF), [0, h, KV_RANK], q_out)
        pypto.assemble(as_row3(q2, HALF), [0, h, KV_RANK + HALF], q_out)
