"""Scalar reads of index tensors inside a kernel, as PyPTO's DeepSeek-V3.2 kernels make them: `cur_seq =
act_seq[b]` and `blk = block_table[b, i]` give a symbolic scalar (PyPTO's GetTensorData), not a 0-D tensor,
and it drives loop bounds, view and assemble offsets, min/max and pypto.cond. Its value is the argument's
element when the kernel launches, read by the compiler's schedule (one task per iteration that actually runs)
and by the reference interpreter alike.

Every kernel here runs on the simulator; its outputs are compared with numpy computations written from the
kernels' meaning, exactly (the data is only moved or scaled by 2, which is exact in fp32), and the number of
tasks is checked against the trip counts the read values give.
"""
import os
import unittest

import numpy as np

import pypto

RNG = np.random.default_rng(20261125)


def last_report(test):
    report = pypto.last_run()
    test.assertTrue(report["simulated"], report.get("simulation_error"))
    failed = [o["name"] for o in report.get("outputs", []) if not o.get("pass", True)]
    test.assertEqual(failed, [], "simulated outputs differ from the reference interpreter")
    return report


@pypto.frontend.jit
def ragged_rows(x: pypto.Tensor([4, 256], pypto.DT_FP32), lengths: pypto.Tensor([4], pypto.DT_INT32),
                out: pypto.Tensor([4, 256], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(1, 64)
    for b in pypto.loop(0, 4, 1, name="batch", idx_name="b"):
        cur_len = lengths[b]
        for i in pypto.loop(0, (cur_len + 63) // 64, 1, name="tiles", idx_name="i"):
            tile = pypto.view(x, [1, 64], [b, i * 64])
            pypto.assemble(tile * 2.0, [b, i * 64], out)


@pypto.frontend.jit
def paged_rows(cache: pypto.Tensor([128, 32], pypto.DT_FP32), block_table: pypto.Tensor([2, 4], pypto.DT_INT32),
               lengths: pypto.Tensor([2], pypto.DT_INT32), out: pypto.Tensor([128, 32], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(16, 32)
    for b in pypto.loop(0, 2, 1, name="batch", idx_name="b"):
        blocks = (lengths[b] + 15) // 16
        for j in pypto.loop(0, pypto.min(blocks, 4), 1, name="blocks", idx_name="j"):
            block = block_table[b, j]
            rows = pypto.view(cache, [16, 32], [block * 16, 0])
            pypto.assemble(rows * 2.0, [b * 64 + j * 16, 0], out)


@pypto.frontend.jit
def long_or_short(x: pypto.Tensor([2, 64], pypto.DT_FP32), lengths: pypto.Tensor([2], pypto.DT_INT32),
                  out: pypto.Tensor([2, 64], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(1, 64)
    for b in pypto.loop(0, 2, 1, name="batch", idx_name="b"):
        row = pypto.view(x, [1, 64], [b, 0])
        if pypto.cond(lengths[b] > 32):
            pypto.assemble(row * 2.0, [b, 0], out)
        else:
            pypto.assemble(row * 0.5, [b, 0], out)


@pypto.frontend.jit
def reads_a_float_argument(x: pypto.Tensor([4, 8], pypto.DT_FP32), out: pypto.Tensor([1, 1], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(1, 8)
    out[:] = pypto.reshape(x[1, 2], [1, 1])


def ragged_reference(x, lengths):
    out = np.zeros_like(x)
    for b, n in enumerate(lengths):
        end = -(-int(n) // 64) * 64
        out[b, :end] = 2 * x[b, :end]
    return out


class ElementReadTest(unittest.TestCase):
    def test_a_read_length_bounds_the_loop(self):
        x = RNG.random((4, 256), np.float32)
        lengths = np.array([256, 64, 0, 130], np.int32)
        out = np.zeros((4, 256), np.float32)
        ragged_rows(x, lengths, out)
        report = last_report(self)
        np.testing.assert_array_equal(out, ragged_reference(x, lengths))
        # One task per tile that runs: 4 + 1 + 0 + 3 (a read loop bound is a trip count, not a maximum).
        self.assertEqual(report["tasks"], 8)

    def test_other_lengths_give_other_schedules(self):
        x = RNG.random((4, 256), np.float32)
        lengths = np.array([64, 64, 64, 64], np.int32)
        out = np.zeros((4, 256), np.float32)
        ragged_rows(x, lengths, out)
        self.assertEqual(last_report(self)["tasks"], 4)
        np.testing.assert_array_equal(out, ragged_reference(x, lengths))

    def test_a_block_table_read_gives_the_view_offset(self):
        cache = RNG.random((128, 32), np.float32)
        block_table = np.array([[5, 2, 7, 0], [1, 6, 3, 4]], np.int32)
        lengths = np.array([40, 64], np.int32)
        out = np.zeros((128, 32), np.float32)
        paged_rows(cache, block_table, lengths, out)
        report = last_report(self)
        expected = np.zeros_like(out)
        for b in range(2):
            for j in range(min(-(-int(lengths[b]) // 16), 4)):
                block = block_table[b, j]
                expected[b * 64 + j * 16: b * 64 + j * 16 + 16] = 2 * cache[block * 16: block * 16 + 16]
        np.testing.assert_array_equal(out, expected)
        self.assertEqual(report["tasks"], 3 + 4)

    def test_a_read_decides_a_cond(self):
        x = RNG.random((2, 64), np.float32)
        out = np.zeros((2, 64), np.float32)
        long_or_short(x, np.array([10, 50], np.int32), out)
        last_report(self)
        np.testing.assert_array_equal(out, np.stack([0.5 * x[0], 2 * x[1]]))

    def test_the_read_is_a_symbolic_scalar(self):
        seen = {}

        @pypto.frontend.jit
        def probe(lengths: pypto.Tensor([3], pypto.DT_INT32), table: pypto.Tensor([2, 5], pypto.DT_INT32),
                  out: pypto.Tensor([1, 8], pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(1, 8)
            for b in pypto.loop(0, 2, 1, name="b", idx_name="b"):
                seen["length"] = lengths[b]
                seen["last"] = lengths[-1]
                seen["block"] = table[b, 3]
            out[:] = pypto.full([1, 8], 1.0, pypto.DT_FP32)

        probe(np.array([1, 2, 3], np.int32), np.zeros((2, 5), np.int32), np.zeros((1, 8), np.float32))
        self.assertIsInstance(seen["length"], pypto.SymbolicScalar)
        self.assertEqual(seen["length"].python_str(), "lengths[b]")
        self.assertEqual(seen["last"].python_str(), "lengths[2]")
        self.assertEqual(seen["block"].python_str(), "table[b*5 + 3]")

    def test_a_float_argument_indexed_by_ints_is_still_a_view(self):
        x = RNG.random((4, 8), np.float32)
        out = np.zeros((1, 1), np.float32)
        reads_a_float_argument(x, out)
        self.assertEqual(out[0, 0], x[1, 2])

    def test_an_index_past_the_dim_is_an_error_at_its_line(self):
        @pypto.frontend.jit
        def past(lengths: pypto.Tensor([3], pypto.DT_INT32), out: pypto.Tensor([1, 8], pypto.DT_FP32)):
            n = lengths[3]  # noqa: F841
            out[:] = pypto.full([1, 8], 1.0, pypto.DT_FP32)

        with self.assertRaises(pypto.KernelError) as raised:
            past(np.zeros(3, np.int32), np.zeros((1, 8), np.float32))
        self.assertIn("index 3 is out of range for dim 0 of size 3", str(raised.exception))
        self.assertIn(os.path.basename(__file__), str(raised.exception))


if __name__ == "__main__":
    unittest.main()
