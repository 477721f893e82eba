"""pypto.fillpad and Tensor.valid_shape. fillpad sets every element past a tensor's valid part (a view's or
reshape's valid_shape, here also one known only when the kernel runs: a row count read from an argument) to a
value and makes the whole shape valid, as PyPTO's fillpad does before computing on a padded tail. The kernels run
through the compiler and the functional simulator; numpy gives the expected values: the valid corner copied
exactly, the rest exactly the fill value (0, -inf, a custom number), compared exactly.
"""
import os
import unittest

import numpy as np

import pypto

import kernel_checks

HERE = os.path.abspath(__file__)


@pypto.frontend.jit
def pad_rows_and_columns(x: pypto.Tensor([8, 16], pypto.DT_FP32), rows: pypto.Tensor([1], pypto.DT_INT32),
                         y: pypto.Tensor([8, 16], pypto.DT_FP32), z: pypto.Tensor([8, 16], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(4, 16)
    block = pypto.view(x, [8, 16], [0, 0], valid_shape=[rows[0], 12])
    y[:] = pypto.fillpad(block, "constant", float("-inf"))
    # The padded block computes on all of it: exp(-inf) is 0 past the valid part.
    z[:] = pypto.exp(block.fillpad(value=-3.5))


@pypto.frontend.jit
def pad_fp16_reshape(x: pypto.Tensor([4, 2, 16], pypto.DT_FP16), y: pypto.Tensor([4, 16], pypto.DT_FP16)):
    pypto.set_vec_tile_shapes(4, 16)
    block = pypto.view(x, [4, 1, 16], [0, 1, 0], valid_shape=[3, 1, 16])
    rows = pypto.reshape(block, [4, 16], valid_shape=[3, 16])
    y[:] = pypto.fillpad(rows)


@pypto.frontend.jit
def valid_shapes(x: pypto.Tensor([8, 16], pypto.DT_FP32), y: pypto.Tensor([8, 16], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 16)
    block = pypto.view(x, [8, 16], [0, 0], valid_shape=[5, 16])
    assert [int(v) for v in block.valid_shape] == [5, 16]
    assert [int(v) for v in x.valid_shape] == [8, 16]  # an argument holds data everywhere
    y[:] = pypto.fillpad(block, value=7.0)


@pypto.frontend.jit
def pad_into_a_shorter_output(x: pypto.Tensor([16], pypto.DT_FP32), y: pypto.Tensor([8], pypto.DT_FP32),
                              z: pypto.Tensor([12], pypto.DT_FP32)):
    # PyPTO's 1-D FillPad case: a [16] block valid in [8], padded, assembled into an [8] output; the assemble
    # writes what fits (in z, at offset 2 under a tile of 8, one tile clipped and one dropped past the end).
    block = pypto.view(x, [16], [0], valid_shape=[8])
    pypto.set_vec_tile_shapes(8)
    padded = pypto.fillpad(block, "constant", -1.0)
    pypto.assemble(padded, [0], y)
    pypto.assemble(padded, [2], z)


@pypto.frontend.jit
def pad_forwarded_into_a_shorter_output(x: pypto.Tensor([16], pypto.DT_FP32), y: pypto.Tensor([8], pypto.DT_FP32)):
    # The same with the padded block assembled once: the assemble is not forwarded into fillpad's tiles.
    block = pypto.view(x, [16], [0], valid_shape=[8])
    pypto.set_vec_tile_shapes(8)
    pypto.assemble(pypto.fillpad(block, "constant", 0.0), [0], y)


class FillPad(unittest.TestCase):
    def test_rows_known_when_the_kernel_runs_and_columns_known_while_tracing(self):
        x = np.random.default_rng(3).uniform(-2, 2, (8, 16)).astype(np.float32)
        for rows in (5, 8, 1):
            y = np.zeros((8, 16), np.float32)
            z = np.zeros((8, 16), np.float32)
            pad_rows_and_columns(x, np.array([rows], np.int32), y, z)
            kernel_checks.assert_functional(self)
            expected = np.full((8, 16), -np.inf, np.float32)
            expected[:rows, :12] = x[:rows, :12]
            np.testing.assert_array_equal(y, expected)
            padded = np.full((8, 16), -3.5, np.float32)
            padded[:rows, :12] = x[:rows, :12]
            np.testing.assert_allclose(z, np.exp(padded), rtol=1e-6)

    def test_a_reshape_s_valid_part_in_fp16_padded_with_zero(self):
        x = np.random.default_rng(4).uniform(-2, 2, (4, 2, 16)).astype(np.float16)
        y = np.ones((4, 16), np.float16)
        pad_fp16_reshape(x, y)
        kernel_checks.assert_functional(self)
        expected = np.zeros((4, 16), np.float16)
        expected[:3] = x[:3, 1]
        np.testing.assert_array_equal(y, expected)

    def test_valid_shape_reads_what_the_kernel_said(self):
        x = np.arange(128, dtype=np.float32).reshape(8, 16)
        y = np.zeros((8, 16), np.float32)
        valid_shapes(x, y)
        kernel_checks.assert_functional(self)
        expected = np.full((8, 16), 7.0, np.float32)
        expected[:5] = x[:5]
        np.testing.assert_array_equal(y, expected)

    def test_an_assemble_reaching_past_its_target_writes_what_fits(self):
        x = np.arange(1, 17, dtype=np.float32)
        y = np.zeros(8, np.float32)
        z = np.full(12, 5.0, np.float32)
        pad_into_a_shorter_output(x, y, z)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(y, x[:8])
        padded = np.concatenate([x[:8], np.full(8, -1.0, np.float32)])
        np.testing.assert_array_equal(z, np.concatenate([[5.0, 5.0], padded[:10]]).astype(np.float32))
        y[:] = 0
        pad_forwarded_into_a_shorter_output(x, y)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(y, x[:8])


if __name__ == "__main__":
    unittest.main()
