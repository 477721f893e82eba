"""Elementwise results written over their dying inputs: a vec tile of [32, 32, 32] fp32 (128 KiB) leaves no room
in a2's 192 KiB unified buffer for a second tile, so the buffer plan writes each elementwise result over the
input it consumes (PTO-ISA's elementwise instructions take dst == src), as PyPTO's operation tests need at
this shape. The chain abs -> adds -> mul(by itself) -> neg then runs in one 128 KiB buffer, and its values,
executed by the functional simulator, are numpy's: exact for abs and neg, and one fp32 rounding each for the
add and the multiply, as numpy's fp32 arithmetic gives (compared exactly, since both round the same way).
A tile that alone overflows ([64, 32, 32] fp32, 256 KiB) is still an error at the kernel line.
"""
import os
import unittest

import numpy as np

import pypto

import kernel_checks

HERE = os.path.abspath(__file__)
SHAPE = (64, 32, 32)


@pypto.frontend.jit
def chain(x: pypto.Tensor(SHAPE, pypto.DT_FP32), y: pypto.Tensor(SHAPE, pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(32, 32, 32)
    a = pypto.abs(x)
    b = pypto.add(a, 0.5)
    c = pypto.mul(b, b)
    y[:] = pypto.neg(c)


@pypto.frontend.jit
def too_big(x: pypto.Tensor(SHAPE, pypto.DT_FP32), y: pypto.Tensor(SHAPE, pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(64, 32, 32)  # marker: too big
    y[:] = pypto.abs(x)


class ResultsInPlace(unittest.TestCase):
    def test_a_chain_of_128_kib_tiles_runs_in_place(self):
        x = np.random.default_rng(7).uniform(-4, 4, SHAPE).astype(np.float32)
        y = np.zeros(SHAPE, np.float32)
        chain(x, y)
        kernel_checks.assert_functional(self)
        b = np.abs(x) + np.float32(0.5)
        np.testing.assert_array_equal(y, -(b * b))

    def test_a_tile_that_alone_overflows_is_still_an_error(self):
        x = np.ones(SHAPE, np.float32)
        y = np.zeros(SHAPE, np.float32)
        with self.assertWarns(RuntimeWarning):  # it falls back to the reference interpreter, and says so
            too_big(x, y)
        report = pypto.last_run()
        self.assertFalse(report["simulated"])
        error = report["simulation_error"]
        self.assertIn("needs 262144 bytes of unified buffer but a2 has 196608 per core", error)
        abs_line = kernel_checks.line_of(HERE, "marker: too big") + 1
        self.assertIn(f"test_results_in_place.py:{abs_line}:", error)


if __name__ == "__main__":
    unittest.main()
