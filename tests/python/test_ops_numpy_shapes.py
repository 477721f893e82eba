"""The pypto ops that change shape, layout or dtype, and those that make tensors, run on the reference interpreter
and compared with numpy under the tolerances numpy_op_checks.py states (its docstring says how every numpy op
test works)."""
import unittest

import numpy as np

import pypto

from numpy_op_checks import (FLOATS, INTS, LAYOUT_DTYPES, NUMPY, PYPTO, RNG, as64, assert_close, assert_equal,
                             bf16_round, bf16_value, empty_output, exact, from_output, full_range, random_data,
                             round_to, run, saturate, to_argument, with_specials)


# --- shape and layout ---------------------------------------------------------------------------------------


class Layout(unittest.TestCase):
    def test_view_reads_a_region(self):
        for dtype in LAYOUT_DTYPES:
            x = random_data(dtype, (7, 130))
            got = run(lambda a: pypto.view(a, [3, 45], [2, 70]), [(dtype, x)], dtype, (3, 45))
            assert_equal(self, got, x[2:5, 70:115], f"view {dtype}")
            # Only the valid part is stored (PyPTO's assemble of a partly valid tensor); the rest of the
            # output keeps what it held (empty_output's fill).
            got = run(lambda a: pypto.view(a, [2, 64], [5, 0], valid_shape=[2, 50]), [(dtype, x)], dtype, (2, 64))
            expected = from_output(dtype, empty_output(dtype, (2, 64)))
            expected[:, :50] = x[5:7, 0:50]
            assert_equal(self, got, expected, f"view with valid_shape {dtype}")

    def test_view_method_and_nested_views(self):
        x = random_data("fp32", (7, 130))
        got = run(lambda a: a.view([4, 100], [1, 10]).view([2, 3], [2, 97]), [("fp32", x)], "fp32", (2, 3))
        assert_equal(self, got, x[3:5, 107:110], "view of a view")

    def test_assemble_writes_into_the_destination_in_place(self):
        for dtype in LAYOUT_DTYPES:
            src = random_data(dtype, (3, 37))
            before = random_data(dtype, (7, 130))

            @pypto.frontend.jit
            def k(s: pypto.Tensor(), out: pypto.Tensor()):
                pypto.assemble(s, [2, 50], out)
                pypto.assemble(s, [4, 93], out)

            out = to_argument(dtype, before)
            k(to_argument(dtype, src), out)
            expected = before.copy()
            expected[2:5, 50:87] = src
            expected[4:7, 93:130] = src
            assert_equal(self, from_output(dtype, out), expected, f"assemble {dtype}")

    def test_reshape(self):
        for dtype in LAYOUT_DTYPES:
            x = random_data(dtype, (3, 4, 10))
            for shape, spelled in (((12, 10), [12, 10]), ((120,), [-1]), ((10, 12), (10, -1)),
                                   ((2, 3, 2, 10), [2, 3, 2, 10])):
                got = run(lambda a: pypto.reshape(a, spelled), [(dtype, x)], dtype, shape, tile=None)
                assert_equal(self, got, x.reshape(shape), f"reshape {dtype} {spelled}")
            got = run(lambda a: a.reshape(6, 20), [(dtype, x)], dtype, (6, 20), tile=None)
            assert_equal(self, got, x.reshape(6, 20), f"x.reshape(6, 20) {dtype}")
        # PyPTO's keyword-only options: valid_shape says which leading part of the result holds data, and
        # storing the result stores that part.
        x = random_data("fp32", (2, 2))
        got = run(lambda a: pypto.reshape(a, [4, 1], valid_shape=[2, 1], inplace=False), [("fp32", x)], "fp32",
                  (4, 1), tile=None)
        expected = np.full((4, 1), np.nan, np.float32)
        expected[:2] = x.reshape(4, 1)[:2]
        assert_equal(self, got, expected, "reshape with valid_shape")

    def test_transpose_and_permute(self):
        for dtype in LAYOUT_DTYPES:
            x = random_data(dtype, (3, 5, 37))
            cases = [(lambda a: pypto.transpose(a, 0, 1), np.transpose(x, (1, 0, 2))),
                     (lambda a: pypto.transpose(a), np.transpose(x, (0, 2, 1))),
                     (lambda a: a.transpose(-1, 0), np.transpose(x, (2, 1, 0))),
                     (lambda a: pypto.permute(a, [2, 0, 1]), np.transpose(x, (2, 0, 1))),
                     (lambda a: pypto.permute(a, 1, 2, 0), np.transpose(x, (1, 2, 0))),
                     (lambda a: a.permute(-1, -2, -3), np.transpose(x, (2, 1, 0)))]
            for index, (body, expected) in enumerate(cases):
                got = run(body, [(dtype, x)], dtype, expected.shape, tile=None)
                assert_equal(self, got, expected, f"transpose/permute case {index} {dtype}")

    def test_transposed_data_feeds_vector_ops(self):
        x = random_data("fp32", (5, 37))
        got = run(lambda a: pypto.exp(pypto.transpose(a, 0, 1)) + 1.0, [("fp32", x)], "fp32", (37, 5))
        assert_close(self, "fp32", got, np.exp(as64(x).T) + 1.0, "math", "exp(x.T) + 1")

    def test_unsqueeze(self):
        for dtype in LAYOUT_DTYPES:
            x = random_data(dtype, (3, 37))
            for dim, shape in ((0, (1, 3, 37)), (1, (3, 1, 37)), (2, (3, 37, 1)), (-1, (3, 37, 1))):
                got = run(lambda a: pypto.unsqueeze(a, dim), [(dtype, x)], dtype, shape, tile=None)
                assert_equal(self, got, np.expand_dims(x, dim), f"unsqueeze {dtype} {dim}")

    def test_concat(self):
        for dtype in LAYOUT_DTYPES:
            a = random_data(dtype, (3, 37))
            b = random_data(dtype, (3, 20))
            c = random_data(dtype, (2, 37))
            got = run(lambda x, y: pypto.concat([x, y], dim=1), [(dtype, a), (dtype, b)], dtype, (3, 57))
            assert_equal(self, got, np.concatenate([a, b], axis=1), f"concat dim 1 {dtype}")
            got = run(lambda x, y: pypto.concat([x, y, x], -1), [(dtype, a), (dtype, b)], dtype, (3, 94))
            assert_equal(self, got, np.concatenate([a, b, a], axis=-1), f"concat three {dtype}")
            got = run(lambda x, z: pypto.cat((x, z), 0), [(dtype, a), (dtype, c)], dtype, (5, 37))
            assert_equal(self, got, np.concatenate([a, c], axis=0), f"cat dim 0 {dtype}")

    def test_clone_is_an_independent_copy(self):
        for dtype in ("fp32", "bf16", "int16"):
            x = random_data(dtype, (3, 37))
            zero = np.zeros((1, 37), NUMPY.get(dtype, np.float32))

            def body(a):
                copy = pypto.clone(a)
                copy[1:2, :] = pypto.full([1, 37], 0, a.dtype)
                return copy, a

            got_copy, got_x = run(body, [(dtype, x)], None, None,
                                  outputs=[(dtype, x.shape), (dtype, x.shape)])
            expected = x.copy()
            expected[1:2] = zero
            assert_equal(self, got_copy, expected, f"clone written {dtype}")
            assert_equal(self, got_x, x, f"clone source untouched {dtype}")


