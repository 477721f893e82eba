"""Tracing: what the Tensor graph records for a kernel, and how misuse is reported."""
import json
import os
import unittest

import numpy as np

import pypto

import kernel_checks

HERE = os.path.abspath(__file__)


def trace(kernel, *types):
    """Traces `kernel` for (dtype, shape) pairs and returns the graph as JSON."""
    traced, _ = kernel.trace(list(types))
    return json.loads(traced.to_json())


def line_of(marker):
    return kernel_checks.line_of(HERE, marker)


F32 = pypto.DT_FP32


@pypto.frontend.jit
def labelled(x: pypto.Tensor((8, 64), F32), y: pypto.Tensor((8, 64), F32)):
    pypto.set_vec_tile_shapes(8, 64)
    pypto.set_semantic_label("first")
    t = pypto.exp(x)  # @exp
    pypto.set_semantic_label("second")
    y[:] = helper_scale(t)  # @call-helper


def helper_scale(t):
    return t * 2.0  # @helper


class GraphRecording(unittest.TestCase):
    def test_ops_carry_kind_label_tile_and_user_line(self):
        graph = trace(labelled, (F32, [8, 64]), (F32, [8, 64]))
        ops = {op["op"]: op for op in graph["ops"]}
        self.assertEqual(ops["exp"]["label"], "first")
        self.assertEqual(ops["exp"]["source"]["line"], line_of("# @exp"))
        self.assertEqual(ops["exp"]["source"]["file"], HERE)
        self.assertEqual(ops["exp"]["vec_tile"], [8, 64])
        # A helper the user wrote counts as user code: its own line is recorded.
        self.assertEqual(ops["muls"]["source"]["line"], line_of("# @helper"))
        self.assertEqual(ops["muls"]["label"], "second")
        self.assertEqual(ops["muls"]["attrs"]["scalar"], 2.0)
        self.assertEqual(ops["assemble"]["source"]["line"], line_of("# @call-helper"))

    def test_outputs_are_the_written_arguments(self):
        graph = trace(labelled, (F32, [8, 64]), (F32, [8, 64]))
        self.assertEqual(graph["outputs"], [1])

    def test_tracing_twice_gives_the_same_graph(self):
        first = trace(labelled, (F32, [8, 64]), (F32, [8, 64]))
        second = trace(labelled, (F32, [8, 64]), (F32, [8, 64]))
        self.assertEqual(first, second)


B = pypto.DYNAMIC


@pypto.frontend.jit
def looped(x: pypto.Tensor((B, 64), F32), y: pypto.Tensor((B, 64), F32)):
    pypto.set_vec_tile_shapes(1, 64)
    for i in pypto.loop(0, x.shape[0], 1, name="rows", idx_name="i"):
        if pypto.cond(pypto.is_loop_begin(i)):
            y[i:i + 1, :] = x[i:i + 1, :] * 0.0
        else:
            y[i:i + 1, :] = x[i:i + 1, :] + 1.0


class Loops(unittest.TestCase):
    def test_loop_is_a_scope_with_a_symbolic_index_and_two_paths(self):
        graph = trace(looped, (F32, [5, 64]), (F32, [5, 64]))
        self.assertEqual(graph["dynamic_symbols"], [{"symbol": "x_0", "argument": 0, "dim": 0}])
        loop = graph["body"][0]["statements"][0]
        self.assertEqual(loop["name"], "rows")
        self.assertEqual(loop["index"], "i")
        self.assertEqual(loop["stop"], "x_0")
        paths = loop["bodies"][0]["paths"]
        self.assertEqual(len(paths), 2)
        self.assertEqual([c["expected"] for p in paths for c in p["conditions"]], [True, False])
        self.assertEqual(paths[0]["conditions"][0]["predicate"], "i == 0")
        views = [op for op in graph["ops"] if op["op"] == "view"]
        self.assertEqual(views[0]["attrs"]["offsets"], ["i", 0])
        self.assertEqual(views[0]["shape"], [1, 64])

    def test_running_takes_the_right_path_per_iteration(self):
        x = np.arange(5 * 64, dtype=np.float32).reshape(5, 64)
        y = np.full_like(x, -1.0)
        looped(x, y)
        expected = x + 1.0
        expected[0] = 0.0
        np.testing.assert_array_equal(y, expected)

    def test_dynamic_batch_runs_for_other_sizes_without_edits(self):
        for rows in (1, 3, 17):
            x = np.ones((rows, 64), dtype=np.float32)
            y = np.zeros_like(x)
            looped(x, y)
            self.assertEqual(float(y[-1, 0]), 2.0 if rows > 1 else 0.0)


@pypto.frontend.jit
def unrolled(x: pypto.Tensor((10, 64), F32), y: pypto.Tensor((10, 64), F32)):
    pypto.set_vec_tile_shapes(1, 64)
    for i, factor in pypto.loop_unroll(0, 10, 1, unroll_list=[4, 2]):
        y[i:i + factor, :] = x[i:i + factor, :] * float(factor)


class Unrolling(unittest.TestCase):
    def test_each_factor_gets_a_body_and_covers_that_many_iterations(self):
        x = np.ones((10, 64), dtype=np.float32)
        y = np.zeros_like(x)
        unrolled(x, y)
        # 10 = 4 + 4 + 2: rows 0-7 by the factor-4 body, rows 8-9 by the factor-2 body.
        np.testing.assert_array_equal(y[:, 0], [4, 4, 4, 4, 4, 4, 4, 4, 2, 2])


