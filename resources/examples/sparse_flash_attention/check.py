"""Runs the sparse flash attention kernel on the simulator and checks its output against a numpy golden written
from the operator's definition (not from the kernel), within a tolerance derived below.

    python3 check.py                                   # B=2, 2 tokens each, KV lengths 4096 and 150, top-256
    python3 check.py --kv 3000 --batch 1 --tokens 1 --topk 128
    python3 check.py --batch 4 --tokens 2 --kv 65536,49152,65536,30000 --topk 2048    # the project's shape

Prints one verdict line for the run and one for the output, and exits 1 when the output is wrong or the kernel
was not simulated.
"""
import os
import sys

import numpy as np

import pto_examples
import pypto

HERE = os.path.dirname(os.path.abspath(__file__))

KERNEL = pto_examples.load_module(os.path.join(HERE, "kernel.py"), "sparse_flash_attention_kernel")
BLOCK, HEADS, NOPE, ROPE, TILE = KERNEL.BLOCK, KERNEL.HEADS, KERNEL.NOPE, KERNEL.ROPE, KERNEL.TILE
DIM = NOPE + ROPE
SCALE = 1.0 / np.sqrt(DIM)     # the definition's, not the kernel's constant

# Tolerance. With v the selected values, p_i = exp(s_i - max s) the golden's weights and l = sum p_i, each
# output element may differ from the golden by
#
#     U16 |g|  +  SIGMAS * U16 * sqrt(sum p_i^2 v_i^2) / l  +  F32 * M  +  SUBNORMAL * (1 + A)
#
# where g is the golden value, M = sum p_i |v_i| / l and A = sum |v_i| / l. The terms, largest first:
#
# - The kernel rounds each step's weights to fp16 for the P @ V matmul (unit roundoff U16 = 2^-11), but sums
#   them in fp32. Weight i's rounding moves the output by at most U16 p_i |v_i| / l. The bound for all of
#   them together, U16 * M, would hold for any rounding, but it is 5 to 20 times the typical error here:
#   with zero-mean values the terms cancel. The rounding errors are independent and zero-mean, so
#   Hoeffding's inequality applies: their sum exceeds SIGMAS times sqrt(sum of the squared bounds) with
#   probability at most 2 exp(-SIGMAS^2 / 2), 2.5e-14 for 8, per element.
# - The output is rounded to fp16 once: at most U16 |g|.
# - Everything else is fp32: the 576-term dot products, the exps, the 64-term sums of each step and the
#   rescaling over the steps. Their rounding (about 2^-24 per operation, over a few hundred terms at most)
#   changes the output by far less than F32 = 1e-5 of its magnitude M.
# - Weights below 2^-14 of their step's maximum, and outputs below 2^-14, fall into fp16's subnormal range,
#   where rounding is absolute, 2^-25 at most. Those weights move the output by at most 2^-25 * A.
#
# The golden is float64 and its own error is negligible. On the default check the worst element uses about a
# third of this allowance. A key left unmasked, a step dropped, a wrong scale or a missing rope part each
# exceed it many times over (tests/python/test_example_sparse_flash_attention.py).
U16 = 2.0 ** -11
SIGMAS = 8.0
F32 = 1e-5
SUBNORMAL = 2.0 ** -25