class Creation(unittest.TestCase):
    def test_full_zeros_ones(self):
        for dtype in FLOATS + INTS + ("bool",):
            for shape in ((3, 37), (1, 1), (2, 3, 70)):
                got = run(lambda: pypto.full(list(shape), 3, PYPTO[dtype]), [], dtype, shape)
                assert_equal(self, got, np.full(shape, 3).astype(NUMPY.get(dtype, np.float32)), f"full {dtype}")
                got = run(lambda: pypto.zeros(list(shape), PYPTO[dtype]), [], dtype, shape)
                assert_equal(self, got, np.zeros(shape), f"zeros {dtype}")
                got = run(lambda: pypto.ones(list(shape), dtype=PYPTO[dtype]), [], dtype, shape)
                assert_equal(self, got, np.ones(shape), f"ones {dtype}")
        for dtype in FLOATS:
            got = run(lambda: pypto.full([3, 37], 0.1, PYPTO[dtype]), [], dtype, (3, 37))
            assert_equal(self, got, np.full((3, 37), round_to(dtype, 0.1)), f"full 0.1 rounds once to {dtype}")
        got = run(lambda: pypto.full([3, 37], -1.5), [], "fp32", (3, 37))
        assert_equal(self, got, np.full((3, 37), -1.5, np.float32), "full defaults to fp32")

    def test_arange(self):
        cases = [((10,), "fp32"), ((2, 50, 3), "int32"), ((0, 1, 0.1), "fp32"), ((-1, 1, 0.25), "fp16"),
                 ((5, -3, -1), "int8"), ((0, 3, 0.3), "bf16"), ((1, 2.2, 0.3), "fp32"), ((100, 1000, 7), "int64"),
                 ((0, 100000, 7), "fp32")]
        for args, dtype in cases:
            start, end, step = (0, args[0], 1) if len(args) == 1 else args
            size = len(np.arange(start, end, step))
            got = run(lambda: pypto.arange(*args, dtype=PYPTO[dtype]), [], dtype, (size,))
            # Element i is start + i * step in double, rounded once to the dtype.
            expected = start + np.arange(size, dtype=np.float64) * step
            expected = np.rint(expected) if dtype in INTS else round_to(dtype, expected)
            assert_equal(self, got, expected, f"arange{args} {dtype}")

    def test_creation_values_are_rounded_once_from_double(self):
        # Just above a tie of the format: rounding via float32 would land on the tie and go to even (down).
        for dtype, value, expected in (("bf16", 1 + 2.0 ** -8 + 2.0 ** -40, 1 + 2.0 ** -7),
                                       ("fp16", 1 + 2.0 ** -11 + 2.0 ** -40, 1 + 2.0 ** -10)):
            got = run(lambda: pypto.full([2, 3], value, PYPTO[dtype]), [], dtype, (2, 3))
            assert_equal(self, got, np.full((2, 3), expected), f"full {dtype}")
            got = run(lambda: pypto.arange(value, value + 3, 1, dtype=PYPTO[dtype]), [], dtype, (3,))
            self.assertEqual(float(got[0]), expected, f"arange {dtype}")

    def test_arange_dtype_and_examples_follow_pypto_docs(self):
        # Float arguments give fp32, all-int arguments int32; the length is ceil((end - start) / step).
        got = run(lambda: pypto.arange(1.0, 4.0, 0.5), [], "fp32", (6,))
        assert_equal(self, got, [1.0, 1.5, 2.0, 2.5, 3.0, 3.5], "arange(1.0, 4.0, 0.5)")
        got = run(lambda: pypto.arange(1.0, 4.0), [], "fp32", (3,))
        assert_equal(self, got, [1.0, 2.0, 3.0], "arange(1.0, 4.0)")
        got = run(lambda: pypto.arange(4), [], "int32", (4,))
        self.assertEqual(got.dtype, np.int32)
        assert_equal(self, got, [0, 1, 2, 3], "arange(4)")

    def test_tensor_temporaries_hold_what_is_written(self):
        x = random_data("fp32", (6, 130))

        def body(a):
            scratch = pypto.tensor([6, 130], pypto.DT_FP32, "scratch")
            scratch[...] = a * 2.0
            scratch[0:2, :] = a[0:2, :] + 100.0
            scratch[:, 128:] = pypto.full([6, 2], -1.0)
            return scratch - 1.0

        got = run(body, [("fp32", x)], "fp32", x.shape)
        expected = x * np.float32(2.0)
        expected[0:2] = x[0:2] + np.float32(100.0)
        expected[:, 128:] = -1.0
        assert_close(self, "fp32", got, expected - np.float32(1.0), "exact", "temporary")


