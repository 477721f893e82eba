"""Parts of PyPTO's public API that its published examples use, each checked against numpy or torch:
SymbolicScalar construction and inspection, tensor descriptions and dtype names, temporaries made with
pypto.Tensor inside a kernel, add/sub alpha, round decimals, scatter with a scalar src / reduce / in place,
matmul extend_params, symbolic scalar operands and settings read back outside a kernel.
(quantize/dequantize are in test_ops_numpy_matmul.Quantize; `if` on symbolic values in test_frontend.)"""
import struct
import unittest

import numpy as np
import torch

import pypto

F32 = pypto.DT_FP32
RNG = np.random.default_rng(7)


def fp32(values):
    return np.asarray(values, np.float32)


class SymbolicScalars(unittest.TestCase):
    def test_constructor_forms(self):
        self.assertEqual(pypto.SymbolicScalar(123).concrete(), 123)
        self.assertEqual(pypto.symbolic_scalar(pypto.symbolic_scalar(7)).concrete(), 7)
        named = pypto.symbolic_scalar("scalar", 5)
        self.assertTrue(named.is_concrete())
        self.assertEqual(named.concrete(), 5)
        free = pypto.SymbolicScalar("s")
        self.assertFalse(free.is_concrete())
        self.assertEqual(str(free), "s")
        self.assertEqual(pypto.SymbolicScalar().concrete(), 0)

    def test_isinstance_covers_every_symbolic_value(self):
        s = pypto.SymbolicScalar("s")
        for value in (s, s + 1, s < 2, pypto.SymbolicScalar(3) < 2):
            self.assertIsInstance(value, pypto.SymbolicScalar)
            self.assertIsInstance(value, pypto.symbolic_scalar)
        self.assertNotIsInstance(3, pypto.SymbolicScalar)

    def test_symbol_expression_immediate(self):
        s = pypto.symbolic_scalar("s")
        ten = pypto.symbolic_scalar(10)
        self.assertEqual((ten.is_symbol(), ten.is_expression(), ten.is_immediate()), (False, False, True))
        self.assertEqual((s.is_symbol(), s.is_expression(), s.is_immediate()), (True, False, False))
        less = s < 2
        self.assertEqual((less.is_symbol(), less.is_expression(), less.is_immediate()), (False, True, False))
        folded = ten < 2
        self.assertTrue(folded.is_immediate())
        self.assertEqual(folded.concrete(), 0)

    def test_min_max_methods_evaluate_like_python(self):
        a = pypto.SymbolicScalar("a")
        for value in (-3, 0, 8):
            self.assertEqual(a.min(5).evaluate({"a": value}), min(value, 5))
            self.assertEqual(a.max(a + 2).evaluate({"a": value}), value + 2)
        a.as_variable()  # accepted; nothing to check but that it exists


