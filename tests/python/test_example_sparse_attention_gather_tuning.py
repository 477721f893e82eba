"""The DIA tuning story's gather step (resources/examples/sparse_attention_gather_tuning): both forms of the
kernel, gathering each step's selected KV rows by tensor index into UB and a GM workspace, or straight into the
cube core's L1, agree with sparse flash attention's numpy golden (its check.py, written from the definition)
on the simulator, and the L1 form runs without the workspace round trip: fewer cube tasks' loads, no vector
task between a step's indices and its matmul.
"""
import unittest

import numpy as np

from example_checks import load_check, load_example_file, sparse_attention_inputs

check = load_check("sparse_flash_attention")
KERNEL = load_example_file("sparse_attention_gather_tuning", "kernel.py")

TOPK = 192          # three steps of 64 slots
LENGTHS = [3000, 100]


def run(kernel, inputs):
    import pypto
    tokens = inputs["query"].shape[0]
    out = np.zeros((tokens, check.HEADS, check.NOPE), np.float16)
    kernel(inputs["query"], inputs["kv_cache"], inputs["block_table"], inputs["kv_lengths"], inputs["topk_indices"],
           out)
    return out, pypto.last_run()


class GatherTuningExampleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # As the sparse attention example's own test: the second request's 100 keys leave slots 100..191 at -1,
        # and token 0 gets a -1 mid-step and two indices at or past its L, which must be masked, not gathered.
        cls.inputs = sparse_attention_inputs(check, LENGTHS, TOPK)
        cls.expected, cls.allowed = check.golden(cls.inputs)
        cls.runs = {name: run(getattr(KERNEL, name), cls.inputs) for name in ("through_workspace", "into_l1")}

    def test_both_forms_match_the_golden_on_the_simulator(self):
        for name, (out, report) in self.runs.items():
            with self.subTest(form=name):
                self.assertTrue(report["simulated"], report.get("simulation_error"))
                self.assertEqual(report["outputs_from"], "functional")
                ok, verdict = check.compare(out, self.expected, self.allowed)
                self.assertTrue(ok, verdict)

    def test_gathering_into_l1_puts_the_gathers_in_the_cube_tasks(self):
        workspace, l1 = self.runs["through_workspace"][1], self.runs["into_l1"][1]
        steps = 4 * TOPK // check.TILE   # 4 tokens
        # Through the workspace a step has one qk and two pv cube tasks (pv's 512 columns in two 256-wide L0C
        # tiles, each loading its half of V from the workspace), as in the sparse attention example. Into L1,
        # the pv gather's rows feed both tiles, so they are one cube task with the gather.
        self.assertEqual(workspace["tasks_by_core_type"]["AIC"], 3 * steps)
        self.assertEqual(l1["tasks_by_core_type"]["AIC"], 2 * steps)


if __name__ == "__main__":
    unittest.main()
