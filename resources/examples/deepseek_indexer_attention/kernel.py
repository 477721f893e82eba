"""DeepSeek-V3.2-Exp DIA decode step (DeepSeek Indexer Attention): the MLA prolog, the indexer prolog, the
Lightning Indexer and sparse flash attention in one kernel, each stage the body of the sibling example's kernel,
called as a Python function while this kernel is traced.

For T = B * S1 new tokens (request-major), with their hidden states x and RoPE tables cos, sin:

    1. MLA prolog (../mla_prolog):           qr, q_out [T, 128, 576]; each token's latent row into kv_cache
    2. indexer prolog (../indexer_prolog):   q_int8, q_scale, weights; each token's int8 key into k_cache
    3. Lightning Indexer (../lightning_indexer): scores [T, KV] and the 2048 best positions per token
    4. sparse flash attention (../sparse_flash_attention): attention_out [T, 128, 512] over those positions

Both caches share one paging: slot s is row s % 128 of block s // 128, and request b's position p lives in
block block_table[b, p // 128]. cache_index[t] is the slot of token t's own position, so the new keys written
by stages 1 and 2 are among the keys stages 3 and 4 read.

Stages 1 to 3 compose as they are. Stage 4 does not: the sparse attention kernel reads its top-k positions as
scalars (topk_indices[t, i]), and a scalar read sees the argument as it was when the kernel launched, not what
stage 3 wrote into it. So the fused kernel first gathers each token's selected cache rows into the
selected_cache workspace (token t's slot i at row t * SLOTS + i), reading stage 3's result as tensor data, and
hands the sparse attention body that workspace as its cache plus three index arguments the host fills, whose
values are known at launch:

    sfa_slots        [T, SLOTS]              arange (C order): token t's slot i is workspace row t * SLOTS + i
    sfa_block_table  [T, T * SLOTS / 128]    every row 0, 1, 2, ...: workspace row r is in block r // 128
    sfa_lengths      [T]                     t * SLOTS + min(kv_lengths[b], SLOTS), b = t // S1

With one "request" per token, the attention body masks workspace row t * SLOTS + i exactly when
i >= min(L, SLOTS), which is where the indexer wrote -1. SLOTS is TOPK (2048) in the model; a smaller SLOTS (a
multiple of 128) is exact as long as no request has more than SLOTS keys, since the indexer's entries past
min(L, 2048) are -1 (check.py uses that to keep short runs short).

The copy is PyPTO's gather_in_ub: the rows the indexer chose, picked by index straight from the paged cache in
global memory (an MGATHER per tile of 64 rows, one row transfer per slot). This is the "through a GM
workspace" form of PyPTO's DIA tuning story: gathered rows go to UB, out to the workspace, and the attention
body loads them again for each of its two matmuls (README.md).
"""
import importlib.util
import os
from contextlib import contextmanager

import pypto
from pypto.experimental import gather_in_ub

HERE = os.path.dirname(os.path.abspath(__file__))


def example_file(example, file_name):
    """The path of a sibling example's file: inside this folder when `pto new` made it (it copies the examples
    this one uses, pto-project.json's "uses_examples", into folders of their names), else beside it in the
    examples folder. A copy made by hand without them gets an error that says what to do."""
    for folder in (os.path.join(HERE, example), os.path.join(HERE, "..", example)):
        path = os.path.join(folder, file_name)
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(
        f"{example}/{file_name} not found inside {HERE} or beside it: this example runs the kernels of the "
        "examples mla_prolog, indexer_prolog, lightning_indexer and sparse_flash_attention. Start your copy with "
        "`pto new DIR --example deepseek_indexer_attention`, which copies them into it, or copy those four "
        "example folders into this folder (or next to it)")