class Descriptions(unittest.TestCase):
    def test_tensor_outside_a_kernel_describes(self):
        t = pypto.tensor([2, 3], pypto.DT_FP16, "basic_tensor")
        self.assertEqual([d.concrete() for d in t.shape], [2, 3])
        self.assertEqual(t.dtype, pypto.DT_FP16)
        self.assertEqual(t.dim, 2)
        self.assertEqual(t.dim(), 2)
        self.assertEqual(t.format, pypto.TileOpFormat.TILEOP_ND)
        self.assertEqual(t.name, "basic_tensor")
        t.name = "renamed"
        self.assertEqual(t.name, "renamed")
        nz = pypto.tensor([512, 32], pypto.DT_FP16, "nz", pypto.TileOpFormat.TILEOP_NZ)
        self.assertEqual(nz.format, pypto.TileOpFormat.TILEOP_NZ)

    def test_minus_one_dims_are_symbols(self):
        t = pypto.Tensor([-1, 10], pypto.DT_BF16, "t")
        y = t.shape[0] + 10 - t.shape[0]
        self.assertIsInstance(y, pypto.SymbolicScalar)
        self.assertEqual(y.concrete(), 10)
        self.assertFalse(t.shape[0].is_concrete())

    def test_pypto_only_dtypes_describe_but_do_not_compute(self):
        for name in ("DT_INT4", "DT_FP8", "DT_HF4", "DT_HF8", "DT_FP8E4M3", "DT_FP8E5M2", "DT_FP8E8M0",
                     "DT_FP4_E2M1X2", "DT_DOUBLE"):
            dtype = getattr(pypto, name)
            self.assertEqual(pypto.tensor([2, 3], dtype, name).dtype.name, name)
        self.assertEqual(pypto.bytes_of(pypto.DT_FP16), 2)
        self.assertEqual(pypto.bytes_of(pypto.DT_DOUBLE), 8)

        @pypto.frontend.jit
        def k(x: pypto.Tensor((2, 32), F32), y: pypto.Tensor((2, 32), F32)):
            pypto.set_vec_tile_shapes(2, 32)
            y[:] = pypto.cast(pypto.cast(x, pypto.DT_FP8E4M3), F32)

        with self.assertRaises(pypto.KernelError) as caught:
            k(np.zeros((2, 32), np.float32), np.zeros((2, 32), np.float32))
        self.assertIn("cast: DT_FP8E4M3 is not supported by the machines PTO Studio models", str(caught.exception))

    def test_minus_one_in_an_annotation_is_dynamic(self):
        @pypto.frontend.jit
        def k(x: pypto.Tensor([-1, 32], F32), y: pypto.Tensor([-1, 32], F32)):
            pypto.set_vec_tile_shapes(4, 32)
            y[:] = x * 2.0

        for rows in (3, 9):
            x = RNG.standard_normal((rows, 32)).astype(np.float32)
            y = np.zeros_like(x)
            k(x, y)
            np.testing.assert_array_equal(y, x * np.float32(2.0))


    def test_a_dim_that_is_no_multiple_of_its_declaration_is_explained(self):
        n = pypto.frontend.dynamic("n")

        @pypto.frontend.jit
        def k(x: pypto.Tensor((n * 64, 64), F32), y: pypto.Tensor((n * 64, 64), F32)):
            y[:] = x

        with self.assertRaises(pypto.KernelError) as caught:
            k(np.zeros((100, 64), np.float32), np.zeros((100, 64), np.float32))
        self.assertIn("argument 'x' has 100 in dim 0, which is not '(n*64)' for any whole n >= 0",
                      str(caught.exception))

    def test_a_declared_dim_must_be_linear_in_one_dynamic_dim(self):
        n = pypto.frontend.dynamic("n")

        @pypto.frontend.jit
        def k(x: pypto.Tensor((n * n, 64), F32), y: pypto.Tensor((n * n, 64), F32)):
            y[:] = x

        with self.assertRaises(pypto.KernelError) as caught:
            k(np.zeros((16, 64), np.float32), np.zeros((16, 64), np.float32))
        self.assertIn("a declared dim may be a dynamic dim or a multiple of one plus a constant", str(caught.exception))


class TemporariesAndSettings(unittest.TestCase):
    def test_tensor_constructor_inside_a_kernel_is_a_temporary(self):
        @pypto.frontend.jit
        def k(x: pypto.Tensor((8, 32), F32)) -> pypto.Tensor((8, 32), F32):
            pypto.set_vec_tile_shapes(4, 32)
            out = pypto.Tensor((8, 32), F32)
            for i in pypto.loop(2):
                pypto.assemble(pypto.view(x, [4, 32], [i * 4, 0]) + 1.0, [i * 4, 0], out)
            return out

        x = RNG.standard_normal((8, 32)).astype(np.float32)
        np.testing.assert_array_equal(k(x), x + np.float32(1.0))

    def test_settings_read_back_outside_a_kernel(self):
        @pypto.frontend.jit
        def k(a: pypto.Tensor((4, 8), F32), b: pypto.Tensor((8, 4), F32), c: pypto.Tensor((4, 4), F32)):
            pypto.set_vec_tile_shapes(4, 8)
            pypto.set_cube_tile_shapes([16, 16], [32, 64], [16, 32])
            c[:] = pypto.matmul(a, b, F32)

        k(np.ones((4, 8), np.float32), np.ones((8, 4), np.float32), np.zeros((4, 4), np.float32))
        self.assertEqual(pypto.get_vec_tile_shapes(), [4, 8])
        self.assertEqual(pypto.get_cube_tile_shapes(), [[16, 16], [32, 64], [16, 32]])

    def test_tile_shapes_accept_known_symbolic_dims(self):
        @pypto.frontend.jit
        def k(x: pypto.Tensor((4, 32), F32), y: pypto.Tensor((4, 32), F32)):
            pypto.set_vec_tile_shapes(*x.shape)
            y[:] = x + 1.0

        x = np.zeros((4, 32), np.float32)
        y = np.zeros_like(x)
        k(x, y)
        np.testing.assert_array_equal(y, x + 1)

    def test_option_dicts_are_read_when_called(self):
        runtime_options = {}

        @pypto.jit(runtime_options=runtime_options)
        def k(x: pypto.Tensor[...], y: pypto.Tensor[...]):
            pypto.set_vec_tile_shapes(2, 32)
            y[:] = x

        runtime_options["run_mode"] = pypto.RunMode.SIM  # filled in after decorating, as PyPTO's examples do
        x = np.ones((2, 32), np.float32)
        y = np.zeros_like(x)
        k(x, y)
        np.testing.assert_array_equal(y, x)
        runtime_options["no_such_option"] = 1
        with self.assertRaises(pypto.KernelError) as caught:
            k(x, y)
        self.assertIn("unknown runtime_options key 'no_such_option'; known: device_sched_mode", str(caught.exception))


