"""pypto.uniform and pypto.normal: Philox-4x32-10 counter-based random numbers, through the compiler and the
functional simulator. Two independent references:
 - PyPTO's API pages print uniform([4, 4], key [1234], counter [0, 1]) and normal() of the same: uniform must
   match exactly (integer arithmetic, then exact float ops); normal within rtol 1e-5, atol 1e-6 (log, sqrt,
   sin and cos of this host's libm against the chip's);
 - Philox-4x32 written out here in Python integers from the algorithm's definition (Salmon et al., SC'11),
   for other keys, counters with carries, fp16, and a size that is not a multiple of 4: exact.
"""
import unittest

import numpy as np

import pypto

import kernel_checks

MASK = 0xFFFFFFFF


def philox(key, counter0, counter1, count, rounds=10):
    words = []
    for block in range((count + 3) // 4):
        counter = ((counter0 + block) & ((1 << 64) - 1)) | (counter1 << 64)
        w = [(counter >> (32 * j)) & MASK for j in range(4)]
        k0, k1 = key & MASK, (key >> 32) & MASK
        for _ in range(rounds):
            p0, p1 = 0xD2511F53 * w[0], 0xCD9E8D57 * w[2]
            w = [((p1 >> 32) ^ w[1] ^ k0) & MASK, p1 & MASK, ((p0 >> 32) ^ w[3] ^ k1) & MASK, p0 & MASK]
            k0, k1 = (k0 + 0x9E3779B9) & MASK, (k1 + 0xBB67AE85) & MASK
        words.extend(w)
    return words[:count]


@pypto.frontend.jit
def documented(u: pypto.Tensor([4, 4], pypto.DT_FP32), n: pypto.Tensor([4, 4], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(2, 4)
    u[:] = pypto.uniform([4, 4], [1234], [0, 1], [1], pypto.DT_FP32)
    n[:] = pypto.normal([4, 4], [1234], [0, 1], [1], pypto.DT_FP32)


@pypto.frontend.jit
def others(a: pypto.Tensor([3, 7], pypto.DT_FP32), b: pypto.Tensor([5, 3], pypto.DT_FP16)):
    pypto.set_vec_tile_shapes(3, 7)
    a[:] = pypto.uniform([3, 7], [12345678901234], [5, 0xFFFFFFFF], [3], pypto.DT_FP32)
    b[:] = pypto.uniform([5, 3], [(7 << 32) + 99], [0, (1 << 33) + 5], [1], pypto.DT_FP16)


@pypto.frontend.jit
def carried(c: pypto.Tensor([12], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(12)
    c[:] = pypto.uniform_impl(99, 0xFFFFFFFE, 3, [12], rounds=7)  # blocks 0..2: the counter's low word carries


class Random(unittest.TestCase):
    def test_pypto_s_documented_values(self):
        u, n = np.zeros((4, 4), np.float32), np.zeros((4, 4), np.float32)
        documented(u, n)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(u[0], np.array([0.1689806, 0.9725481, 0.90036285, 0.16582811], np.float32))
        np.testing.assert_array_equal(u[3], np.array([0.6877538, 0.24809706, 0.95886254, 0.24039495], np.float32))
        np.testing.assert_allclose(n, np.array([[-0.32364845, 1.8577391, 0.39556974, 0.2311697],
                                                [0.24243996, -1.9485782, -0.12983137, 2.7137496],
                                                [1.6558666, 2.0938187, -0.90338254, 0.8765667],
                                                [0.86518306, 0.01034508, 0.2893259, 0.01748212]], np.float32),
                                   rtol=1e-5, atol=1e-6)

    def test_philox_from_its_definition(self):
        a, b = np.zeros((3, 7), np.float32), np.zeros((5, 3), np.float16)
        others(a, b)
        kernel_checks.assert_functional(self)
        # The counter's first word starts at 0 (PyPTO's uniform); counter1 0xFFFFFFFF fills word 2 only.
        words = philox(12345678901234, 0, 0xFFFFFFFF, 21)
        want = np.array([(w & 0x7FFFFF) | (127 << 23) for w in words], np.uint32).view(np.float32) - np.float32(1)
        np.testing.assert_array_equal(a.ravel(), want)
        words = philox((7 << 32) + 99, 0, (1 << 33) + 5, 15)
        want16 = np.array([(w & 0x3FF) | (15 << 10) for w in words], np.uint16).view(np.float16) - np.float16(1)
        np.testing.assert_array_equal(b.ravel(), want16)

    def test_counter_carries_and_seven_rounds(self):
        c = np.zeros(12, np.float32)
        carried(c)
        kernel_checks.assert_functional(self)
        words = philox(99, 0xFFFFFFFE, 3, 12, rounds=7)
        want = np.array([(w & 0x7FFFFF) | (127 << 23) for w in words], np.uint32).view(np.float32) - np.float32(1)
        np.testing.assert_array_equal(c, want)


if __name__ == "__main__":
    unittest.main()
