"""Runs the MLA prolog kernel on the simulator and checks it against a numpy golden computed in float64 from the
operator's definition (not from the kernel): qr, both parts of q_out and the paged cache, every written row
and every row that must stay as it was.

    python3 check.py                          # 2 tokens, hidden 7168, a 4-block cache (about 5 s)
    python3 check.py --tokens 4 --cache-blocks 16 --seed 3

Prints one verdict line per output and exits 1 when one is wrong or the kernel was not simulated.
"""
import os
import sys
import warnings

import numpy as np

import pto_examples
import pypto

HERE = os.path.dirname(os.path.abspath(__file__))

KERNEL = pto_examples.load_module(os.path.join(HERE, "kernel.py"), "mla_prolog_kernel")
HIDDEN, HEADS, Q_RANK, KV_RANK = KERNEL.HIDDEN, KERNEL.HEADS, KERNEL.Q_RANK, KERNEL.KV_RANK
NOPE, ROPE, QK, OUT, BLOCK, EPS = KERNEL.NOPE, KERNEL.ROPE, KERNEL.QK, KERNEL.OUT, KERNEL.BLOCK, KERNEL.EPS

# Tolerances. Every output is fp16, so the kernel's last step, rounding to nearest, is off by at most
# U |value| (U = 2^-11, half an fp16 ulp, relative); that part of each allowance is exact. On top of it comes
# what reaches the value from upstream, in units of U S, S the RMS of the output part over the whole tensor:
#   * fp32 arithmetic (the 7168-term sums of the down-projections, the norms, RoPE's products): about
#     2^-24 sqrt(7168) ~ 0.01 U relative to the values summed. It is all that reaches qr and the cache rows
#     (k_pe goes into RoPE as the fp32 sum). FP32 = 0.25 U S; the largest seen is 0.001 U S (8 seeds).
#   * RoPE of q: q = qr @ W_UQ is stored in fp16, off by at most U |q_j|, which the rotation passes on as at
#     most U (|q1| |cos| + |q2| |sin|) per element: the golden's magnitudes, allowed exactly. q also inherits
#     qr's fp16 rounding through a 1536-term sum, where errors of up to U |qr_d| with their own signs add up
#     like random steps: measured, the error beyond the final rounding has a standard deviation of about
#     0.5 U S. ROPE_UPSTREAM = 4 U S is 8 of those; the largest seen over 8 seeds is 1.3 U S.
#   * the absorbed q_nope: the same two roundings, then a 128-term product with W_UK: again about 0.5 U S
#     standard deviation beyond the final rounding, and the largest over 131 072 values (2 tokens x 128 heads
#     x 512) and 8 seeds is 2.8 U S. NOPE_UPSTREAM = 8 U S is 16 standard deviations, almost three times the
#     largest seen. The bound with every rounding aligned is 260 U S on average (up to 320), so loose that
#     a wrong gamma or a missing head would pass.
# Rows of the cache that no token writes must come back bit for bit.
U = 2.0 ** -11
FP32 = 0.25
ROPE_UPSTREAM = 4.0
NOPE_UPSTREAM = 8.0


def make_inputs(tokens=2, cache_blocks=4, seed=0):
    """Seeded kernel arguments: uniform weights with the variance 1 / fan_in (so activations stay of order one),
    gammas near one, a real RoPE table for random positions, distinct random cache slots and a cache full of
    old values (so rows the kernel must leave alone are visible)."""
    rng, weight, cos, sin = pto_examples.prolog_inputs(tokens, cache_blocks * BLOCK, ROPE, seed)
    return {
        "x": rng.uniform(-1.0, 1.0, (tokens, HIDDEN)).astype(np.float16),
        "w_dq": weight((HIDDEN, Q_RANK), HIDDEN),
        "gamma_cq": rng.uniform(0.5, 1.5, Q_RANK).astype(np.float16),
        "w_uq": weight((Q_RANK, HEADS * QK), Q_RANK),
        "w_uk": weight((HEADS, NOPE, KV_RANK), NOPE),
        "w_dkv": weight((HIDDEN, OUT), HIDDEN),
        "gamma_ckv": rng.uniform(0.5, 1.5, KV_RANK).astype(np.float16),
        "cos": cos,
        "sin": sin,
        "cache_index": rng.permutation(cache_blocks * BLOCK)[:tokens].astype(np.int32),
        "kv_cache": rng.uniform(-1.0, 1.0, (cache_blocks, BLOCK, 1, OUT)).astype(np.float16),
    }