# --- cast ---------------------------------------------------------------------------------------------------

def format_table(dtype):
    """Every finite value of fp16 or bf16 and +-inf, sorted (float64)."""
    bits = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    values = bits.view(np.float16).astype(np.float64) if dtype == "fp16" else bf16_value(bits).astype(np.float64)
    return np.unique(values[~np.isnan(values)])


def directed_round(dtype, values, mode):
    """values (float64) rounded into fp16/bf16 by mode, from the table of representable values."""
    table = format_table(dtype)
    values = np.asarray(values, np.float64)
    nearest = round_to(dtype, values).astype(np.float64)
    below = table[np.clip(np.searchsorted(table, values, side="right") - 1, 0, table.size - 1)]
    above = table[np.clip(np.searchsorted(table, values, side="left"), 0, table.size - 1)]
    if mode == "floor":
        result = below
    elif mode == "ceil":
        result = above
    elif mode == "trunc":
        result = np.where(values >= 0, below, above)
    elif mode == "round":  # nearest, ties away from zero; past the largest finite value: inf, like rint
        with np.errstate(invalid="ignore"):
            tie = (values - below) == (above - values)
        away = np.where(values >= 0, above, below)
        result = np.where(np.isinf(nearest), nearest, np.where(tie & (below != above), away, nearest))
    else:
        result = nearest
    return np.where(np.isnan(values), np.nan, result)


