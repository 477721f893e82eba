"""The host-side stand-in for ml_dtypes' bfloat16 that PyPTO's operation golden script gets on hosts without
ml_dtypes (scripts/pypto_ops_bf16.py), against an independent reference: bf16 rounding done on the float32 bits
with integers (round to nearest, ties to even), and PyPTO's comparison rule at bf16's tolerance. Also one bf16
operation case run by the ops runner end to end (the kernel on torch bf16 tensors, the golden written as the
stand-in writes it), passing, and failing against a golden one element off."""
import pathlib
import tempfile
import unittest

import numpy as np

from pto_examples import load_module

REPO = pathlib.Path(__file__).resolve().parents[2]
bf16 = load_module(REPO / "scripts" / "pypto_ops_bf16.py", "pypto_ops_bf16_under_test")
ops = load_module(REPO / "scripts" / "pypto_ops_compat.py", "pypto_ops_compat_bf16_under_test")


def reference_bits(values):
    """bf16 bits of float32 values: round to nearest even on the integer bits (NaN kept quiet)."""
    bits = np.atleast_1d(np.asarray(values, np.float32)).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.atleast_1d(np.asarray(values, np.float32)))
    return np.where(nan, ((bits >> 16) | 0x40).astype(np.uint16), rounded)


class Rounding(unittest.TestCase):
    def test_round_to_nearest_even_against_integer_reference(self):
        rng = np.random.default_rng(7)
        values = np.concatenate([
            rng.uniform(-1e4, 1e4, 4096).astype(np.float32),
            np.array([1 + 2 ** -8, 1 + 3 * 2 ** -8, -(1 + 2 ** -8), 3.3895314e38, 3.4e38, np.inf, -np.inf, 0.0,
                      -0.0, 1e-40], np.float32)])  # ties both ways, the largest bf16, overflow, denormal
        got = bf16.bits_of(bf16.round_to_bf16(values))
        np.testing.assert_array_equal(got, reference_bits(values))
        self.assertEqual(bf16.bits_of(bf16.round_to_bf16(np.float32(1 + 2 ** -8)))[()], 0x3F80)  # tie: to even
        self.assertEqual(bf16.bits_of(bf16.round_to_bf16(np.float32(1 + 3 * 2 ** -8)))[()], 0x3F82)
        self.assertTrue(np.isnan(bf16.round_to_bf16(np.float32(np.nan))))
        np.testing.assert_array_equal(bf16.values_of(got), bf16.round_to_bf16(values))


class ScriptStandIn(unittest.TestCase):
    def test_dtype_draws_and_scalars_behave_as_ml_dtypes(self):
        numpy_for_script = bf16._numpy_for_the_script()
        np.random.seed(3)
        drawn = numpy_for_script.random.uniform(-3, 3, 64).astype(bf16.bfloat16)
        np.random.seed(3)
        plain = np.random.uniform(-3, 3, 64)
        self.assertTrue(drawn.dtype == bf16.bfloat16)
        self.assertFalse(np.zeros(2, np.float32).dtype == bf16.bfloat16)
        np.testing.assert_array_equal(bf16.bits_of(drawn.astype(np.float32)), reference_bits(plain.astype(np.float32)))
        full = numpy_for_script.full((3,), 0.1, dtype=bf16.bfloat16)
        self.assertEqual(float(full[0]), float(bf16.values_of(reference_bits([0.1]))[0]))
        self.assertEqual(float(bf16.bfloat16(1 + 2 ** -8)), 1.0)

    def test_byte_views_of_case_inputs_are_bf16_bytes(self):
        values = bf16.to_carrier(np.array([1.5, -2.0, 3.140625], np.float32)).view(bf16._CaseInput)
        packed = values.flatten().view(np.uint8)  # PyPTO's Pack golden
        np.testing.assert_array_equal(packed, reference_bits([1.5, -2.0, 3.140625]).view(np.uint8))
        unpacked = np.asarray(packed).view(bf16._CaseInput).view(bf16.bfloat16)  # its UnPack golden
        np.testing.assert_array_equal(unpacked.astype(np.float32), [1.5, -2.0, 3.140625])

    def test_files_in_either_layout(self):
        with tempfile.TemporaryDirectory() as folder:
            path = pathlib.Path(folder, "t.bin")
            bf16.to_carrier(np.array([[0.1, 2.5]], np.float32)).tofile(path)
            np.testing.assert_array_equal(bf16.read_file(path, (1, 2)), reference_bits([[0.1, 2.5]]))
            reference_bits([0.1, 2.5]).astype("<u2").tofile(path)
            np.testing.assert_array_equal(bf16.read_file(path, (2,)), reference_bits([0.1, 2.5]))
            with self.assertRaisesRegex(ValueError, "6 bytes for a bf16 tensor of 2 elements"):
                np.zeros(3, np.uint16).tofile(path)
                bf16.read_file(path, (2,))


class ComparisonAtBf16Tolerance(unittest.TestCase):
    def test_eps_is_0_005_held_in_bf16(self):
        # test_operation.h passes 0.005 as a bfloat16: 0.005 rounded to bf16 is 0.0050048828125.
        self.assertEqual(ops.FLOAT_EPS["bf16"], float(bf16.values_of(reference_bits([0.005]))[0]))
        golden = reference_bits(np.full(1000, 100.0, np.float32))
        near = reference_bits(np.full(1000, 100.5, np.float32))  # 0.5 % off: within 0.0050049
        self.assertTrue(ops.pypto_compare(golden, near, "bf16")[0])
        far = near.copy()
        far[:6] = reference_bits(np.full(6, 101.0, np.float32))  # 6 of 1000 off, 5 allowed
        passes, summary = ops.pypto_compare(golden, far, "bf16")
        self.assertFalse(passes)
        self.assertIn("6 of 1000 elements off (allowed 5)", summary)


class RunnerCase(unittest.TestCase):
    def run_add(self, corrupt):
        case = {"case_index": 0, "operation": "Add",
                "input_tensors": [{"name": "a", "shape": [20, 24], "dtype": "bf16"},
                                  {"name": "b", "shape": [20, 24], "dtype": "bf16"}],
                "output_tensors": [{"name": "out", "shape": [20, 24], "dtype": "bf16"}],
                "view_shape": [8, 16], "tile_shape": [8, 16]}

        def write(_name, folder, _position):
            rng = np.random.default_rng(11)
            a, b = (bf16.round_to_bf16(rng.uniform(-50, 50, (20, 24))) for _ in range(2))
            out = a + b
            if corrupt:
                out[3, 5:8] += 8.0  # 3 of 480 elements: PyPTO's rule allows int(480 * eps) = 2
            for name, values in (("a", a), ("b", b), ("out", out)):
                bf16.to_carrier(values).tofile(pathlib.Path(folder, name + ".bin"))
        with tempfile.TemporaryDirectory() as scratch:
            return ops.run_case(case, 0, write, "Add", False, scratch)

    @unittest.skipUnless(ops.BF16_STANDIN, "ml_dtypes is installed: bf16 is numpy's own here")
    def test_bf16_case_passes_and_a_wrong_golden_fails(self):
        self.assertEqual(self.run_add(corrupt=False)["status"], "passes")
        result = self.run_add(corrupt=True)
        self.assertEqual(result["status"], "fails")
        self.assertIn("3 of 480 elements off (allowed 2)", result["note"])


if __name__ == "__main__":
    unittest.main()