def run_kernel(inputs):
    """Calls the kernel as any PyPTO caller would; returns (qr, q_out, kv_cache, pypto.last_run())."""
    tokens = inputs["x"].shape[0]
    qr = np.zeros((tokens, Q_RANK), np.float16)
    q_out = np.zeros((tokens, HEADS, OUT), np.float16)
    kv_cache = inputs["kv_cache"].copy()   # updated in place
    with warnings.catch_warnings():
        # The call also compares with PTO Studio's reference interpreter at the fp16 default (rtol = atol =
        # 1e-3); both sum in fp32 in different orders, so an fp16 intermediate can round one ulp apart and
        # move a value near zero past that atol. This checker's own tolerances account for it. Other warnings
        # (not simulated) still show.
        warnings.filterwarnings("ignore", message=".*differ from the reference interpreter", category=RuntimeWarning)
        KERNEL.mla_prolog(inputs["x"], inputs["w_dq"], inputs["gamma_cq"], inputs["w_uq"], inputs["w_uk"],
                          inputs["w_dkv"], inputs["gamma_ckv"], inputs["cos"], inputs["sin"], inputs["cache_index"],
                          kv_cache, qr, q_out)
    return qr, q_out, kv_cache, pypto.last_run()


def _rms_norm(v, gamma):
    return v / np.sqrt(np.mean(v * v, axis=-1, keepdims=True) + EPS) * gamma


def _rope(v, cos, sin):
    half = ROPE // 2
    rotated = np.concatenate([-v[..., half:], v[..., :half]], axis=-1)
    return v * cos + rotated * sin


def _rope_magnitude(v, cos, sin):
    half = ROPE // 2
    swapped = np.concatenate([v[..., half:], v[..., :half]], axis=-1)
    return v * cos + swapped * sin


def golden(inputs):
    """The outputs in float64 from the definition (module docstring of kernel.py), with nothing rounded in
    between: {"qr", "q_out", "kv_cache", "q_pe_magnitude"}, kv_cache being the whole updated cache."""
    f = {name: value.astype(np.float64) for name, value in inputs.items() if value.dtype == np.float16}
    tokens = f["x"].shape[0]
    qr = _rms_norm(f["x"] @ f["w_dq"], f["gamma_cq"])
    q = (qr @ f["w_uq"]).reshape(tokens, HEADS, QK)
    latent = np.einsum("thd,hdk->thk", q[..., :NOPE], f["w_uk"])
    cos, sin = f["cos"][:, None, :], f["sin"][:, None, :]
    q_pe = _rope(q[..., NOPE:], cos, sin)
    # How far RoPE carries q's fp16 rounding: |v1| |cos| + |v2| |sin| per element (see the tolerances).
    q_pe_magnitude = _rope_magnitude(np.abs(q[..., NOPE:]), np.abs(cos), np.abs(sin))
    ckv = f["x"] @ f["w_dkv"]
    rows = np.concatenate([_rms_norm(ckv[:, :KV_RANK], f["gamma_ckv"]),
                           _rope(ckv[:, KV_RANK:], f["cos"], f["sin"])], axis=1)
    cache = f["kv_cache"].reshape(-1, OUT).copy()
    cache[inputs["cache_index"]] = rows
    return {"qr": qr, "q_out": np.concatenate([latent, q_pe], axis=-1),
            "kv_cache": cache.reshape(f["kv_cache"].shape), "q_pe_magnitude": q_pe_magnitude}


