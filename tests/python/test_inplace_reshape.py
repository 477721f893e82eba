"""reshape(x, ..., inplace=True) as PyPTO's DeepSeek-V3.2 kernels use it: the result is x's own bytes in
another shape, so an output written through it is written (sparse flash attention assembles its rows into
`reshape(attention_out, [rows, 512], inplace=True)`), and an input read through it moves nothing. The
reference interpreter and the simulator alias the same way; outputs are compared with numpy exactly (the
data is only moved or doubled). Uses that the compiler cannot order (the bytes written under one name and
used under the other) are refused at the reshape's line.
"""
import unittest

import numpy as np

import pypto

RNG = np.random.default_rng(20261125)
T, HEADS, DIM = 4, 8, 64


@pypto.frontend.jit
def rows_into_output(x: pypto.Tensor([T * HEADS, DIM], pypto.DT_FP32),
                     out: pypto.Tensor([T, HEADS, DIM], pypto.DT_FP32)):
    out_rows = pypto.reshape(out, [T * HEADS, DIM], inplace=True)
    pypto.set_vec_tile_shapes(HEADS, DIM)
    for t in pypto.loop(0, T, 1, name="token", idx_name="t"):
        rows = pypto.view(x, [HEADS, DIM], [t * HEADS, 0])
        pypto.assemble(rows * 2.0, [t * HEADS, 0], out_rows)


@pypto.frontend.jit
def read_through_alias(x: pypto.Tensor([T, HEADS, DIM], pypto.DT_FP32),
                       out: pypto.Tensor([T * HEADS, DIM], pypto.DT_FP32)):
    x_rows = pypto.reshape(x, [T * HEADS, DIM], inplace=True)
    pypto.set_vec_tile_shapes(HEADS, DIM)
    out[:] = x_rows * 2.0


@pypto.frontend.jit
def both_names_written(x: pypto.Tensor([T * HEADS, DIM], pypto.DT_FP32),
                       out: pypto.Tensor([T, HEADS, DIM], pypto.DT_FP32)):
    out_rows = pypto.reshape(out, [T * HEADS, DIM], inplace=True)
    pypto.set_vec_tile_shapes(HEADS, DIM)
    pypto.assemble(x * 2.0, [0, 0], out_rows)
    pypto.set_vec_tile_shapes(1, HEADS, DIM)
    out[0:1, :, :] = pypto.full([1, HEADS, DIM], 1.0)


