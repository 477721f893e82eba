"""The pieces of scripts/pypto-compat.sh --ops that need no PyPTO checkout: a kernel the runner writes for one of
PyPTO's operation cases (blocks of the view shape, a partial last block, the case's vec tile) run in functional
mode against numpy; the int32 Sum golden PyPTO's script makes through float32; bit-packed compare results and
where conditions (C++ only in PyPTO; packed and unpacked by the runner's kernels) against numpy's packbits; and the
worker asking PyPTO's golden script for a case by its position in the sorted list, as the script counts."""
import json
import pathlib
import tempfile
import unittest

import numpy as np

from pto_examples import load_module  # a script loaded as a module of its own name

REPO = pathlib.Path(__file__).resolve().parents[2]

ops = load_module(REPO / "scripts" / "pypto_ops_compat.py", "pypto_ops_compat_under_test")


def tensor(name, shape, dtype, low=-100, high=100):
    return {"name": name, "shape": list(shape), "dtype": dtype, "format": "ND", "data_range": {"min": low, "max": high}}


def golden_writer(compute, seed=5):
    """A stand-in for PyPTO's registered golden function: writes the inputs and `compute`'s outputs as PyPTO's
    script does (<name>.bin), from the case given to run_case."""
    def register(case):
        def write(_name, folder, _position):
            rng = np.random.default_rng(seed)
            inputs = []
            for spec in case["input_tensors"]:
                dtype = ops.DTYPES[spec["dtype"]][0]
                values = rng.uniform(spec["data_range"]["min"], spec["data_range"]["max"], spec["shape"])
                inputs.append(values.astype(dtype))
                inputs[-1].tofile(pathlib.Path(folder, spec["name"] + ".bin"))
            for spec, value in zip(case["output_tensors"], compute(*inputs)):
                np.asarray(value, ops.DTYPES[spec["dtype"]][0]).tofile(pathlib.Path(folder, spec["name"] + ".bin"))
        return write
    return register


