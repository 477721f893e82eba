"""Calling a kernel from Python compiles and simulates it: outputs against numpy, pypto.last_run()'s report,
the machine and mode chosen by PTO_MACHINE / PTO_MODE, and the warning when a kernel cannot be simulated."""
import os
import unittest
import warnings

import numpy as np

import pypto

F32 = pypto.DT_FP32
REPORT_KEYS = ("makespan_us", "tasks", "tasks_by_core_type", "subgraphs", "machine", "mode", "utilization",
               "outputs")


@pypto.frontend.jit
def scaled_exp(x: pypto.Tensor((64, 128), F32), y: pypto.Tensor((64, 128), F32)):
    pypto.set_vec_tile_shapes(16, 64)
    pypto.set_semantic_label("scaled_exp")
    y[:] = pypto.exp(x) * 0.5 + 1.0


@pypto.frontend.jit
def row_sum(x: pypto.Tensor((32, 96), F32), y: pypto.Tensor((32, 1), F32)):
    pypto.set_vec_tile_shapes(8, 32)
    y[:] = pypto.sum(x, -1, keepdim=True)


class Environment:
    """Sets environment variables for the duration of a `with` block."""

    def __init__(self, **values):
        self.values = values
        self.saved = {}

    def __enter__(self):
        for key, value in self.values.items():
            self.saved[key] = os.environ.get(key)
            os.environ[key] = value

    def __exit__(self, *exc):
        for key, value in self.saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def data(shape, seed):
    return np.random.default_rng(seed).uniform(-1.0, 1.0, shape).astype(np.float32)


class Simulation(unittest.TestCase):
    def test_outputs_come_from_the_functional_simulation_and_match_numpy(self):
        x = data((64, 128), 1)
        y = np.zeros_like(x)
        scaled_exp(x, y)
        # fp32 exp, multiply, add: each rounds once; 4 ulp-ish of slack against float64 numpy.
        np.testing.assert_allclose(y, np.exp(x.astype(np.float64)) * 0.5 + 1.0, rtol=2e-6, atol=1e-6)
        report = pypto.last_run()
        for key in REPORT_KEYS:
            self.assertIn(key, report)
        self.assertTrue(report["simulated"])
        self.assertEqual(report["mode"], "functional")
        self.assertEqual(report["outputs_from"], "functional")
        self.assertEqual(report["machine"], "a2")
        self.assertGreater(report["makespan_us"], 0.0)
        # 64x128 in 16x64 tiles: 8 tiles of vector work, no cube work.
        self.assertEqual(report["tasks_by_core_type"]["AIC"], 0)
        self.assertEqual(report["tasks_by_core_type"]["AIV"], report["tasks"])
        self.assertEqual([o["name"] for o in report["outputs"]], ["y"])
        self.assertTrue(report["outputs"][0]["pass"])
        self.assertEqual(report["outputs"][0]["mismatch_ratio"], 0.0)

    def test_last_run_is_a_copy(self):
        x = data((32, 96), 2)
        y = np.zeros((32, 1), np.float32)
        row_sum(x, y)
        report = pypto.last_run()
        report["tasks"] = -1
        self.assertNotEqual(pypto.last_run()["tasks"], -1)
        np.testing.assert_allclose(y, x.astype(np.float64).sum(-1, keepdims=True), rtol=1e-5, atol=1e-5)

    def test_machine_and_mode_from_the_environment_keep_one_timeline(self):
        x = data((64, 128), 3)
        with Environment(PTO_MACHINE="tiny", PTO_MODE="timing"):
            y = np.zeros_like(x)
            scaled_exp(x, y)
            timing = pypto.last_run()
        with Environment(PTO_MACHINE="tiny", PTO_MODE="functional"):
            y2 = np.zeros_like(x)
            scaled_exp(x, y2)
            functional = pypto.last_run()
        self.assertEqual(timing["machine"], "tiny")
        self.assertEqual(timing["mode"], "timing")
        self.assertEqual(functional["mode"], "functional")
        self.assertEqual(timing["makespan_cycles"], functional["makespan_cycles"])
        # Timing mode computes no data: its outputs come from the compiled tile graph on the CPU, still checked.
        self.assertEqual(timing["outputs_from"], "tiles")
        self.assertTrue(timing["outputs"][0]["pass"])
        np.testing.assert_allclose(y, y2, rtol=2e-6, atol=1e-6)

    def test_an_unknown_machine_is_an_error_naming_the_known_ones(self):
        x = data((64, 128), 4)
        with Environment(PTO_MACHINE="a9"):
            with self.assertRaises(pypto.KernelError) as raised:
                scaled_exp(x, np.zeros_like(x))
        self.assertIn("a9", str(raised.exception))
        self.assertIn("a2", str(raised.exception))

    def test_a_kernel_the_compiler_cannot_take_runs_on_the_reference_with_a_warning(self):
        # A shape that depends on a loop index (a partial last tile) is not compiled yet.
        @pypto.frontend.jit
        def partial_rows(x: pypto.Tensor((pypto.DYNAMIC, 64), F32), y: pypto.Tensor((pypto.DYNAMIC, 64), F32)):
            pypto.set_vec_tile_shapes(4, 64)
            rows = x.shape[0]
            for i in pypto.loop(0, (rows + 3) // 4, 1, name="rows", idx_name="i"):
                end = pypto.min(i * 4 + 4, rows)
                y[i * 4:end, :] = pypto.exp(x[i * 4:end, :])

        x = data((10, 64), 5)
        y = np.zeros_like(x)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            partial_rows(x, y)
        messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
        self.assertTrue(any("not simulated" in m for m in messages), messages)
        report = pypto.last_run()
        self.assertFalse(report["simulated"])
        self.assertIn("simulation_error", report)
        self.assertEqual(report["outputs"], [{"name": "y", "dtype": "float32", "shape": [10, 64], "checked": False}])
        np.testing.assert_allclose(y, np.exp(x.astype(np.float64)), rtol=2e-6, atol=1e-6)


if __name__ == "__main__":
    unittest.main()
