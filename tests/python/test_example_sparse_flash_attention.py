"""The bundled sparse flash attention example (resources/examples/sparse_flash_attention): its kernel, run on the
simulator at a small shape, agrees with the example's numpy golden (check.py), and check.py's comparison
rejects wrong answers, including ones a kernel with a subtle bug would give, so a passing run means something.
"""
import unittest
from unittest import mock

import numpy as np

from example_checks import load_check, sparse_attention_inputs

check = load_check("sparse_flash_attention")

TOPK = 192          # three steps of 64 slots
LENGTHS = [3000, 100]


def edited(inputs, **changes):
    """A copy of inputs with some arrays replaced."""
    copy = dict(inputs)
    copy.update(changes)
    return copy


class SparseFlashAttentionExampleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Two requests of two tokens. The second has 100 keys, so its tokens' slots 100..191 are -1: step 1 is
        # partly and step 2 wholly unused. Token 0 also gets a -1 in the middle of a step and two indices at or
        # past its L (3000), which count as unused too.
        cls.inputs = sparse_attention_inputs(check, LENGTHS, TOPK)
        cls.out, cls.report = check.run_kernel(cls.inputs)
        cls.expected, cls.allowed = check.golden(cls.inputs)

    def assert_rejected(self, out):
        ok, verdict = check.compare(out, self.expected, self.allowed)
        self.assertFalse(ok, verdict)
        return verdict

    def golden_of(self, **changes):
        """What a kernel computing something else would output, rounded to fp16 as the kernel's output is."""
        scale = changes.pop("scale", check.SCALE)
        return check.golden(edited(self.inputs, **changes), scale=scale)[0].astype(np.float16)

    def test_the_kernel_was_simulated(self):
        self.assertTrue(self.report["simulated"], self.report.get("simulation_error"))
        self.assertEqual(self.report["outputs_from"], "functional")
        # Per token and step one qk and two pv cube tasks (the pv's 512 columns in two 256-wide L0C tiles).
        self.assertEqual(self.report["tasks_by_core_type"]["AIC"], 4 * (TOPK // check.TILE) * 3)

    def test_output_matches_the_golden(self):
        ok, verdict = check.compare(self.out, self.expected, self.allowed)
        self.assertTrue(ok, verdict)

    def test_an_error_outside_the_tolerance_is_rejected(self):
        out = self.out.copy()
        out[1, 7, 300] = self.expected[1, 7, 300] + 0.5 * self.allowed[1, 7, 300]
        self.assertTrue(check.compare(out, self.expected, self.allowed)[0])
        out[1, 7, 300] = self.expected[1, 7, 300] + 2 * self.allowed[1, 7, 300]
        self.assertIn("1 outside it", self.assert_rejected(out))

    def test_nan_is_rejected(self):
        out = self.out.copy()
        out[3, 0, 0] = np.nan
        self.assert_rejected(out)

    def test_unused_slots_that_are_not_masked_are_rejected(self):
        # A kernel that clamps the indices for its gather but forgets the mask attends to position 0 (for -1)
        # and to position L - 1 (for the indices past L).
        indices = self.inputs["topk_indices"].copy()
        for t in range(indices.shape[0]):
            length = LENGTHS[t // 2]
            indices[t] = np.clip(indices[t], 0, length - 1)
        self.assert_rejected(self.golden_of(topk_indices=indices))

    def test_a_dropped_step_is_rejected(self):
        indices = self.inputs["topk_indices"].copy()
        indices[:, 64:128] = -1
        self.assert_rejected(self.golden_of(topk_indices=indices))

    def test_one_wrong_key_is_rejected(self):
        indices = self.inputs["topk_indices"].copy()
        unselected = np.setdiff1d(np.arange(3000), indices[1])[0]
        indices[1, 5] = unselected
        verdict = self.assert_rejected(self.golden_of(topk_indices=indices))
        self.assertIn("first at [1, ", verdict)

    def test_a_wrong_scale_is_rejected(self):
        self.assert_rejected(self.golden_of(scale=1 / np.sqrt(check.NOPE)))

    def test_scores_without_the_rope_dims_are_rejected(self):
        cache = self.inputs["kv_cache"].copy()
        cache[..., check.NOPE:] = 0
        self.assert_rejected(self.golden_of(kv_cache=cache))

    def test_a_run_that_was_not_simulated_fails_the_check(self):
        not_simulated = (self.out, {"simulated": False, "simulation_error": "UB overflow"})
        with mock.patch.object(check, "run_kernel", return_value=not_simulated):
            ok, verdicts, _ = check.check(self.inputs)
        self.assertFalse(ok)
        self.assertIn("not simulated: UB overflow", verdicts[0])
        self.assertIn("PASS", verdicts[1])


if __name__ == "__main__":
    unittest.main()