class KernelsRunAgainstNumpy(unittest.TestCase):
    def run_case(self, case, compute):
        with tempfile.TemporaryDirectory() as scratch:
            return ops.run_case(case, 0, golden_writer(compute)(case), case["operation"], False, scratch)

    def test_binary_case_with_partial_last_blocks(self):
        # 33 x 53 in 13 x 9 blocks: the last block of each dim reaches past the end (valid_shape), tile 16 x 16.
        case = {"case_index": 0, "operation": "Add", "input_tensors": [tensor("a", (33, 53), "fp32"),
                                                                       tensor("b", (33, 53), "fp32")],
                "output_tensors": [tensor("out", (33, 53), "fp32")], "view_shape": [13, 9], "tile_shape": [16, 16],
                "params": {}}
        result = self.run_case(case, lambda a, b: [a + b])
        self.assertEqual(result["status"], "passes", result)

    def test_a_wrong_golden_fails(self):
        case = {"case_index": 0, "operation": "Sub", "input_tensors": [tensor("a", (16, 32), "fp32"),
                                                                       tensor("b", (16, 32), "fp32")],
                "output_tensors": [tensor("out", (16, 32), "fp32")], "view_shape": [8, 32], "tile_shape": [8, 32],
                "params": {}}
        result = self.run_case(case, lambda a, b: [a + b])  # PyPTO's golden would be a - b
        self.assertEqual(result["status"], "fails", result)

    def test_reduction_over_the_last_dim(self):
        case = {"case_index": 0, "operation": "Amin", "input_tensors": [tensor("x", (64, 16, 64), "fp32")],
                "output_tensors": [tensor("out", (64, 16, 1), "fp32")], "view_shape": [64, 16, 64],
                "tile_shape": [8, 8, 64], "params": {"dims": [2], "keepDim": True}}
        result = self.run_case(case, lambda x: [x.min(axis=2, keepdims=True)])
        self.assertEqual(result["status"], "passes", result)

    def test_lrelu_without_a_slope_takes_the_default(self):
        case = {"case_index": 0, "operation": "LReLU", "input_tensors": [tensor("x", (16, 40), "fp32", -5, 5)],
                "output_tensors": [tensor("out", (16, 40), "fp32")], "view_shape": [8, 32], "tile_shape": [8, 16],
                "params": {"func_id": -1}}
        result = self.run_case(case, lambda x: [np.where(x > 0, x, x * np.float32(0.01))])
        self.assertEqual(result["status"], "passes", result)
        self.assertEqual(self.run_case(case, lambda x: [np.where(x > 0, x, x * np.float32(0.2))])["status"], "fails")

    def test_scatter_update_in_the_paged_cache_form(self):
        # src rows [b * s, d], slot numbers [b, s], the cache [slots, d]: cache[index[b][s]] = src[b * s + s].
        rng = np.random.default_rng(11)
        src = rng.uniform(-10, 10, (4, 8)).astype(np.float32)
        index = np.array([[3, 0], [9, 5]], np.int64)
        cache = rng.uniform(-1, 1, (10, 8)).astype(np.float32)
        want = cache.copy()
        for row, slot in enumerate(index.reshape(-1)):
            want[slot] = src[row]
        case = {"case_index": 0, "operation": "ScatterUpdate",
                "input_tensors": [tensor("input0", (4, 8), "fp32"), tensor("input1", (2, 2), "int64"),
                                  tensor("input2", (10, 8), "fp32")],
                "output_tensors": [tensor("output0", (10, 8), "fp32")], "view_shape": [4, 8], "tile_shape": [2, 8],
                "params": {}}

        def write(_name, folder, _position):
            for name, value in (("input0", src), ("input1", index), ("input2", cache), ("output0", want)):
                value.tofile(pathlib.Path(folder, name + ".bin"))
        with tempfile.TemporaryDirectory() as scratch:
            result = ops.run_case(case, 0, write, "ScatterUpdate", False, scratch)
        self.assertEqual(result["status"], "passes", result)

    def test_matmul_with_a_bias_and_split_k(self):
        # 40 x 48 by 48 x 56 in 32 x 32 output blocks (partial ones), plus a [1, 56] bias the golden script
        # writes as a file of its own; the fp32 sums of 48 products are within PyPTO's 0.005 of numpy's.
        rng = np.random.default_rng(9)
        a = rng.uniform(-1, 1, (40, 48)).astype(np.float32)
        b = rng.uniform(-1, 1, (48, 56)).astype(np.float32)
        bias = rng.uniform(-10, 10, (1, 56)).astype(np.float32)
        bias_spec = tensor("bias_tensor", (1, 56), "fp32")
        case = {"case_index": 0, "operation": "Matmul",
                "input_tensors": [tensor("a", (40, 48), "fp32"), tensor("b", (48, 56), "fp32")],
                "output_tensors": [tensor("c", (40, 56), "fp32")], "view_shape": [32, 32],
                "tile_shape": [[16, 16], [16, 16], [16, 16]],
                "params": {"bias_info": "{bias_shape:[1, 56]}", "bias_tensors": bias_spec, "outDtype": "fp32",
                           "enableKSplit": True}}

        def write(_name, folder, _position, golden=a @ b + bias):
            for name, value in (("a", a), ("b", b), ("bias_tensor", bias), ("c", golden)):
                value.tofile(pathlib.Path(folder, name + ".bin"))
        with tempfile.TemporaryDirectory() as scratch:
            self.assertEqual(ops.run_case(case, 0, write, "Matmul", False, scratch)["status"], "passes")
            wrong = lambda *args: write(*args, golden=a @ b)  # noqa: E731 - the bias left out
            self.assertEqual(ops.run_case(case, 0, wrong, "Matmul", False, scratch)["status"], "fails")

    def test_matmul_with_a_chained_operand(self):
        # params.l0c2l1_info: t = relu(a @ b^T) * scale in fp16, then chained^T @ t; the chained operand is a file
        # of its own. ReLU comes before the (negative) scale, as in PyPTO's golden.
        rng = np.random.default_rng(13)
        a = rng.integers(-3, 4, (20, 24)).astype(np.int8)
        b = rng.integers(-3, 4, (40, 24)).astype(np.int8)
        chained = rng.uniform(-1, 1, (20, 16)).astype(np.float16)
        scale = -0.75  # a multiple of 2^-13: the fixpipe's 19-bit scale keeps it exactly
        chained_spec = tensor("l0c2l1_tensor", (20, 16), "fp16", -1, 1)
        case = {"case_index": 0, "operation": "Matmul",
                "input_tensors": [tensor("a", (20, 24), "int8"), tensor("b", (40, 24), "int8")],
                "output_tensors": [tensor("c", (16, 40), "fp16")], "view_shape": [-1, -1],
                "tile_shape": [[16, 16], [32, 32], [16, 16]],
                "params": {"l0c2l1_info": "{...}", "l0c2l1_tensor": chained_spec, "transB": True,
                           "l0c2l1_params": {"is_as_left_matrix": True, "is_l0c2l1_trans": True},
                           "fixpipe_info": "{...}", "quant_type": 1, "scale_value": scale, "relu_type": 1,
                           "outDtype": "fp16"}}
        first = (np.maximum(a.astype(np.float32) @ b.T.astype(np.float32), 0) * np.float32(scale)).astype(np.float16)

        def write(_name, folder, _position, golden=chained.T.astype(np.float32) @ first.astype(np.float32)):
            for name, value in (("a", a), ("b", b), ("l0c2l1_tensor", chained), ("c", golden.astype(np.float16))):
                value.tofile(pathlib.Path(folder, name + ".bin"))
        with tempfile.TemporaryDirectory() as scratch:
            self.assertEqual(ops.run_case(case, 0, write, "Matmul", False, scratch)["status"], "passes")
            untransposed = lambda *args: write(*args, golden=chained[:16, :16].astype(np.float32) @ first[:16])  # noqa: E731
            self.assertEqual(ops.run_case(case, 0, untransposed, "Matmul", False, scratch)["status"], "fails")

    def test_transdata_to_nc1hwc0_and_back(self):
        # NCHW [2, 20, 3, 5] fp32 (C0 = 8) in 2 groups of 10 channels: each group padded to 2 * 8 channels,
        # [N, C1, H, W, C0]; and type 0 takes [N, C1, H, W, C0] back to the first C / group channels per group.
        def nc1hwc0(x, group, c0=8):
            n, c, h, w = x.shape
            per = c // group
            c1 = -(-per // c0)
            out = np.zeros((n, c1 * group, h, w, c0), x.dtype)
            for i in range(group):
                part = np.zeros((n, c1 * c0, h, w), x.dtype)
                part[:, :per] = x[:, i * per:(i + 1) * per]
                out[:, i * c1:(i + 1) * c1] = part.reshape(n, c1, c0, h, w).transpose(0, 1, 3, 4, 2)
            return out
        to_5d = {"case_index": 0, "operation": "TransData", "input_tensors": [tensor("x", (2, 20, 3, 5), "fp32")],
                 "output_tensors": [tensor("y", (2, 4, 3, 5, 8), "fp32")], "params": {"type": 2, "group": 2}}
        self.assertEqual(self.run_case(to_5d, lambda x: [nc1hwc0(x, 2)])["status"], "passes")
        self.assertEqual(self.run_case(to_5d, lambda x: [nc1hwc0(x, 2)[..., ::-1]])["status"], "fails")

        def nchw(x, c, group):
            n, c1, h, w, c0 = x.shape
            per_c1, per = c1 // group, c // group
            parts = [x[:, i * per_c1:(i + 1) * per_c1].transpose(0, 1, 4, 2, 3).reshape(n, per_c1 * c0, h, w)[:, :per]
                     for i in range(group)]
            return np.concatenate(parts, axis=1)
        back = {"case_index": 0, "operation": "TransData", "input_tensors": [tensor("x", (2, 4, 3, 5, 8), "fp32")],
                "output_tensors": [tensor("y", (2, 18, 3, 5), "fp32")], "params": {"type": 0, "group": 2}}
        self.assertEqual(self.run_case(back, lambda x: [nchw(x, 18, 2)])["status"], "passes")

    def test_bit_packed_compares_against_numpy_packbits(self):
        # PyPTO's C++ OutType::BIT: 8 results a byte, element 8 j + k in bit k of byte j; the Python API has
        # only bools, so the runner's kernel packs them (compared with numpy's packbits, little bit order).
        case = {"case_index": 0, "operation": "Cmps", "input_tensors": [tensor("a", (6, 5, 64), "fp32")],
                "output_tensors": [tensor("out", (6, 5, 8), "uint8")], "view_shape": [6, 5, 64],
                "tile_shape": [2, 5, 64], "params": {"compare_op": "lt", "mode": "bit", "scalar": 10,
                                                     "scalar_dtype": "fp32"}}
        packed = lambda a: [np.packbits(a < 10, axis=-1, bitorder="little")]  # noqa: E731
        self.assertEqual(self.run_case(case, packed)["status"], "passes")
        big_end_first = lambda a: [np.packbits(a < 10, axis=-1, bitorder="big")]  # noqa: E731
        self.assertEqual(self.run_case(case, big_end_first)["status"], "fails")

    def test_where_with_a_bit_packed_condition_against_numpy_unpackbits(self):
        case = {"case_index": 0, "operation": "Where",
                "input_tensors": [tensor("c", (10, 9), "uint8", 0, 255), tensor("x", (10, 72), "fp32"),
                                  tensor("y", (10, 72), "fp32")],
                "output_tensors": [tensor("out", (10, 72), "fp32")], "view_shape": [7, 56], "tile_shape": [5, 24],
                "params": {"flag": 0}}
        chosen = lambda c, x, y: [np.where(np.unpackbits(c, axis=-1, bitorder="little") != 0, x, y)]  # noqa: E731
        self.assertEqual(self.run_case(case, chosen)["status"], "passes")


class IntegerSumGolden(unittest.TestCase):
    CASE = {"input_tensors": [{"dtype": "int32"}], "params": {"dims": [0], "keepDim": True}}

    def test_a_sum_rounded_through_float32_is_replaced_by_the_exact_sum(self):
        x = np.array([[16_777_216, 3], [1, 0]], np.int32)  # 2^24 + 1 is not a float32
        script = [x.astype(np.float32).sum(axis=0, keepdims=True).astype(np.int32)]
        golden, note = ops.exact_integer_sum("Sum", self.CASE, [x], script)
        np.testing.assert_array_equal(golden[0], [[16_777_217, 3]])
        self.assertIn("rounds 1 of its sums", note)

    def test_sums_outside_int32_have_no_golden(self):
        x = np.full((2, 3), 2**30 + 7, np.int32)
        golden, note = ops.exact_integer_sum("Sum", self.CASE, [x], [np.zeros((1, 3), np.int32)])
        self.assertIsNone(golden)
        self.assertIn("leave int32", note)

    def test_an_exact_golden_and_other_ops_are_left_alone(self):
        x = np.array([[1, 2], [3, 4]], np.int32)
        script = [np.array([[4, 6]], np.int32)]
        self.assertEqual(ops.exact_integer_sum("Sum", self.CASE, [x], script), (script, None))
        self.assertEqual(ops.exact_integer_sum("Amax", self.CASE, [x], script), (script, None))


class GoldenByPosition(unittest.TestCase):
    def test_cases_are_asked_for_by_their_position_in_the_sorted_list(self):
        # Amin's case indices skip 18: PyPTO's script sorts by case_index and indexes that list.
        with tempfile.TemporaryDirectory() as folder:
            cases = pathlib.Path(folder, "test_case")
            cases.mkdir()
            listed = [{"case_index": index, "case_name": f"c{index}"} for index in (20, 0, 19, 17)]
            (cases / "Amin_st_test_cases.json").write_text(json.dumps({"test_cases": listed}))
            asked = []
            saved = ops.load_golden_module, ops.golden_function, ops.run_case
            ops.load_golden_module = lambda _dir: None
            ops.golden_function = lambda _register, _op: object()
            ops.run_case = lambda case, position, *_rest: asked.append((case["case_index"], position)) or {
                "status": "passes", "note": ""}
            try:
                ops.worker(folder, "Amin", None, False)
            finally:
                ops.load_golden_module, ops.golden_function, ops.run_case = saved
        self.assertEqual(asked, [(0, 0), (17, 1), (19, 2), (20, 3)])


class FractalOperands(unittest.TestCase):
    def test_nz_data_is_read_back_into_its_matrix(self):
        # NZ by its definition, element by element: [n1, m1, 16, n0] blocks of 32-byte rows, zero padded.
        rng = np.random.default_rng(3)
        for dtype, n0 in ((np.float16, 16), (np.float32, 8), (np.int8, 32)):
            matrix = (rng.uniform(-100, 100, (2, 37, 45))).astype(dtype)
            m1, n1 = -(-37 // 16), -(-45 // n0)
            nz = np.zeros((2, n1, m1, 16, n0), dtype)
            for b in range(2):
                for i in range(37):
                    for j in range(45):
                        nz[b, j // n0, i // 16, i % 16, j % n0] = matrix[b, i, j]
            got = ops.from_fractal_nz(nz.reshape(-1), [2, 37, 45])
            self.assertTrue(got.flags["C_CONTIGUOUS"])
            np.testing.assert_array_equal(got, matrix)


class GoldenScriptPlumbing(unittest.TestCase):
    """Host plumbing between the worker and PyPTO's golden script, with a stand-in for the script's own JSON
    reader (json.load of the file opened as text, as it reads)."""

    @staticmethod
    def script_reader(path):
        with open(path, "r", encoding="utf-8") as data_file:
            return json.load(data_file)["test_cases"]

    def test_a_case_file_with_a_byte_order_mark_is_read_without_it(self):
        with tempfile.TemporaryDirectory() as folder:
            path = pathlib.Path(folder, "Signbit_st_test_cases.json")
            path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"test_cases": [{"case_index": 3}]}).encode())
            with self.assertRaises(json.JSONDecodeError):
                self.script_reader(path)
            self.assertEqual(ops.case_file_reader(self.script_reader)(str(path)), [{"case_index": 3}])
            self.assertEqual(path.read_bytes()[:3], b"\xef\xbb\xbf", "the checkout's file is left as it is")

    def test_log2_and_log10_cases_go_through_the_log_golden(self):
        # PyPTO registers one golden for Log, which computes bases 2 and 10 from params.base; while it makes a
        # Log2 case it must read Log2's case file, and Log's again afterwards.
        with tempfile.TemporaryDirectory() as folder:
            for op, base in (("Log", "e"), ("Log2", "2")):
                pathlib.Path(folder, f"{op}_st_test_cases.json").write_text(
                    json.dumps({"test_cases": [{"case_index": 0, "params": {"base": base}}]}))
            reader = ops.case_file_reader(self.script_reader)
            seen = []

            def log_golden(_name, _output, case_index=None):
                seen.append(reader(str(pathlib.Path(folder, "Log_st_test_cases.json")))[case_index]["params"])
                return True

            class Info:
                func = staticmethod(log_golden)

            class Register:
                _REG_MAP = {"TestLog/LogOperationTest.TestLog": Info}

            self.assertIs(ops.golden_function(Register, "Log"), log_golden)
            self.assertIsNone(ops.golden_function(Register, "Cbrt"))
            self.assertTrue(ops.golden_function(Register, "Log2")("TestLog2", folder, 0))
            log_golden("TestLog", folder, 0)
        self.assertEqual(seen, [{"base": "2"}, {"base": "e"}])


if __name__ == "__main__":
    unittest.main()