def make_inputs(kv_lengths, tokens_per_request=2, topk=256, max_blocks=None, seed=0):
    """Seeded kernel arguments for len(kv_lengths) requests. Query and cache values are N(0, 1), so that
    q . k / sqrt(576) is about N(0, 1). The cache holds exactly the blocks the block tables name, shuffled, so
    neighbouring positions of a request live in unrelated blocks. Each token's indices are min(L, topk)
    distinct positions below its request's L in random order, then -1, as the indexer writes them."""
    rng = np.random.default_rng(seed)
    kv_lengths = np.asarray(kv_lengths, np.int32)
    batch = len(kv_lengths)
    tokens = batch * tokens_per_request
    if topk % TILE:
        raise ValueError(f"topk {topk} is not a multiple of the kernel's step of {TILE} slots")
    needed = -(-int(kv_lengths.max()) // BLOCK)
    max_blocks = needed if max_blocks is None else max_blocks
    if max_blocks < needed:
        raise ValueError(f"max_blocks {max_blocks} is too few: the longest KV length, {kv_lengths.max()}, "
                         f"needs {needed} blocks of {BLOCK}")
    cache_blocks = batch * max_blocks
    # Drawn a block at a time in float32: at the project's shape the cache alone is 302 MB of fp16.
    kv_cache = np.empty((cache_blocks, BLOCK, 1, DIM), np.float16)
    for block in range(cache_blocks):
        kv_cache[block] = rng.standard_normal((BLOCK, 1, DIM), np.float32)
    topk_indices = np.full((tokens, topk), -1, np.int32)
    for t in range(tokens):
        length = int(kv_lengths[t // tokens_per_request])
        count = min(length, topk)
        topk_indices[t, :count] = rng.choice(length, count, replace=False)
    return {
        "query": rng.standard_normal((tokens, HEADS, DIM), np.float32).astype(np.float16),
        "kv_cache": kv_cache,
        "block_table": rng.permutation(cache_blocks).reshape(batch, max_blocks).astype(np.int32),
        "kv_lengths": kv_lengths,
        "topk_indices": topk_indices,
    }


def run_kernel(inputs):
    """Calls the kernel as any PyPTO caller would; returns (attention_out, pypto.last_run())."""
    tokens = inputs["query"].shape[0]
    out = np.zeros((tokens, HEADS, NOPE), np.float16)
    KERNEL.sparse_flash_attention(inputs["query"], inputs["kv_cache"], inputs["block_table"],
                                  inputs["kv_lengths"], inputs["topk_indices"], out)
    return out, pypto.last_run()


def golden(inputs, scale=SCALE):
    """(expected, allowed) from the definition, float64, [tokens, HEADS, NOPE]: the attention output and each
    element's tolerance (the comment above SIGMAS). A slot counts when 0 <= index < L."""
    query, block_table, kv_lengths = inputs["query"], inputs["block_table"], inputs["kv_lengths"]
    topk_indices = inputs["topk_indices"]
    tokens = query.shape[0]
    per_request = tokens // len(kv_lengths)
    cache_rows = inputs["kv_cache"].reshape(-1, DIM)
    expected = np.zeros((tokens, HEADS, NOPE))
    allowed = np.zeros((tokens, HEADS, NOPE))
    for t in range(tokens):
        b = t // per_request
        indices = topk_indices[t]
        positions = indices[(indices >= 0) & (indices < kv_lengths[b])].astype(np.int64)
        keys = cache_rows[block_table[b, positions // BLOCK].astype(np.int64) * BLOCK + positions % BLOCK]
        keys = keys.astype(np.float64)
        values = keys[:, :NOPE]
        scores = query[t].astype(np.float64) @ keys.T * scale                    # [HEADS, selected]
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        total = weights.sum(axis=1, keepdims=True)
        expected[t] = weights @ values / total
        spread = np.sqrt((weights ** 2) @ (values ** 2)) / total
        magnitude = weights @ np.abs(values) / total
        absolute_sum = np.abs(values).sum(axis=0, keepdims=True) / total
        allowed[t] = (U16 * np.abs(expected[t]) + SIGMAS * U16 * spread + F32 * magnitude
                      + SUBNORMAL * (1 + absolute_sum))
    return expected, allowed


def compare(out, expected, allowed):
    """(ok, one-line verdict)."""
    error = np.abs(out.astype(np.float64) - expected)
    bad = ~(error <= allowed)  # NaN in the output counts as bad
    worst = float(np.nanmax(error / allowed)) if error.size else 0.0
    ok = not bad.any()
    verdict = (f"attention_out: {'PASS' if ok else 'FAIL'}: {out.size} values, largest error {np.nanmax(error):.3g}, "
               f"worst {worst:.3g} of its tolerance, {int(bad.sum())} outside it")
    if not ok:
        t, h, d = np.argwhere(bad)[0]
        verdict += (f"; first at [{t}, {h}, {d}]: {float(out[t, h, d]):.6g}, expected {expected[t, h, d]:.6g} "
                    f"+- {allowed[t, h, d]:.3g}")
    return ok, verdict


def check(inputs):
    """Runs and compares. Returns (ok, verdict lines, run report)."""
    out, report = run_kernel(inputs)
    expected, allowed = golden(inputs)
    return pto_examples.check_result(report, [compare(out, expected, allowed)])


def main(argv=None):
    parser = pto_examples.request_parser(__doc__.splitlines()[0], kv="4096,150")
    parser.add_argument("--topk", type=int, default=256,
                        help=f"selected slots per token (2048 in the model; a multiple of {TILE})")
    args = parser.parse_args(argv)
    lengths = pto_examples.request_lengths(parser, args)
    return pto_examples.run_check(
        parser, lambda: make_inputs(lengths, args.tokens, args.topk, args.max_blocks, args.seed), check)


if __name__ == "__main__":
    sys.exit(main())
