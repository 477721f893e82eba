"""Run-time valid parts (PyPTO's valid_shape): a tensor may hold data only in a leading box known when the
kernel runs, and ops compute on that box. PyPTO's DeepSeek-V3.2 kernels rely on it: the lightning indexer
pads a run-time tail with `full(..., valid_shape=[1, n])` assembled at offset n, and sparse attention
runs its softmax and its P.V matmul over a 2 048-key tile of which only the request's first keys are valid.

Each case is checked against numpy computing on the valid elements only, and each must run on the simulator
(the compiled form: every tile carries its valid part, evaluated per task), not fall back to the reference
interpreter. Tolerances: softmax and matmul compare within 1e-5 relative (fp32 kernels, the
numpy reference in float64), moves and top-k indices exactly.
"""
import unittest

import numpy as np

import pypto

RNG = np.random.default_rng(20261126)


class ValidParts(unittest.TestCase):
    def assert_simulated(self, case=""):
        """The outputs came from the functional simulator running the compiled kernel."""
        report = pypto.last_run()
        self.assertTrue(report["simulated"], f"{case}: {report.get('simulation_error')}")

    def test_softmax_over_the_valid_keys_of_a_tile(self):
        for key_tile in (64, 16):  # one tile per row; four per row, reduced by partial reductions
            self.check_softmax_over_valid_keys(key_tile)

    def check_softmax_over_valid_keys(self, key_tile):
        rows, tile = 8, 64

        @pypto.frontend.jit
        def softmax_valid(scores: pypto.Tensor([rows, tile], pypto.DT_FP32),
                          lengths: pypto.Tensor([1], pypto.DT_INT32),
                          out: pypto.Tensor([rows, tile], pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(8, key_tile)
            n = lengths[0]
            valid = pypto.view(scores, [rows, tile], [0, 0], valid_shape=[rows, n])
            peak = pypto.amax(valid, dim=-1, keepdim=True)
            weights = pypto.exp(pypto.sub(valid, peak))
            pypto.assemble(pypto.div(weights, pypto.sum(weights, dim=-1, keepdim=True)), [0, 0], out)

        scores = RNG.standard_normal((rows, tile)).astype(np.float32)
        for n in (1, 15, 17, 64):
            scores[:, n:] = 50.0  # invalid keys would dominate a softmax over the whole tile
            out = np.full((rows, tile), -7.0, np.float32)
            softmax_valid(scores, np.array([n], np.int32), out)
            part = scores[:, :n].astype(np.float64)
            expected = np.exp(part - part.max(axis=-1, keepdims=True))
            expected /= expected.sum(axis=-1, keepdims=True)
            case = f"key tile {key_tile}, n={n}"
            self.assert_simulated(case)
            np.testing.assert_allclose(out[:, :n], expected, rtol=1e-5, atol=1e-7, err_msg=case)
            # Only the valid part is stored.
            np.testing.assert_array_equal(out[:, n:], -7.0, err_msg=case)

    def test_attention_contracts_over_the_valid_keys_only(self):
        heads, keys, dim = 4, 32, 16

        @pypto.frontend.jit
        def attend(q: pypto.Tensor([heads, dim], pypto.DT_FP32), k: pypto.Tensor([keys, dim], pypto.DT_FP32),
                   v: pypto.Tensor([keys, dim], pypto.DT_FP32), lengths: pypto.Tensor([1], pypto.DT_INT32),
                   out: pypto.Tensor([heads, dim], pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(4, 32)
            pypto.set_cube_tile_shapes([16, 16], [16, 16], [16, 16])
            n = lengths[0]
            k_valid = pypto.view(k, [keys, dim], [0, 0], valid_shape=[n, dim])
            v_valid = pypto.view(v, [keys, dim], [0, 0], valid_shape=[n, dim])
            scores = pypto.matmul(q, k_valid, pypto.DT_FP32, b_trans=True)  # valid [heads, n]
            weights = pypto.exp(pypto.sub(scores, pypto.amax(scores, dim=-1, keepdim=True)))
            probabilities = pypto.div(weights, pypto.sum(weights, dim=-1, keepdim=True))
            pypto.assemble(pypto.matmul(probabilities, v_valid, pypto.DT_FP32), [0, 0], out)

        q = RNG.standard_normal((heads, dim)).astype(np.float32)
        k = RNG.standard_normal((keys, dim)).astype(np.float32)
        v = RNG.standard_normal((keys, dim)).astype(np.float32)
        for n in (3, 17, 32):
            poisoned_k, poisoned_v = k.copy(), v.copy()
            poisoned_k[n:] = 1e3
            poisoned_v[n:] = np.nan
            out = np.zeros((heads, dim), np.float32)
            attend(q, poisoned_k, poisoned_v, np.array([n], np.int32), out)
            self.assert_simulated(f"n={n}")
            s = q.astype(np.float64) @ k[:n].T
            p = np.exp(s - s.max(axis=-1, keepdims=True))
            p /= p.sum(axis=-1, keepdims=True)
            np.testing.assert_allclose(out, p @ v[:n], rtol=1e-5, atol=1e-6, err_msg=f"n={n}")

    def test_a_batched_matmul_cuts_only_batches_and_the_contraction(self):
        # Valid batches of a [4, 4, 16] stack times one [16, 8] matrix: the matrix's rows are its contraction
        # axis, not a batch axis, so all 16 take part.
        batches, rows, k, n = 4, 4, 16, 8

        @pypto.frontend.jit
        def stacked(a: pypto.Tensor([batches, rows, k], pypto.DT_FP32), b: pypto.Tensor([k, n], pypto.DT_FP32),
                    count: pypto.Tensor([1], pypto.DT_INT32), out: pypto.Tensor([batches, rows, n], pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(1, 4, 16)
            pypto.set_cube_tile_shapes([16, 16], [16, 16], [16, 16])
            valid = pypto.view(a, [batches, rows, k], [0, 0, 0], valid_shape=[count[0], rows, k])
            pypto.assemble(pypto.matmul(valid, b, pypto.DT_FP32), [0, 0, 0], out)

        a = RNG.standard_normal((batches, rows, k)).astype(np.float32)
        b = RNG.standard_normal((k, n)).astype(np.float32)
        out = np.full((batches, rows, n), -7.0, np.float32)
        stacked(a, b, np.array([2], np.int32), out)
        self.assert_simulated()
        np.testing.assert_allclose(out[:2], a[:2].astype(np.float64) @ b, rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(out[2:], -7.0)  # only the valid batches are stored

    def test_a_pad_assembled_after_a_run_time_tail_fills_the_row(self):
        # PyPTO's lightning indexer: scores of the n valid keys, then -inf up to 2048, then top-k.
        width, k = 256, 256

        @pypto.frontend.jit
        def pad_then_topk(scores: pypto.Tensor([1, width], pypto.DT_FP32), lengths: pypto.Tensor([1], pypto.DT_INT32),
                          padded: pypto.Tensor([1, width], pypto.DT_FP32),
                          order: pypto.Tensor([1, k], pypto.DT_INT32)):
            pypto.set_vec_tile_shapes(1, width)
            n = lengths[0]
            row = pypto.tensor([1, width], pypto.DT_FP32, "row")
            head = pypto.view(scores, [1, width], [0, 0], valid_shape=[1, n])
            pad = pypto.full([1, width], float("-inf"), pypto.DT_FP32, valid_shape=[1, width - n])
            pypto.assemble(pypto.clone(head), [0, 0], row)
            pypto.assemble(pad, [0, n], row)  # its shape reaches past row; its valid part does not
            pypto.assemble(row, [0, 0], padded)
            _, index = pypto.topk(row, k=k, dim=-1, largest=True)
            pypto.assemble(index, [0, 0], order)

        scores = RNG.standard_normal((1, width)).astype(np.float32)
        for n in (1, 100, width):
            padded = np.zeros((1, width), np.float32)
            order = np.zeros((1, k), np.int32)
            pad_then_topk(scores, np.array([n], np.int32), padded, order)
            self.assert_simulated(f"n={n}")
            expected = np.full((1, width), -np.inf, np.float32)
            expected[:, :n] = scores[:, :n]
            np.testing.assert_array_equal(padded, expected, err_msg=f"n={n}")
            # The n valid scores come first, largest first; the pads follow.
            np.testing.assert_array_equal(order[0, :n], np.argsort(-scores[0, :n], kind="stable"), err_msg=f"n={n}")

    def test_top_k_of_a_partly_valid_row_picks_among_the_valid_scores(self):
        width, k = 512, 64

        @pypto.frontend.jit
        def top(scores: pypto.Tensor([1, width], pypto.DT_FP32), lengths: pypto.Tensor([1], pypto.DT_INT32),
                order: pypto.Tensor([1, k], pypto.DT_INT32)):
            pypto.set_vec_tile_shapes(1, width)
            valid = pypto.view(scores, [1, width], [0, 0], valid_shape=[1, lengths[0]])
            _, index = pypto.topk(valid, k=k, dim=-1, largest=True)
            pypto.assemble(index, [0, 0], order)

        scores = RNG.permutation(width).astype(np.float32).reshape(1, width)  # distinct: no ties
        for n in (k, 300, width):
            order = np.zeros((1, k), np.int32)
            top(scores, np.array([n], np.int32), order)
            self.assert_simulated(f"n={n}")
            np.testing.assert_array_equal(order[0], np.argsort(-scores[0, :n])[:k], err_msg=f"n={n}")

    def test_a_top_k_tree_over_a_row_whose_last_chunks_hold_fewer_than_k_valid_scores(self):
        # PyPTO's lightning indexer takes the top 2 048 of a 64K row valid up to the request's length, in
        # chunks of 8K: the chunk holding the tail, and those after it, hold fewer than k valid scores. Here
        # chunks of 128 with k = 32.
        width, k, chunk = 1024, 32, 128

        def make(largest):
            @pypto.frontend.jit
            def top(scores: pypto.Tensor([1, width], pypto.DT_FP32), lengths: pypto.Tensor([1], pypto.DT_INT32),
                    order: pypto.Tensor([1, k], pypto.DT_INT32)):
                pypto.set_vec_tile_shapes(1, chunk)
                valid = pypto.view(scores, [1, width], [0, 0], valid_shape=[1, lengths[0]])
                _, index = pypto.topk(valid, k=k, dim=-1, largest=largest)
                pypto.assemble(index, [0, 0], order)
            return top

        for largest in (True, False):
            top = make(largest)
            sign = -1.0 if largest else 1.0
            for n, note in ((k, "one partial chunk, the rest empty"), (150, "22 valid in the second chunk"),
                            (700, "60 valid in the sixth chunk"), (40, "ties at the losing extreme")):
                scores = RNG.standard_normal((1, width)).astype(np.float32)
                scores[0, n:] = -sign * 1e6  # invalid scores that would win
                if note.startswith("ties"):
                    scores[0, 30:n] = np.inf * sign  # real scores as bad as the padding: the lower index wins
                order = np.full((1, k), -5, np.int32)
                top(scores, np.array([n], np.int32), order)
                case = f"largest={largest}, n={n} ({note})"
                self.assert_simulated(case)
                expected = np.argsort(sign * scores[0, :n].astype(np.float64), kind="stable")[:k]
                np.testing.assert_array_equal(order[0], expected, err_msg=case)

    def test_rows_gathered_by_a_partly_valid_index_keep_the_valid_count_through_reshapes(self):
        rows, picked, width = 64, 16, 8

        @pypto.frontend.jit
        def gather_sum(table: pypto.Tensor([rows, width], pypto.DT_FP32), where: pypto.Tensor([1, picked], pypto.DT_INT32),
                       lengths: pypto.Tensor([1], pypto.DT_INT32), out: pypto.Tensor([1, width], pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(16, 8)
            index = pypto.view(where, [1, picked], [0, 0], valid_shape=[1, lengths[0]])
            flat = pypto.reshape(index, [picked])  # a row-major prefix: valid [n]
            gathered = pypto.index_select(table, 0, flat)  # valid [n, width]
            doubled = pypto.reshape(pypto.concat([gathered, gathered], -1), [picked * 2, width])  # valid [2n, width]
            pypto.assemble(pypto.sum(doubled, dim=0, keepdim=True), [0, 0], out)

        table = RNG.standard_normal((rows, width)).astype(np.float32)
        where = RNG.integers(0, rows, (1, picked)).astype(np.int32)
        for n in (1, 5, picked):
            out = np.zeros((1, width), np.float32)
            gather_sum(table, where, np.array([n], np.int32), out)
            self.assert_simulated(f"n={n}")
            expected = 2 * table[where[0, :n]].astype(np.float64).sum(axis=0, keepdims=True)
            np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6, err_msg=f"n={n}")

    def test_a_valid_shape_equal_to_the_shape_still_compiles(self):
        @pypto.frontend.jit
        def whole(x: pypto.Tensor([4, 32], pypto.DT_FP32), out: pypto.Tensor([4, 32], pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(4, 32)
            pypto.assemble(pypto.exp(pypto.view(x, [4, 32], [0, 0], valid_shape=[4, 32])), [0, 0], out)

        x = RNG.standard_normal((4, 32)).astype(np.float32)
        out = np.zeros((4, 32), np.float32)
        whole(x, out)
        self.assertTrue(pypto.last_run()["simulated"], pypto.last_run().get("simulation_error"))
        np.testing.assert_allclose(out, np.exp(x.astype(np.float64)), rtol=1e-5)


if __name__ == "__main__":
    unittest.main()