class ElementwiseOptions(unittest.TestCase):
    def test_add_and_sub_alpha(self):
        @pypto.frontend.jit
        def k(a: pypto.Tensor((3, 40), F32), b: pypto.Tensor((40,), F32), o1: pypto.Tensor((3, 40), F32),
              o2: pypto.Tensor((3, 40), F32), o3: pypto.Tensor((3, 40), F32)):
            pypto.set_vec_tile_shapes(3, 40)
            o1[:] = pypto.add(a, b, alpha=2.5)
            o2[:] = pypto.sub(a, b, alpha=-0.5)
            o3[:] = pypto.add(a, 3.0, alpha=2.0)

        a = RNG.standard_normal((3, 40)).astype(np.float32)
        b = RNG.standard_normal(40).astype(np.float32)
        outs = [np.zeros_like(a) for _ in range(3)]
        k(a, b, *outs)
        # alpha * b in fp32, then one fp32 add (two roundings, as two ops).
        np.testing.assert_array_equal(outs[0], a + b * np.float32(2.5))
        np.testing.assert_array_equal(outs[1], a - b * np.float32(-0.5))
        np.testing.assert_array_equal(outs[2], a + np.float32(6.0))

    def test_round_to_decimals_ties_to_even(self):
        @pypto.frontend.jit
        def k(x: pypto.Tensor((2, 32), F32), o1: pypto.Tensor((2, 32), F32), o2: pypto.Tensor((2, 32), F32)):
            pypto.set_vec_tile_shapes(2, 32)
            o1[:] = pypto.round(x, decimals=1)
            o2[:] = x.round(-1)

        x = (RNG.standard_normal((2, 32)) * 100).astype(np.float32)
        x[0, :4] = [1.21, 2.35, 3.65, 4.76]  # PyPTO's page: -> 1.2, 2.4, 3.6, 4.8
        o1, o2 = np.zeros_like(x), np.zeros_like(x)
        k(x, o1, o2)
        ten = np.float32(10.0)
        np.testing.assert_array_equal(o1, np.rint(x * ten) / ten)
        np.testing.assert_array_equal(o2, np.rint(x / ten) * ten)  # 10^-1 is not exact; * 0.1 / 0.1 differ
        np.testing.assert_allclose(o1[0, :4], [1.2, 2.4, 3.6, 4.8], rtol=1e-6)

    def test_round_an_integer_tensor_to_tens_and_hundreds(self):
        @pypto.frontend.jit
        def k(x: pypto.Tensor((4, 32), pypto.DT_INT32), tens: pypto.Tensor((4, 32), pypto.DT_INT32),
              hundreds: pypto.Tensor((4, 32), pypto.DT_INT32)):
            pypto.set_vec_tile_shapes(4, 32)
            tens[:] = pypto.round(x, decimals=-1)
            hundreds[:] = pypto.round(x, decimals=-2)

        x = RNG.integers(-100000, 100000, (4, 32)).astype(np.int32)
        x[0, :4] = [15, 25, -35, 1250]  # ties go to the even multiple: 20, 20, -40, 1200 (of a hundred)
        tens, hundreds = np.zeros_like(x), np.zeros_like(x)
        k(x, tens, hundreds)
        np.testing.assert_array_equal(tens, (np.rint(x / 10.0) * 10).astype(np.int32))
        np.testing.assert_array_equal(hundreds, (np.rint(x / 100.0) * 100).astype(np.int32))
        np.testing.assert_array_equal(tens[0, :3], [20, 20, -40])
        self.assertEqual(hundreds[0, 3], 1200)


