"""The bundled Lightning Indexer example (resources/examples/lightning_indexer): its kernel, run on the
simulator at a small shape, agrees with the example's numpy golden (check.py), and check.py's comparisons
reject wrong answers, so a passing run means something.
"""
import os
import unittest

import numpy as np

import pypto

from example_checks import example_dir, load_check

EXAMPLE_DIR = example_dir("lightning_indexer")
check = load_check("lightning_indexer")


class LightningIndexerExampleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Two requests of two tokens: one ends inside a block, one has fewer keys than top-k (-1 padding),
        # and the block table is one column wider than the longest request needs (a padded block).
        cls.inputs = check.make_inputs([3000, 1000], tokens_per_request=2, max_blocks=25, seed=7)
        cls.scores, cls.indices, cls.report = check.run_kernel(cls.inputs)
        cls.expected, cls.magnitude, cls.token_length = check.golden(cls.inputs)

    def test_the_kernel_was_simulated(self):
        self.assertTrue(self.report["simulated"], self.report.get("simulation_error"))
        self.assertEqual(self.report["outputs_from"], "functional")
        # One cube task per KV block read: ceil(3000 / 128) + ceil(1000 / 128).
        self.assertEqual(self.report["tasks_by_core_type"]["AIC"], 24 + 8)

    def test_scores_match_the_golden(self):
        ok, verdict = check.compare_scores(self.scores, self.expected, self.magnitude)
        self.assertTrue(ok, verdict)

    def test_topk_matches_the_golden(self):
        ok, verdict = check.compare_topk(self.indices, self.expected, self.magnitude, self.token_length)
        self.assertTrue(ok, verdict)
        self.assertTrue(np.all(self.indices[2:, 1000:] == -1), "the short request's spare slots hold -1")

    def test_a_score_outside_the_tolerance_is_rejected(self):
        allowed = check.SCORE_ATOL + check.SCORE_RTOL * self.magnitude[0, 5]
        scores = self.scores.copy()
        scores[0, 5] = self.expected[0, 5] + 0.5 * allowed
        self.assertTrue(check.compare_scores(scores, self.expected, self.magnitude)[0])
        scores[0, 5] = self.expected[0, 5] + 2 * allowed
        ok, verdict = check.compare_scores(scores, self.expected, self.magnitude)
        self.assertFalse(ok)
        self.assertIn("1 outside it", verdict)

    def test_an_unmasked_position_is_rejected(self):
        scores = self.scores.copy()
        scores[2, 1000] = 0.0   # past the second request's length
        self.assertFalse(check.compare_scores(scores, self.expected, self.magnitude)[0])

    def test_a_wrong_index_set_is_rejected(self):
        indices = self.indices.copy()
        # Replace the best key of token 0 with its worst one.
        worst = int(np.argmin(self.expected[0, :3000]))
        indices[0, 0] = worst
        ok, verdict = check.compare_topk(indices, self.expected, self.magnitude, self.token_length)
        self.assertFalse(ok)
        self.assertIn("token 0", verdict)

    def test_a_tie_at_the_boundary_is_accepted_either_way(self):
        # Give a key the kernel left out the same golden score as the last key it kept: either may be chosen.
        expected = self.expected.copy()
        last_kept = self.indices[0, check.TOPK - 1]
        left_out = np.setdiff1d(np.arange(3000), self.indices[0])[0]
        expected[0, left_out] = expected[0, last_kept]
        swapped = self.indices.copy()
        swapped[0, check.TOPK - 1] = left_out
        for indices in (self.indices, swapped):
            ok, verdict = check.compare_topk(indices, expected, self.magnitude, self.token_length)
            self.assertTrue(ok, verdict)

    def test_a_repeated_or_out_of_range_index_is_rejected(self):
        repeated = self.indices.copy()
        repeated[1, 1] = repeated[1, 0]
        self.assertFalse(check.compare_topk(repeated, self.expected, self.magnitude, self.token_length)[0])
        beyond = self.indices.copy()
        beyond[3, 0] = 1000   # the second request has keys 0..999
        self.assertFalse(check.compare_topk(beyond, self.expected, self.magnitude, self.token_length)[0])

    def test_reordered_indices_are_rejected(self):
        reversed_order = self.indices.copy()
        reversed_order[0] = reversed_order[0, ::-1]
        ok, verdict = check.compare_topk(reversed_order, self.expected, self.magnitude, self.token_length)
        self.assertFalse(ok)
        self.assertIn("largest first", verdict)



class LightningIndexerTuningVariantTest(unittest.TestCase):
    """The tuning story's kernel (resources/examples/lightning_indexer_tuning: the kv_block loop unrolled by
    up to 32, the partial block masked once after it) computes the same as the example's, checked against
    the same numpy golden; and with cube_l1_reuse_setting the 32 matmuls of a group share one cube task."""

    @classmethod
    def setUpClass(cls):
        cls.kernel = check._load_kernel(os.path.join(EXAMPLE_DIR, "..", "lightning_indexer_tuning", "kernel.py"))
        # 47 blocks = 32 + 8 + 4 + 2 + 1 groups, the last partial; 9 blocks = 8 + 1.
        cls.inputs = check.make_inputs([6000, 1100], tokens_per_request=2, seed=11)

    def run_variant(self):
        saved = check.KERNEL
        check.KERNEL = self.kernel
        try:
            return check.check(self.inputs)
        finally:
            check.KERNEL = saved

    def test_matches_the_golden_with_one_cube_task_per_block(self):
        ok, verdicts, report = self.run_variant()
        self.assertTrue(ok, "\n".join(verdicts))
        self.assertEqual(report["outputs_from"], "functional")
        self.assertEqual(report["tasks_by_core_type"]["AIC"], 47 + 9)

    def test_l1_reuse_makes_each_unrolled_group_one_cube_task(self):
        with pypto.options(pass_options={"cube_l1_reuse_setting": {"DEFAULT": 32}}):
            ok, verdicts, report = self.run_variant()
        self.assertTrue(ok, "\n".join(verdicts))
        # One cube task per unrolled group: 32 + 8 + 4 + 2 + 1 and 8 + 1.
        self.assertEqual(report["tasks_by_core_type"]["AIC"], 5 + 2)

if __name__ == "__main__":
    unittest.main()
