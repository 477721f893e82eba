"""Schedules a kernel engineer can trust: a loop whose iterations share no data is not ordered by the buffer its
temporaries reuse (each iteration gets its own copy, as PyPTO gives each iteration its workspace).

Expected values are analytical: an iteration's tasks depend only on each other, so the dependency count is
linear in the trip count, and with every iteration's tasks ready together on 24 cube and 48 vector cores the
loop takes about as long as one iteration. Outputs are checked against torch.
"""
import unittest

import torch

import pypto

SIM = {"run_mode": pypto.RunMode.SIM}


@pypto.frontend.jit(runtime_options=SIM)
def scores_then_exp(q: pypto.Tensor([pypto.DYNAMIC, 64], pypto.DT_FP16), k: pypto.Tensor([64, 64], pypto.DT_FP16),
                    o: pypto.Tensor([pypto.DYNAMIC, 64], pypto.DT_FP32)):
    pypto.set_cube_tile_shapes([32, 32], [64, 64], [64, 64])
    pypto.set_vec_tile_shapes(32, 64)
    for i in pypto.loop(q.shape[0] // 32):
        s = pypto.matmul(q[i * 32:(i + 1) * 32, :], k, pypto.DT_FP32, b_trans=True)  # cube: a temporary in GM
        o[i * 32:(i + 1) * 32, :] = pypto.exp(s * 0.125)                               # vector: reads it


def run(trips):
    q = torch.rand(trips * 32, 64).half()
    k = torch.rand(64, 64).half()
    o = torch.empty(trips * 32, 64)
    scores_then_exp(q, k, o)
    # fp16 operands, fp32 accumulation over k = 64 in a different order, then exp: rtol 1e-5, atol 1e-5
    torch.testing.assert_close(o, torch.exp((q.float() @ k.float().T) * 0.125), rtol=1e-5, atol=1e-5)
    report = pypto.last_run()
    assert report["simulated"], report.get("simulation_error")
    return report


class LoopTemporariesTest(unittest.TestCase):
    def test_dependencies_grow_linearly_with_the_trip_count(self):
        counts = {trips: run(trips)["dependencies"] for trips in (1, 4, 16)}
        self.assertGreater(counts[1], 0)  # the exp reads what the matmul wrote
        self.assertEqual(counts[4], 4 * counts[1], counts)
        self.assertEqual(counts[16], 16 * counts[1], counts)

    def test_iterations_that_share_no_data_run_concurrently(self):
        one = run(1)["makespan_us"]
        sixteen = run(16)
        # 16 independent iterations on 24 cube / 48 vector cores: far below 16 back-to-back iterations; the
        # bound leaves room for the AICPUs dispatching 16x the tasks.
        self.assertLess(sixteen["makespan_us"], 4 * one, (one, sixteen["makespan_us"]))


if __name__ == "__main__":
    unittest.main()