def compare_part(name, actual, expected, upstream, magnitude=None):
    """(ok, verdict, worst) for one fp16 output part: |actual - expected| <= U |expected| + upstream U S
    (+ U magnitude), S the part's RMS. worst is the largest error as a fraction of its allowance."""
    scale = float(np.sqrt(np.mean(expected ** 2)))
    allowed = U * np.abs(expected) + upstream * U * scale
    if magnitude is not None:
        allowed = allowed + U * magnitude
    error = np.abs(actual.astype(np.float64) - expected)
    bad = ~(error <= allowed)      # NaN counts as bad
    worst = float(np.max(error / allowed)) if error.size else 0.0
    ok = not bad.any()
    what = f"U |value| + {upstream:g} U x RMS {scale:.3g}" + (" + U x RoPE magnitude" if magnitude is not None else "")
    verdict = (f"{name}: {'PASS' if ok else 'FAIL'}: {error.size} values, worst error {worst:.3g} of the "
               f"tolerance ({what}), {int(bad.sum())} outside it")
    if not ok:
        where = np.unravel_index(int(np.argmax(np.where(bad, error / allowed, -1))), error.shape)
        verdict += f"; e.g. at {tuple(int(i) for i in where)}: {float(actual[where]):.6g} vs {expected[where]:.6g}"
    return ok, verdict, worst


def compare_qr(qr, expected):
    return compare_part("qr", qr, expected["qr"], FP32)[:2]


def compare_q_out(q_out, expected):
    """Both parts of every head: the absorbed latent [..., :512] and the RoPE part [..., 512:]."""
    ok_latent, latent, _ = compare_part("q_out[..., :512] (absorbed q_nope)", q_out[..., :KV_RANK],
                                        expected["q_out"][..., :KV_RANK], NOPE_UPSTREAM)
    ok_rope, rope, _ = compare_part("q_out[..., 512:] (RoPE q_pe)", q_out[..., KV_RANK:],
                                    expected["q_out"][..., KV_RANK:], ROPE_UPSTREAM,
                                    expected["q_pe_magnitude"])
    return ok_latent and ok_rope, latent + "\n" + rope


def compare_cache(kv_cache, expected, old_cache, cache_index):
    """The rows at cache_index within tolerance (latent and k_pe parts), every other row bit for bit as it
    was before the call."""
    rows = kv_cache.reshape(-1, OUT)
    want = expected["kv_cache"].reshape(-1, OUT)
    ok_latent, latent, _ = compare_part("kv_cache written rows [:512] (normed c_kv)", rows[cache_index, :KV_RANK],
                                        want[cache_index, :KV_RANK], FP32)
    ok_rope, rope, _ = compare_part("kv_cache written rows [512:] (RoPE k_pe)", rows[cache_index, KV_RANK:],
                                    want[cache_index, KV_RANK:], FP32)
    untouched = np.ones(rows.shape[0], bool)
    untouched[cache_index] = False
    old_rows = old_cache.reshape(-1, OUT)
    changed = np.flatnonzero(np.any(rows[untouched].view(np.uint16) != old_rows[untouched].view(np.uint16), axis=1))
    ok_rest = changed.size == 0
    rest = (f"kv_cache other rows: {'PASS' if ok_rest else 'FAIL'}: {int(untouched.sum())} rows, "
            f"{changed.size} changed" + ("" if ok_rest else
                                          f" (e.g. slot {int(np.flatnonzero(untouched)[changed[0]])})"))
    return ok_latent and ok_rope and ok_rest, "\n".join([latent, rope, rest])


def check(inputs):
    """Runs and compares. Returns (ok, verdict lines, run report)."""
    qr, q_out, kv_cache, report = run_kernel(inputs)
    expected = golden(inputs)
    results = [compare_qr(qr, expected), compare_q_out(q_out, expected),
               compare_cache(kv_cache, expected, inputs["kv_cache"], inputs["cache_index"])]
    return pto_examples.check_result(report, results)


def main(argv=None):
    return pto_examples.prolog_main(__doc__, argv, make_inputs, check)


if __name__ == "__main__":
    sys.exit(main())
