"""The bundled fused DIA example (resources/examples/deepseek_indexer_attention): its kernel, which runs the MLA
prolog, indexer prolog, Lightning Indexer and sparse flash attention example kernels' bodies in one trace, is
simulated at a small shape and agrees with the four examples' numpy goldens chained by check.py; and the
checker rejects wrong answers, so a passing run means something.
"""
import importlib.util
import os
import shutil
import tempfile
import unittest
from unittest import mock

import numpy as np

from example_checks import example_dir, load_check

EXAMPLE_DIR = example_dir("deepseek_indexer_attention")
check = load_check("deepseek_indexer_attention")


class DeepseekIndexerAttentionExampleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Two requests of one token: the first has more keys than the top-k keeps (a real selection), the
        # second fewer (the indexer pads with -1 and attention must mask those slots).
        cls.inputs = check.make_inputs([2200, 200], tokens_per_request=1, seed=5)
        cls.out, cls.report = check.run_kernel(cls.inputs)
        cls.golden = check.goldens(cls.inputs, cls.out)
        cls.results = check.compare_all(cls.inputs, cls.out, cls.golden)

    def test_the_kernel_was_simulated(self):
        self.assertTrue(self.report["simulated"], self.report.get("simulation_error"))
        self.assertEqual(self.report["outputs_from"], "functional")

    def test_every_stage_matches_its_golden(self):
        for ok, verdict in self.results:
            self.assertTrue(ok, verdict)

    def test_the_selection_is_real(self):
        indices = self.out["topk_indices"]
        # 2048 distinct keys out of 2200 for the long request, all 200 and then -1 for the short one.
        self.assertEqual(len(np.unique(indices[0])), check.TOPK)
        self.assertTrue(np.all(indices[0] >= 0) and np.all(indices[0] < 2200))
        self.assertEqual(sorted(indices[1, :200].tolist()), list(range(200)))
        self.assertTrue(np.all(indices[1, 200:] == -1))

    def test_the_new_tokens_keys_are_read_back(self):
        # Each token's own position (its request's last) is written by the prologs and read by the indexer:
        # its score is finite, so the indexer saw the key the kernel had just written.
        for t, length in enumerate((2200, 200)):
            self.assertTrue(np.isfinite(self.out["scores"][t, length - 1]))

    def test_a_perturbed_attention_output_is_rejected(self):
        expected, allowed = self.golden["sfa"]
        out = self.out["attention_out"].copy()
        out[1, 7, 100] = np.float16(expected[1, 7, 100] + 3 * allowed[1, 7, 100] + 1e-3)
        ok, verdict = check.compare_attention(out, self.golden)
        self.assertFalse(ok)
        self.assertIn("1 outside it", verdict)

    def test_a_dropped_key_is_rejected(self):
        # Attention over the selection minus one key differs from the golden over the full selection.
        indices = self.out["topk_indices"].copy()
        indices[0, 0] = -1
        sfa_inputs = {"query": self.out["q_out"], "kv_cache": self.out["kv_cache"],
                      "block_table": self.inputs["block_table"], "kv_lengths": self.inputs["kv_lengths"],
                      "topk_indices": indices}
        wrong, _ = check.SFA_CHECK.golden(sfa_inputs)
        ok, _ = check.compare_attention(wrong.astype(np.float16), self.golden)
        self.assertFalse(ok)

    def test_a_wrong_selection_is_rejected(self):
        indices = self.out["topk_indices"].copy()
        scores, magnitude, length = self.golden["li"]
        indices[0, 0] = int(np.argmin(scores[0, :2200]))   # the worst key instead of the best
        ok, verdict = check.LI_CHECK.compare_topk(indices, scores, magnitude, length)
        self.assertFalse(ok)
        self.assertIn("token 0", verdict)

    def test_not_simulated_fails_the_check(self):
        not_simulated = (self.out, dict(self.report, simulated=False, simulation_error="forced by the test"))
        with mock.patch.object(check, "run_kernel", return_value=not_simulated):
            ok, lines, _ = check.check(self.inputs)
        self.assertFalse(ok)
        self.assertIn("not simulated", lines[0])


class CopiedAloneTest(unittest.TestCase):
    """The example's folder copied on its own (issue 35): importing its kernel fails at once, naming the
    sibling example kernel it did not find and what to copy."""

    def test_a_copy_without_its_siblings_names_the_missing_kernel(self):
        with tempfile.TemporaryDirectory() as scratch:
            alone = os.path.join(scratch, "deepseek_indexer_attention")
            os.mkdir(alone)
            shutil.copy(os.path.join(EXAMPLE_DIR, "kernel.py"), alone)
            spec = importlib.util.spec_from_file_location("dia_copied_alone", os.path.join(alone, "kernel.py"))
            with self.assertRaises(FileNotFoundError) as raised:
                spec.loader.exec_module(importlib.util.module_from_spec(spec))
        message = str(raised.exception)
        # The missing file, where it was looked for, and the command that copies what the example needs.
        self.assertIn(os.path.join("mla_prolog", "kernel.py") + " not found inside " + alone, message)
        self.assertIn("pto new DIR --example deepseek_indexer_attention", message)


if __name__ == "__main__":
    unittest.main()
