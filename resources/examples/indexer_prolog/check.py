"""Runs the Lightning Indexer prolog kernel on the simulator and checks it against numpy goldens computed in
float64 from the operator's definition (not from the kernel): the int8 queries and keys with their scales,
the gates, and the paged key cache, every written row and every row that must stay as it was.

    python3 check.py                          # 2 tokens, hidden 7168, a 4-block cache (about 2 s)
    python3 check.py --tokens 8 --cache-blocks 16 --seed 3

Prints one verdict line per output and exits 1 when one is wrong or the kernel was not simulated.
"""
import os
import sys
import warnings

import numpy as np

import pto_examples
import pypto

HERE = os.path.dirname(os.path.abspath(__file__))

KERNEL = pto_examples.load_module(os.path.join(HERE, "kernel.py"), "indexer_prolog_kernel")
HIDDEN, Q_RANK, HEADS, DIM, ROPE = KERNEL.HIDDEN, KERNEL.Q_RANK, KERNEL.HEADS, KERNEL.DIM, KERNEL.ROPE
BLOCK, EPS, WEIGHT_SCALE, INT8_MAX = KERNEL.BLOCK, KERNEL.EPS, KERNEL.WEIGHT_SCALE, KERNEL.INT8_MAX

# Two goldens.
#
# EXACT: the definition in float64 with nothing rounded until the outputs. Quantisation is a step function, so
# a value whose q / scale lies near k + 1/2 can round either way after the kernel's fp16 intermediates; against
# this golden the dequantised value q_int8 * q_scale must lie within one quantisation step (q_scale) of the
# exact q, for every element, and the scales within SCALE_RTOL.
#
# STORED: the same float64 arithmetic, but every tensor rounded to fp16 where the operator stores it in fp16:
# each matmul operand (the cube multiplies fp16: the up-projected q, and the RoPE'd q and k that go into the
# Hadamard product) and each fp16 output (the scales, with which the values are quantised). The kernel sees the
# same fp16 values, so its int8 values can differ only where its fp32 sums and the golden's float64 ones land
# on different sides of an fp16 or int8 rounding boundary: over 8 seeds at most 0.043% of the values
# (7 of 16 384, each by one).
# Against this golden at least EXACT_FRACTION of the values must be equal and the others off by exactly one.
U = 2.0 ** -11
EXACT_FRACTION = 0.999
# q_scale = fp16(max|q| / 127): its own fp16 rounding (U) plus how far the kernel's max|q| moves through the
# fp16 intermediates: relative to the row's largest element, a 128-term Hadamard sum of roundings up to U |q_j|
# with random signs, a fraction of U (largest seen over 8 seeds: 1.3 U, rounding included). 4 U in all.
SCALE_RTOL = 4 * U
# weights: fp32 sum of 7168 terms (about 0.01 U relative to the values summed), times 1/8 (exact), rounded to
# fp16 once (U |w|). FP32 = 0.25 U S, S the RMS of the weights; over 8 seeds no error went past U |w|.
FP32 = 0.25


def sylvester_hadamard(n=DIM):
    """The n x n Hadamard matrix of Sylvester's construction, scaled to be orthonormal (entries +-1/sqrt(n))."""
    h = np.ones((1, 1))
    while h.shape[0] < n:
        h = np.block([[h, h], [h, -h]])
    return (h / np.sqrt(n)).astype(np.float16)


def make_inputs(tokens=2, cache_blocks=4, seed=0):
    """Seeded kernel arguments: weights with the variance 1 / fan_in, qr of RMS one (as the MLA prolog's
    RMSNorm leaves it), a real RoPE table, Sylvester's Hadamard matrix, distinct random cache slots and a cache
    full of old keys and scales (so rows the kernel must leave alone are visible)."""
    rng, weight, cos, sin = pto_examples.prolog_inputs(tokens, cache_blocks * BLOCK, ROPE, seed)
    return {
        "x": rng.uniform(-1.0, 1.0, (tokens, HIDDEN)).astype(np.float16),
        "qr": rng.uniform(-np.sqrt(3.0), np.sqrt(3.0), (tokens, Q_RANK)).astype(np.float16),
        "w_qb": weight((Q_RANK, HEADS * DIM), Q_RANK),
        "w_k": weight((HIDDEN, DIM), HIDDEN),
        "w_proj": weight((HIDDEN, HEADS), HIDDEN),
        "ln_gamma": rng.uniform(0.5, 1.5, DIM).astype(np.float16),
        "ln_beta": rng.uniform(-0.2, 0.2, DIM).astype(np.float16),
        "cos": cos,
        "sin": sin,
        "hadamard": sylvester_hadamard(),
        "cache_index": rng.permutation(cache_blocks * BLOCK)[:tokens].astype(np.int32),
        "k_cache": rng.integers(-127, 128, (cache_blocks, BLOCK, 1, DIM)).astype(np.int8),
        "k_scale_cache": rng.uniform(0.001, 0.01, (cache_blocks, BLOCK, 1)).astype(np.float16),
    }


