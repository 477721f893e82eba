"""pypto.view(x, dtype=...) reads x's bytes as another dtype, as PyPTO's sparse attention antiquant kernel reads
fp32 scales and bf16 rope values out of int8 cache rows. The last dim scales by the ratio of the element sizes
(int8 [s, 32] -> fp32 [s, 8], fp16 [s, 16] -> int8 [s, 32]). Every case runs through the compiler and the
functional simulator and is compared bit for bit with numpy's `.view(dtype)` of the same bytes (no tolerance:
a bitcast moves bytes). A last dim whose bytes are no whole number of the new elements, and a region asked for
together with dtype=, are refused at the kernel line.
"""
import os
import unittest

import numpy as np
import torch

import pypto

import kernel_checks

HERE = os.path.abspath(__file__)
RNG = np.random.default_rng(20261126)
ROWS = 32
T = 4


def line_of(marker):
    return kernel_checks.line_of(HERE, marker)


def random_bytes(shape):
    """Every bit pattern is fair game (NaNs and infinities included): a bitcast must keep them all."""
    return RNG.integers(-128, 128, size=shape, dtype=np.int8)


@pypto.frontend.jit
def int8_to_fp32(x: pypto.Tensor([ROWS, 32], pypto.DT_INT8), out: pypto.Tensor([ROWS, 8], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 32)
    out[:] = pypto.view(x, dtype=pypto.DT_FP32)


@pypto.frontend.jit
def cast_int8_to_fp16(x: pypto.Tensor([ROWS, 128], pypto.DT_FP32), out: pypto.Tensor([ROWS, 64], pypto.DT_FP16)):
    # A computed tensor is copied tile by tile: an input tile of 64 int8 columns is 32 fp16 columns, two per row.
    pypto.set_vec_tile_shapes(8, 64)
    quantised = pypto.cast(x, pypto.DT_INT8)
    out[:] = pypto.view(input=quantised, dtype=pypto.DT_FP16)


@pypto.frontend.jit
def scales_per_token(x: pypto.Tensor([T * 8, 32], pypto.DT_INT8), out: pypto.Tensor([T * 8, 8], pypto.DT_FP32)):
    # A bitcast of an argument that nothing writes is the argument's own bytes (no copy, no task).
    scales = pypto.view(x, dtype=pypto.DT_FP32)
    pypto.set_vec_tile_shapes(8, 8)
    for t in pypto.loop(0, T, 1, name="token", idx_name="t"):
        pypto.assemble(pypto.view(scales, [8, 8], [t * 8, 0]) * 2.0, [t * 8, 0], out)


@pypto.frontend.jit
def int8_to_bf16(x: pypto.Tensor([ROWS, 128], pypto.DT_INT8), out: pypto.Tensor([ROWS, 64], pypto.DT_BF16)):
    pypto.set_vec_tile_shapes(16, 128)
    out[:] = pypto.view(input=x, dtype=pypto.DT_BF16)


@pypto.frontend.jit
def fp32_computed_to_int32(x: pypto.Tensor([ROWS, 64], pypto.DT_FP32), out: pypto.Tensor([ROWS, 64], pypto.DT_INT32)):
    pypto.set_vec_tile_shapes(8, 64)
    doubled = x * 2.0
    out[:] = pypto.view(doubled, dtype=pypto.DT_INT32)


@pypto.frontend.jit
def fp16_cast_to_int8(x: pypto.Tensor([ROWS, 64], pypto.DT_FP32), out: pypto.Tensor([ROWS, 128], pypto.DT_INT8)):
    # fp16 -> int8 gives two elements per input element (ratio < 1 the other way round).
    pypto.set_vec_tile_shapes(8, 32)
    halves = pypto.cast(x, pypto.DT_FP16)
    out[:] = pypto.view(halves, dtype=pypto.DT_INT8)


@pypto.frontend.jit
def antiquant_rows(cache: pypto.Tensor([64, 192], pypto.DT_INT8), rows: pypto.Tensor([16], pypto.DT_INT32),
                   kn: pypto.Tensor([16, 8], pypto.DT_FP32), kr: pypto.Tensor([16, 64], pypto.DT_BF16)):
    # The shape of PyPTO's sparse_attention_antiquant_impl.py: gathered int8 cache rows hold 32 bytes of fp32
    # scales and 128 bytes of bf16 rope values after 32 bytes of quantised values.
    pypto.set_vec_tile_shapes(16, 192)
    gathered = pypto.index_select(cache, 0, rows)
    scales_int8 = pypto.view(gathered, [16, 32], [0, 32])
    kn[:] = pypto.add(pypto.view(input=scales_int8, dtype=pypto.DT_FP32), 0.0)
    rope_int8 = pypto.view(gathered, [16, 128], [0, 64])
    kr[:] = pypto.view(input=rope_int8, dtype=pypto.DT_BF16)


@pypto.frontend.jit
def ragged_last_dim(x: pypto.Tensor([ROWS, 30], pypto.DT_INT8), out: pypto.Tensor([ROWS, 8], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 32)
    out[:] = pypto.view(x, dtype=pypto.DT_FP32)  # @ragged


@pypto.frontend.jit
def region_and_dtype(x: pypto.Tensor([ROWS, 64], pypto.DT_INT8), out: pypto.Tensor([ROWS, 8], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 32)
    out[:] = pypto.view(x, [ROWS, 32], [0, 32], dtype=pypto.DT_FP32)  # @region


def bits(array):
    """The raw bytes of `array` as unsigned integers of its item size, so NaNs compare by pattern."""
    return array.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[array.dtype.itemsize])


@pypto.frontend.jit
def packs(x: pypto.Tensor([2, 16, 32], pypto.DT_INT32), packed: pypto.Tensor([4096], pypto.DT_UINT8),
          halves: pypto.Tensor([1024], pypto.DT_FP16)):
    # PyPTO's pack (flattened bytes as uint8) and unpack (a 1-D uint8 tensor's bytes as another dtype).
    pypto.set_vec_tile_shapes(2, 16, 32)
    bytes_ = pypto.pack(x)
    pypto.assemble(bytes_, [0], packed)
    pypto.set_vec_tile_shapes(512)
    pypto.assemble(pypto.unpack(pypto.view(bytes_, [2048], [0]), pypto.DT_FP16), [0], halves)


class Bitcast(unittest.TestCase):
    def test_pack_and_unpack_read_bytes_as_numpy_views_them(self):
        x = RNG.integers(-2**31, 2**31 - 1, size=(2, 16, 32), dtype=np.int64).astype(np.int32)
        packed = np.zeros(4096, np.uint8)
        halves = np.zeros(1024, np.float16)
        packs(x, packed, halves)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(packed, x.reshape(-1).view(np.uint8))
        np.testing.assert_array_equal(halves.view(np.uint16), x.reshape(-1).view(np.uint8)[:2048].view(np.uint16))

    def assertSimulated(self):
        report = pypto.last_run()
        self.assertTrue(report["simulated"], report.get("simulation_error"))
        self.assertEqual(report["outputs_from"], "functional")
        self.assertGreater(report["makespan_us"], 0.0)
        return report

    def test_int8_argument_as_fp32(self):
        x = random_bytes((ROWS, 32))
        out = np.zeros((ROWS, 8), np.float32)
        int8_to_fp32(x, out)
        self.assertSimulated()
        np.testing.assert_array_equal(bits(out), bits(x.view(np.float32)))

    def test_computed_int8_as_fp16_cut_into_tiles(self):
        x = RNG.integers(-128, 128, size=(ROWS, 128)).astype(np.float32)
        out = np.zeros((ROWS, 64), np.float16)
        cast_int8_to_fp16(x, out)
        self.assertSimulated()
        np.testing.assert_array_equal(bits(out), bits(x.astype(np.int8).view(np.float16)))

    def test_an_argument_read_through_its_bitcast_moves_nothing(self):
        scales = RNG.uniform(-4, 4, size=(T * 8, 8)).astype(np.float32)
        out = np.zeros((T * 8, 8), np.float32)
        scales_per_token(scales.view(np.int8), out)
        report = self.assertSimulated()
        np.testing.assert_array_equal(out, scales * np.float32(2))
        self.assertEqual(report["tasks"], T)  # one per token: the bitcast itself is no task

    def test_int8_argument_as_bf16(self):
        x = random_bytes((ROWS, 128))
        out = torch.zeros((ROWS, 64), dtype=torch.bfloat16)
        int8_to_bf16(x, out)
        self.assertSimulated()
        # bf16 has no numpy dtype: its bytes are compared as uint16, numpy's view of the same int8 bytes.
        np.testing.assert_array_equal(out.view(torch.int16).numpy().view(np.uint16), x.view(np.uint16))

    def test_computed_fp32_as_int32(self):
        x = RNG.standard_normal((ROWS, 64)).astype(np.float32)
        out = np.zeros((ROWS, 64), np.int32)
        fp32_computed_to_int32(x, out)
        self.assertSimulated()
        np.testing.assert_array_equal(out, (x * np.float32(2)).view(np.int32))

    def test_cast_fp16_as_int8_doubles_the_last_dim(self):
        x = RNG.standard_normal((ROWS, 64)).astype(np.float32) * 100
        out = np.zeros((ROWS, 128), np.int8)
        fp16_cast_to_int8(x, out)
        self.assertSimulated()
        np.testing.assert_array_equal(out, x.astype(np.float16).view(np.int8))

    def test_gathered_cache_rows_read_as_scales_and_rope(self):
        # Scales are finite fp32 values (add(x, 0) would turn a signalling NaN quiet); the rest is any bytes.
        cache = random_bytes((64, 192))
        scales = RNG.uniform(0.01, 1.0, size=(64, 8)).astype(np.float32)
        cache[:, 32:64] = scales.view(np.int8)
        rows = RNG.permutation(64)[:16].astype(np.int32)
        kn = np.zeros((16, 8), np.float32)
        kr = torch.zeros((16, 64), dtype=torch.bfloat16)
        antiquant_rows(cache, rows, kn, kr)
        self.assertSimulated()
        np.testing.assert_array_equal(kn, cache[rows, 32:64].copy().view(np.float32))
        np.testing.assert_array_equal(kr.view(torch.int16).numpy().view(np.uint16),
                                      cache[rows, 64:192].copy().view(np.uint16))

    def test_a_last_dim_of_no_whole_elements_is_refused_at_its_line(self):
        with self.assertRaises(pypto.KernelError) as caught:
            ragged_last_dim(random_bytes((ROWS, 30)), np.zeros((ROWS, 8), np.float32))
        self.assertEqual(caught.exception.line, line_of("# @ragged"))
        self.assertEqual(caught.exception.message,
                         "view(dtype=DT_FP32): the last dim of DT_INT8 [32, 30] is 30 elements = 30 bytes, not a "
                         "whole number of 4-byte DT_FP32 elements; view a region whose last dim is a multiple of 4 "
                         "first")

    def test_a_region_with_dtype_is_refused_at_its_line(self):
        with self.assertRaises(pypto.KernelError) as caught:
            region_and_dtype(random_bytes((ROWS, 64)), np.zeros((ROWS, 8), np.float32))
        self.assertEqual(caught.exception.line, line_of("# @region"))
        self.assertIn("PyPTO reinterprets the whole input and ignores them; take the region with "
                      "pypto.view(x, shape, offsets) first, then pypto.view(region, dtype=DT_FP32)",
                      caught.exception.message)


if __name__ == "__main__":
    unittest.main()
