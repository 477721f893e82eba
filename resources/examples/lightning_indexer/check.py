"""Runs the Lightning Indexer kernel on the simulator and checks it against a numpy golden written from the
operator's definition (not from the kernel): the scores within a stated tolerance and the top-k as sets.

    python3 check.py                                  # B=2, 2 tokens each, KV lengths 4096 and 3000
    python3 check.py --batch 4 --tokens 2 --kv 65536,49152,65536,30000
    python3 check.py --kernel ../lightning_indexer_tuning/kernel.py    # the tuning story's variant

Prints one verdict line per output and exits 1 when either is wrong or the kernel was not simulated.
"""
import os
import sys

import numpy as np

import pto_examples
import pypto

HERE = os.path.dirname(os.path.abspath(__file__))


def _load_kernel(path=os.path.join(HERE, "kernel.py")):
    return pto_examples.load_module(path, "lightning_indexer_kernel")


KERNEL = _load_kernel()
BLOCK, HEADS, DIM, TOPK = KERNEL.BLOCK, KERNEL.HEADS, KERNEL.DIM, KERNEL.TOPK

# Score tolerance, relative to the score's magnitude M = k_scale * sum_h |w * q_scale * ReLU(dot)| (the sum of
# the absolute values of the 64 terms), not to the score itself: the heads' weights have both signs, so a
# score can be far smaller than its terms, and the rounding error of an fp32 sum scales with the terms. The
# kernel rounds w * q_scale once, each term once, the 64-term sum at most 63 times (in whatever order its
# reduction uses) and the product with k_scale once: at most 66 roundings of 2^-24 relative to M, 3.9e-6 M.
# The dot products themselves are exact (|dot| <= 128 * 127 * 127 < 2^24), and the golden sums in float64,
# so its own error is negligible. 1e-5 leaves a factor 2.5.
SCORE_RTOL = 1e-5
# M is zero only when every head's dot product is <= 0, and both sides then give 0; the floor only spares
# such scores a bit-exact comparison. It is far below the tolerance of the other scores (M is about 1 to 20).
SCORE_ATOL = 1e-6