ARGUMENTS = ("x", "qr", "w_qb", "w_k", "w_proj", "ln_gamma", "ln_beta", "cos", "sin", "hadamard", "cache_index")


def run_kernel(inputs):
    """Calls the kernel as any PyPTO caller would. Returns a dict of the outputs (q_int8, q_scale, weights and
    the updated k_cache, k_scale_cache) and pypto.last_run()."""
    tokens = inputs["x"].shape[0]
    out = {"k_cache": inputs["k_cache"].copy(), "k_scale_cache": inputs["k_scale_cache"].copy(),  # in place
           "q_int8": np.zeros((tokens, HEADS, DIM), np.int8), "q_scale": np.zeros((tokens, HEADS), np.float16),
           "weights": np.zeros((tokens, HEADS), np.float16)}
    with warnings.catch_warnings():
        # The call also compares with PTO Studio's reference interpreter, exactly for int8 outputs; an int8
        # value there can differ by one at a rounding boundary (both sum in fp32, in different orders), which
        # this checker's own comparison allows for. Other warnings (not simulated) still show.
        warnings.filterwarnings("ignore", message=".*differ from the reference interpreter", category=RuntimeWarning)
        KERNEL.indexer_prolog(*(inputs[name] for name in ARGUMENTS), out["k_cache"], out["k_scale_cache"],
                              out["q_int8"], out["q_scale"], out["weights"])
    return out, pypto.last_run()


def _rope_first(v, cos, sin):
    """Rotate-half RoPE of the first 64 dims of v [..., 128]; the other 64 pass through."""
    half = ROPE // 2
    pe, rest = v[..., :ROPE], v[..., ROPE:]
    rotated = np.concatenate([-pe[..., half:], pe[..., :half]], axis=-1)
    return np.concatenate([pe * cos + rotated * sin, rest], axis=-1)


def _layer_norm(v, gamma, beta):
    centred = v - v.mean(axis=-1, keepdims=True)
    return centred / np.sqrt(np.mean(centred * centred, axis=-1, keepdims=True) + EPS) * gamma + beta


def _quantise(v, fp16_scale):
    """(int8 values as int64, scale): scale = max|v| / 127 per row, values = round half to even of v / scale,
    saturated to int8."""
    scale = np.abs(v).max(axis=-1) / INT8_MAX
    if fp16_scale:
        scale = _fp16(scale)
    return np.clip(np.rint(v / scale[..., None]), -128, 127).astype(np.int64), scale


def _fp16(v):
    return v.astype(np.float16).astype(np.float64)


def golden(inputs, stored=False):
    """The outputs from the definition (module docstring of kernel.py) in float64: q [T, 64, 128] and k [T, 128]
    before quantisation, their scales and int8 values, and the gates. With stored=True, the tensors the operator
    keeps in fp16 are rounded to fp16 (see the goldens above); otherwise nothing is rounded."""
    f = {name: value.astype(np.float64) for name, value in inputs.items() if value.dtype == np.float16}
    at_fp16 = _fp16 if stored else (lambda v: v)
    tokens = f["x"].shape[0]
    q = at_fp16(f["qr"] @ f["w_qb"]).reshape(tokens, HEADS, DIM)
    q = at_fp16(_rope_first(q, f["cos"][:, None, :], f["sin"][:, None, :])) @ f["hadamard"]
    k = _layer_norm(f["x"] @ f["w_k"], f["ln_gamma"], f["ln_beta"])
    k = at_fp16(_rope_first(k, f["cos"], f["sin"])) @ f["hadamard"]
    q_int8, q_scale = _quantise(q, stored)
    k_int8, k_scale = _quantise(k, stored)
    return {"q": q, "q_int8": q_int8, "q_scale": q_scale, "k": k, "k_int8": k_int8, "k_scale": k_scale,
            "weights": (f["x"] @ f["w_proj"]) * WEIGHT_SCALE}