class Scatter(unittest.TestCase):
    def run_scatter(self, body, x, index, src=None):
        @pypto.frontend.jit
        def k(a: pypto.Tensor(), i: pypto.Tensor(), s: pypto.Tensor(), o: pypto.Tensor()):
            pypto.set_vec_tile_shapes(8, 8)
            o[:] = body(a, i, s)

        out = np.zeros_like(x)
        k(x, index, src if src is not None else np.zeros_like(x), out)
        return out

    def test_scalar_src_matches_torch(self):
        x = RNG.random((3, 5)).astype(np.float32)
        index = RNG.integers(0, 3, (2, 5)).astype(np.int64)
        got = self.run_scatter(lambda a, i, s: pypto.scatter(a, 0, i, 0.5), x, index)
        expected = torch.scatter(torch.from_numpy(x), 0, torch.from_numpy(index), 0.5).numpy()
        np.testing.assert_array_equal(got, expected)

    def test_reduce_add_and_multiply_match_torch(self):
        # Small integers in float32: every order of accumulation gives the same exact result as torch.
        x = RNG.integers(-4, 5, (4, 6)).astype(np.float32)
        index = RNG.integers(0, 4, (3, 6)).astype(np.int64)
        src = RNG.integers(-3, 4, (3, 6)).astype(np.float32)
        for reduce in ("add", "multiply"):
            got = self.run_scatter(lambda a, i, s: pypto.scatter(a, 0, i, s, reduce=reduce), x, index, src)
            expected = torch.from_numpy(x).scatter(0, torch.from_numpy(index), torch.from_numpy(src),
                                                   reduce=reduce).numpy()
            np.testing.assert_array_equal(got, expected, reduce)

    def test_in_place_scatter_writes_the_input(self):
        @pypto.frontend.jit
        def k(a: pypto.Tensor(), i: pypto.Tensor()):
            pypto.set_vec_tile_shapes(8, 8)
            pypto.scatter_(a, 1, i, 2.0)

        x = np.zeros((3, 5), np.float32)
        index = np.array([[1, 2], [0, 1], [4, 4]], np.int64)
        expected = torch.zeros(3, 5).scatter_(1, torch.from_numpy(index), 2.0).numpy()
        k(x, index)
        np.testing.assert_array_equal(x, expected)

    def test_bad_reduce_is_named(self):
        x = np.zeros((2, 4), np.float32)
        with self.assertRaises(pypto.KernelError) as caught:
            self.run_scatter(lambda a, i, s: pypto.scatter(a, 0, i, s, reduce="max"), x, np.zeros((2, 4), np.int64))
        self.assertIn("scatter: reduce must be 'add' or 'multiply', got 'max'", str(caught.exception))


def fixpipe_scale(value):
    """The fp32 scale with its low 13 mantissa bits cleared (1 sign + 8 exponent + 10 mantissa bits)."""
    bits = struct.unpack("<I", struct.pack("<f", value))[0] & 0xFFFFE000
    return np.float32(struct.unpack("<f", struct.pack("<I", bits))[0])