def make_inputs(kv_lengths, tokens_per_request=2, max_blocks=None, seed=0):
    """Seeded kernel arguments for len(kv_lengths) requests. The cache holds exactly the blocks the block
    tables name, shuffled, so neighbouring positions of a request live in unrelated blocks."""
    rng = np.random.default_rng(seed)
    kv_lengths = np.asarray(kv_lengths, np.int32)
    batch = len(kv_lengths)
    tokens = batch * tokens_per_request
    # The kernel's top-k runs over the whole score row, which must be at least TOPK wide.
    needed = max(-(-int(kv_lengths.max()) // BLOCK), TOPK // BLOCK)
    max_blocks = needed if max_blocks is None else max_blocks
    if max_blocks < needed:
        raise ValueError(f"max_blocks {max_blocks} is too few: the rows need {needed} blocks of {BLOCK} keys "
                         f"(the longest KV length, {kv_lengths.max()}, and at least top-k {TOPK})")
    cache_blocks = batch * max_blocks
    # int8 values in a symmetric quantiser's range (|x| <= 127); scales of the size absmax / 127 gives for
    # values of order one; gates of the size 1 / sqrt(heads), as the model scales them.
    return {
        "query": rng.integers(-127, 128, (tokens, HEADS, DIM)).astype(np.int8),
        "query_scale": rng.uniform(0.001, 0.01, (tokens, HEADS)).astype(np.float16),
        "key_cache": rng.integers(-127, 128, (cache_blocks, BLOCK, 1, DIM)).astype(np.int8),
        "key_scale": rng.uniform(0.001, 0.01, (cache_blocks, BLOCK, 1)).astype(np.float16),
        "weights": (rng.standard_normal((tokens, HEADS)) * HEADS ** -0.5).astype(np.float16),
        "kv_lengths": kv_lengths,
        "block_table": rng.permutation(cache_blocks).reshape(batch, max_blocks).astype(np.int32),
    }


def run_kernel(inputs):
    """Calls the kernel as any PyPTO caller would; returns (scores, topk_indices, pypto.last_run())."""
    tokens = inputs["query"].shape[0]
    max_blocks = inputs["block_table"].shape[1]
    scores = np.zeros((tokens, max_blocks * BLOCK), np.float32)
    topk_indices = np.zeros((tokens, TOPK), np.int32)
    KERNEL.lightning_indexer(inputs["query"], inputs["query_scale"], inputs["key_cache"], inputs["key_scale"],
                             inputs["weights"], inputs["kv_lengths"], inputs["block_table"], scores, topk_indices)
    return scores, topk_indices, pypto.last_run()


def golden(inputs):
    """(scores, magnitude, length per token) from the definition. scores is float64 with -inf at j >= L;
    magnitude is M of SCORE_RTOL's comment (0 at j >= L)."""
    query, block_table, kv_lengths = inputs["query"], inputs["block_table"], inputs["kv_lengths"]
    tokens = query.shape[0]
    per_request = tokens // len(kv_lengths)
    width = block_table.shape[1] * BLOCK
    scores = np.full((tokens, width), -np.inf)
    magnitude = np.zeros((tokens, width))
    keys_by_slot = inputs["key_cache"].reshape(-1, DIM)
    key_scale_by_slot = inputs["key_scale"].reshape(-1)
    token_length = np.repeat(kv_lengths.astype(np.int64), per_request)
    for t in range(tokens):
        length = int(token_length[t])
        positions = np.arange(length)
        slots = block_table[t // per_request, positions // BLOCK] * BLOCK + positions % BLOCK
        keys = keys_by_slot[slots].astype(np.int32)
        dots = query[t].astype(np.int32) @ keys.T                     # [HEADS, L], exact integers
        head_weight = inputs["weights"][t].astype(np.float64) * inputs["query_scale"][t].astype(np.float64)
        terms = head_weight[:, None] * np.maximum(dots, 0)
        k_scale = key_scale_by_slot[slots].astype(np.float64)
        scores[t, :length] = k_scale * terms.sum(axis=0)
        magnitude[t, :length] = k_scale * np.abs(terms).sum(axis=0)
    return scores, magnitude, token_length


def compare_scores(scores, expected, magnitude):
    """(ok, one-line verdict). Positions j < L within tolerance, positions j >= L exactly -inf."""
    valid = np.isfinite(expected)
    allowed = SCORE_ATOL + SCORE_RTOL * magnitude[valid]
    error = np.abs(scores[valid].astype(np.float64) - expected[valid])
    bad = ~(error <= allowed)  # NaN in the output counts as bad
    bad_masked = int(np.count_nonzero(scores[~valid] != -np.inf))
    worst = float(np.max(error / allowed)) if error.size else 0.0
    ok = not bad.any() and bad_masked == 0
    verdict = (f"scores: {'PASS' if ok else 'FAIL'}: {valid.sum()} scores, worst error {worst:.3g} of the "
               f"tolerance ({SCORE_RTOL:g} x magnitude + {SCORE_ATOL:g}), {int(bad.sum())} outside it; "
               f"{(~valid).sum()} positions past the KV length, {bad_masked} of them not -inf")
    return ok, verdict


def compare_topk(indices, expected, magnitude, token_length):
    """(ok, one-line verdict). Scores that differ within tolerance may swap places, so a token's indices are
    checked as a set against the golden's k-th largest score, not position by position.

    With n = min(TOPK, L): the first n indices must be distinct positions < L and the rest -1. The kernel
    ranks scores s' with |s' - s| <= e (e: the row's largest tolerance). At least n positions have s' >=
    s_k - e, s_k the golden's n-th largest score, so every index the kernel keeps has s' >= s_k - e and hence
    s >= s_k - 2e; a set passing that test differs from the golden's only by scores tied within tolerance.
    The order is checked the same way: each index's golden score is at least the next one's minus 2e."""
    failures = []
    for t in range(indices.shape[0]):
        length = int(token_length[t])
        count = min(TOPK, length)
        chosen, rest = indices[t, :count], indices[t, count:]
        if np.any(rest != -1):
            failures.append(f"token {t}: {np.count_nonzero(rest != -1)} slots after the first {count} are not -1")
            continue
        outside = chosen[(chosen < 0) | (chosen >= length)]
        if outside.size:
            failures.append(f"token {t}: {outside.size} indices outside [0, {length}), e.g. {outside[:4]}")
            continue
        if len(np.unique(chosen)) != count:
            failures.append(f"token {t}: {count - len(np.unique(chosen))} repeated indices")
            continue
        slack = 2 * (SCORE_ATOL + SCORE_RTOL * magnitude[t, :length].max())
        kth = np.partition(expected[t, :length], length - count)[length - count]
        low = expected[t, chosen] < kth - slack
        if low.any():
            failures.append(f"token {t}: {low.sum()} indices score below the golden's {count}-th largest "
                            f"{kth:.6g} (e.g. index {chosen[low][0]}: {expected[t, chosen[low][0]]:.6g})")
            continue
        descending = np.diff(expected[t, chosen]) <= slack
        if not descending.all():
            failures.append(f"token {t}: not largest first at slot {int(np.argmin(descending))}")
    ok = not failures
    verdict = (f"topk_indices: {'PASS' if ok else 'FAIL'}: {indices.shape[0]} tokens, top {TOPK} as sets "
               f"(ties within tolerance accepted)" + ("" if ok else "; " + "; ".join(failures[:3])))
    return ok, verdict


def check(inputs):
    """Runs and compares. Returns (ok, verdict lines, run report)."""
    scores, topk_indices, report = run_kernel(inputs)
    expected, magnitude, token_length = golden(inputs)
    return pto_examples.check_result(report, [compare_scores(scores, expected, magnitude),
                                              compare_topk(topk_indices, expected, magnitude, token_length)])


def main(argv=None):
    parser = pto_examples.request_parser(
        __doc__.splitlines()[0], kv="4096,3000",
        max_blocks_help="block-table width (default: enough for the longest request and for top-k)")
    parser.add_argument("--kernel", default=None,
                        help="another kernel.py with the same lightning_indexer signature (a tuning variant)")
    args = parser.parse_args(argv)
    if args.kernel:
        global KERNEL
        KERNEL = _load_kernel(os.path.abspath(args.kernel))
    lengths = pto_examples.request_lengths(parser, args)
    return pto_examples.run_check(parser, lambda: make_inputs(lengths, args.tokens, args.max_blocks, args.seed),
                                  check)


if __name__ == "__main__":
    sys.exit(main())