def compare_quantised(name, values, scales, exact, stored):
    """(ok, verdict) for int8 values [..., 128] with fp16 scales [...] (one per row of 128): against the exact
    golden (exact[name]: the unquantised rows; exact[name + '_scale']) every dequantised value within one step
    and every scale within SCALE_RTOL; against the stored-precision golden (stored[name + '_int8']) at least
    EXACT_FRACTION equal and the rest off by one."""
    scales = scales.astype(np.float64)
    want = exact[name]
    step_error = np.abs(values.astype(np.float64) * scales[..., None] - want) / scales[..., None]
    off_step = int(np.count_nonzero(~(step_error <= 1.0)))
    want_scale = exact[name + "_scale"]
    scale_error = np.abs(scales - want_scale) / want_scale
    bad_scales = int(np.count_nonzero(~(scale_error <= SCALE_RTOL)))
    difference = values.astype(np.int64) - stored[name + "_int8"]
    equal = float(np.mean(difference == 0))
    beyond_one = int(np.count_nonzero(np.abs(difference) > 1))
    ok = off_step == 0 and bad_scales == 0 and equal >= EXACT_FRACTION and beyond_one == 0
    verdict = (f"{name}: {'PASS' if ok else 'FAIL'}: {values.size} int8 values, {100 * equal:.3f}% equal to the "
               f"stored-precision golden (at least {100 * EXACT_FRACTION:g}%), {beyond_one} off by more than one; "
               f"dequantised within {float(np.max(step_error)):.3g} steps of the exact value (at most 1), "
               f"{off_step} beyond; {scales.size} scales within {float(np.max(scale_error)) / U:.3g} U of "
               f"max|{name}| / 127 (at most {SCALE_RTOL / U:g} U), {bad_scales} beyond")
    return ok, verdict


def compare_q(outputs, exact, stored):
    return compare_quantised("q", outputs["q_int8"], outputs["q_scale"], exact, stored)


def compare_weights(weights, exact):
    want = exact["weights"]
    scale = float(np.sqrt(np.mean(want ** 2)))
    allowed = U * np.abs(want) + FP32 * U * scale
    error = np.abs(weights.astype(np.float64) - want)
    bad = int(np.count_nonzero(~(error <= allowed)))
    worst = float(np.max(error / allowed))
    return bad == 0, (f"weights: {'PASS' if bad == 0 else 'FAIL'}: {error.size} values, worst error {worst:.3g} of "
                      f"the tolerance (U |value| + {FP32:g} U x RMS {scale:.3g}), {bad} outside it")


def compare_cache(outputs, inputs, exact, stored):
    """The keys and scales at cache_index as compare_quantised asks; every other slot bit for bit as before."""
    index = inputs["cache_index"]
    keys = outputs["k_cache"].reshape(-1, DIM)
    key_scales = outputs["k_scale_cache"].reshape(-1)
    ok_written, written = compare_quantised("k", keys[index], key_scales[index], exact, stored)
    untouched = np.ones(keys.shape[0], bool)
    untouched[index] = False
    changed_keys = np.any(keys[untouched] != inputs["k_cache"].reshape(-1, DIM)[untouched], axis=1)
    changed_scales = (key_scales[untouched].view(np.uint16)
                      != inputs["k_scale_cache"].reshape(-1)[untouched].view(np.uint16))
    changed = int(np.count_nonzero(changed_keys | changed_scales))
    rest = (f"k_cache, k_scale_cache other slots: {'PASS' if changed == 0 else 'FAIL'}: {int(untouched.sum())} "
            f"slots, {changed} changed")
    return ok_written and changed == 0, written.replace("k: ", "k_cache, k_scale_cache written slots: ", 1) + "\n" + rest


def check(inputs):
    """Runs and compares. Returns (ok, verdict lines, run report)."""
    outputs, report = run_kernel(inputs)
    exact, stored = golden(inputs), golden(inputs, stored=True)
    results = [compare_q(outputs, exact, stored), compare_weights(outputs["weights"], exact),
               compare_cache(outputs, inputs, exact, stored)]
    return pto_examples.check_result(report, results)


def main(argv=None):
    return pto_examples.prolog_main(__doc__, argv, make_inputs, check)


if __name__ == "__main__":
    sys.exit(main())
