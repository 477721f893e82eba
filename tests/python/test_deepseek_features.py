"""The parts of PyPTO's API that its DeepSeek-V3.2 kernels (models/deepseek_v32_exp in hicann/pypto) use beyond
the documented operations: the submodules they import (pypto.experimental, pypto.operation, pypto.platform,
pypto.pypto_impl), cast's satmode, static dims as Python numbers, scatter_update's paged-cache form,
transposed_batchmatmul, precision_type arguments, view(input=..., dtype=...), loop(unroll_list=...) and the
paged-attention gathers gather_in_ub / gather_in_l1.

Each kernel runs on the simulator and its outputs are compared with an independent numpy or torch computation;
every run must also have been simulated (not only interpreted), with the simulated outputs matching the
reference interpreter. Tolerances: data movement (gathers, scatters, views) and integer casts are exact;
elementwise fp32 maths allows rtol 1e-5 (libm's float functions are a few ulp from the float64 result); a
matmul accumulating k fp16 products in fp32 allows k * eps32 * (|a| @ |b|), the bound of any summation order.
"""
import contextlib
import io
import os
import subprocess
import sys
import unittest

import numpy as np
import torch

import pypto
from pypto.experimental import gather_in_l1, gather_in_ub, transposed_batchmatmul

RNG = np.random.default_rng(20260321)
EPS32 = float(np.finfo(np.float32).eps)
FP32_MATH = dict(rtol=1e-5, atol=1e-6)
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(pypto.__file__)))


def assert_simulated(test):
    report = pypto.last_run()
    test.assertTrue(report["simulated"], report.get("simulation_error"))
    failed = [o["name"] for o in report.get("outputs", []) if not o.get("pass", True)]
    test.assertEqual(failed, [], "simulated outputs differ from the reference interpreter")


@contextlib.contextmanager
def machine(name):
    saved = os.environ.get("PTO_MACHINE")
    if name is None:
        os.environ.pop("PTO_MACHINE", None)
    else:
        os.environ["PTO_MACHINE"] = name
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("PTO_MACHINE", None)
        else:
            os.environ["PTO_MACHINE"] = saved


# --- 1. submodules -------------------------------------------------------------------------------------------

@pypto.frontend.jit
def calls_internal_binding(x: pypto.Tensor([8, 32], pypto.DT_FP32), out: pypto.Tensor([8, 32], pypto.DT_FP32)):
    from pypto import pypto_impl
    pypto.set_vec_tile_shapes(8, 32)
    out[:] = pypto_impl.ScalarDivS(x, pypto_impl.Element(x.dtype, 2.0), True)