class Errors(unittest.TestCase):
    def test_shape_mismatch_names_op_shapes_and_line(self):
        @pypto.frontend.jit
        def bad(x: pypto.Tensor((4, 64), F32), y: pypto.Tensor((4, 32), F32)):
            pypto.set_vec_tile_shapes(4, 32)
            y[:] = x + y  # @mismatch

        with self.assertRaises(pypto.KernelError) as caught:
            bad(np.zeros((4, 64), np.float32), np.zeros((4, 32), np.float32))
        error = caught.exception
        self.assertEqual(error.line, line_of("# @mismatch"))
        self.assertEqual(error.message,
                         "add: shapes [4, 64] and [4, 32] do not broadcast (trailing dims must be equal or 1)")

    def test_dtype_mismatch_suggests_cast(self):
        @pypto.frontend.jit
        def bad(x: pypto.Tensor((4, 64), F32), h: pypto.Tensor((4, 64), pypto.DT_FP16)):
            pypto.set_vec_tile_shapes(4, 64)
            h[:] = x * h  # @dtype

        with self.assertRaises(pypto.KernelError) as caught:
            bad(np.zeros((4, 64), np.float32), np.zeros((4, 64), np.float16))
        self.assertEqual(caught.exception.line, line_of("# @dtype"))
        self.assertIn("mul: dtypes differ (float32 [4, 64] and float16 [4, 64]); convert one with pypto.cast",
                      caught.exception.message)

    def test_argument_not_matching_the_annotation(self):
        with self.assertRaises(pypto.KernelError) as caught:
            labelled(np.zeros((8, 32), np.float32), np.zeros((8, 64), np.float32))
        self.assertEqual(caught.exception.message,
                         "argument 'x' has 32 in dim 1 but the kernel declares 64")

    def test_unknown_jit_option_is_named(self):
        with self.assertRaises(pypto.KernelError) as caught:
            @pypto.frontend.jit(runtime_options={"run_mod": pypto.RunMode.SIM})
            def k(x):
                pass
        self.assertIn("unknown runtime_options key 'run_mod'; did you mean 'run_mode'?", caught.exception.message)

    def test_calls_outside_a_kernel_explain_themselves(self):
        with self.assertRaises(pypto.KernelError) as caught:
            pypto.set_vec_tile_shapes(4, 64)
        self.assertIn("only works inside a kernel being traced", caught.exception.message)

    def test_python_if_on_a_symbolic_value_outside_a_kernel_points_to_cond(self):
        i = pypto.SymbolicScalar("i")
        with self.assertRaises(Exception) as caught:
            if i == 0:
                pass
        self.assertIn("pypto.cond", str(caught.exception))


class PythonIfOnSymbolicValues(unittest.TestCase):
    """Inside a kernel a plain `if` on a symbolic condition branches when the kernel runs (as PyPTO's
    parser makes it), exactly like `if pypto.cond(...)`."""

    def test_if_elif_else_on_the_loop_index(self):
        @pypto.frontend.jit
        def k(x: pypto.Tensor((B, 64), F32), y: pypto.Tensor((B, 64), F32)):
            pypto.set_vec_tile_shapes(1, 64)
            for i in pypto.loop(x.shape[0]):
                if i == 0:
                    y[i:i + 1, :] = x[i:i + 1, :] + 1.0
                elif i < 3:
                    y[i:i + 1, :] = x[i:i + 1, :] * 2.0
                else:
                    y[i:i + 1, :] = x[i:i + 1, :]

        x = np.random.default_rng(5).standard_normal((5, 64)).astype(np.float32)
        y = np.zeros_like(x)
        k(x, y)
        expected = x.copy()
        expected[0] += 1.0
        expected[1:3] *= 2.0
        np.testing.assert_array_equal(y, expected)

    def test_is_loop_begin_and_end_in_a_plain_if(self):
        @pypto.frontend.jit
        def k(x: pypto.Tensor((B, 64), F32), y: pypto.Tensor((B, 64), F32)):
            pypto.set_vec_tile_shapes(1, 64)
            for i in pypto.loop(x.shape[0]):
                if pypto.is_loop_begin(i):
                    y[i:i + 1, :] = x[i:i + 1, :] - 1.0
                elif pypto.is_loop_end(i):
                    y[i:i + 1, :] = x[i:i + 1, :] + 1.0
                else:
                    y[i:i + 1, :] = x[i:i + 1, :]

        x = np.arange(4 * 64, dtype=np.float32).reshape(4, 64)
        y = np.zeros_like(x)
        k(x, y)
        expected = x.copy()
        expected[0] -= 1.0
        expected[3] += 1.0
        np.testing.assert_array_equal(y, expected)


class Calling(unittest.TestCase):
    def test_functional_style_returns_new_arrays(self):
        @pypto.frontend.jit
        def double(x: pypto.Tensor((B, 64), F32)) -> pypto.Tensor((B, 64), F32):
            pypto.set_vec_tile_shapes(1, 64)
            return x * 2.0

        x = np.arange(3 * 64, dtype=np.float32).reshape(3, 64)
        np.testing.assert_array_equal(double(x), x * 2.0)

    def test_non_contiguous_arguments_are_refused(self):
        x = np.zeros((8, 128), np.float32)[:, ::2]
        with self.assertRaises(pypto.KernelError) as caught:
            labelled(x, np.zeros((8, 64), np.float32))
        self.assertIn("not C-contiguous", caught.exception.message)

    def test_float64_is_refused_with_a_hint(self):
        with self.assertRaises(pypto.KernelError) as caught:
            labelled(np.zeros((8, 64)), np.zeros((8, 64), np.float32))
        self.assertIn("astype(np.float32)", caught.exception.message)


if __name__ == "__main__":
    unittest.main()
