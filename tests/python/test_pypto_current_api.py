"""PyPTO's current public API, in the style of its current examples: grouped `pypto.options` on test functions,
shape-less annotations, torch in and out, RunMode.SIM with the cost-model folder it writes.

Expected values come from torch or numpy on the CPU, never from an earlier run of the kernel. Tolerances:
fp32 composites (log2 = log * 1/ln2, tan = sin / cos, ...) against torch's own fp32 functions differ by a few
fp32 roundings: rtol 1e-5 with atol 1e-6, except where a composite divides by a small value near a pole or
cancels (tan near pi/2, sinh near 0, acosh near 1, fmod/remainder whose quotient is rounded) where the
inputs are kept away from those regions and the tolerance is stated at the check.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

import numpy as np
import torch

import pypto

torch.manual_seed(7)
SIM = {"run_mode": pypto.RunMode.SIM}
FP32 = dict(rtol=1e-5, atol=1e-6)
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(pypto.__file__)))


def run_script(source, cwd, extra_env=None):
    env = dict(os.environ, PYTHONPATH=PACKAGE_DIR, PYTHONDONTWRITEBYTECODE="1")
    env.pop("TILE_FWK_OUTPUT_DIR", None)
    env.update(extra_env or {})
    path = os.path.join(cwd, "kernel_script.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(textwrap.dedent(source))
    return subprocess.run([sys.executable, path], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


# --- kernels, written as PyPTO's examples write them ---------------------------------------------------------

@pypto.frontend.jit(runtime_options=SIM)
def add_shapeless(x: pypto.Tensor(), y: pypto.Tensor(), out: pypto.Tensor()):
    pypto.set_vec_tile_shapes(8, 64)
    out[:] = pypto.add(x, y)


@pypto.frontend.jit(runtime_options=SIM)
def scale_partly_declared(x: pypto.Tensor([pypto.DYNAMIC, 64], pypto.DT_FP32),
                          out: pypto.Tensor([-1, 64], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 64)
    out[:] = pypto.mul(x, 3.0)


@pypto.frontend.jit(runtime_options=SIM)
def exp_rank_free(x: pypto.Tensor([], pypto.DT_FP32), out: pypto.tensor()):
    pypto.set_vec_tile_shapes(*([8] * len(x.shape)))
    out[:] = pypto.exp(x)


@pypto.frontend.jit(runtime_options=SIM)
def vec_tile_longer_than_op(x: pypto.Tensor([16], pypto.DT_FP32), out: pypto.Tensor([16], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(2, 8)  # a 2-D tile on 1-D tensors: axis 0 takes tile dim 0 (PyPTO's rule)
    out[:] = pypto.add(x, 1.0)


@pypto.frontend.jit(runtime_options=SIM)
def vec_tile_whole(x: pypto.Tensor([16], pypto.DT_FP32), out: pypto.Tensor([16], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(16, 8)
    out[:] = pypto.add(x, 1.0)


@pypto.frontend.jit(runtime_options=SIM)
def tile_from_scope(x: pypto.Tensor(), out: pypto.Tensor()):
    with pypto.options(vec_tile_shapes=[4, 32], pass_options={"enable_slice": True}):
        inner = pypto.get_vec_tile_shapes()
        out[:] = pypto.sqrt(x)
    assert inner == [4, 32], inner


@pypto.frontend.jit(runtime_options=SIM)
def carried_static(x: pypto.Tensor([8, 32], pypto.DT_FP32), y0: pypto.Tensor([8, 32], pypto.DT_FP32),
                   out: pypto.Tensor([8, 32], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 32)
    y = y0
    for _ in pypto.loop(3):
        y = x + y  # carried: each iteration adds x to the previous value
    out[:] = y


@pypto.frontend.jit(runtime_options=SIM)
def carried_dynamic(x: pypto.Tensor([pypto.DYNAMIC, 32], pypto.DT_FP32),
                    out: pypto.Tensor([pypto.DYNAMIC, 32], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 32)
    y = x
    for _ in pypto.loop(x.shape[0] // 8):
        y = y * 2.0
    out[:] = y


COMPOSITES = {
    # name: (pypto function, torch reference, input range, tolerance)
    "log2": (pypto.log2, torch.log2, (0.1, 10.0), FP32),
    "log10": (pypto.log10, torch.log10, (0.1, 10.0), FP32),
    "tan": (pypto.tan, torch.tan, (-1.0, 1.0), FP32),
    "sinh": (pypto.sinh, torch.sinh, (0.5, 3.0), FP32),
    "cosh": (pypto.cosh, torch.cosh, (-3.0, 3.0), FP32),
    "asinh": (pypto.asinh, torch.asinh, (-5.0, 5.0), dict(rtol=1e-5, atol=1e-5)),
    "acosh": (pypto.acosh, torch.acosh, (1.5, 6.0), dict(rtol=1e-5, atol=1e-5)),
    "atanh": (pypto.atanh, torch.atanh, (-0.8, 0.8), dict(rtol=1e-5, atol=1e-5)),
    "cbrt": (pypto.cbrt, lambda t: torch.sign(t) * torch.abs(t).pow(1.0 / 3.0), (-8.0, 8.0), FP32),
    "isnan": (pypto.isnan, torch.isnan, (-1.0, 1.0), None),
    "lrelu": (lambda t: pypto.lrelu(t, 0.1), lambda t: torch.nn.functional.leaky_relu(t, 0.1), (-2.0, 2.0), FP32),
}


def make_unary(function):
    @pypto.frontend.jit(runtime_options=SIM)
    def kernel(x: pypto.Tensor(), out: pypto.Tensor()):
        pypto.set_vec_tile_shapes(8, 32)
        out[:] = function(x)
    return kernel


def make_binary(function):
    @pypto.frontend.jit(runtime_options=SIM)
    def kernel(x: pypto.Tensor(), y: pypto.Tensor(), out: pypto.Tensor()):
        pypto.set_vec_tile_shapes(8, 32)
        out[:] = function(x, y)
    return kernel


class CurrentOptionsTest(unittest.TestCase):
    @pypto.options(pass_options={"enable_slice": True})
    def test_grouped_options_decorate_a_test_function(self):
        x, y = torch.rand(16, 64), torch.rand(16, 64)
        out = torch.empty(16, 64)
        add_shapeless(x, y, out)
        torch.testing.assert_close(out, x + y, **FP32)
        self.assertEqual(pypto.get_pass_options()["enable_slice"], True)

    def test_scope_options_reach_the_kernel_and_end_with_the_block(self):
        with pypto.options(pass_options={"vec_nbuffer_setting": {"DEFAULT": 2}}):
            self.assertEqual(add_shapeless.effective_options()["pass_options"], {"vec_nbuffer_setting": {"DEFAULT": 2}})
        self.assertEqual(add_shapeless.effective_options()["pass_options"], {})

    def test_flat_form_and_set_functions(self):
        with pypto.options(enable_slice=True, device_sched_mode=1):
            effective = add_shapeless.effective_options()
            self.assertEqual(effective["pass_options"], {"enable_slice": True})
            self.assertEqual(effective["runtime_options"]["device_sched_mode"], 1)
        pypto.set_options(verify_options={"enable_pass_verify": True})
        try:
            self.assertTrue(pypto.get_verify_options()["enable_pass_verify"])
        finally:
            pypto.reset_options()
        self.assertEqual(pypto.get_verify_options(), {})

    def test_unknown_key_names_the_nearest_known_one(self):
        with self.assertRaises(pypto.KernelError) as caught:
            pypto.options(pass_options={"enable_slcie": True})
        self.assertIn("unknown pass_options key 'enable_slcie'; did you mean 'enable_slice'?", str(caught.exception))
        self.assertIn("test_pypto_current_api.py", str(caught.exception))

    def test_unmodelled_pypto_option_is_a_one_line_notice(self):
        with tempfile.TemporaryDirectory() as folder:
            done = run_script("""
                import pypto
                with pypto.options(pass_options={"sg_set_tunevf_mode": 1}, host_options={"compile_timeout": 5}):
                    pass
                with pypto.options(pass_options={"sg_set_tunevf_mode": 2}):
                    pass
                print("ok")
            """, folder)
        self.assertEqual(done.returncode, 0, done.stderr)
        notices = [line for line in done.stderr.splitlines() if line.startswith("pypto: option")]
        self.assertEqual(len(notices), 2, done.stderr)  # once per key, not per use
        self.assertTrue(any("pass.sg_set_tunevf_mode is accepted and has no effect in PTO Studio" in n
                            for n in notices), notices)

    def test_options_inside_a_kernel_scope_tiles_and_restore(self):
        x = torch.rand(8, 64)
        out = torch.empty(8, 64)
        tile_from_scope(x, out)
        torch.testing.assert_close(out, torch.sqrt(x), **FP32)


class ShapelessAnnotationTest(unittest.TestCase):
    def test_shapes_come_from_the_arguments(self):
        for rows in (8, 24):
            x = torch.rand(rows, 64)
            out = torch.empty(rows, 64)
            scale_partly_declared(x, out)
            torch.testing.assert_close(out, x * 3.0, **FP32)

    def test_rank_free_annotation_and_lowercase_tensor(self):
        for shape in ((16,), (8, 16), (2, 8, 16)):
            x = torch.rand(*shape)
            out = torch.empty(*shape)
            exp_rank_free(x, out)
            torch.testing.assert_close(out, torch.exp(x), **FP32)

    def test_bf16_through_an_annotation_without_dtype(self):
        x = torch.randn(16, 64, dtype=torch.bfloat16)
        y = torch.randn(16, 64, dtype=torch.bfloat16)
        out = torch.empty(16, 64, dtype=torch.bfloat16)
        add_shapeless(x, y, out)
        # one bf16 rounding of an exact fp32 sum on both sides
        torch.testing.assert_close(out, x + y, rtol=2.0 ** -8, atol=0.0)


class VecTileRankTest(unittest.TestCase):
    def test_longer_tile_applies_its_leading_dims(self):
        x = torch.rand(16)
        out = torch.empty(16)
        vec_tile_longer_than_op(x, out)
        torch.testing.assert_close(out, x + 1.0, **FP32)
        small_tiles = pypto.last_run()["tasks"]
        vec_tile_whole(x, out)
        torch.testing.assert_close(out, x + 1.0, **FP32)
        whole = pypto.last_run()["tasks"]
        # Tile dim 0 (2 elements) cuts 16 into 8 tiles; tile dim 0 of (16, 8) covers it in one.
        self.assertGreater(small_tiles, whole)


@pypto.frontend.jit(runtime_options=SIM)
def view_past_the_end(x: pypto.Tensor([], pypto.DT_FP32), out: pypto.Tensor([], pypto.DT_FP32), shape: list,
                      offsets: list, valid_shape: list):
    pypto.set_vec_tile_shapes(*([8] * len(x.shape)))
    out[:] = pypto.view(x, shape, offsets, valid_shape=valid_shape)


class PaddedViewTest(unittest.TestCase):
    def test_region_past_the_end_holds_the_valid_data_then_zeros(self):
        x = torch.arange(32, dtype=torch.float32).reshape(4, 8)
        for shape, offsets, valid in (([4, 4], [2, 4], [2, 4]), ([4, 8], [1, 0], [4, 8]), ([2, 8], [3, 2], [1, 3])):
            with self.subTest(shape=shape, offsets=offsets, valid=valid):
                out = torch.full(shape, -1.0)
                view_past_the_end(x, out, shape, offsets, valid)
                self.assertTrue(pypto.last_run()["simulated"], pypto.last_run().get("simulation_error"))
                expected = np.zeros(shape, dtype=np.float32)
                rows = min(shape[0], 4 - offsets[0], valid[0])
                cols = min(shape[1], 8 - offsets[1], valid[1])
                expected[:rows, :cols] = x.numpy()[offsets[0]:offsets[0] + rows, offsets[1]:offsets[1] + cols]
                np.testing.assert_array_equal(out.numpy(), expected)

    def test_region_holding_no_data_is_an_error(self):
        with self.assertRaises(pypto.KernelError) as caught:
            view_past_the_end(torch.rand(4, 8), torch.empty(2, 8), [2, 8], [4, 0], [2, 8])
        self.assertIn("holds none of its data", str(caught.exception))


BLOCKS = pypto.frontend.dynamic("blocks")


@pypto.frontend.jit(runtime_options=SIM)
def rows_in_blocks(x: pypto.Tensor((BLOCKS * 16 + 8, 32), pypto.DT_FP32),
                   out: pypto.Tensor((BLOCKS * 16 + 8, 32), pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 32)
    for b in pypto.loop(BLOCKS):  # the symbol from the annotation, bound from the argument's size
        rows = x[b * 16:b * 16 + 16, :]
        pypto.assemble(rows * 2.0, [b * 16, 0], out)
    out[BLOCKS * 16:BLOCKS * 16 + 8, :] = x[BLOCKS * 16:BLOCKS * 16 + 8, :] + 1.0


class ExpressionDimTest(unittest.TestCase):
    def test_symbol_is_bound_from_a_dim_declared_as_its_multiple(self):
        for blocks in (1, 3):
            x = torch.rand(blocks * 16 + 8, 32)
            out = torch.empty_like(x)
            rows_in_blocks(x, out)
            self.assertTrue(pypto.last_run()["simulated"], pypto.last_run().get("simulation_error"))
            expected = torch.cat([x[:blocks * 16] * 2.0, x[blocks * 16:] + 1.0])
            torch.testing.assert_close(out, expected, rtol=0, atol=0)

    def test_a_size_no_block_count_gives_is_an_error(self):
        with self.assertRaises(pypto.KernelError) as caught:
            rows_in_blocks(torch.rand(30, 32), torch.empty(30, 32))
        self.assertIn("argument 'x' has 30 in dim 0, which is not '((blocks*16)+8)' for any whole blocks >= 0",
                      str(caught.exception))


@pypto.frontend.jit(runtime_options=SIM)
def branch_with_unused_twin(in_t0: pypto.Tensor(), out_t0: pypto.Tensor()):
    pypto.set_vec_tile_shapes(64, 64)
    for i in pypto.loop(2):
        if i < 1:
            unused = pypto.add(in_t0, in_t0)  # noqa: F841 - the same op as below, but its result stays unread
        out_t0.move(pypto.add(in_t0, in_t0))


@pypto.frontend.jit(runtime_options=SIM)
def transposes_by_vec_tile(x: pypto.Tensor(), out: pypto.Tensor()):
    pypto.set_vec_tile_shapes(1, 8, 16, 64)
    out[:] = pypto.transpose(x, 2, 3)


@pypto.frontend.jit(runtime_options=SIM)
def matmul_bias_without_vec_tile(a: pypto.Tensor([], pypto.DT_FP32), b: pypto.Tensor([], pypto.DT_FP32),
                                 bias: pypto.Tensor([], pypto.DT_FP32), out: pypto.Tensor([], pypto.DT_FP32)):
    pypto.set_cube_tile_shapes([32, 32], [64, 64], [64, 64])
    out[:] = pypto.matmul(a, b, pypto.DT_FP32, extend_params={"bias_tensor": bias})


@pypto.frontend.jit(runtime_options=SIM)
def cast_to_fp16_with_a_short_tile(x: pypto.Tensor([], pypto.DT_FP32), out: pypto.Tensor([], pypto.DT_FP16)):
    pypto.set_vec_tile_shapes(*([8] * len(x.shape)))
    out[:] = pypto.cast(x, pypto.DT_FP16)


class SimulatedAsPyptoExamplesNeedTest(unittest.TestCase):
    """Constructs from PyPTO's examples that used to fall back to the reference interpreter or give wrong
    simulated outputs; each must now be simulated (functional mode) and match torch."""

    def assert_simulated(self):
        self.assertTrue(pypto.last_run()["simulated"], pypto.last_run().get("simulation_error"))

    def test_an_unread_twin_in_a_branch_does_not_lose_the_output_store(self):
        x = torch.randn(6, 8, dtype=torch.float16)
        out = torch.zeros(6, 8, dtype=torch.float16)
        branch_with_unused_twin(x, out)
        self.assert_simulated()
        self.assertTrue(torch.equal(out, x + x))  # one fp16 rounding of an exact doubling

    def test_transpose_is_cut_by_the_vec_tile(self):
        x = torch.rand(2, 8, 64, 32)
        out = torch.empty(2, 8, 32, 64)
        transposes_by_vec_tile(x, out)
        self.assert_simulated()
        self.assertTrue(torch.equal(out, x.transpose(2, 3)))
        self.assertEqual(pypto.last_run()["tasks"], 4)  # [2, 8, 32, 64] in tiles of [1, 8, 16, 64]

    def test_matmul_bias_needs_no_vec_tile(self):
        a, b, bias = torch.rand(64, 128), torch.rand(128, 96), torch.rand(1, 96)
        out = torch.empty(64, 96)
        matmul_bias_without_vec_tile(a, b, bias, out)
        self.assert_simulated()
        # k = 128 products of values in [0, 1) in fp32, differently ordered: |err| <= 128 * 2^-24 * 128
        torch.testing.assert_close(out, a @ b + bias, rtol=1e-5, atol=1e-3)

    def test_output_copy_rounds_a_short_tile_up_to_a_block(self):
        for shape in ((20,), (4, 20), (3, 5, 40)):
            x = torch.rand(*shape)
            out = torch.empty(*shape, dtype=torch.float16)
            cast_to_fp16_with_a_short_tile(x, out)
            self.assert_simulated()
            self.assertTrue(torch.equal(out, x.half()))


class SymbolicTest(unittest.TestCase):
    def test_printed_as_pypto_prints(self):
        b = pypto.SymbolicScalar("b")
        self.assertEqual(str((b >= 2) * (b < 8)), "((b>=2)*(b<8))")
        self.assertEqual(str(b + 8), "(b+8)")
        self.assertEqual(str(pypto.min(b, 5)), "RUNTIME_Min(b, 5)")

    def test_min_max_and_comparisons_with_a_known_difference_are_decided(self):
        a = pypto.SymbolicScalar("a")
        self.assertTrue(a.min(a + 1) == a)
        self.assertEqual(str(pypto.max(a, a - 3)), "a")
        self.assertTrue(bool(a + 1 > a))
        self.assertEqual(str(pypto.min(a, pypto.SymbolicScalar("c"))), "RUNTIME_Min(a, c)")

    def test_a_bool_is_the_int_it_is(self):
        # GLM's select-experts kernel: `if pypto.symbolic_scalar(renormalize):` with a Python bool.
        self.assertEqual(int(pypto.symbolic_scalar(True)), 1)
        self.assertEqual(int(pypto.SymbolicScalar(False)), 0)


class LoopCarriedTest(unittest.TestCase):
    def test_static_trip_count_carries_the_value(self):
        x, y0 = torch.rand(8, 32), torch.rand(8, 32)
        out = torch.empty(8, 32)
        carried_static(x, y0, out)
        torch.testing.assert_close(out, y0 + 3 * x, rtol=1e-6, atol=1e-6)

    def test_dynamic_trip_count_says_what_to_write(self):
        with self.assertRaises(pypto.KernelError) as caught:
            carried_dynamic(torch.rand(16, 32), torch.empty(16, 32))
        message = str(caught.exception)
        self.assertIn("'y' is read and then reassigned in the loop body", message)
        self.assertIn("acc[:] = acc + x", message)
        self.assertIn("test_pypto_current_api.py", message)


class DocumentedApiTest(unittest.TestCase):
    def test_composites_match_torch(self):
        for name, (function, reference, (low, high), tolerance) in COMPOSITES.items():
            with self.subTest(name):
                x = torch.rand(8, 32) * (high - low) + low
                out = torch.empty(8, 32, dtype=torch.bool if tolerance is None else torch.float32)
                make_unary(function)(x, out)
                if tolerance is None:
                    self.assertTrue(torch.equal(out, reference(x)))
                else:
                    torch.testing.assert_close(out, reference(x), **tolerance)

    def test_binary_composites_match_torch(self):
        x = torch.rand(8, 32) * 20 - 10
        y = torch.rand(8, 32) * 3 + 0.5
        y = torch.where(torch.rand(8, 32) > 0.5, y, -y)
        cases = {"remainder": (pypto.remainder, torch.remainder), "fmod": (pypto.fmod, torch.fmod),
                 "floor_div": (pypto.floor_div, lambda a, b: torch.floor(a / b)),
                 "hypot": (pypto.hypot, torch.hypot)}
        for name, (function, reference) in cases.items():
            with self.subTest(name):
                out = torch.empty(8, 32)
                make_binary(function)(x, y, out)
                # the quotient is rounded once before floor/trunc, as torch does: a few fp32 ulps of |x|
                torch.testing.assert_close(out, reference(x, y), rtol=1e-5, atol=1e-5)

    def test_half_precision_remainder_and_fmod_match_torch_exactly(self):
        # torch computes fmod/remainder of half tensors exactly and rounds once; the quotient of two fp16
        # values, exact enough in fp32 to floor or trunc right, gives the same. A float scalar takes the
        # tensor's dtype first (3.05 is 3.05078125 in fp16). Compared exactly.
        x = (torch.rand(8, 32) * 200 - 100).half()
        y = (torch.rand(8, 32) * 99 + 1).half()
        y = torch.where(torch.rand(8, 32) > 0.5, y, -y)
        for name, function, reference in (("remainder", pypto.remainder, torch.remainder),
                                          ("fmod", pypto.fmod, torch.fmod)):
            with self.subTest(name):
                out = torch.empty(8, 32, dtype=torch.float16)
                make_binary(function)(x, y, out)
                self.assertTrue(torch.equal(out, reference(x.float(), y.float()).half()), name)
        out = torch.empty(8, 32, dtype=torch.float16)
        make_unary(lambda t: pypto.remainder(t, 3.05))(x, out)
        self.assertTrue(torch.equal(out, torch.remainder(x.float(), 3.05078125).half()))

    def test_pass_verify_printers_are_kept_without_effect(self):
        @pypto.frontend.jit(runtime_options=SIM)
        def verified(x: pypto.Tensor(), out: pypto.Tensor()):
            pypto.set_vec_tile_shapes(8, 32)
            y = pypto.exp(x)
            pypto.pass_verify_print(y, " step=", 3, cond=1)
            pypto.pass_verify_save(y, "y_$i", i=0)
            out[:] = y

        x = torch.rand(8, 32)
        out = torch.empty(8, 32)
        verified(x, out)
        torch.testing.assert_close(out, torch.exp(x), **FP32)

    def test_function_block_runs_in_place(self):
        @pypto.frontend.jit(runtime_options=SIM)
        def with_function(a: pypto.Tensor(), b: pypto.Tensor(), c: pypto.Tensor()):
            with pypto.function("main", a, b, c):
                pypto.set_vec_tile_shapes(8, 32)
                c[:] = a + b

        a, b = torch.rand(8, 32), torch.rand(8, 32)
        c = torch.empty(8, 32)
        with_function(a, b, c)
        torch.testing.assert_close(c, a + b, **FP32)

    def test_var_matches_torch(self):
        @pypto.frontend.jit(runtime_options=SIM)
        def variance(x: pypto.Tensor(), out: pypto.Tensor()):
            pypto.set_vec_tile_shapes(8, 32)
            out[:] = pypto.var(x, dim=-1, keepdim=True)

        x = torch.rand(8, 32)
        out = torch.empty(8, 1)
        variance(x, out)
        torch.testing.assert_close(out, torch.var(x, dim=-1, keepdim=True), rtol=1e-5, atol=1e-6)

    def test_unsupported_operations_say_so_at_the_call(self):
        @pypto.frontend.jit(runtime_options=SIM)
        def uses_scaled_mm(x: pypto.Tensor(), out: pypto.Tensor()):
            pypto.set_vec_tile_shapes(8, 32)
            out[:] = pypto.scaled_mm(x, x)

        with self.assertRaises(pypto.KernelError) as caught:
            uses_scaled_mm(torch.rand(8, 32), torch.empty(8, 32))
        self.assertIn("pypto.scaled_mm is not supported by PTO Studio: scaled FP8 matmul",
                      str(caught.exception))
        self.assertIn("test_pypto_current_api.py", str(caught.exception))

    def test_every_documented_name_exists(self):
        names = ["abs", "acos", "acosh", "add", "amax", "amin", "arange", "argmax", "argmin", "argsort", "asin",
                 "asinh", "assemble", "atan", "atan2", "atanh", "atomic_add", "axpy_", "bitwise_and",
                 "bitwise_left_shift", "bitwise_not", "bitwise_or", "bitwise_right_shift", "bitwise_xor", "cast",
                 "cbrt", "ceil", "ceil_div", "clip", "clone", "concat", "conv", "convert_to_element", "copysign", "cos",
                 "cosh", "cumprod", "cumsum", "get_scatter_mode", "greater", "mrgsort", "sort32",
                 "deinterleave", "dequantize", "div", "eq", "erf", "erfc", "exp", "exp2", "expand_clone",
                 "expand_exp_dif", "expm1", "fillpad", "floor", "floor_div", "fmod", "full", "gather", "gathermask",
                 "gcd", "ge", "gt", "hypot", "index_add", "index_add_", "index_put_", "index_select", "interleave",
                 "isfinite", "isnan", "le", "log", "log10", "log1p", "log2", "logical_and", "logical_not", "lrelu",
                 "lt", "matmul", "maximum", "minimum", "mul", "ne", "neg", "normal", "one_hot", "ones", "pack", "pad",
                 "permute", "pow", "prelu", "prod", "quant_mx", "quantize", "reciprocal", "relu", "remainder",
                 "reshape", "rms_norm", "round", "rsqrt", "scaled_mm", "scatter", "scatter_", "scatter_update",
                 "sigmoid", "sign", "signbit", "sin", "sinh", "softmax", "sqrt", "sub", "sum", "tan", "tanh", "topk",
                 "transpose", "tril", "triu", "trunc", "uniform", "unpack", "unsqueeze", "var", "view", "where",
                 "zeros", "set_codegen_options", "get_codegen_options", "set_host_options", "get_host_options",
                 "set_debug_options", "get_debug_options", "set_verify_options", "get_verify_options",
                 "set_pass_options", "get_pass_options", "set_runtime_options", "reset_options", "set_pass_config",
                 "get_pass_config", "get_pass_configs", "set_pass_default_config", "get_pass_default_config",
                 "set_conv_tile_shapes", "get_conv_tile_shapes", "set_vec_tile_shapes", "get_vec_tile_shapes",
                 "set_cube_tile_shapes", "get_cube_tile_shapes", "set_matrix_size", "set_semantic_label", "cond",
                 "function", "is_loop_begin", "is_loop_end", "loop", "loop_unroll", "bytes_of", "from_torch",
                 "set_verify_golden_data", "pass_verify_print", "pass_verify_save", "Element", "CachePolicy",
                 "CastMode", "DataType", "LogBaseType", "OpType", "OutType", "PrecisionType", "ReLuType",
                 "ReduceMode", "SaturationMode", "ScatterMode", "TileOpFormat", "TopKAlgo", "TransMode", "DYNAMIC",
                 "SymbolicScalar", "Tensor", "options", "set_options"]
        missing = [n for n in names if not hasattr(pypto, n)]
        self.assertEqual(missing, [])
        # Of the names PyPTO's API reference documents, only the two whose data is FP8/FP4 (with FP8E8M0 scales),
        # which PTO Studio's engine holds in no dtype, refuse at the call; any other would be an op left unmodelled.
        refused = [n for n in names if "Not supported by PTO Studio" in (getattr(pypto, n).__doc__ or "")]
        self.assertEqual(refused, ["quant_mx", "scaled_mm"])
        for name in ("gather_in_l1", "gather_in_ub", "online_softmax", "online_softmax_update",
                     "transposed_batchmatmul", "set_operation_options", "get_operation_options"):
            self.assertTrue(hasattr(pypto.experimental, name), name)
        self.assertTrue(callable(pypto.frontend.function))
        self.assertEqual(float(pypto.Element(pypto.DT_FP32, 2.5)), 2.5)


class SimulatorOutputTest(unittest.TestCase):
    KERNEL = """
        import json, os, torch, pypto

        @pypto.frontend.jit(runtime_options={"run_mode": pypto.RunMode.SIM})
        def softmax(x: pypto.Tensor(), out: pypto.Tensor()):
            pypto.set_vec_tile_shapes(1, 4, 1, 64)
            for b in pypto.loop(x.shape[0]):
                view = x[b:b + 1, :, :, :]
                peak = pypto.amax(view, dim=-1, keepdim=True)
                e = pypto.exp(view - peak)
                pypto.assemble(e / pypto.sum(e, dim=-1, keepdim=True), [b, 0, 0, 0], out)

        x = torch.rand(4, 8, 1, 256)
        out = torch.empty(4, 8, 1, 256)
        softmax(x, out)
        torch.testing.assert_close(out, torch.softmax(x, dim=-1), rtol=1e-5, atol=1e-6)
        print(json.dumps({"pid": os.getpid(), "sim_output": pypto.last_run().get("sim_output")}))
    """

    def test_sim_mode_writes_the_cost_model_folder_pypto_tools_read(self):
        with tempfile.TemporaryDirectory() as folder:
            done = run_script(self.KERNEL, folder)
            self.assertEqual(done.returncode, 0, done.stderr)
            printed = json.loads(done.stdout.strip().splitlines()[-1])
            runs = glob.glob(os.path.join(folder, "output", f"output_*_{printed['pid']}_*"))
            self.assertEqual(len(runs), 1, os.listdir(folder))
            swimlane = os.path.join(runs[0], "CostModelSimulationOutput", "merged_swimlane.json")
            self.assertEqual(os.path.realpath(os.path.dirname(swimlane)), os.path.realpath(printed["sim_output"]))
            with open(swimlane, encoding="utf-8") as f:
                events = json.load(f)["traceEvents"]
            tasks = [e for e in events if e.get("ph") == "X"]
            lanes = {e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
            self.assertGreaterEqual(len(tasks), 4)  # at least one task per batch row
            self.assertTrue(all(e["dur"] > 0 for e in tasks))
            self.assertTrue(any(name.startswith("AIV_") for name in lanes), lanes)
            with open(os.path.join(runs[0], "CostModelSimulationOutput", "pto_report.json"), encoding="utf-8") as f:
                self.assertEqual(json.load(f)["tasks"], len(tasks))

    def test_output_folder_follows_pypto_environment_and_can_be_turned_off(self):
        with tempfile.TemporaryDirectory() as folder:
            target = os.path.join(folder, "elsewhere")
            done = run_script(self.KERNEL, folder, {"TILE_FWK_OUTPUT_DIR": target})
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertEqual(len(glob.glob(os.path.join(target, "output_*", "CostModelSimulationOutput",
                                                        "merged_swimlane.json"))), 1)
            self.assertFalse(os.path.exists(os.path.join(folder, "output")))
            done = run_script(self.KERNEL, folder, {"PTO_SIM_OUTPUT": "0"})
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertFalse(os.path.exists(os.path.join(folder, "output")))
            self.assertIsNone(json.loads(done.stdout.strip().splitlines()[-1])["sim_output"])


if __name__ == "__main__":
    unittest.main()