@pypto.frontend.jit
def calls_shmem_load(x: pypto.Tensor([8, 32], pypto.DT_FP32), out: pypto.Tensor([8, 32], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 32)
    out[:] = pypto.experimental.shmem_load(x)


@pypto.frontend.jit
def adds_one(x: pypto.Tensor([8, 32], pypto.DT_FP32), out: pypto.Tensor([8, 32], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 32)
    out[:] = x + 1.0


class SubmoduleTest(unittest.TestCase):
    def test_a_fresh_interpreter_imports_them_as_the_kernels_do(self):
        script = ("from pypto.experimental import gather_in_ub, gather_in_l1, transposed_batchmatmul, "
                  "set_operation_options\n"
                  "from pypto import pypto_impl\n"
                  "from pypto.operation import op_wrapper\n"
                  "import pypto.experimental, pypto.platform\n"
                  "import pypto\n"
                  "assert pypto.experimental.gather_in_ub is gather_in_ub\n"
                  "print(pypto.platform.npuarch)\n")
        env = dict(os.environ, PYTHONPATH=PACKAGE_DIR, PYTHONDONTWRITEBYTECODE="1", PTO_MACHINE="a3")
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.strip(), "DAV_2201")

    def test_experimental_is_a_module_with_pypto_names(self):
        import pypto.experimental as experimental
        self.assertIs(sys.modules["pypto.experimental"], experimental)
        self.assertIs(pypto.experimental, experimental)
        for name in ("gather_in_l1", "gather_in_ub", "transposed_batchmatmul", "set_operation_options",
                     "get_operation_options", "online_softmax", "online_softmax_update"):
            self.assertIn(name, experimental.__all__)
        experimental.set_operation_options(combine_axis=True)
        try:
            self.assertEqual(experimental.get_operation_options(), {"combine_axis": True})
        finally:
            pypto.reset_options()

    def test_op_wrapper_passes_the_function_through(self):
        from pypto.operation import op_wrapper, reshape, view

        def scalar_div(x):
            return x
        self.assertIs(op_wrapper(scalar_div), scalar_div)
        self.assertIs(view, pypto.view)
        self.assertIs(reshape, pypto.reshape)

    def test_npuarch_follows_the_simulated_machine(self):
        from pypto.platform import platform
        for name, arch in ((None, "DAV_2201"), ("a2", "DAV_2201"), ("a3", "DAV_2201"), ("tiny", "DAV_2201"),
                           ("950", "DAV_3510"), ("/somewhere/950.json", "DAV_3510")):
            with self.subTest(machine=name), machine(name):
                self.assertEqual(pypto.platform.npuarch, arch)
                self.assertEqual(platform.npuarch, arch)
        self.assertTrue(os.path.exists(os.path.join(os.path.dirname(__file__), "..", "..", "resources", "machines",
                                                    "950.json")))

    def test_setting_npuarch_says_to_choose_the_machine(self):
        with self.assertRaises(pypto.KernelError) as caught:
            pypto.platform.npuarch = "DAV_3510"
        self.assertIn("PTO_MACHINE", str(caught.exception))

    def test_internal_binding_call_names_itself(self):
        with self.assertRaises(pypto.KernelError) as caught:
            calls_internal_binding(np.ones((8, 32), np.float32), np.zeros((8, 32), np.float32))
        message = str(caught.exception)
        self.assertIn("pypto.pypto_impl.Element is PyPTO's internal C++ binding", message)
        self.assertIn("test_deepseek_features.py", message)

    def test_compiler_monitor_reports_the_last_compilation(self):
        # PyPTO's GetCompilerMonitorTotalElapsed (GLM's MoE test bounds it): the latest call's trace and compile
        # time, so at least the compile time the run reports and at most the call's own wall time.
        from pypto import pypto_impl
        import time
        x = np.ones((8, 32), np.float32)
        out = np.zeros((8, 32), np.float32)
        start = time.perf_counter()
        adds_one(x, out)
        wall = time.perf_counter() - start
        elapsed = pypto_impl.GetCompilerMonitorTotalElapsed()
        np.testing.assert_array_equal(out, x + 1)
        self.assertGreaterEqual(elapsed, pypto.last_run()["timings_ms"]["compile"] / 1000.0)
        self.assertGreater(elapsed, 0.0)
        self.assertLessEqual(elapsed, wall)

    def test_unmodelled_experimental_operation_names_itself(self):
        with self.assertRaises(pypto.KernelError) as caught:
            calls_shmem_load(np.ones((8, 32), np.float32), np.zeros((8, 32), np.float32))
        self.assertIn("pypto.experimental.shmem_load is not supported by PTO Studio", str(caught.exception))


# --- 2. cast(satmode=) ---------------------------------------------------------------------------------------

@pypto.frontend.jit
def cast_with_satmode(x: pypto.Tensor(), out: pypto.Tensor(), mode, satmode):
    pypto.set_vec_tile_shapes(4, 64)
    out[:] = pypto.cast(x, out.dtype, mode, satmode=satmode)


def wrapped(values, dtype):
    """Integral values kept to their low bits, as two's complement (numpy's integer astype)."""
    return np.asarray(values).astype(np.int64).astype(dtype)


class CastSaturationTest(unittest.TestCase):
    def test_enum_values_are_pyptos(self):
        self.assertEqual((pypto.SaturationMode.ON.value, pypto.SaturationMode.OFF.value), (0, 1))

    def test_float_to_narrow_integers(self):
        specials = [300.0, -300.0, 50.0, 127.9, -128.9, 1000.5, -1000.5, 65504.0, -65504.0, 255.5, 256.0, -1.5]
        x = RNG.uniform(-2000, 2000, size=(4, 64)).astype(np.float16)
        x.flat[:len(specials)] = specials
        truncated = np.trunc(x.astype(np.float64))
        for dtype in (np.int8, np.uint8, np.int16, np.int32):
            info = np.iinfo(dtype)
            for satmode, expected in ((pypto.SaturationMode.ON, np.clip(truncated, info.min, info.max).astype(dtype)),
                                      (pypto.SaturationMode.OFF, wrapped(truncated, dtype))):
                with self.subTest(dtype=dtype.__name__, satmode=satmode):
                    out = np.zeros(x.shape, dtype)
                    cast_with_satmode(x, out, pypto.CastMode.CAST_TRUNC, satmode)
                    assert_simulated(self)
                    np.testing.assert_array_equal(out, expected)

    def test_pypto_reference_example(self):
        # PyPTO's cast reference: 300, -300, 50 in fp16 to int8 give 127, -128, 50 with ON and 44, -44, 50 with OFF.
        x = np.zeros((4, 64), np.float16)
        x[0, :3] = [300.0, -300.0, 50.0]
        for satmode, expected in ((pypto.SaturationMode.ON, [127, -128, 50]),
                                  (pypto.SaturationMode.OFF, [44, -44, 50])):
            out = np.zeros(x.shape, np.int8)
            cast_with_satmode(x, out, pypto.CastMode.CAST_TRUNC, satmode)
            np.testing.assert_array_equal(out[0, :3], expected)

    def test_float_to_int32_wraps_through_int64_with_off(self):
        x = np.zeros((4, 64), np.float32)
        x[0, :4] = [2.0 ** 31, -(2.0 ** 31) - 2.0 ** 8, 3e9, -3e9]
        out = np.zeros(x.shape, np.int32)
        cast_with_satmode(x, out, pypto.CastMode.CAST_RINT, pypto.SaturationMode.OFF)
        np.testing.assert_array_equal(out, wrapped(np.rint(x.astype(np.float64)), np.int32))
        cast_with_satmode(x, out, pypto.CastMode.CAST_RINT, pypto.SaturationMode.ON)
        np.testing.assert_array_equal(out, np.clip(np.rint(x.astype(np.float64)), -2 ** 31, 2 ** 31 - 1))

    def test_between_integers(self):
        x = RNG.integers(-200000, 200000, size=(4, 64)).astype(np.int32)
        x.flat[:4] = [2 ** 31 - 1, -2 ** 31, 32768, -32769]
        for dtype, source in ((np.int16, x), (np.int8, x), (np.uint8, x), (np.uint16, x),
                              (np.int32, x.astype(np.int64))):
            info = np.iinfo(dtype)
            for satmode, expected in ((pypto.SaturationMode.ON, np.clip(source, info.min, info.max).astype(dtype)),
                                      (pypto.SaturationMode.OFF, source.astype(dtype))):
                with self.subTest(source=source.dtype.name, dtype=dtype.__name__, satmode=satmode):
                    out = np.zeros(source.shape, dtype)
                    cast_with_satmode(source, out, None, satmode)
                    assert_simulated(self)
                    np.testing.assert_array_equal(out, expected)

    def test_without_satmode_the_behaviour_is_unchanged(self):
        # float -> int clamps and int -> int wraps, as before satmode existed (tests/python/test_ops_numpy_shapes.py).
        x = np.array([[300.0, -300.0, 50.0] + [0.0] * 61] * 4, np.float32)
        out = np.zeros(x.shape, np.int8)
        cast_with_satmode(x, out, pypto.CastMode.CAST_TRUNC, None)
        np.testing.assert_array_equal(out[0, :3], [127, -128, 50])
        i = np.array([[300, -300, 50] + [0] * 61] * 4, np.int32)
        cast_with_satmode(i, out, None, None)
        np.testing.assert_array_equal(out[0, :3], [44, -44, 50])

    def test_float_targets_ignore_satmode(self):
        x = RNG.normal(0, 1000, size=(4, 64)).astype(np.float32)
        x[0, 0] = 1e6  # past fp16's range: inf either way
        out = np.zeros(x.shape, np.float16)
        cast_with_satmode(x, out, None, pypto.SaturationMode.ON)
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(out, x.astype(np.float16))

    def test_a_wrong_satmode_is_an_error(self):
        with self.assertRaises(pypto.KernelError) as caught:
            cast_with_satmode(np.zeros((4, 64), np.float32), np.zeros((4, 64), np.int8), None, True)
        self.assertIn("cast: satmode must be pypto.SaturationMode.ON or .OFF", str(caught.exception))


# --- 3. static dims as Python numbers --------------------------------------------------------------------------

@pypto.frontend.jit
def layer_mean(x: pypto.Tensor([pypto.DYNAMIC, 64], pypto.DT_FP32),
               out: pypto.Tensor([pypto.DYNAMIC, 64], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(4, 64)
    mean = pypto.mul(pypto.sum(x, -1, keepdim=True), 1.0 / x.shape[-1])  # LIP:150, MLA:154
    scaled = x * (1.0 / x.shape[1]) + x.shape[1] * 0.5 + float(x.shape[-1]) / 4 + x.shape[1] / 8
    out[:] = scaled - mean + x.shape[-1] * x  # a dim on the left of a tensor


@pypto.frontend.jit
def divides_by_a_dynamic_dim(x: pypto.Tensor([pypto.DYNAMIC, 64], pypto.DT_FP32),
                             out: pypto.Tensor([pypto.DYNAMIC, 64], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(4, 64)
    out[:] = x * (1.0 / x.shape[0])


class StaticDimTest(unittest.TestCase):
    def test_static_dims_act_as_numbers(self):
        x = RNG.random((12, 64), np.float32)
        out = np.zeros_like(x)
        layer_mean(x, out)
        assert_simulated(self)
        x64 = x.astype(np.float64)
        expected = x64 / 64 + 32 + 16 + 8 - x64.mean(axis=-1, keepdims=True) + 64 * x64
        np.testing.assert_allclose(out, expected, **FP32_MATH)

    def test_dims_outside_a_kernel(self):
        t = pypto.Tensor([-1, 10], pypto.DT_FP32, "t")
        self.assertEqual(2.0 / t.shape[1], 0.2)
        self.assertEqual(t.shape[1] / 4, 2.5)
        self.assertEqual(t.shape[1] * 0.5, 5.0)
        self.assertEqual(0.5 - t.shape[1], -9.5)
        self.assertIsInstance(t.shape[1] * 2, pypto.SymbolicScalar)  # int arithmetic stays symbolic
        self.assertIsInstance(t.shape[0] + 1, pypto.SymbolicScalar)
        with self.assertRaises(pypto.KernelError) as caught:
            t.shape[0] * 0.5
        self.assertIn("'t_0' is only known when the kernel runs", str(caught.exception))

    def test_a_dynamic_dim_in_float_arithmetic_is_an_error(self):
        with self.assertRaises(pypto.KernelError) as caught:
            divides_by_a_dynamic_dim(np.ones((8, 64), np.float32), np.zeros((8, 64), np.float32))
        message = str(caught.exception)
        self.assertIn("is only known when the kernel runs, so '1.0 / x_0' cannot be computed while tracing", message)
        self.assertIn("test_deepseek_features.py", message)


# --- 4. scatter_update, paged-cache form ------------------------------------------------------------------------

@pypto.frontend.jit
def paged_scatter_4d(cache: pypto.Tensor(), index: pypto.Tensor(), src: pypto.Tensor(), out: pypto.Tensor()):
    pypto.set_vec_tile_shapes(8, 1, 1, cache.shape[-1])  # the kernels' tile: [tile_bs, 1, 1, d] (MLA:704)
    out[:] = pypto.scatter_update(cache, -2, index, src)


@pypto.frontend.jit
def paged_scatter_2d(cache: pypto.Tensor(), index: pypto.Tensor(), src: pypto.Tensor(), out: pypto.Tensor()):
    pypto.set_vec_tile_shapes(2, 8)
    out.move(pypto.scatter_update(cache, -2, index, src))


@pypto.frontend.jit
def torch_style_scatter(x: pypto.Tensor(), index: pypto.Tensor(), src: pypto.Tensor(), out: pypto.Tensor()):
    pypto.set_vec_tile_shapes(4, 32)
    out[:] = pypto.scatter_update(x, 0, index, src)


@pypto.frontend.jit
def paged_scatter_on_dim_0(cache: pypto.Tensor(), index: pypto.Tensor(), src: pypto.Tensor(), out: pypto.Tensor()):
    pypto.set_vec_tile_shapes(8, 1, 1, 32)
    out[:] = pypto.scatter_update(cache, 0, index, src)


def paged_reference(cache, index, src):
    """PyPTO's formula, element by element: slot n = index[i][j] is row n % bs of block n // bs."""
    expected = cache.copy()
    block_size = cache.shape[1] if cache.ndim == 4 else None
    rows = src.reshape(index.size, -1)
    for k, slot in enumerate(index.reshape(-1)):
        if block_size is None:
            expected[slot] = rows[k]
        else:
            expected[slot // block_size, slot % block_size, 0] = rows[k]
    return expected


class PagedScatterUpdateTest(unittest.TestCase):
    def test_four_dim_cache(self):
        cache = RNG.random((4, 16, 1, 32), np.float32)
        index = RNG.choice(64, size=(3, 2), replace=False).astype(np.int64)
        for src in (RNG.random((3, 2, 1, 32), np.float32), RNG.random((6, 32), np.float32)):
            with self.subTest(src=src.shape):
                out = np.zeros_like(cache)
                paged_scatter_4d(cache, index, src, out)
                assert_simulated(self)
                np.testing.assert_array_equal(out, paged_reference(cache, index, src))

    def test_bf16_cache_of_the_kernels(self):
        # LIP:529 / MLA:705: index [tile_bs, 1] int64, src [tile_bs, 1, 1, d] bf16.
        cache = torch.randn(8, 16, 1, 64).to(torch.bfloat16)
        index = torch.tensor([[5], [70], [127], [16]], dtype=torch.int64)
        src = torch.randn(4, 1, 1, 64).to(torch.bfloat16)
        out = torch.zeros_like(cache)
        paged_scatter_4d(cache, index, src, out)
        assert_simulated(self)
        expected = cache.clone().reshape(128, 64)
        expected[index.reshape(-1)] = src.reshape(4, 64)
        self.assertTrue(torch.equal(out, expected.reshape(8, 16, 1, 64)))

    def test_two_dim_cache_as_in_pyptos_reference(self):
        cache = np.zeros((8, 3), np.int32)
        index = np.array([[1, 2], [4, 5]], np.int64)
        src = np.arange(1, 13, dtype=np.int32).reshape(4, 3)
        out = np.full_like(cache, -1)
        paged_scatter_2d(cache, index, src, out)
        assert_simulated(self)
        np.testing.assert_array_equal(out, [[0, 0, 0], [1, 2, 3], [4, 5, 6], [0, 0, 0], [7, 8, 9], [10, 11, 12],
                                            [0, 0, 0], [0, 0, 0]])

    def test_torch_style_path_is_unchanged(self):
        x = RNG.random((8, 32), np.float32)
        index = np.array([6, 1], np.int32)
        src = RNG.random((2, 32), np.float32)
        out = np.zeros_like(x)
        torch_style_scatter(x, index, src, out)
        expected = x.copy()
        expected[index] = src
        np.testing.assert_array_equal(out, expected)

    def test_paged_form_needs_dim_minus_2(self):
        with self.assertRaises(pypto.KernelError) as caught:
            paged_scatter_on_dim_0(np.zeros((4, 16, 1, 32), np.float32), np.zeros((2, 1), np.int64),
                                   np.zeros((2, 1, 1, 32), np.float32), np.zeros((4, 16, 1, 32), np.float32))
        self.assertIn("scatter_update (PyPTO's paged-cache form, a 2-D index): dim must be -2, got 0",
                      str(caught.exception))


# --- 5. transposed_batchmatmul ---------------------------------------------------------------------------------

@pypto.frontend.jit
def transposed_bmm(a: pypto.Tensor(), b: pypto.Tensor(), out: pypto.Tensor(), vec_tile):
    pypto.set_cube_tile_shapes([16, 16], [32, 32], [64, 64])
    pypto.set_vec_tile_shapes(*vec_tile)
    result = transposed_batchmatmul(a, b, pypto.DT_FP32)
    pypto.set_vec_tile_shapes(4, 2, 64)
    out[:] = result


class TransposedBatchMatmulTest(unittest.TestCase):
    def test_against_einsum(self):
        a = RNG.uniform(-1, 1, size=(16, 3, 32)).astype(np.float16)
        b = RNG.uniform(-1, 1, size=(3, 32, 64)).astype(np.float16)
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        expected = np.einsum("mbk,bkn->mbn", a64, b64)
        allowed = 32 * EPS32 * np.einsum("mbk,bkn->mbn", np.abs(a64), np.abs(b64))
        # (4, 2, 64) fits the rank-3 transposes; with (8, 64) in force they take a tile from the cube tile.
        for vec_tile in ((4, 2, 64), (8, 64)):
            with self.subTest(vec_tile=vec_tile):
                out = np.zeros((16, 3, 64), np.float32)
                transposed_bmm(a, b, out, vec_tile)
                assert_simulated(self)
                self.assertTrue(np.all(np.abs(out - expected) <= allowed), np.abs(out - expected).max())

    def test_mismatched_batches_are_an_error(self):
        with self.assertRaises(pypto.KernelError) as caught:
            transposed_bmm(np.zeros((16, 3, 32), np.float16), np.zeros((2, 32, 64), np.float16),
                           np.zeros((16, 3, 64), np.float32), (4, 2, 64))
        self.assertIn("experimental.transposed_batchmatmul: tensor_a [16, 3, 32] has 3 batches in dim 1",
                      str(caught.exception))


# --- 6. PrecisionType and precision_type arguments ---------------------------------------------------------------

@pypto.frontend.jit
def with_precision(x: pypto.Tensor(), y: pypto.Tensor(), out: pypto.Tensor(), precision):
    pypto.set_vec_tile_shapes(8, 32)
    quotient = pypto.div(x, y, precision)  # SFA:268
    roots = pypto.sqrt(x, precision) + pypto.rsqrt(y, precision) + pypto.reciprocal(y, precision)
    out[:] = (quotient + roots + pypto.exp(quotient, precision) + pypto.log(x, precision_type=precision)
              + pypto.pow(x, 2.0, precision) + x.div(y, precision))


class PrecisionTypeTest(unittest.TestCase):
    def test_members_and_values_are_pyptos(self):
        self.assertEqual(pypto.PrecisionType.INTRINSIC.value, 0)
        self.assertEqual(pypto.PrecisionType.HIGH_PRECISION.value, 1)
        self.assertIn("HIGH_PERFORMANCE", pypto.PrecisionType.__members__)  # kept for kernels written earlier

    def test_accepted_without_numeric_effect(self):
        x = RNG.uniform(0.5, 2.0, size=(8, 32)).astype(np.float32)
        y = RNG.uniform(0.5, 2.0, size=(8, 32)).astype(np.float32)
        x64, y64 = x.astype(np.float64), y.astype(np.float64)
        q = x64 / y64
        expected = q + np.sqrt(x64) + 1 / np.sqrt(y64) + 1 / y64 + np.exp(q) + np.log(x64) + x64 ** 2 + q
        for precision in pypto.PrecisionType:
            with self.subTest(precision=precision):
                out = np.zeros_like(x)
                with_precision(x, y, out, precision)
                assert_simulated(self)
                np.testing.assert_allclose(out, expected, **FP32_MATH)

    def test_something_else_is_an_error(self):
        with self.assertRaises(pypto.KernelError) as caught:
            with_precision(np.ones((8, 32), np.float32), np.ones((8, 32), np.float32), np.zeros((8, 32), np.float32),
                           "fast")
        self.assertIn("div: precision_type must be a pypto.PrecisionType", str(caught.exception))


# --- 7. view(input=..., dtype=...) --------------------------------------------------------------------------------

@pypto.frontend.jit
def view_by_keyword(x: pypto.Tensor(), out: pypto.Tensor()):
    pypto.set_vec_tile_shapes(4, 32)
    part = pypto.view(input=x, shape=[4, 32], offsets=[2, 32], valid_shape=[4, 32])  # SAA:159
    out[:] = part + pypto.view(x, [4, 32], [0, 0]) + pypto.view(x, [4, 32], [2, 32], dtype=pypto.DT_FP32)


@pypto.frontend.jit
def view_as_other_dtype(x: pypto.Tensor(), out: pypto.Tensor()):
    pypto.set_vec_tile_shapes(4, 32)
    out[:] = pypto.view(x, [4, 32], [0, 0], dtype=pypto.DT_FP32)  # SAA:182 reinterprets int8 bytes as fp32


class ViewTest(unittest.TestCase):
    def test_input_by_keyword_and_by_position(self):
        x = RNG.random((8, 64), np.float32)
        out = np.zeros((4, 32), np.float32)
        view_by_keyword(x, out)
        assert_simulated(self)
        np.testing.assert_array_equal(out, (x[2:6, 32:] + x[:4, :32]) + x[2:6, 32:])

    def test_bitcast_of_a_region_is_refused_at_the_call(self):
        # PyPTO drops shape and offsets when dtype= is given; tests/python/test_bitcast.py covers bitcasts.
        with self.assertRaises(pypto.KernelError) as caught:
            view_as_other_dtype(np.zeros((8, 128), np.int8), np.zeros((4, 32), np.float32))
        message = str(caught.exception)
        self.assertIn("PyPTO reinterprets the whole input and ignores them", message)
        self.assertIn("test_deepseek_features.py", message)


# --- 8. loop(unroll_list=...) and PyPTO's other loop keywords --------------------------------------------------

@pypto.frontend.jit
def doubled_in_blocks(x: pypto.Tensor([pypto.DYNAMIC, 32], pypto.DT_FP32),
                      out: pypto.Tensor([pypto.DYNAMIC, 32], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(4, 32)
    for i in pypto.loop(0, x.shape[0] // 4, 1, name="BLOCKS", idx_name="i", unroll_list=[4, 2, 1],
                        submit_before_loop=True, some_future_option=3):
        pypto.assemble(pypto.view(x, [4, 32], [i * 4, 0]) * 2.0, [i * 4, 0], out)
    for j, factor in pypto.loop_unroll(0, 1, 1, unroll_list={1}, parallel=False, submit_before_loop=False):
        out[0:1, :] = out[0:1, :] + 1.0


@pypto.frontend.jit(runtime_options={"stitch_function_max_num": 1})
def doubled_one_call_per_device_task(x: pypto.Tensor([pypto.DYNAMIC, 32], pypto.DT_FP32),
                                     out: pypto.Tensor([pypto.DYNAMIC, 32], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(4, 32)
    for i in pypto.loop(0, x.shape[0] // 4, 1, unroll_list=[4, 2, 1]):
        pypto.assemble(pypto.view(x, [4, 32], [i * 4, 0]) * 2.0, [i * 4, 0], out)


@pypto.frontend.jit(runtime_options={"stitch_function_max_num": 1})
def doubled_one_iteration_per_device_task(x: pypto.Tensor([pypto.DYNAMIC, 32], pypto.DT_FP32),
                                          out: pypto.Tensor([pypto.DYNAMIC, 32], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(4, 32)
    for i in pypto.loop(0, x.shape[0] // 4, 1):
        pypto.assemble(pypto.view(x, [4, 32], [i * 4, 0]) * 2.0, [i * 4, 0], out)


@pypto.frontend.jit
def bad_unroll_list(x: pypto.Tensor([8, 32], pypto.DT_FP32), out: pypto.Tensor([8, 32], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(4, 32)
    for i in pypto.loop(2, unroll_list=[2, 0]):
        pypto.assemble(pypto.view(x, [4, 32], [i * 4, 0]), [i * 4, 0], out)


class LoopOptionsTest(unittest.TestCase):
    def test_unroll_list_is_accepted_and_the_results_are_the_loops(self):
        for rows in (4, 28):
            with self.subTest(rows=rows):
                x = RNG.random((rows, 32), np.float32)
                out = np.zeros_like(x)
                notices = io.StringIO()
                with contextlib.redirect_stderr(notices):
                    doubled_in_blocks(x, out)
                assert_simulated(self)
                expected = x * np.float32(2.0)
                expected[0] += np.float32(1.0)
                np.testing.assert_array_equal(out, expected)

    def test_an_unroll_list_groups_iterations_into_root_functions(self):
        # PyPTO's control flow calls the body once per unroll group, and stitch_function_max_num counts those
        # calls: 7 iterations with [4, 2, 1] are calls of 4, 2 and 1, so at one call per device task there are
        # 3 device tasks, where the plain loop has 7 (worked by hand from the greedy rule).
        x = RNG.random((28, 32), np.float32)
        for kernel, device_tasks in ((doubled_one_call_per_device_task, 3),
                                     (doubled_one_iteration_per_device_task, 7)):
            with self.subTest(kernel=kernel.__name__):
                out = np.zeros_like(x)
                kernel(x, out)
                assert_simulated(self)
                np.testing.assert_array_equal(out, x * np.float32(2.0))
                self.assertEqual(pypto.last_run()["device_tasks"], device_tasks)

    def test_an_unknown_keyword_is_ignored_with_a_notice(self):
        import pypto._control as control
        control._noticed_options.discard("some_future_option")
        notices = io.StringIO()
        with contextlib.redirect_stderr(notices):
            doubled_in_blocks(np.ones((8, 32), np.float32), np.zeros((8, 32), np.float32))
        self.assertIn("pypto.loop: option 'some_future_option' is not one of PyPTO's loop options", notices.getvalue())

    def test_a_bad_unroll_factor_is_an_error(self):
        with self.assertRaises(pypto.KernelError) as caught:
            bad_unroll_list(np.ones((8, 32), np.float32), np.zeros((8, 32), np.float32))
        self.assertIn("pypto.loop: unroll factors must be positive", str(caught.exception))


# --- 9. gather_in_ub / gather_in_l1 ------------------------------------------------------------------------------

@pypto.frontend.jit
def gather_ub(cache: pypto.Tensor(), indices: pypto.Tensor(), block_table: pypto.Tensor(), out: pypto.Tensor(),
              block_size):
    pypto.set_vec_tile_shapes(16, 64)
    out[:] = gather_in_ub(cache, indices, block_table, block_size, -2)


@pypto.frontend.jit
def gather_l1(cache: pypto.Tensor(), indices: pypto.Tensor(), block_table: pypto.Tensor(), out: pypto.Tensor(),
              block_size):
    pypto.set_vec_tile_shapes(16, 64)
    out[:] = gather_in_l1(cache, indices, block_table, block_size, out.shape[1], is_b_matrix=True, is_trans=True)


@pypto.frontend.jit
def gather_ub_from_3d(cache: pypto.Tensor(), indices: pypto.Tensor(), block_table: pypto.Tensor(),
                      out: pypto.Tensor()):
    pypto.set_vec_tile_shapes(16, 64)
    out[:] = gather_in_ub(cache, indices, block_table, 16, -2)


def paged_gather_reference(cache, indices, block_table, block_size, columns=None):
    """out[i, :] = cache[block_table[0, t // block_size] * block_size + t % block_size, :] for t = indices[0, i]."""
    rows = [block_table[0, t // block_size] * block_size + t % block_size for t in indices[0]]
    gathered = np.stack([cache[r] for r in rows])
    return gathered if columns is None else gathered[:, :columns]


class PagedGatherTest(unittest.TestCase):
    def test_pyptos_reference_example(self):
        cache = (np.arange(6)[:, None] * 10 + np.arange(64)[None, :]).astype(np.float32)
        out = np.zeros((3, 64), np.float32)
        gather_ub(cache, np.array([[0, 4, 3]], np.int32), np.array([[0, 2, 1]], np.int32), out, 2)
        assert_simulated(self)
        np.testing.assert_array_equal(out[:, 0], [0, 20, 50])

    def test_gather_in_ub_over_a_shuffled_block_table(self):
        blocks, block_size, width, count = 8, 16, 64, 40
        cache = RNG.random((blocks * block_size, width), np.float32)
        block_table = RNG.permutation(blocks).astype(np.int32).reshape(1, blocks)
        for index_dtype in (np.int32, np.int64):
            with self.subTest(index_dtype=index_dtype.__name__):
                indices = RNG.integers(0, blocks * block_size, size=(1, count)).astype(index_dtype)
                out = np.zeros((count, width), np.float32)
                gather_ub(cache, indices, block_table, out, block_size)
                assert_simulated(self)
                np.testing.assert_array_equal(out, paged_gather_reference(cache, indices, block_table, block_size))

    def test_gather_in_ub_bf16(self):
        cache = torch.randn(64, 128).to(torch.bfloat16)
        block_table = torch.tensor([[3, 0, 2, 1]], dtype=torch.int32)
        indices = torch.tensor([[63, 0, 17, 40, 5, 33, 48, 16]], dtype=torch.int32)
        out = torch.zeros(8, 128, dtype=torch.bfloat16)
        gather_ub(cache, indices, block_table, out, 16)
        assert_simulated(self)
        rows = [int(block_table[0, t // 16]) * 16 + t % 16 for t in indices[0].tolist()]
        self.assertTrue(torch.equal(out, cache[rows]))

    def test_gather_in_l1_keeps_the_first_columns(self):
        blocks, block_size, width, count = 4, 16, 128, 24
        cache = RNG.random((blocks * block_size, width), np.float32)
        block_table = np.array([[2, 3, 0, 1]], np.int32)
        indices = RNG.integers(0, blocks * block_size, size=(1, count)).astype(np.int32)
        for columns in (64, 128):
            with self.subTest(columns=columns):
                out = np.zeros((count, columns), np.float32)
                gather_l1(cache, indices, block_table, out, block_size)
                assert_simulated(self)
                np.testing.assert_array_equal(out, paged_gather_reference(cache, indices, block_table, block_size,
                                                                          columns))

    def test_a_cache_that_is_not_2d_is_an_error(self):
        with self.assertRaises(pypto.KernelError) as caught:
            gather_ub_from_3d(np.zeros((4, 16, 64), np.float32), np.zeros((1, 8), np.int32),
                              np.zeros((1, 4), np.int32), np.zeros((8, 64), np.float32))
        self.assertIn("experimental.gather_in_ub: the cache (param) must be 2-D, got [4, 16, 64]",
                      str(caught.exception))


# --- 10. reshapes of inputs move nothing -------------------------------------------------------------------

# The kernels reshape whole input tensors to read them another way: a [n] scale vector as an [n, 1] column, a
# paged cache [blocks, 128, 1, d] as rows [blocks * 128, d]. Such a reshape is the input's own bytes in another
# shape (PyPTO's reshape moves nothing), so it makes no tile, no subgraph and no task; before, it was a copy of
# the whole tensor in one tile (a [24576, 1] fp32 column needs 768 KiB of unified buffer, more than a2 has).

@pypto.frontend.jit
def scaled_rows(x: pypto.Tensor([64, 128], pypto.DT_FP32), scale: pypto.Tensor([24576], pypto.DT_FP32),
                out: pypto.Tensor([64, 128], pypto.DT_FP32)):
    column = pypto.reshape(scale, [24576, 1])
    pypto.set_vec_tile_shapes(16, 128)
    out[:] = x * pypto.view(column, [64, 1], [128, 0])


@pypto.frontend.jit
def paged_block_rows(cache: pypto.Tensor([8, 16, 1, 32], pypto.DT_FP32), out: pypto.Tensor([32, 32], pypto.DT_FP32)):
    rows = pypto.reshape(cache, [128, 32])
    pypto.set_vec_tile_shapes(16, 32)
    for i in pypto.loop(0, 2, 1, name="blocks", idx_name="i"):
        block = pypto.view(rows, [16, 32], [(5 - 3 * i) * 16, 0])
        pypto.assemble(block * 2.0, [i * 16, 0], out)


class ReshapeOfAnInputTest(unittest.TestCase):
    def test_a_whole_input_reshaped_to_a_column_moves_nothing(self):
        x = RNG.random((64, 128), np.float32)
        scale = RNG.random(24576).astype(np.float32)
        out = np.zeros((64, 128), np.float32)
        scaled_rows(x, scale, out)
        report = pypto.last_run()
        assert_simulated(self)
        np.testing.assert_allclose(out, x * scale[128:192, None], **FP32_MATH)
        # Four row tiles of the multiply; none for the reshape.
        self.assertEqual(report["tasks"], 4)

    def test_a_paged_cache_read_as_rows(self):
        cache = RNG.random((8, 16, 1, 32), np.float32)
        out = np.zeros((32, 32), np.float32)
        paged_block_rows(cache, out)
        report = pypto.last_run()
        assert_simulated(self)
        np.testing.assert_array_equal(out, 2 * np.concatenate([cache[5, :, 0, :], cache[2, :, 0, :]]))
        self.assertEqual(report["tasks"], 2)

if __name__ == "__main__":
    unittest.main()