class MatmulExtendParams(unittest.TestCase):
    def run_matmul(self, a, b, out_dtype, extend, extra=None, out_np=np.float32):
        inputs = [a, b] + ([extra] if extra is not None else [])

        @pypto.frontend.jit
        def k(x: pypto.Tensor(), y: pypto.Tensor(), z: pypto.Tensor() = None, o: pypto.Tensor() = None):
            pypto.set_vec_tile_shapes(16, 32)
            pypto.set_cube_tile_shapes([16, 16], [32, 32], [16, 32])
            params = dict(extend)
            for key in ("bias_tensor", "scale_tensor"):
                if key in params:
                    params[key] = z
            o[:] = pypto.matmul(x, y, out_dtype, extend_params=params)

        out = np.zeros((a.shape[0], b.shape[1]), out_np)
        if extra is None:
            @pypto.frontend.jit
            def k2(x: pypto.Tensor(), y: pypto.Tensor(), o: pypto.Tensor()):
                pypto.set_vec_tile_shapes(16, 32)
                pypto.set_cube_tile_shapes([16, 16], [32, 32], [16, 32])
                o[:] = pypto.matmul(x, y, out_dtype, extend_params=dict(extend))
            k2(*inputs, out)
        else:
            k(*inputs, out)
        return out

    def test_bias_is_added_to_the_fp32_accumulator(self):
        a = RNG.standard_normal((8, 24)).astype(np.float32)
        b = RNG.standard_normal((24, 16)).astype(np.float32)
        bias = RNG.standard_normal((1, 16)).astype(np.float32)
        got = self.run_matmul(a, b, F32, {"bias_tensor": None}, bias)
        expected = a.astype(np.float64) @ b.astype(np.float64) + bias
        bound = 24 * np.finfo(np.float32).eps * (np.abs(a) @ np.abs(b) + np.abs(bias)) + 1e-6
        self.assertTrue(np.all(np.abs(got - expected) <= bound))

    def test_dequantising_int8_with_scale_and_relu(self):
        a = RNG.integers(-128, 128, (8, 32)).astype(np.int8)
        b = RNG.integers(-128, 128, (32, 16)).astype(np.int8)
        got = self.run_matmul(a, b, pypto.DT_FP16, {"scale": 0.2, "relu_type": pypto.ReLuType.RELU},
                              out_np=np.float16)
        accumulator = a.astype(np.int64) @ b.astype(np.int64)  # exact: |sum| < 2^24, so exact in fp32 too
        expected = np.maximum(accumulator.astype(np.float32) * fixpipe_scale(0.2), 0).astype(np.float16)
        np.testing.assert_array_equal(got, expected)

    def test_relu_comes_before_a_negative_scale(self):
        # The fixpipe's ReLU is a pre-quant one (PTO ISA's ReluPreMode, PyPTO's Matmul golden: relu, then the
        # scale): with a negative scale every result is <= 0. Scale first would leave them >= 0.
        a = RNG.integers(-128, 128, (8, 32)).astype(np.int8)
        b = RNG.integers(-128, 128, (32, 16)).astype(np.int8)
        got = self.run_matmul(a, b, pypto.DT_FP16, {"scale": -0.2, "relu_type": pypto.ReLuType.RELU},
                              out_np=np.float16)
        accumulator = a.astype(np.int64) @ b.astype(np.int64)
        expected = (np.maximum(accumulator, 0).astype(np.float32) * fixpipe_scale(-0.2)).astype(np.float16)
        np.testing.assert_array_equal(got, expected)
        self.assertTrue(np.all(got <= 0) and np.any(got < 0))

    def test_dequantising_int8_with_per_channel_scales(self):
        # extend_params['scale_tensor']: a uint64 per output column, its low 32 bits the fp32 scale (upper bits
        # set here to show they are ignored), read with the fixpipe's 10 mantissa bits.
        a = RNG.integers(-128, 128, (8, 32)).astype(np.int8)
        b = RNG.integers(-128, 128, (32, 16)).astype(np.int8)
        scales = RNG.uniform(-0.05, 0.05, 16).astype(np.float32)  # |result| < 2^15: inside fp16
        packed = (scales.view(np.uint32).astype(np.uint64) | (np.uint64(0x5A) << np.uint64(37))).reshape(1, 16)
        got = self.run_matmul(a, b, pypto.DT_FP16, {"scale_tensor": None}, packed, out_np=np.float16)
        held = np.array([fixpipe_scale(float(v)) for v in scales], np.float32)
        accumulator = a.astype(np.int64) @ b.astype(np.int64)  # exact in fp32 (|sum| < 2^24)
        np.testing.assert_array_equal(got, (accumulator.astype(np.float32) * held).astype(np.float16))

    def test_quantising_to_int8_rounds_half_even_and_saturates(self):
        a = RNG.integers(-4, 5, (8, 32)).astype(np.float16)
        b = RNG.integers(-4, 5, (32, 16)).astype(np.float16)
        got = self.run_matmul(a, b, pypto.DT_INT8, {"scale": 0.75}, out_np=np.int8)
        product = (a.astype(np.float32) @ b.astype(np.float32)) * fixpipe_scale(0.75)
        expected = np.clip(np.rint(product), -128, 127).astype(np.int8)
        np.testing.assert_array_equal(got, expected)

    def test_the_fixpipe_steps_take_the_cube_tile_whatever_vec_tile_is_set(self):
        # PyPTO's lightning indexer sets a rank-3 vec tile (2, 1, 64) before a [128, 128] int8 matmul with
        # scale and ReLU: cut by that tile's (2, 1) the fixpipe steps made 8 192 tiles per matmul. On the
        # chip they run in the fixpipe on the cube's output tile, and so do they here; the tile set for the
        # vector ops after the matmul (and the call that set it) is in force again.
        a = RNG.integers(-8, 8, (128, 128)).astype(np.int8)  # small enough for fp16 after the scale
        b = RNG.integers(-8, 8, (128, 128)).astype(np.int8)

        @pypto.frontend.jit
        def scaled(x: pypto.Tensor(), y: pypto.Tensor(), o: pypto.Tensor()):
            pypto.set_vec_tile_shapes(2, 1, 64)
            pypto.set_cube_tile_shapes([128, 128], [128, 128], [128, 128])
            product = pypto.matmul(x, y, pypto.DT_FP16, b_trans=True,
                                   extend_params={"scale": 0.5, "relu_type": pypto.ReLuType.RELU})
            o[:] = pypto.mul(product, 2.0)  # a vector op: under the kernel's own tile again

        out = np.zeros((128, 128), np.float16)
        scaled(a, b, out)
        report = pypto.last_run()
        self.assertTrue(report["simulated"], report.get("simulation_error"))
        # The mul alone is 8 192 tiles of (2, 1), two instructions each (the kernel's tile is back); the
        # fixpipe steps cut the same way would add four times as many.
        self.assertGreater(report["instructions"], 8192)
        self.assertLess(report["instructions"], 20000)
        accumulator = a.astype(np.int64) @ b.astype(np.int64).T  # exact in fp32 (|sum| < 2^24)
        expected = (np.maximum(accumulator.astype(np.float32) * fixpipe_scale(0.5), 0).astype(np.float16)
                    .astype(np.float32) * 2).astype(np.float16)
        np.testing.assert_array_equal(out, expected)

    def test_unsupported_extend_params_are_named(self):
        a = np.zeros((8, 32), np.float32)
        b = np.zeros((32, 16), np.float32)
        for extend, message in (({"bais_tensor": 1}, "unknown extend_params key(s) bais_tensor"),
                                ({"trans_mode": pypto.TransMode.CAST_RINT},
                                 "CAST_RINT (TF32 operands) exists on the Ascend 950 only")):
            with self.assertRaises(pypto.KernelError) as caught:
                self.run_matmul(a, b, F32, extend)
            self.assertIn(message, str(caught.exception))


class SymbolicOperands(unittest.TestCase):
    def test_dynamic_dim_and_loop_index_as_operands(self):
        @pypto.frontend.jit
        def k(x: pypto.Tensor((pypto.DYNAMIC, 32), F32), y: pypto.Tensor((pypto.DYNAMIC, 32), F32),
              z: pypto.Tensor((1, 32), F32)):
            pypto.set_vec_tile_shapes(1, 32)
            n = x.shape[0]
            z[:] = pypto.full([1, 32], n, F32)
            for i in pypto.loop(n):
                y[i:i + 1, :] = x[i:i + 1, :] / n - i

        for rows in (2, 7):
            x = RNG.standard_normal((rows, 32)).astype(np.float32)
            y, z = np.zeros_like(x), np.zeros((1, 32), np.float32)
            k(x, y, z)
            expected = x / np.float32(rows) - np.arange(rows, dtype=np.float32)[:, None]
            np.testing.assert_array_equal(y, expected)
            np.testing.assert_array_equal(z, np.full((1, 32), rows, np.float32))


if __name__ == "__main__":
    unittest.main()
