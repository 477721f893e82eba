"""The pieces of scripts/pypto-compat.sh --models that need no PyPTO checkout: the stand-in torch_npu and the
torch polyfills the model scripts' own code needs (scripts/pypto_compat_shims), the pytest plugin that runs one
case and describes its first error, and the runner's row parsing and report formatting. A small model folder of
our own, written in the style of PyPTO's model test scripts, goes through the runner end to end.
Those processes get the pypto package the way this test gets it (PYTHONPATH)."""
import importlib.util
import os
import pathlib
import subprocess
import sys
import tempfile
import textwrap
import unittest

from pto_examples import load_module  # a script loaded as a module of its own name

REPO = pathlib.Path(__file__).resolve().parents[2]
SHIMS = REPO / "scripts" / "pypto_compat_shims"
MODEL_SHIMS = SHIMS / "models"


compat = load_module(REPO / "scripts" / "pypto_compat.py", "pypto_compat_under_test")
HAVE_PYTEST = importlib.util.find_spec("pytest") is not None
PYPTO_SPEC = importlib.util.find_spec("pypto")


def run_python(code, *paths):
    """Runs `code` in a fresh interpreter with `paths` first on its path (the shims patch torch process-wide, so
    they are loaded in a process of their own, as the runner loads them)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(p) for p in paths] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH")
                                                                     else []))
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                          timeout=300)


class ReducedShapes(unittest.TestCase):
    """REDUCED_SHAPES edits only the function (or table line) it names, in the scratch copy of the script."""

    def test_the_change_is_scoped_to_its_anchor_and_a_stale_one_is_a_usage_error(self):
        key = "deepseek_v32_exp/deepseekv32_mla_prolog_quant.py::test_b64_s64k2_pa_nd_bf16_d"
        self.assertIn(key, compat.REDUCED_SHAPES)
        with tempfile.TemporaryDirectory() as scratch:
            script = pathlib.Path(scratch) / "deepseek_v32_exp" / "deepseekv32_mla_prolog_quant.py"
            script.parent.mkdir()
            before = ("def test_b4_s64k2_pa_nd_bf16_d():\n    params = {'s2': 64 * 1024,}\n"
                      "def test_b64_s64k2_pa_nd_bf16_d():\n    params = {'s2': 64 * 1024,}\n")
            script.write_text(before)
            saved = dict(compat.REDUCED_SHAPES)
            try:
                compat.REDUCED_SHAPES.clear()
                compat.REDUCED_SHAPES[key] = saved[key]
                compat.reduce_shapes(pathlib.Path(scratch))
                reduced = before[:before.rindex("64 * 1024")] + "16 * 1024,}\n"
                self.assertEqual(script.read_text(), reduced)  # the b4 function before the anchor keeps 64K
                with self.assertRaises(SystemExit) as stale:
                    compat.reduce_shapes(pathlib.Path(scratch))  # already reduced: the text is gone
                self.assertEqual(stale.exception.code, 2)
            finally:
                compat.REDUCED_SHAPES.clear()
                compat.REDUCED_SHAPES.update(saved)


class FakeTorchNpu(unittest.TestCase):
    def test_behaves_as_the_model_scripts_need(self):
        done = run_python("""
            import torch
            import torch_npu
            import torch_npu.npu

            torch.npu.set_device(0)
            torch_npu.npu.set_device(0)
            torch_npu.npu.config.allow_internal_format = True
            assert torch_npu.npu.is_available() is False and torch.npu.is_available() is False
            assert torch_npu.npu.synchronize() is None

            x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
            assert x.npu() is x, "a contiguous tensor stays the same object (outputs are written into it)"
            assert x.npu().cpu() is x
            assert torch_npu.npu_format_cast(x, torch_npu.Format.ND) is x
            nz = torch_npu.npu_format_cast(x.npu(), torch_npu.Format.FRACTAL_NZ)
            assert torch_npu.Format.FRACTAL_NZ == 29 and torch_npu.get_npu_format(nz) == 29
            assert torch_npu.get_npu_format(x) == torch_npu.Format.ND, "the cast leaves its input's format alone"
            # As a device tensor (PyPTO's utils/get_format.py asks get_npu_format only when device.type is npu),
            # over the caller's memory with the same values; what is computed from it is an ordinary CPU tensor.
            assert nz.device.type == "npu" and str(nz.device) == "npu:0"
            assert nz.data_ptr() == x.data_ptr() and nz.shape == x.shape and nz.is_contiguous()
            doubled = nz * 2
            assert type(doubled) is torch.Tensor and doubled.device.type == "cpu"
            assert doubled.tolist() == (x * 2).tolist() and nz.detach().numpy().tolist() == x.tolist()
            sliced = x[:, 1:3]
            moved = sliced.npu()
            assert moved.is_contiguous() and torch.equal(moved, sliced), "a slice is laid out afresh"
            assert torch.Tensor().npu().numel() == 0
            bf16 = torch.ones(2, 2, dtype=torch.bfloat16)
            assert bf16.npu() is bf16

            # "npu", "npu:N" and a bare device index name the CPU, as .npu() does.
            made = torch.ones(2, 3, device="npu:0")
            assert made.device.type == "cpu" and torch.equal(made, torch.ones(2, 3))
            assert torch.tensor([1, 2], dtype=torch.int32, device="npu").tolist() == [1, 2]
            assert torch.randn(4, device=0).device.type == "cpu" and torch.zeros(4, 5).shape == (4, 5)
            assert x.to("npu:0") is x and x.to(0) is x and x.to(device="npu") is x
            assert x.to("npu:0", torch.float16).dtype == torch.float16
            assert x.new_zeros(3, device="npu:0").tolist() == [0.0, 0.0, 0.0]
            print("ok")
        """, MODEL_SHIMS)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.strip(), "ok")

    def test_quantize_and_quant_matmul_as_torch_npu_documents_them(self):
        # Against numpy: rint(x * scale + offset) saturated to int8 (div_mode False; x / scale when True), ties
        # to even; (x1 @ x2 + bias) in fp32 times the dequant scale, to bf16 (torch's own rounding of fp32).
        done = run_python("""
            import numpy as np
            import torch
            import torch_npu

            x = torch.tensor([[0.5, 1.5, -2.5, 100.0], [3.2, -300.0, 2.49, -0.5]], dtype=torch.bfloat16)
            scale = torch.tensor([1.0, 1.0, 1.0, 2.0], dtype=torch.bfloat16)
            offset = torch.tensor([0.0, 0.0, 0.0, 0.0], dtype=torch.bfloat16)
            q = torch_npu.npu_quantize(x, scale, offset, torch.qint8, -1, False)
            assert q.dtype == torch.int8, q.dtype
            assert q.tolist() == [[0, 2, -2, 127], [3, -128, 2, -1]], q.tolist()
            halved = torch_npu.npu_quantize(x, scale, offset, torch.qint8, -1, True)
            assert halved.tolist()[0][3] == 50, halved.tolist()

            rng = np.random.default_rng(7)
            a = rng.integers(-128, 128, (3, 64)).astype(np.int8)
            b = rng.integers(-128, 128, (64, 5)).astype(np.int8)
            bias = rng.integers(0, 128, 5).astype(np.int32)
            deq = rng.random(5).astype(np.float32)
            got = torch_npu.npu_quant_matmul(torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(deq),
                                             bias=torch.from_numpy(bias), output_dtype=torch.float32)
            want = (a.astype(np.int64) @ b.astype(np.int64) + bias).astype(np.float32) * deq
            assert np.array_equal(got.numpy(), want), (got, want)
            print("ok")
        """, MODEL_SHIMS)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.strip(), "ok")

    def test_topk_dynamic_quant_and_swiglu_as_on_the_device(self):
        # topk against numpy's stable argsort (ties keep index order), sorted=False included; dynamic quant
        # and swiglu against numpy formulas (fp32, ties to even).
        done = run_python("""
            import numpy as np
            import torch
            import torch_npu

            scores = np.array([[1.5, 3.0, 3.0, 2.0, 3.0, 0.5], [7.0, 7.0, 1.0, 7.0, 2.0, 2.0]], np.float32)
            for largest in (True, False):
                for sorted_ in (True, False):
                    got = torch.topk(torch.from_numpy(scores), 4, -1, largest, sorted_)
                    order = np.argsort(-scores if largest else scores, axis=-1, kind="stable")[:, :4]
                    assert got.indices.tolist() == order.tolist(), (largest, sorted_, got.indices.tolist())
                    assert got.values.numpy().tolist() == np.take_along_axis(scores, order, -1).tolist()
            method = torch.from_numpy(scores).topk(k=2, sorted=False)
            assert method[1].tolist() == [[1, 2], [0, 1]], method[1].tolist()
            half = torch.from_numpy(scores).half().topk(3)
            assert half.indices.tolist() == [[1, 2, 4], [0, 1, 3]] and half.values.dtype == torch.float16

            x = np.array([[0.5, -1.27, 0.635, 0.0], [2.0, 1.0, -0.5, 0.25]], np.float32)
            q, scale = torch_npu.npu_dynamic_quant(torch.from_numpy(x).to(torch.bfloat16))
            xb = torch.from_numpy(x).to(torch.bfloat16).float().numpy()
            want_scale = np.abs(xb).max(-1) / np.float32(127)
            assert np.allclose(scale.numpy(), want_scale, rtol=0, atol=0), (scale, want_scale)
            want_q = np.clip(np.rint(xb / want_scale[:, None]), -128, 127).astype(np.int8)
            assert q.dtype == torch.int8 and q.numpy().tolist() == want_q.tolist(), (q, want_q)

            y = np.array([[1.0, -2.0, 3.0, 0.5], [0.0, 4.0, -1.0, 2.0]], np.float32)
            a, b = y[:, :2], y[:, 2:]
            want = a / (1 + np.exp(-a)) * b
            got = torch_npu.npu_swiglu(torch.from_numpy(y))
            assert got.shape == (2, 2) and np.allclose(got.numpy(), want, rtol=1e-6, atol=1e-6), (got, want)
            print("ok")
        """, MODEL_SHIMS)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.strip(), "ok")

    def test_is_not_on_the_examples_path(self):
        # The examples run with the torch shim folder only; a script probing for torch_npu must not find one.
        self.assertFalse((SHIMS / "torch_npu").exists())
        self.assertFalse((SHIMS / "torch_npu.py").exists())


class TorchPolyfills(unittest.TestCase):
    def test_names_from_newer_torch(self):
        done = run_python("""
            import numpy as np
            import torch

            for shape in ((4, 8), torch.Size([2, 3, 5]), (7,)):
                total = int(np.prod(shape))
                for flat in (0, 1, total // 2, total - 1):
                    got = torch.unravel_index(torch.tensor(flat), shape)
                    assert tuple(int(g) for g in got) == np.unravel_index(flat, tuple(shape)), (shape, flat)
            many = torch.unravel_index(torch.tensor([3, 17]), (4, 8))
            assert [m.tolist() for m in many] == [[0, 2], [3, 1]]
            _, flat_max = torch.max(torch.tensor([1.0, 9.0, 2.0, 3.0]).flatten(), dim=0)
            assert tuple(i.item() for i in torch.unravel_index(flat_max, (2, 2))) == (0, 1)

            a, b = torch.ones(2, 3), torch.zeros(2, 1)
            assert torch.equal(torch.concatenate([a, b], -1), torch.cat([a, b], -1))
            assert torch.equal(torch.concatenate((a, a), axis=0), torch.cat([a, a], 0))

            table = torch.arange(10.0)
            index = torch.tensor([1, 7], dtype=torch.int32)
            assert table[index].tolist() == [1.0, 7.0]
            table[index] = 0.0
            assert table[1] == 0 and table[7] == 0
            grid = torch.arange(12).reshape(3, 4)
            assert grid[torch.tensor([2], dtype=torch.int32), 1].tolist() == [9]

            half = torch.tensor([[1.7, -2.5, 3.2]], dtype=torch.float16)
            assert torch.trunc(half).dtype == torch.float16 and torch.trunc(half).tolist() == [[1.0, -2.0, 3.0]]
            assert half.trunc().tolist() == [[1.0, -2.0, 3.0]]
            values, indices = torch.topk(half, 2)
            assert values.dtype == torch.float16 and indices.tolist() == [[2, 0]]
            assert torch.topk(half, 1).indices.tolist() == [[2]]

            # fp16 unary ops torch 2.x has on the CPU: computed in fp32, rounded once (numpy in fp32, then fp16).
            x = np.array([1.5, 2.0, 3.25], np.float16)
            for name, reference in (("acosh", np.arccosh), ("sinh", np.sinh), ("tan", np.tan), ("expm1", np.expm1)):
                got = getattr(torch, name)(torch.from_numpy(x))
                assert got.dtype == torch.float16, name
                assert got.numpy().tolist() == reference(x.astype(np.float32)).astype(np.float16).tolist(), name
            weight = torch.tensor([0.25], dtype=torch.float16)
            negative = torch.tensor([[-2.0, 4.0]], dtype=torch.float16)
            assert torch.nn.functional.prelu(negative, weight).tolist() == [[-0.5, 4.0]]

            # uint16 / uint32 data (torch 2.3) held in wider integers: the values, and bitwise results written
            # back with astype as the goldens write them, equal numpy's own; uint64 keeps its bits.
            u16 = np.array([0, 1, 40000, 65535], np.uint16)
            v16 = np.array([65535, 3, 12345, 255], np.uint16)
            held = torch.tensor(u16)
            assert held.tolist() == u16.tolist()
            assert torch.bitwise_not(held).numpy().astype(np.uint16).tolist() == (~u16).tolist()
            assert torch.bitwise_xor(held, torch.from_numpy(v16)).numpy().astype(np.uint16).tolist() == \
                (u16 ^ v16).tolist()
            u32 = np.array([4000000000, 7], np.uint32)
            assert torch.as_tensor(u32).tolist() == u32.tolist()
            assert torch.tensor(u16).to(torch.uint16).numpy().astype(np.uint16).tolist() == u16.tolist()
            u64 = np.array([0, 2 ** 63 + 5], np.uint64)
            assert torch.logical_not(torch.tensor(u64)).tolist() == [True, False]

            # Shifts by counts outside [0, width) shift every bit out, as torch 2.x does: 0 to the left (and to
            # the right when unsigned), the sign to the right; in-range counts shift as usual.
            values = torch.tensor([5, -5, 7, -1, 3], dtype=torch.int32)
            counts = torch.tensor([33, 33, -1, 31, 2], dtype=torch.int32)
            assert torch.bitwise_left_shift(values, counts).tolist() == [0, 0, 0, -2 ** 31, 12]
            assert values.bitwise_right_shift(counts).tolist() == [0, -1, 0, -1, 0]
            small = torch.tensor([1, 17, 16, 15], dtype=torch.int16)
            assert torch.bitwise_right_shift(np.int16(-3), small).tolist() == [-2, -1, -1, -1]
            assert torch.bitwise_left_shift(np.int16(3), small).tolist() == [6, 0, 0, -2 ** 15]
            assert torch.bitwise_right_shift(torch.tensor([200], dtype=torch.uint8), 9).tolist() == [0]

            from torch._dynamo import allow_in_graph
            assert allow_in_graph(len) is len
            assert {torch.float8_e4m3fn: 1}[torch.float8_e4m3fn] == 1
            first = torch.library.Library("pto_compat_test", "FRAGMENT")
            first.define("one(Tensor x) -> Tensor")
            torch.library.Library("pto_compat_test", "FRAGMENT").define("two(Tensor x) -> Tensor")
            print("ok")
        """, SHIMS)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.strip(), "ok")


FAKE_IMPL = '''\
def helper(x):
    raise ValueError("no such op: " + str(x))
'''

FAKE_SCRIPT = '''\
import os
import time

import pytest
import torch
import torch_npu

import pypto
from fake_impl import helper


@pypto.frontend.jit(runtime_options={"stitch_function_max_num": 128})
def add_one(x: pypto.Tensor([pypto.DYNAMIC, 32], pypto.DT_FP32), y: pypto.Tensor([pypto.DYNAMIC, 32], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(2, 32)
    y[:] = x + 1.0


def test_passes():
    torch.npu.set_device(0)
    torch_npu.npu.config.allow_internal_format = True
    x = torch_npu.npu_format_cast(torch.ones(4, 32).npu(), torch_npu.Format.FRACTAL_NZ)
    y = torch.zeros(4, 32).npu()
    add_one(x, y)
    torch_npu.npu.synchronize()
    assert torch.equal(y, torch.full((4, 32), 2.0))
    folder = pypto.last_run()["sim_output"]  # RunMode.SIM writes the cost-model folder: output/ or TILE_FWK_OUTPUT_DIR
    assert folder and os.path.isdir(folder), folder


@pypto.options(pass_options={"enable_slice": False})
def test_fails_in_helper():
    helper(7)


@pytest.mark.skip(reason="large test case")
def test_marked_skip():
    pass


@pytest.mark.soc("950")
def test_950_only():
    pass


@pytest.mark.soc("950", "910")
@pytest.mark.parametrize("n", [1, 2])
def test_param(n):
    assert n == 1, "only one"


def test_sleeps():
    time.sleep(120)
'''



def line_of(text):
    """The line of FAKE_SCRIPT holding `text`."""
    return next(n for n, line in enumerate(FAKE_SCRIPT.splitlines(), 1) if text in line)


BROKEN_SCRIPT = '''\
import no_such_module_for_the_runner_test


def test_cannot_run():
    pass


@pytest.mark.skip(reason="perf")
def test_skipped_anyway():
    pass
'''


@unittest.skipUnless(HAVE_PYTEST, "pytest is not installed (apt-get install python3-pytest)")
@unittest.skipUnless(PYPTO_SPEC is not None, "the pypto package is not on PYTHONPATH")
class RunnerEndToEnd(unittest.TestCase):
    """collect_models and run_case on a model folder of our own (no PyPTO checkout needed)."""

    @classmethod
    def setUpClass(cls):
        cls.root = pathlib.Path(tempfile.mkdtemp(prefix="pypto-compat-models-test-"))
        cls.models = cls.root / compat.MODELS_SUBDIR / "deepseek_v32_exp"
        cls.models.mkdir(parents=True)
        (cls.models / "fake_impl.py").write_text(FAKE_IMPL)
        (cls.models / "deepseekv32_fake.py").write_text(FAKE_SCRIPT)
        (cls.models / "deepseekv32_broken.py").write_text(BROKEN_SCRIPT)
        (cls.root / "pytest.ini").write_text(compat.PYTEST_INI)
        cls.package_dir = pathlib.Path(PYPTO_SPEC.submodule_search_locations[0]).parent
        cls.shim = compat.old_torch_shim()
        scripts, mains = compat.model_scripts(cls.models)
        assert [s.name for s in scripts] == ["deepseekv32_broken.py", "deepseekv32_fake.py"] and not mains
        cls.cases, cls.soc = compat.collect_models(cls.root, cls.models, scripts, cls.package_dir, cls.shim, 300)
        cls.by_id = {case["id"]: case for case in cls.cases}

    @classmethod
    def tearDownClass(cls):
        import shutil
        shutil.rmtree(cls.root, ignore_errors=True)

    def run_case(self, case_id, timeout=120):
        return compat.run_case(self.by_id[case_id], self.root, self.models, self.package_dir, timeout, False,
                               self.shim)

    def test_collection_selects_as_pypto_does(self):
        self.assertEqual(self.soc, "910")  # the default machine, a2
        fake = "deepseekv32_fake.py::"
        self.assertEqual(sorted(c["id"] for c in self.cases if c["id"].startswith(fake)),
                         [fake + n for n in ("test_950_only", "test_fails_in_helper", "test_marked_skip",
                                             "test_param[1]", "test_param[2]", "test_passes", "test_sleeps")])
        self.assertEqual(self.by_id[fake + "test_marked_skip"]["skip"], "marked skip: large test case")
        # A case only for the 950 runs on the bundled 950 machine instead of being skipped on the 910-class a2.
        only_950 = self.by_id[fake + "test_950_only"]
        self.assertIsNone(only_950["skip"])
        self.assertEqual(only_950["machine"], "950")
        self.assertIsNone(self.by_id[fake + "test_param[1]"]["skip"])
        self.assertNotIn("machine", self.by_id[fake + "test_param[1]"])  # 910 among its SoCs: the default machine
        self.assertIsNone(self.by_id[fake + "test_passes"]["skip"])

    def test_a_950_only_case_runs_on_the_950_machine(self):
        row = self.run_case("deepseekv32_fake.py::test_950_only")
        self.assertEqual(row["status"], "passes", row.get("output", ""))
        self.assertEqual(row["detail"], "on the 950 machine (marked soc('950'))")

    def test_a_script_that_cannot_be_imported_lists_its_cases(self):
        broken = self.by_id["deepseekv32_broken.py::test_cannot_run"]
        self.assertIn("cannot import the script: deepseekv32_broken.py:1: ModuleNotFoundError: No module named "
                      "'no_such_module_for_the_runner_test'", broken["error"])
        self.assertEqual(self.by_id["deepseekv32_broken.py::test_skipped_anyway"]["skip"], "marked skip: perf")
        row = self.run_case("deepseekv32_broken.py::test_cannot_run")
        self.assertEqual((row["status"], row["seconds"]), ("fails", 0.0))

    def test_passing_case_runs_in_sim_mode_with_the_stand_in(self):
        row = self.run_case("deepseekv32_fake.py::test_passes")
        self.assertEqual(row["status"], "passes", row)
        self.assertEqual(row["detail"], "")
        self.assertGreater(row["seconds"], 0)

    def test_first_error_names_the_model_line(self):
        row = self.run_case("deepseekv32_fake.py::test_fails_in_helper")
        self.assertEqual(row["status"], "fails")
        self.assertEqual(row["detail"], "fake_impl.py:2: ValueError: no such op: 7")
        self.assertIn("no such op: 7", row["output"])

    def test_parametrized_cases_run_one_by_one(self):
        self.assertEqual(self.run_case("deepseekv32_fake.py::test_param[1]")["status"], "passes")
        row = self.run_case("deepseekv32_fake.py::test_param[2]")
        self.assertEqual(row["status"], "fails")
        expected = f"deepseekv32_fake.py:{line_of('only one')}: AssertionError: only one"
        self.assertTrue(row["detail"].startswith(expected), row["detail"])

    def test_skipped_cases_do_not_start_a_process(self):
        row = self.run_case("deepseekv32_fake.py::test_marked_skip")
        self.assertEqual(row, {"script": "deepseekv32_fake.py::test_marked_skip", "status": "skipped",
                               "seconds": 0.0, "detail": "marked skip: large test case"})

    def test_a_slow_case_times_out_and_says_where(self):
        row = self.run_case("deepseekv32_fake.py::test_sleeps", timeout=20)
        self.assertEqual(row["status"], "timeout")
        self.assertLess(row["seconds"], 60)
        self.assertEqual(row["detail"], f"still running after 20 s; stopped in deepseekv32_fake.py:"
                                        f"{line_of('time.sleep')} in test_sleeps")


class PluginDescribesErrors(unittest.TestCase):
    @unittest.skipUnless(HAVE_PYTEST, "pytest is not installed")
    def test_kernel_errors_use_their_kernel_line(self):
        plugin = load_module(MODEL_SHIMS / "pypto_compat_pytest.py", "pypto_compat_pytest_under_test")
        plugin.MODELS_DIR = "/tmp/somewhere/models/deepseek_v32_exp"

        class KernelError(ValueError):
            def __init__(self, message, file, line):
                super().__init__(f"{file}:{line}: {message}")
                self.message, self.file, self.line = message, file, line

        error = KernelError("expected an integer, got Tensor", plugin.MODELS_DIR + "/li_impl.py", 116)
        described = plugin.describe_exception(error, None)
        self.assertEqual(described, {"type": "KernelError", "message": "expected an integer, got Tensor",
                                     "location": "li_impl.py:116", "stack": []})
        long = plugin.describe_exception(AssertionError("\n" + "=" * 20 + "\nline one\n\nline two\n"), None)
        self.assertEqual(long["message"], "line one / line two")
        self.assertEqual(long["location"], "")
        self.assertTrue(plugin.short_message("x" * 1000).endswith("..."))
        self.assertEqual(len(plugin.short_message("x" * 1000)), plugin.MESSAGE_LIMIT)


class RowsAndReport(unittest.TestCase):
    models = pathlib.Path("/tmp/run/models/deepseek_v32_exp")

    def outcome(self, result, returncode=0, output=""):
        return compat.case_outcome(result, returncode, output, self.models)

    def test_outcomes(self):
        passed = {"report": {"outcome": "passed", "phase": "teardown"}, "warnings": [], "run_mode": "SIM"}
        self.assertEqual(self.outcome(passed), ("passes", ""))
        fallback = dict(passed, warnings=[
            f"RuntimeWarning: k was not simulated; its outputs come from the reference interpreter. Reason: "
            f"{self.models}/impl.py:624:38: subgraph 1 (AIV) needs 884736 bytes"])
        status, detail = self.outcome(fallback)
        self.assertEqual(status, "passes")
        self.assertEqual(detail, "not simulated (outputs from the reference interpreter): k; k: impl.py:624:38: "
                                 "subgraph 1 (AIV) needs 884736 bytes")
        failed = {"report": {"outcome": "failed", "phase": "call", "error": {
            "type": "KernelError", "message": "view: offsets out of range", "location": "sfa_impl.py:122"}},
            "run_mode": "SIM"}
        self.assertEqual(self.outcome(failed, 1), ("fails", "sfa_impl.py:122: KernelError: view: offsets out of range"))
        failed_on_reference = dict(failed, warnings=fallback["warnings"])
        self.assertEqual(self.outcome(failed_on_reference, 1)[1],
                         "sfa_impl.py:122: KernelError: view: offsets out of range; note: not simulated (outputs from "
                         "the reference interpreter): k; k: impl.py:624:38: subgraph 1 (AIV) needs 884736 bytes")
        in_setup = {"report": {"outcome": "failed", "phase": "setup", "error": {"type": "E", "message": "m"}},
                    "run_mode": "SIM"}
        self.assertEqual(self.outcome(in_setup, 1), ("fails", "E: m (in pytest setup)"))
        skipped = {"report": {"outcome": "skipped", "phase": "setup", "reason": "marked soc('950')"}}
        self.assertEqual(self.outcome(skipped), ("skipped", "marked soc('950')"))
        import_error = {"report": None, "collect_errors": [{"type": "ImportError", "message": "cannot import name 'x'",
                                                            "location": "impl.py:31"}], "run_mode": "SIM"}
        self.assertEqual(self.outcome(import_error, 2),
                         ("fails", "cannot import the script: impl.py:31: ImportError: cannot import name 'x'"))
        no_sim = dict(passed, run_mode="could not select RunMode.SIM: AttributeError: x")
        self.assertEqual(self.outcome(no_sim), ("passes", "[could not select RunMode.SIM: AttributeError: x]"))

    def test_a_process_that_died_says_how(self):
        status, detail = self.outcome(None, -11, "Fatal Python error: Segmentation fault\n")
        self.assertEqual(status, "fails")
        self.assertTrue(detail.startswith("the process died with SIGSEGV; "), detail)
        self.assertEqual(self.outcome(None, 1, "Traceback (most recent call last):\n  File \"x\"\nValueError: bad\n"),
                         ("fails", "ValueError: bad"))

    def test_stack_dump_location(self):
        dump = textwrap.dedent(f"""\
            Timeout (0:09:45)!
            Thread 0x00007f01 (most recent call first):
              File "/usr/lib/pkg/pypto/_jit.py", line 327 in __call__
              File "{self.models}/li_impl.py", line 140 in lightning_indexer_decode
              File "{self.models}/deepseekv32_li.py", line 372 in lightning_indexer
            Thread 0x00007f02 (most recent call first):
              File "{self.models}/other.py", line 1 in elsewhere
            """)
        self.assertEqual(compat.stack_dump_location(dump, self.models),
                         "li_impl.py:140 in lightning_indexer_decode (inside pypto's _jit.py:327 in __call__)")
        self.assertEqual(compat.stack_dump_location("no dump here", self.models), "")

    def test_model_folders_and_their_scripts(self):
        with tempfile.TemporaryDirectory() as folder:
            models = pathlib.Path(folder)
            for name, files in {"arctic": {"test_lstm.py": "def main():\n    pass\n\n\nif __name__ == '__main__':\n"
                                                          "    main()\n", "lstm.py": "def test_helper():\n    pass\n"},
                                "qwen": {"qwen_rule.py": "def test_s1k():\n    pass\n", "rule_impl.py": "X = 1\n"},
                                "images": {"figure.png": ""}, "utils_only": {"impl.py": "def f():\n    pass\n"}}.items():
                (models / name).mkdir()
                for file, text in files.items():
                    (models / name / file).write_text(text)
            self.assertEqual([f.name for f in compat.model_folders(models)], ["arctic", "qwen"])
            tests, mains = compat.model_scripts(models / "arctic")
            self.assertEqual(([t.name for t in tests], [m.name for m in mains]), (["lstm.py"], ["test_lstm.py"]))
            self.assertEqual(compat.main_cases(mains)[0]["id"], "test_lstm.py::(main)")
            tests, mains = compat.model_scripts(models / "qwen")
            self.assertEqual(([t.name for t in tests], mains), (["qwen_rule.py"], []))

    def test_ast_cases_read_skip_markers(self):
        with tempfile.TemporaryDirectory() as folder:
            script = pathlib.Path(folder) / "s.py"
            script.write_text(BROKEN_SCRIPT + '\n@pytest.mark.skip\ndef test_bare():\n    pass\n\ndef helper():\n'
                                              '    pass\n')
            self.assertEqual(compat.ast_cases(script), [("test_cannot_run", None),
                                                        ("test_skipped_anyway", "marked skip: perf"),
                                                        ("test_bare", "marked skip")])

    def test_table_and_doc_block(self):
        results = [
            {"script": "a.py::test_1", "status": "passes", "seconds": 12.34, "detail": ""},
            {"script": "a.py::test_2", "status": "fails", "seconds": 3.0, "detail": "impl.py:5: E: a | b"},
            {"script": "b.py::test_3", "status": "timeout", "seconds": 600.2, "detail": "still running"},
            {"script": "b.py::test_4", "status": "skipped", "seconds": 0.0, "detail": "marked skip: perf"},
        ]
        for r in results:
            r["folder"] = "kimi" if r["script"].startswith("a.py") else "qat"
        table = compat.models_table(results, "883e7dfb018da764", "2026-08-22", "910")
        lines = table.splitlines()
        self.assertIn("Checked against PyPTO commit `883e7dfb018d` (2026-08-22)", lines[0])
        self.assertIn("**1 of 3** runnable test cases of the 2 folders of `models/` pass with every kernel "
                      "simulated, 1 timed out, 1 skipped (marked skip in PyPTO's scripts, or for another SoC than "
                      "the simulated 910-class machine).", lines[0])
        self.assertEqual(lines[2], "Per folder (passing with every kernel simulated/run, time): kimi 1/2 (15 s), "
                                   "qat 0/1 (600 s).")
        self.assertEqual(lines[4], "| Folder | Case | Status | Time (s) | First error, reason or note |")
        self.assertEqual(lines[6], "| kimi | a.py::test_1 | passes | 12.3 |  |")
        self.assertEqual(lines[7], "| kimi | a.py::test_2 | fails | 3.0 | impl.py:5: E: a \\| b |")
        self.assertEqual(len(lines), 10)
        # A case whose golden matched only through the reference interpreter is not counted as passing.
        results[0]["detail"] = "not simulated (outputs from the reference interpreter): k; k: impl.py:9: too big"
        table = compat.models_table(results, "883e7dfb018da764", "2026-08-22", "910")
        self.assertIn("**0 of 3** runnable test cases", table)
        self.assertIn("1 more match their golden only with a kernel run on the reference interpreter", table)
        self.assertIn("| kimi | a.py::test_1 | reference only | 12.3 |", table)

        with tempfile.TemporaryDirectory() as folder:
            doc = pathlib.Path(folder) / "doc.md"
            doc.write_text(f"# Doc\n\n{compat.DOC_BEGIN}\nexamples table\n{compat.DOC_END}\n\n## Models\n\ntext\n")
            compat.update_doc(doc, "first", compat.MODELS_DOC_BEGIN, compat.MODELS_DOC_END)
            compat.update_doc(doc, "second", compat.MODELS_DOC_BEGIN, compat.MODELS_DOC_END)
            text = doc.read_text()
            self.assertIn(f"{compat.DOC_BEGIN}\nexamples table\n{compat.DOC_END}", text)
            self.assertEqual(text.count(compat.MODELS_DOC_BEGIN), 1)
            self.assertIn(f"{compat.MODELS_DOC_BEGIN}\nsecond\n{compat.MODELS_DOC_END}", text)
            self.assertNotIn("first", text)


if __name__ == "__main__":
    unittest.main()
