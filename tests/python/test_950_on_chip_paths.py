"""The 950 machine's on-chip paths between the cube and the vector unit (issue 33: PyPTO's soc('950') models).

- UB -> L1: PyPTO's 950 kernels (GLM's attention for the 950) pin a cast and the matmul that reads it into one
  sg_set_scope; the 950 moves the vector unit's result into L1 on chip (PyPTO's platform file for the 950 lists
  the ub2l1 move, its compiler takes UB -> L1 as a direct path on DAV_3510 only). The pinned pair is one task,
  simulated, and matches numpy: the cast to fp16 rounds each element once (numpy does the same), the product of
  two fp16 values is exact in fp32, and the K = 64 fp32 additions keep |error| <= K u sum_k |a_ik| |b_kj|
  (u = 2^-24), the bound used as atol.
- Buffer plan of a cube task's vector ops: with the L0C -> UB path a matmul's vector consumers join its task;
  their UB tiles are planned (reused once dead) like a vector task's. The chain below makes twelve [64, 128]
  fp32 tiles (32 KiB each, 384 KiB stacked one above the other, more than the 950's 248 KiB of UB) of which at
  most three are live at once; each elementwise step rounds once in fp32, so rtol 1e-6 over 12 steps is 12 u
  with margin, atol for the product as above.
"""
import os
import unittest

os.environ["PTO_MACHINE"] = "950"  # before pypto reads it; this file runs in a process of its own

import numpy as np

import pypto
from kernel_checks import assert_functional as simulated

RNG = np.random.default_rng(20261130)
M, K, N = 32, 64, 32
U32 = 2.0 ** -24


@pypto.frontend.jit
def cast_then_matmul(x: pypto.Tensor([M, K], pypto.DT_FP32), w: pypto.Tensor([K, N], pypto.DT_FP16),
                     out: pypto.Tensor([M, N], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(M, K)
    pypto.set_cube_tile_shapes([M, M], [K, K], [N, N])
    pypto.set_pass_options(sg_set_scope=1)
    half = pypto.cast(x, pypto.DT_FP16)
    out[:] = pypto.matmul(half, w, pypto.DT_FP32)
    pypto.set_pass_options(sg_set_scope=-1)


CHAIN_M, CHAIN_K, CHAIN_N, CHAIN_STEPS = 64, 32, 128, 12


@pypto.frontend.jit
def matmul_then_long_chain(a: pypto.Tensor([CHAIN_M, CHAIN_K], pypto.DT_FP16),
                           b: pypto.Tensor([CHAIN_K, CHAIN_N], pypto.DT_FP16),
                           out: pypto.Tensor([CHAIN_M, CHAIN_N], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(CHAIN_M, CHAIN_N)
    pypto.set_cube_tile_shapes([CHAIN_M, CHAIN_M], [CHAIN_K, CHAIN_K], [CHAIN_N, CHAIN_N])
    value = pypto.matmul(a, b, pypto.DT_FP32)
    for step in range(CHAIN_STEPS):
        value = pypto.add(pypto.mul(value, 0.5), float(step))
    out[:] = value


def chain_reference(product):
    value = product.astype(np.float32)
    for step in range(CHAIN_STEPS):
        value = (value * np.float32(0.5) + np.float32(step)).astype(np.float32)
    return value


class VectorToCubeOnChip(unittest.TestCase):
    def test_a_pinned_cast_and_matmul_run_as_one_task(self):
        x = RNG.uniform(-1, 1, (M, K)).astype(np.float32)
        w = RNG.uniform(-1, 1, (K, N)).astype(np.float16)
        out = np.zeros((M, N), np.float32)
        cast_then_matmul(x, w, out)
        report = simulated(self)
        a = x.astype(np.float16).astype(np.float64)
        b = w.astype(np.float64)
        np.testing.assert_allclose(out, a @ b, rtol=0, atol=float((K * U32 * (np.abs(a) @ np.abs(b))).max()))
        self.assertEqual(report["tasks"], 1)  # the cast's tile reaches the cube in L1, not through GM


class CubeTaskVectorBuffers(unittest.TestCase):
    def test_a_long_vector_chain_after_a_matmul_fits_the_unified_buffer(self):
        a = RNG.uniform(-1, 1, (CHAIN_M, CHAIN_K)).astype(np.float16)
        b = RNG.uniform(-1, 1, (CHAIN_K, CHAIN_N)).astype(np.float16)
        out = np.zeros((CHAIN_M, CHAIN_N), np.float32)
        matmul_then_long_chain(a, b, out)
        simulated(self)
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        product_atol = float((CHAIN_K * U32 * (np.abs(a64) @ np.abs(b64))).max())
        np.testing.assert_allclose(out, chain_reference(a64 @ b64), rtol=1e-6, atol=product_atol)


if __name__ == "__main__":
    unittest.main()