def _load(example, module_name):
    # Each sibling is loaded from its file under its own name: every example's file is called kernel.py.
    spec = importlib.util.spec_from_file_location(module_name, example_file(example, "kernel.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MLA = _load("mla_prolog", "dia_mla_prolog_kernel")
IP = _load("indexer_prolog", "dia_indexer_prolog_kernel")
LI = _load("lightning_indexer", "dia_lightning_indexer_kernel")
SFA = _load("sparse_flash_attention", "dia_sparse_flash_attention_kernel")

HIDDEN = MLA.HIDDEN          # 7168
Q_RANK = MLA.Q_RANK          # 1536
HEADS = MLA.HEADS            # 128 attention heads
OUT = MLA.OUT                # 576: a q_out head and an MLA cache row
NOPE = SFA.NOPE              # 512: the latent part, also the value
ROPE = MLA.ROPE              # 64
IDX_HEADS = IP.HEADS         # 64 indexer heads
IDX_DIM = IP.DIM             # 128
BLOCK = MLA.BLOCK            # 128 slots per cache block (the same in all four)
TOPK = LI.TOPK               # 2048
TILE = SFA.TILE              # 64 selected slots per attention step
PIECE = 128                  # selected rows per copy into the workspace: a block, cut into 64 columns per tile,
                             # the tiles in which the attention body reads the workspace back

assert BLOCK == IP.BLOCK == LI.BLOCK == SFA.BLOCK
assert OUT == SFA.DIM and HEADS == SFA.HEADS and IDX_HEADS == LI.HEADS and IDX_DIM == LI.DIM


@contextmanager
def stage(prefix):
    """Prefixes the semantic labels the stage's body sets ("qk" -> "li.qk"), so the swimlane and the task
    counts tell the four stages apart (several of them use the same names)."""
    plain = pypto.set_semantic_label
    pypto.set_semantic_label = lambda label, *args, **kwargs: plain(f"{prefix}.{label}", *args, **kwargs)
    try:
        yield
    finally:
        pypto.set_semantic_label = plain


@pypto.frontend.jit
def deepseek_indexer_attention(
        x: pypto.Tensor([pypto.STATIC, HIDDEN], pypto.DT_FP16),
        # MLA prolog weights
        w_dq: pypto.Tensor([HIDDEN, Q_RANK], pypto.DT_FP16),
        gamma_cq: pypto.Tensor([Q_RANK], pypto.DT_FP16),
        w_uq: pypto.Tensor([Q_RANK, HEADS * MLA.QK], pypto.DT_FP16),
        w_uk: pypto.Tensor([HEADS, MLA.NOPE, MLA.KV_RANK], pypto.DT_FP16),
        w_dkv: pypto.Tensor([HIDDEN, OUT], pypto.DT_FP16),
        gamma_ckv: pypto.Tensor([MLA.KV_RANK], pypto.DT_FP16),
        # indexer prolog weights
        w_qb: pypto.Tensor([Q_RANK, IDX_HEADS * IDX_DIM], pypto.DT_FP16),
        w_k: pypto.Tensor([HIDDEN, IDX_DIM], pypto.DT_FP16),
        w_proj: pypto.Tensor([HIDDEN, IDX_HEADS], pypto.DT_FP16),
        ln_gamma: pypto.Tensor([IDX_DIM], pypto.DT_FP16),
        ln_beta: pypto.Tensor([IDX_DIM], pypto.DT_FP16),
        hadamard: pypto.Tensor([IDX_DIM, IDX_DIM], pypto.DT_FP16),
        # positions and paging
        cos: pypto.Tensor([pypto.STATIC, ROPE], pypto.DT_FP16),
        sin: pypto.Tensor([pypto.STATIC, ROPE], pypto.DT_FP16),
        cache_index: pypto.Tensor([pypto.STATIC], pypto.DT_INT32),
        kv_lengths: pypto.Tensor([pypto.STATIC], pypto.DT_INT32),
        block_table: pypto.Tensor([pypto.STATIC, pypto.STATIC], pypto.DT_INT32),
        sfa_slots: pypto.Tensor([pypto.STATIC, pypto.STATIC], pypto.DT_INT32),
        sfa_block_table: pypto.Tensor([pypto.STATIC, pypto.STATIC], pypto.DT_INT32),
        sfa_lengths: pypto.Tensor([pypto.STATIC], pypto.DT_INT32),
        # caches, read and written (only the new tokens' slots change)
        kv_cache: pypto.Tensor([pypto.DYNAMIC, BLOCK, 1, OUT], pypto.DT_FP16),
        k_cache: pypto.Tensor([pypto.DYNAMIC, BLOCK, 1, IDX_DIM], pypto.DT_INT8),
        k_scale_cache: pypto.Tensor([pypto.DYNAMIC, BLOCK, 1], pypto.DT_FP16),
        # workspace: the selected latent rows, token t's slot i at row t * SLOTS + i (fully overwritten)
        selected_cache: pypto.Tensor([pypto.STATIC, BLOCK, 1, OUT], pypto.DT_FP16),
        # the stages' results: intermediates handed from stage to stage, and the attention output
        qr: pypto.Tensor([pypto.STATIC, Q_RANK], pypto.DT_FP16),
        q_out: pypto.Tensor([pypto.STATIC, HEADS, OUT], pypto.DT_FP16),
        q_int8: pypto.Tensor([pypto.STATIC, IDX_HEADS, IDX_DIM], pypto.DT_INT8),
        q_scale: pypto.Tensor([pypto.STATIC, IDX_HEADS], pypto.DT_FP16),
        weights: pypto.Tensor([pypto.STATIC, IDX_HEADS], pypto.DT_FP16),
        scores: pypto.Tensor([pypto.STATIC, pypto.STATIC], pypto.DT_FP32),
        topk_indices: pypto.Tensor([pypto.STATIC, TOPK], pypto.DT_INT32),
        attention_out: pypto.Tensor([pypto.STATIC, HEADS, NOPE], pypto.DT_FP16)):
    tokens = x.shape[0]
    batch = kv_lengths.shape[0]
    per_request = tokens // batch
    max_blocks = block_table.shape[1]
    slots = int(sfa_slots.shape[1])
    if slots % BLOCK or slots > TOPK:
        raise ValueError(f"sfa_slots has {slots} columns; it needs a multiple of {BLOCK}, at most {TOPK}")

    with stage("mla"):
        MLA.mla_prolog.function(x, w_dq, gamma_cq, w_uq, w_uk, w_dkv, gamma_ckv, cos, sin, cache_index,
                                kv_cache, qr, q_out)
    with stage("ip"):
        IP.indexer_prolog.function(x, qr, w_qb, w_k, w_proj, ln_gamma, ln_beta, cos, sin, hadamard, cache_index,
                                   k_cache, k_scale_cache, q_int8, q_scale, weights)
    with stage("li"):
        # The body sees its inputs q_int8, k_cache and k_scale_cache as rows. Stage 2 wrote them, and
        # nothing writes them after, so the reshapes move nothing: the body's tasks read the bytes stage 2
        # wrote and wait for those writes.
        LI.lightning_indexer.function(q_int8, q_scale, k_cache, k_scale_cache, weights, kv_lengths, block_table,
                                      scores, topk_indices)

    # Stage 3 -> 4: each token's selected cache rows into the selected_cache workspace, picked on the cube by
    # a one-hot matmul (module docstring).
    # The cache as rows, without moving it: a gather from this alias reads kv_cache itself (every row of it),
    # so it waits for stage 1's writes into kv_cache.
    cache_rows = pypto.reshape(kv_cache, [kv_cache.shape[0] * BLOCK, OUT], inplace=True)
    for b in range(batch):   # unrolled while tracing
        request_table = pypto.view(block_table, [1, max_blocks], [b, 0])
        for s in range(per_request):
            t = b * per_request + s
            pypto.set_semantic_label("dia.gather")
            pypto.set_vec_tile_shapes(TILE, OUT)
            chosen = pypto.view(topk_indices, [1, slots], [t, 0])
            # A slot without a key (-1) reads position 0; the attention body masks it.
            selected = gather_in_ub(cache_rows, pypto.clip(chosen, min=0), request_table, BLOCK)   # [slots, 576]
            pypto.set_semantic_label("dia.to_workspace")
            pypto.set_vec_tile_shapes(1, PIECE, 1, 64)
            for c in range(slots // PIECE):
                row = t * slots + c * PIECE
                piece = pypto.reshape(pypto.view(selected, [PIECE, OUT], [c * PIECE, 0]), [1, PIECE, 1, OUT])
                pypto.assemble(piece, [row // BLOCK, row % BLOCK, 0, 0], selected_cache)

    with stage("sfa"):
        # Likewise q_out and the workspace, seen as rows of 576.
        SFA.sparse_flash_attention.function(q_out, selected_cache, sfa_block_table, sfa_lengths, sfa_slots,
                                            attention_out)
