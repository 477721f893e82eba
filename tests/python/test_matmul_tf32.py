"""matmul's extend_params["trans_mode"] (PyPTO's TF32 mode of the Ascend 950's cube, issue 33): both fp32 operands
rounded to TF32 (sign, 8 exponent bits, 10 mantissa bits: the low 13 bits of the fp32 pattern cleared after
rounding to nearest) before the product, which accumulates in fp32 as any float matmul.

The reference is numpy: the operands rounded by integer arithmetic on their bit patterns (ties to even for
CAST_RINT, away from zero for CAST_ROUND), multiplied in float64. A product of two TF32 values has at most 22
significant bits, so it is exact in fp32, and the K = 96 fp32 additions keep |error| <= K u sum_k |a_ik| |b_kj|
(u = 2^-24), the bound used as atol (rtol 0). The data are chosen so that the rounding is visible: every operand
has bits below TF32's precision (each value is a TF32 value plus 0.3 to 0.7 of a TF32 step), so the product of the
unrounded operands misses the reference by more than ten times the bound, and ties (exactly half a step, which the two
modes round apart) are checked element by element on a 1 x K @ K x 1 product.
"""
import os
import unittest

os.environ["PTO_MACHINE"] = "950"  # before pypto reads it; this file runs in a process of its own

import numpy as np

import pypto
from kernel_checks import assert_functional as simulated

RNG = np.random.default_rng(20261201)
M, K, N = 32, 96, 48
U32 = 2.0 ** -24


def tf32(values, ties_away):
    """numpy's rounding of fp32 values to TF32, on the bit patterns: the magnitude rounded to 10 mantissa bits."""
    bits = np.ascontiguousarray(values, np.float32).view(np.uint32).astype(np.uint64)
    carry = np.uint64(0x1000) if ties_away else np.uint64(0xFFF) + ((bits >> np.uint64(13)) & np.uint64(1))
    rounded = ((bits + carry) & np.uint64(0xFFFFE000)).astype(np.uint32)
    return rounded.view(np.float32)


def kernel(mode):
    @pypto.frontend.jit
    def tf32_matmul(a: pypto.Tensor([M, K], pypto.DT_FP32), b: pypto.Tensor([K, N], pypto.DT_FP32),
                    out: pypto.Tensor([M, N], pypto.DT_FP32)):
        pypto.set_cube_tile_shapes([16, 32], [32, 32], [16, 48])
        out[:] = pypto.matmul(a, b, pypto.DT_FP32, extend_params={"trans_mode": mode})
    return tf32_matmul


def off_grid(shape):
    """fp32 values in [-2, 2) that lie 0.3 to 0.7 of a TF32 step above a TF32 value."""
    base = tf32(RNG.uniform(-2, 2, shape).astype(np.float32), ties_away=False)
    step = np.ldexp(1.0, np.frexp(base.astype(np.float64))[1] - 11)
    return (base + np.sign(base) * RNG.uniform(0.3, 0.7, shape) * step).astype(np.float32)


class Tf32Matmul(unittest.TestCase):
    def check(self, mode, ties_away):
        a, b = off_grid((M, K)), off_grid((K, N))
        out = np.zeros((M, N), np.float32)
        kernel(mode)(a, b, out)
        report = simulated(self)
        # The run also compares with the reference interpreter (its matmul kernel rounds the same way): agreeing
        # within its allclose (atol 1e-5, rtol 1e-4) means it rounded too, as the unrounded product misses by more.
        self.assertTrue(all(o["pass"] for o in report["outputs"]), report["outputs"])
        ra, rb = tf32(a, ties_away).astype(np.float64), tf32(b, ties_away).astype(np.float64)
        bound = float((K * U32 * (np.abs(ra) @ np.abs(rb))).max())
        np.testing.assert_allclose(out, ra @ rb, rtol=0, atol=bound)
        unrounded = a.astype(np.float64) @ b.astype(np.float64)
        self.assertGreater(np.abs(unrounded - ra @ rb).max(), 10 * bound)  # the unrounded product fails it

    def test_cast_rint_rounds_operands_to_nearest_even(self):
        self.check(pypto.TransMode.CAST_RINT, ties_away=False)

    def test_cast_round_rounds_operands_away_from_zero(self):
        self.check(pypto.TransMode.CAST_ROUND, ties_away=True)

    def test_ties_round_to_even_or_away_by_mode(self):
        # a_k = 1 + (2k + 1) * 2^-11 (odd multiples of half a TF32 step of [1, 2)), b = e_k: out picks a_k alone.
        a = np.zeros((M, K), np.float32)
        a[0] = 1.0 + (2 * np.arange(K) % 1024 + 1) * 2.0 ** -11
        for mode, ties_away in ((pypto.TransMode.CAST_RINT, False), (pypto.TransMode.CAST_ROUND, True)):
            for k in (0, 1, 2, 3):
                b = np.zeros((K, N), np.float32)
                b[k, 0] = 1.0
                out = np.zeros((M, N), np.float32)
                kernel(mode)(a, b, out)
                self.assertEqual(out[0, 0], tf32(a[0, k:k + 1], ties_away)[0], f"{mode} tie a = {a[0, k]!r}")
        self.assertNotEqual(tf32(a[0, :1], False)[0], tf32(a[0, :1], True)[0])  # the modes differ on these ties

    def test_cast_none_leaves_operands_alone(self):
        a, b = off_grid((M, K)), off_grid((K, N))
        out = np.zeros((M, N), np.float32)
        kernel(pypto.TransMode.CAST_NONE)(a, b, out)
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        np.testing.assert_allclose(out, a64 @ b64, rtol=0, atol=float((K * U32 * (np.abs(a64) @ np.abs(b64))).max()))

    def test_other_dtypes_are_refused_at_the_line(self):
        @pypto.frontend.jit
        def half_tf32(a: pypto.Tensor([M, K], pypto.DT_FP16), b: pypto.Tensor([K, N], pypto.DT_FP16),
                      out: pypto.Tensor([M, N], pypto.DT_FP32)):
            pypto.set_cube_tile_shapes([16, 32], [32, 32], [16, 48])
            out[:] = pypto.matmul(a, b, pypto.DT_FP32, extend_params={"trans_mode": pypto.TransMode.CAST_RINT})

        with self.assertRaises(pypto.KernelError) as caught:
            half_tf32(np.zeros((M, K), np.float16), np.zeros((K, N), np.float16), np.zeros((M, N), np.float32))
        self.assertIn("matmul: extend_params['trans_mode'] CAST_RINT needs DT_FP32 operands and result (PyPTO's page), "
                      "got DT_FP16 @ DT_FP16 -> DT_FP32", str(caught.exception))
        self.assertIn("test_matmul_tf32.py", str(caught.exception))

    def test_the_a2_a3_machines_refuse_it_as_pypto_does(self):
        os.environ["PTO_MACHINE"] = "a2"
        try:
            with self.assertRaises(pypto.KernelError) as caught:
                kernel(pypto.TransMode.CAST_ROUND)(off_grid((M, K)), off_grid((K, N)), np.zeros((M, N), np.float32))
        finally:
            os.environ["PTO_MACHINE"] = "950"
        self.assertIn("matmul: extend_params['trans_mode'] CAST_ROUND (TF32 operands) exists on the Ascend 950 only",
                      str(caught.exception))


if __name__ == "__main__":
    unittest.main()