def integral(values, mode):
    values = np.asarray(values, np.float64)
    return {"rint": np.rint, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
            "round": lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5)}[mode](values)


MODES = ("rint", "round", "floor", "ceil", "trunc")


class Cast(unittest.TestCase):
    def test_float_to_integer_rounds_by_mode_and_saturates(self):
        specials = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1e9, -1e9, np.nan, np.inf, -np.inf, 127.5, -128.5, 300.0]
        for src in FLOATS:
            x = with_specials(random_data(src, (3, 37), -200.0, 200.0), specials)
            x = round_to(src, x)
            for dst in INTS:
                for mode in MODES:
                    got = run(lambda a: pypto.cast(a, PYPTO[dst], mode), [(src, x)], dst, x.shape)
                    expected = saturate(integral(x, mode), dst)
                    assert_equal(self, got, expected, f"cast {src} -> {dst} {mode}")

    def test_pypto_spellings_of_modes(self):
        x = np.array([[0.5, 1.5, -0.5, -1.7, 2.2, 2.5]], np.float32)
        for spelling, mode in (("CAST_RINT", "rint"), ("CAST_ROUND", "round"), ("CAST_FLOOR", "floor"),
                               ("CAST_CEIL", "ceil"), ("CAST_TRUNC", "trunc"),
                               # CAST_NONE, PyPTO's default: toward zero from a float to an integer (its cast
                               # page's table, torch's rule)
                               ("CAST_NONE", "trunc"), (None, "trunc")):
            got = run(lambda a: pypto.cast(a, pypto.DT_INT32, spelling), [("fp32", x)], "int32", x.shape)
            assert_equal(self, got, integral(x, mode).astype(np.int32), f"mode {spelling}")

    def test_cast_mode_enum(self):
        x = np.array([[0.5, 1.5, -0.5, -1.7]], np.float32)
        got = run(lambda a: pypto.cast(a, pypto.DT_INT32, pypto.CastMode.CAST_FLOOR), [("fp32", x)], "int32", x.shape)
        assert_equal(self, got, np.floor(x).astype(np.int32), "CastMode.CAST_FLOOR")

    def test_fp32_to_fp16_and_bf16_by_mode(self):
        specials = [70000.0, -70000.0, 65504.0, 65519.0, 65520.0, 1e-8, -1e-8, 3e38, -3e38, np.nan, np.inf, 0.0,
                    1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11, 1.0 + 2.0 ** -8, 1.0 + 3 * 2.0 ** -8, -(1.0 + 2.0 ** -8)]
        x = with_specials(RNG.normal(0, 100, size=(6, 130)).astype(np.float32), specials)
        for dst in ("fp16", "bf16"):
            for mode in MODES:
                got = run(lambda a: pypto.cast(a, PYPTO[dst], mode), [("fp32", x)], dst, x.shape)
                assert_equal(self, got, directed_round(dst, x, mode), f"cast fp32 -> {dst} {mode}")

    def test_between_fp16_and_bf16_by_mode(self):
        # fp16 -> bf16 drops mantissa bits; bf16 -> fp16 drops exponent range (overflow, subnormals).
        h = with_specials(random_data("fp16", (6, 130), -300, 300),
                          [65504, -65504, 6e-8, -6e-8, 1 + 2 ** -10, 1 + 3 * 2 ** -10, 1 + 2 ** -9 + 2 ** -10])
        b = exact("bf16", with_specials(random_data("bf16", (6, 130), -1e6, 1e6),
                                        [1e-7, -1e-7, 3e38, 65536.0, 65520.0, 1 + 2 ** -7, -1e-30]))
        for src, x, dst in (("fp16", h, "bf16"), ("bf16", b, "fp16")):
            for mode in MODES:
                got = run(lambda a: pypto.cast(a, PYPTO[dst], mode), [(src, x)], dst, x.shape)
                assert_equal(self, got, directed_round(dst, as64(x), mode), f"cast {src} -> {dst} {mode}")

    def test_widening_and_integer_casts(self):
        h = with_specials(random_data("fp16", (3, 37), -1000, 1000), [np.inf, np.nan, 65504.0, 6e-8])
        got = run(lambda a: pypto.cast(a, pypto.DT_FP32), [("fp16", h)], "fp32", h.shape)
        assert_equal(self, got, h.astype(np.float32), "fp16 -> fp32 is exact")
        b = random_data("bf16", (3, 37), -1e30, 1e30)
        got = run(lambda a: pypto.cast(a, pypto.DT_FP32), [("bf16", b)], "fp32", b.shape)
        assert_equal(self, got, b, "bf16 -> fp32 is exact")
        b = with_specials(random_data("bf16", (3, 37), -300, 300), [1e5, -1e5, 1.0 + 2.0 ** -7])
        got = run(lambda a: pypto.cast(a, pypto.DT_FP16), [("bf16", b)], "fp16", b.shape)
        assert_equal(self, got, b.astype(np.float16), "bf16 -> fp16 rounds to nearest even")
        i = with_specials(full_range("int32", (3, 37)), [2049, 2051, 4097, 65519, 65521, 16777217])
        got = run(lambda a: pypto.cast(a, pypto.DT_FP16), [("int32", i)], "fp16", i.shape)
        assert_equal(self, got, i.astype(np.float16), "int32 -> fp16 rounds to nearest even once")
        got = run(lambda a: pypto.cast(a, pypto.DT_FP32), [("int32", i)], "fp32", i.shape)
        assert_equal(self, got, i.astype(np.float32), "int32 -> fp32")
        small = with_specials(random_data("int32", (3, 37), -(1 << 20), 1 << 20), [257, 259, 513, -259])
        got = run(lambda a: pypto.cast(a, pypto.DT_BF16), [("int32", small)], "bf16", small.shape)
        assert_equal(self, got, bf16_round(small.astype(np.float32)), "int32 -> bf16 nearest even")
        # Rounded once: 2^30 + 2^22 + 1 is just above a bf16 tie, which float32 (2^30 + 2^22) would hit.
        big = np.array([[2 ** 30 + 2 ** 22 + 1, -(2 ** 30 + 2 ** 22 + 1), 2 ** 30 + 2 ** 22, 2 ** 24 + 1]], np.int32)
        got = run(lambda a: pypto.cast(a, pypto.DT_BF16), [("int32", big)], "bf16", big.shape)
        assert_equal(self, got, [[2 ** 30 + 2 ** 23, -(2 ** 30 + 2 ** 23), 2 ** 30, 2 ** 24]], "int32 -> bf16 once")
        for src, dst in (("int32", "int8"), ("int64", "int16"), ("int8", "int64"), ("int16", "uint8"),
                         ("uint8", "int8"), ("int64", "int32")):
            x = full_range(src, (3, 37))
            got = run(lambda a: pypto.cast(a, PYPTO[dst]), [(src, x)], dst, x.shape)
            assert_equal(self, got, x.astype(NUMPY[dst]), f"cast {src} -> {dst} wraps")

    def test_bool_casts(self):
        for src in ("fp32", "bf16", "int8", "uint8", "int64"):
            x = random_data(src, (3, 37), 0, 2)
            if src in FLOATS:  # mostly 0, 1 and 2, and the cases that matter
                x = exact(src, with_specials(np.round(x), [0.0, -0.0, 0.5, np.nan, -1e-30]))
            got = run(lambda a: pypto.cast(a, pypto.DT_BOOL), [(src, x)], "bool", x.shape)
            assert_equal(self, got, as64(x) != 0, f"cast {src} -> bool is nonzero")
        c = random_data("bool", (3, 37))
        for dst in ("fp32", "fp16", "bf16", "int32", "uint8"):
            got = run(lambda a: pypto.cast(a, PYPTO[dst]), [("bool", c)], dst, c.shape)
            assert_equal(self, got, c.astype(np.float64), f"cast bool -> {dst}")


if __name__ == "__main__":
    unittest.main()