@pypto.frontend.jit
def filled_then_read_in_place(x: pypto.Tensor([T, HEADS * DIM], pypto.DT_FP32),
                              q_tmp: pypto.Tensor([T, HEADS * DIM], pypto.DT_FP32),
                              out: pypto.Tensor([T * HEADS, DIM], pypto.DT_FP32)):
    # PyPTO's GLM attention fusion: q_tmp is filled by row blocks under its own name, then read per token
    # through reshape(q_tmp, [tokens * heads, dim], inplace=True).
    pypto.set_vec_tile_shapes(2, HEADS * DIM)
    for i in pypto.loop(T // 2, name="fill", idx_name="i"):
        q_tmp[i * 2:, 0:] = pypto.view(x, [2, HEADS * DIM], [i * 2, 0]) * 2.0
    q_rows = pypto.reshape(q_tmp, [T * HEADS, DIM], inplace=True)
    pypto.set_vec_tile_shapes(HEADS, DIM)
    for t in pypto.loop(T, name="token", idx_name="t"):
        out[t * HEADS:, 0:] = pypto.view(q_rows, [HEADS, DIM], [t * HEADS, 0]) + 1.0


@pypto.frontend.jit
def computed_in_place(x: pypto.Tensor([T * HEADS, DIM], pypto.DT_FP32),
                      out: pypto.Tensor([T, HEADS, DIM], pypto.DT_FP32)):
    # PyPTO's MLA prolog: k_rope_4d = reshape(k_rope_2d, [...], inplace=True) of a value made in the loop.
    for t in pypto.loop(0, T, 1, name="token", idx_name="t"):
        pypto.set_vec_tile_shapes(HEADS, DIM)
        rows = pypto.view(x, [HEADS, DIM], [t * HEADS, 0]) * 2.0
        pypto.set_vec_tile_shapes(1, HEADS, DIM)
        per_token = pypto.reshape(rows, [1, HEADS, DIM], inplace=True)
        pypto.assemble(per_token + 1.0, [t, 0, 0], out)


@pypto.frontend.jit
def computed_written_through(x: pypto.Tensor([T * HEADS, DIM], pypto.DT_FP32),
                             out: pypto.Tensor([T * HEADS, DIM], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(HEADS, DIM)
    doubled = x * 2.0
    pypto.set_vec_tile_shapes(1, HEADS, DIM)
    cube = pypto.reshape(doubled, [T, HEADS, DIM], inplace=True)
    cube[0:1, :, :] = pypto.full([1, HEADS, DIM], 1.0)
    pypto.set_vec_tile_shapes(HEADS, DIM)
    out[:] = doubled


BLOCKS, ROWS = 4, 8


@pypto.frontend.jit
def fill_then_read_rows(x: pypto.Tensor([BLOCKS, DIM], pypto.DT_FP32),
                        cache: pypto.Tensor([BLOCKS, ROWS, DIM], pypto.DT_FP32),
                        out: pypto.Tensor([BLOCKS * ROWS, DIM], pypto.DT_FP32)):
    # The DIA's indexer prolog writes each new key into the paged cache; the Lightning Indexer then reads the
    # cache as rows.
    pypto.set_vec_tile_shapes(1, 1, DIM)
    for b in pypto.loop(0, BLOCKS, 1, name="block", idx_name="b"):
        row = pypto.reshape(pypto.view(x, [1, DIM], [b, 0]), [1, 1, DIM])
        pypto.assemble(row * 1.0, [b, ROWS - 1, 0], cache)
    rows = pypto.reshape(cache, [BLOCKS * ROWS, DIM])
    pypto.set_vec_tile_shapes(ROWS, DIM)
    out[:] = rows * 2.0


@pypto.frontend.jit
def read_rows_then_overwrite(x: pypto.Tensor([BLOCKS, DIM], pypto.DT_FP32),
                             cache: pypto.Tensor([BLOCKS, ROWS, DIM], pypto.DT_FP32),
                             out: pypto.Tensor([BLOCKS * ROWS, DIM], pypto.DT_FP32)):
    rows = pypto.reshape(cache, [BLOCKS * ROWS, DIM])  # the values before the writes below
    pypto.set_vec_tile_shapes(1, 1, DIM)
    for b in pypto.loop(0, BLOCKS, 1, name="block", idx_name="b"):
        row = pypto.reshape(pypto.view(x, [1, DIM], [b, 0]), [1, 1, DIM])
        pypto.assemble(row * 1.0, [b, 0, 0], cache)
    pypto.set_vec_tile_shapes(ROWS, DIM)
    out[:] = rows * 2.0


class InPlaceReshape(unittest.TestCase):
    def test_an_output_written_through_its_alias(self):
        x = RNG.standard_normal((T * HEADS, DIM)).astype(np.float32)
        out = np.zeros((T, HEADS, DIM), np.float32)
        rows_into_output(x, out)
        report = pypto.last_run()
        self.assertTrue(report["simulated"], report.get("simulation_error"))
        self.assertEqual(report["outputs_from"], "functional")
        self.assertEqual([o["name"] for o in report["outputs"]], ["out"])
        np.testing.assert_array_equal(out, (x * 2).reshape(T, HEADS, DIM))
        self.assertEqual(report["tasks"], T)  # the reshape itself is no task

    def test_a_reshape_of_an_argument_written_before_it_moves_nothing_and_reads_the_writes(self):
        x = RNG.standard_normal((BLOCKS, DIM)).astype(np.float32)
        cache = RNG.standard_normal((BLOCKS, ROWS, DIM)).astype(np.float32)
        expected_cache = cache.copy()
        expected_cache[:, ROWS - 1, :] = x
        out = np.zeros((BLOCKS * ROWS, DIM), np.float32)
        fill_then_read_rows(x, cache, out)
        report = pypto.last_run()
        self.assertTrue(report["simulated"], report.get("simulation_error"))
        np.testing.assert_array_equal(cache, expected_cache)
        np.testing.assert_array_equal(out, expected_cache.reshape(BLOCKS * ROWS, DIM) * 2)
        # One task per written row and per 8-row read, no copy; each read follows the write into its block
        # (found on the cache's bytes: the two name different tensors).
        self.assertEqual(report["tasks"], 2 * BLOCKS)
        self.assertEqual(report["dependencies"], BLOCKS)

    def test_a_reshape_of_an_argument_written_after_it_keeps_the_values_it_saw(self):
        x = RNG.standard_normal((BLOCKS, DIM)).astype(np.float32)
        cache = RNG.standard_normal((BLOCKS, ROWS, DIM)).astype(np.float32)
        before = cache.copy()
        out = np.zeros((BLOCKS * ROWS, DIM), np.float32)
        read_rows_then_overwrite(x, cache, out)
        report = pypto.last_run()
        self.assertTrue(report["simulated"], report.get("simulation_error"))
        np.testing.assert_array_equal(out, before.reshape(BLOCKS * ROWS, DIM) * 2)
        self.assertTrue(np.array_equal(cache[:, 0, :], x))

    def test_an_input_read_through_its_alias(self):
        x = RNG.standard_normal((T, HEADS, DIM)).astype(np.float32)
        out = np.zeros((T * HEADS, DIM), np.float32)
        read_through_alias(x, out)
        report = pypto.last_run()
        self.assertTrue(report["simulated"], report.get("simulation_error"))
        np.testing.assert_array_equal(out, (x * 2).reshape(T * HEADS, DIM))

    def test_writing_under_both_names_is_refused_at_the_reshape(self):
        x = RNG.standard_normal((T * HEADS, DIM)).astype(np.float32)
        out = np.zeros((T, HEADS, DIM), np.float32)
        with self.assertWarns(RuntimeWarning) as caught:
            both_names_written(x, out)
        message = str(caught.warning)
        self.assertIn("reshape(inplace=True)", message)
        self.assertIn("test_inplace_reshape.py:", message)
        self.assertIn("use one of the two names", message)
        # The reference interpreter still gives the kernel's meaning: row 0 ones, the rest doubled.
        expected = (x * 2).reshape(T, HEADS, DIM)
        expected[0] = 1.0
        np.testing.assert_array_equal(out, expected)

    def test_an_argument_written_under_its_own_name_then_read_through_an_in_place_reshape(self):
        x = RNG.standard_normal((T, HEADS * DIM)).astype(np.float32)
        q_tmp = np.zeros((T, HEADS * DIM), np.float32)
        out = np.zeros((T * HEADS, DIM), np.float32)
        filled_then_read_in_place(x, q_tmp, out)
        report = pypto.last_run()
        self.assertTrue(report["simulated"], report.get("simulation_error"))
        np.testing.assert_array_equal(q_tmp, x * 2)
        np.testing.assert_array_equal(out, (x * 2).reshape(T * HEADS, DIM) + 1)

    def test_a_computed_tensor_reshaped_in_place_and_read_is_a_copy(self):
        x = RNG.standard_normal((T * HEADS, DIM)).astype(np.float32)
        out = np.zeros((T, HEADS, DIM), np.float32)
        computed_in_place(x, out)
        report = pypto.last_run()
        self.assertTrue(report["simulated"], report.get("simulation_error"))
        np.testing.assert_array_equal(out, (x * 2 + 1).reshape(T, HEADS, DIM))

    def test_a_tile_set_for_the_input_cuts_the_copy_of_a_computed_tensor(self):
        # PyPTO's lightning indexer sets [128, 128] and views a [128, 16K] score block as [2, 64, 16K]: the
        # tile is the input's. Taken over the output it would leave the last dim whole, one 512 KB tile here
        # (more than a unified buffer holds, so the kernel fell back to the reference interpreter).
        rows, width = 128, 1024

        @pypto.frontend.jit
        def score_heads(x: pypto.Tensor([rows, width], pypto.DT_FP32),
                        out: pypto.Tensor([2, 1, width], pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(rows, 128)
            scores = pypto.exp(x)
            heads = pypto.reshape(scores, [2, rows // 2, width], inplace=True)
            pypto.set_vec_tile_shapes(1, rows // 2, 128)
            pypto.assemble(pypto.sum(heads, dim=1, keepdim=True), [0, 0, 0], out)

        x = RNG.standard_normal((rows, width)).astype(np.float32)
        out = np.zeros((2, 1, width), np.float32)
        score_heads(x, out)
        report = pypto.last_run()
        self.assertTrue(report["simulated"], report.get("simulation_error"))
        expected = np.exp(x.astype(np.float64)).reshape(2, rows // 2, width).sum(axis=1, keepdims=True)
        np.testing.assert_allclose(out, expected, rtol=1e-5)  # fp32 sums of 64 positive terms

    def test_writing_a_computed_tensor_through_its_reshape_is_refused(self):
        x = RNG.standard_normal((T * HEADS, DIM)).astype(np.float32)
        out = np.zeros((T * HEADS, DIM), np.float32)
        with self.assertWarns(RuntimeWarning) as caught:
            computed_written_through(x, out)
        message = str(caught.warning)
        self.assertIn("a computed tensor, written through the reshape", message)
        # The reference interpreter aliases, as PyPTO does: the first token's rows read back as ones.
        expected = x * 2
        expected[:HEADS] = 1.0
        np.testing.assert_array_equal(out, expected)


if __name__ == "__main__":
    unittest.main()
