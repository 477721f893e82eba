"""The bundled MLA prolog example (resources/examples/mla_prolog): its kernel, run on the simulator at a small
shape (2 tokens, the model's full widths), agrees with the example's float64 numpy golden (check.py), and
check.py's comparisons reject wrong answers, so a passing run means something.
"""
import unittest

import numpy as np

from example_checks import load_check, main_output

check = load_check("mla_prolog")


class MlaPrologExampleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Two tokens whose slots fall in different blocks of a 4-block cache (the seed's permutation).
        cls.inputs = check.make_inputs(tokens=2, cache_blocks=4, seed=5)
        cls.qr, cls.q_out, cls.kv_cache, cls.report = check.run_kernel(cls.inputs)
        cls.expected = check.golden(cls.inputs)

    def test_the_kernel_was_simulated(self):
        self.assertTrue(self.report["simulated"], self.report.get("simulation_error"))
        self.assertEqual(self.report["outputs_from"], "functional")
        # Cube tasks: 64 columns each of W_DQ (1536) and W_DKV (512 + 64), then the up-projection and the
        # absorption once per head.
        self.assertEqual(self.report["tasks_by_core_type"]["AIC"], 24 + 8 + 1 + 128 + 128)

    def test_outputs_match_the_golden(self):
        for ok, verdict in (check.compare_qr(self.qr, self.expected),
                            check.compare_q_out(self.q_out, self.expected),
                            check.compare_cache(self.kv_cache, self.expected, self.inputs["kv_cache"],
                                                self.inputs["cache_index"])):
            self.assertTrue(ok, verdict)

    def test_a_qr_value_outside_the_tolerance_is_rejected(self):
        expected = self.expected["qr"]
        scale = np.sqrt(np.mean(expected ** 2))
        allowed = check.U * abs(expected[1, 7]) + check.FP32 * check.U * scale
        qr = expected.astype(np.float16)
        qr[1, 7] = expected[1, 7] + 3 * allowed
        ok, verdict = check.compare_qr(qr, self.expected)
        self.assertFalse(ok)
        self.assertIn("1 outside it", verdict)

    def test_swapped_heads_are_rejected(self):
        q_out = self.q_out.copy()
        q_out[:, [3, 4]] = q_out[:, [4, 3]]
        ok, verdict = check.compare_q_out(q_out, self.expected)
        self.assertFalse(ok)
        self.assertIn("absorbed q_nope): FAIL", verdict)

    def test_rope_with_the_other_sign_is_rejected(self):
        # RoPE by -angle (sin negated): a plausible slip that only the q_pe part shows.
        inputs = dict(self.inputs, sin=-self.inputs["sin"])
        q_out = self.q_out.copy()
        q_out[..., check.KV_RANK:] = check.golden(inputs)["q_out"][..., check.KV_RANK:]
        ok, verdict = check.compare_q_out(q_out, self.expected)
        self.assertFalse(ok)
        self.assertIn("(RoPE q_pe): FAIL", verdict)
        self.assertIn("absorbed q_nope): PASS", verdict)

    def test_a_row_in_the_wrong_slot_is_rejected(self):
        index = self.inputs["cache_index"]
        rows = self.kv_cache.reshape(-1, check.OUT).copy()
        wrong = next(slot for slot in range(rows.shape[0]) if slot not in index)
        rows[wrong] = rows[index[0]]
        rows[index[0]] = self.inputs["kv_cache"].reshape(-1, check.OUT)[index[0]]
        ok, verdict = check.compare_cache(rows.reshape(self.kv_cache.shape), self.expected, self.inputs["kv_cache"],
                                          index)
        self.assertFalse(ok)
        self.assertIn("written rows [:512] (normed c_kv): FAIL", verdict)
        self.assertIn(f"other rows: FAIL: {rows.shape[0] - 2} rows, 1 changed", verdict)

    def test_main_exits_1_on_a_wrong_answer_or_without_simulation(self):
        wrong_q_out = self.q_out.copy()
        wrong_q_out[0, 0, 0] += 1.0
        not_simulated = dict(self.report, simulated=False, simulation_error="a reason")
        cases = [((self.qr, wrong_q_out, self.kv_cache, self.report), "FAIL"),
                 ((self.qr, self.q_out, self.kv_cache, not_simulated), "not simulated: a reason")]
        for outputs, message in cases:
            status, printed = main_output(check, self.inputs, outputs)
            self.assertEqual(status, 1)
            self.assertIn(message, printed)


if __name__ == "__main__":
    unittest.main()
