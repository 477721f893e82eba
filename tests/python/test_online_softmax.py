"""pypto.experimental.online_softmax and online_softmax_update, as PyPTO's API pages define them: per column of a
[k_len, q_len] fp32 block, m = max(scores * scale) and the sum of exp(scores * scale - m), the exponentials as bf16;
two blocks' states merged with m = max(m1, m2), a = exp(m1 - m), b = exp(m2 - m): (m, a * l1 + b * l2,
a * o1 + b * o2). Both run through the compiler and the functional simulator and are compared with numpy (fp32:
rtol 1e-5, libm's expf and a 64-term sum in another order than numpy's; bf16: one bf16 rounding, 2^-8 relative).
A merged state normalised by its sum gives the softmax over both blocks at once (the point of the operation)."""
import unittest

import numpy as np
import torch

import pypto
from pypto.experimental import online_softmax, online_softmax_update

import kernel_checks

RNG = np.random.default_rng(20261130)
K, Q, D = 64, 32, 16
SCALE = 0.25


@pypto.frontend.jit
def two_blocks(s1: pypto.Tensor([K, Q], pypto.DT_FP32), s2: pypto.Tensor([K, Q], pypto.DT_FP32),
               o1: pypto.Tensor([D, Q], pypto.DT_FP32), o2: pypto.Tensor([D, Q], pypto.DT_FP32),
               e1: pypto.Tensor([K, Q], pypto.DT_BF16), m1_out: pypto.Tensor([1, Q], pypto.DT_FP32),
               l1_out: pypto.Tensor([1, Q], pypto.DT_FP32), m: pypto.Tensor([1, Q], pypto.DT_FP32),
               l: pypto.Tensor([1, Q], pypto.DT_FP32), o: pypto.Tensor([D, Q], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(K, 16)  # the page's rule: dim 0 whole in a tile
    p1, m1, l1 = online_softmax(s1, SCALE)
    _, m2, l2 = online_softmax(s2, SCALE)
    e1[:] = p1
    m1_out[:] = m1
    l1_out[:] = l1
    mm, ll, oo = online_softmax_update(m1, l1, o1, m2, l2, o2)
    m[:] = mm
    l[:] = ll
    o[:] = oo


class OnlineSoftmax(unittest.TestCase):
    def test_block_statistics_and_merge_as_numpy(self):
        s1 = RNG.standard_normal((K, Q)).astype(np.float32) * 4
        s2 = RNG.standard_normal((K, Q)).astype(np.float32) * 4 + 1
        o1 = RNG.standard_normal((D, Q)).astype(np.float32)
        o2 = RNG.standard_normal((D, Q)).astype(np.float32)
        e1 = torch.zeros((K, Q), dtype=torch.bfloat16)
        m1, l1, m, l = (torch.zeros((1, Q)) for _ in range(4))
        o = torch.zeros((D, Q))
        two_blocks(torch.from_numpy(s1), torch.from_numpy(s2), torch.from_numpy(o1), torch.from_numpy(o2),
                   e1, m1, l1, m, l, o)
        kernel_checks.assert_functional(self)

        def stats(s):
            scaled = s * np.float32(SCALE)
            top = scaled.max(axis=0, keepdims=True)
            exps = np.exp(scaled - top)
            return exps, top, exps.sum(axis=0, keepdims=True)
        x1, want_m1, want_l1 = stats(s1)
        _, want_m2, want_l2 = stats(s2)
        np.testing.assert_allclose(e1.float().numpy(), x1, rtol=2 ** -8)
        np.testing.assert_array_equal(m1.numpy(), want_m1)
        np.testing.assert_allclose(l1.numpy(), want_l1, rtol=1e-5)
        want_m = np.maximum(want_m1, want_m2)
        a, b = np.exp(want_m1 - want_m), np.exp(want_m2 - want_m)
        np.testing.assert_array_equal(m.numpy(), want_m)
        np.testing.assert_allclose(l.numpy(), a * want_l1 + b * want_l2, rtol=1e-5)
        np.testing.assert_allclose(o.numpy(), a * o1 + b * o2, rtol=1e-5, atol=1e-6)
        # The merged sum normalises the softmax over both blocks' scores at once.
        both = np.concatenate([s1, s2]) * np.float32(SCALE)
        np.testing.assert_allclose(l.numpy(), np.exp(both - both.max(axis=0, keepdims=True)).sum(axis=0,
                                                                                                  keepdims=True),
                                   rtol=1e-5)


if __name__ == "__main__":
    unittest.main()
