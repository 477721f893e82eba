"""The bundled Lightning Indexer prolog example (resources/examples/indexer_prolog): its kernel, run on the
simulator at a small shape (2 tokens, the model's full widths), agrees with the example's float64 numpy goldens
(check.py), its outputs are what the Lightning Indexer example reads, and check.py's comparisons reject wrong
answers, so a passing run means something.
"""
import re
import unittest

import numpy as np

from example_checks import load_check, load_example_file, main_output

check = load_check("indexer_prolog")


class IndexerPrologExampleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inputs = check.make_inputs(tokens=2, cache_blocks=4, seed=4)
        cls.outputs, cls.report = check.run_kernel(cls.inputs)
        cls.exact = check.golden(cls.inputs)
        cls.stored = check.golden(cls.inputs, stored=True)

    def test_the_kernel_was_simulated(self):
        self.assertTrue(self.report["simulated"], self.report.get("simulation_error"))
        self.assertEqual(self.report["outputs_from"], "functional")
        # Cube tasks: W_K and W_PROJ in 4 row panels each, W_QB in 128 columns (64), the keys' Hadamard product once
        # and the queries' once per token.
        self.assertEqual(self.report["tasks_by_core_type"]["AIC"], 4 + 4 + 64 + 1 + 2)

    def test_outputs_match_the_goldens(self):
        for ok, verdict in (check.compare_q(self.outputs, self.exact, self.stored),
                            check.compare_weights(self.outputs["weights"], self.exact),
                            check.compare_cache(self.outputs, self.inputs, self.exact, self.stored)):
            self.assertTrue(ok, verdict)

    def test_the_hadamard_matrix_is_orthonormal(self):
        h = check.sylvester_hadamard().astype(np.float64)
        np.testing.assert_allclose(h @ h.T, np.eye(check.DIM), atol=1e-3)   # fp16 entries: 1/sqrt(128) rounded
        self.assertTrue(np.all(np.abs(np.abs(h) * np.sqrt(check.DIM) - 1) < 1e-3))

    def test_the_outputs_are_the_lightning_indexers_inputs(self):
        # Same dtypes and layouts as resources/examples/lightning_indexer's query, query_scale, key_cache,
        # key_scale and weights, and the same head count and head dim.
        indexer = load_example_file("lightning_indexer", "kernel.py")
        self.assertEqual((indexer.HEADS, indexer.DIM, indexer.BLOCK), (check.HEADS, check.DIM, check.BLOCK))
        tokens = self.inputs["x"].shape[0]
        self.assertEqual((self.outputs["q_int8"].dtype, self.outputs["q_int8"].shape),
                         (np.dtype(np.int8), (tokens, indexer.HEADS, indexer.DIM)))
        self.assertEqual((self.outputs["q_scale"].dtype, self.outputs["weights"].dtype),
                         (np.dtype(np.float16), np.dtype(np.float16)))
        self.assertEqual(self.outputs["k_cache"].shape[1:], (indexer.BLOCK, 1, indexer.DIM))
        self.assertEqual(self.outputs["k_scale_cache"].shape[1:], (indexer.BLOCK, 1))

    def test_an_int8_value_off_by_two_is_rejected(self):
        q_int8 = self.outputs["q_int8"].copy()
        q_int8[1, 5, 9] = np.clip(int(q_int8[1, 5, 9]) + (2 if q_int8[1, 5, 9] < 0 else -2), -127, 127)
        ok, verdict = check.compare_q(dict(self.outputs, q_int8=q_int8), self.exact, self.stored)
        self.assertFalse(ok)
        self.assertIn("1 off by more than one", verdict)

    def test_too_many_values_off_by_one_are_rejected(self):
        # 0.2% of the values moved by one each: every one within one step, but more than the 0.1% allowed.
        q_int8 = self.stored["q_int8"].copy()
        flat = q_int8.reshape(-1)
        moved = np.random.default_rng(0).choice(flat.size, flat.size // 500, replace=False)
        flat[moved] += np.where(flat[moved] > 0, -1, 1)
        ok, verdict = check.compare_q(dict(self.outputs, q_int8=q_int8.astype(np.int8)), self.exact, self.stored)
        self.assertFalse(ok)
        self.assertIn("0 off by more than one", verdict)

    def test_truncation_instead_of_rounding_is_rejected(self):
        # Rounding toward zero keeps every value within one step but changes about half of them.
        scale = self.outputs["q_scale"].astype(np.float64)[..., None]
        truncated = np.trunc(self.exact["q"] / scale).astype(np.int8)
        ok, verdict = check.compare_q(dict(self.outputs, q_int8=truncated), self.exact, self.stored)
        self.assertFalse(ok)
        self.assertIn("0 off by more than one; dequantised within", verdict)
        self.assertLess(float(re.search(r"([0-9.]+)% equal", verdict).group(1)), 90.0)

    def test_rope_on_the_other_half_is_rejected(self):
        # Each head's halves swapped before RoPE (as if it took the last 64 dims, the MLA layout): the values
        # and scales of every row move.
        swapped = dict(self.inputs, w_qb=np.ascontiguousarray(
            self.inputs["w_qb"].reshape(check.Q_RANK, check.HEADS, 2, check.DIM // 2)[:, :, ::-1].reshape(
                check.Q_RANK, -1)))
        wrong = check.golden(swapped, stored=True)
        outputs = dict(self.outputs, q_int8=wrong["q_int8"].astype(np.int8), q_scale=wrong["q_scale"].astype(np.float16))
        ok, verdict = check.compare_q(outputs, self.exact, self.stored)
        self.assertFalse(ok)
        self.assertRegex(verdict, r"[1-9][0-9]* beyond$")   # scales off

    def test_a_gate_outside_the_tolerance_is_rejected(self):
        want = self.exact["weights"]
        allowed = check.U * abs(want[0, 3]) + check.FP32 * check.U * np.sqrt(np.mean(want ** 2))
        weights = want.astype(np.float16)
        weights[0, 3] = want[0, 3] + 3 * allowed
        ok, verdict = check.compare_weights(weights, self.exact)
        self.assertFalse(ok)
        self.assertIn("1 outside it", verdict)

    def test_a_key_in_the_wrong_slot_is_rejected(self):
        index = self.inputs["cache_index"]
        keys = self.outputs["k_cache"].reshape(-1, check.DIM).copy()
        spare = next(slot for slot in range(keys.shape[0]) if slot not in index)
        keys[spare] = keys[index[1]]
        ok, verdict = check.compare_cache(dict(self.outputs, k_cache=keys.reshape(self.outputs["k_cache"].shape)),
                                          self.inputs, self.exact, self.stored)
        self.assertFalse(ok)
        self.assertIn("other slots: FAIL", verdict)

    def test_main_exits_1_on_a_wrong_answer_or_without_simulation(self):
        wrong = dict(self.outputs, weights=-self.outputs["weights"])
        not_simulated = dict(self.report, simulated=False, simulation_error="a reason")
        for result, message in (((wrong, self.report), "weights: FAIL"),
                                ((self.outputs, not_simulated), "not simulated: a reason")):
            status, printed = main_output(check, self.inputs, result)
            self.assertEqual(status, 1)
            self.assertIn(message, printed)


if __name__ == "__main__":
    unittest.main()
