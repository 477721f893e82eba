"""The operations of PyPTO's API that gained an instruction of their own: inverse trigonometry (acos, asin, atan,
atan2), signbit, the bitwise ops and shifts (tensor-tensor, tensor-int and int-tensor), gcd, tril/triu and the
scans (cumsum, cumprod); plus ceil_div on integers and logical_and/or on non-bool operands.

Every kernel runs through the compiler and the functional simulator (each test checks that the outputs came from
it, not from the reference interpreter) with vec tiles that cut both dims into several tiles, so tril/triu are
checked across tile borders (the diagonal moves with each tile's offsets) and the scans with tiles that must be
widened to span their dim. Expected values come from numpy (or torch where numpy has no such function).
Tolerances: integer and bitwise results, tril/triu and signbit are exact; fp32 inverse trigonometry within
2 ulp-ish (rtol 1e-6, atol 1e-7: libm's float functions against numpy's); fp16 results within one fp16 ulp of
the fp32 value rounded (rtol 1e-3); fp32 cumsum/cumprod are sequential fp32 sums/products, as numpy's are
(rtol 1e-6).
"""
import os
import unittest

import numpy as np

import pypto

import kernel_checks

HERE = os.path.abspath(__file__)
RNG = np.random.default_rng(20261128)
R, C = 24, 40  # tiles of (8, 16): 3 x 3 tiles, the last column of tiles partial


def line_of(marker):
    return kernel_checks.line_of(HERE, marker)


@pypto.frontend.jit
def inverse_trig(x: pypto.Tensor([R, C], pypto.DT_FP32), y: pypto.Tensor([R, C], pypto.DT_FP32),
                 acos_out: pypto.Tensor([R, C], pypto.DT_FP32), asin_out: pypto.Tensor([R, C], pypto.DT_FP32),
                 atan_out: pypto.Tensor([R, C], pypto.DT_FP32), atan2_out: pypto.Tensor([R, C], pypto.DT_FP32),
                 sign_out: pypto.Tensor([R, C], pypto.DT_BOOL)):
    pypto.set_vec_tile_shapes(8, 16)
    acos_out[:] = pypto.acos(x)
    asin_out[:] = pypto.asin(x)
    atan_out[:] = pypto.atan(y)
    atan2_out[:] = pypto.atan2(x, y)
    sign_out[:] = pypto.signbit(y)


@pypto.frontend.jit
def inverse_trig_fp16(x: pypto.Tensor([R, C], pypto.DT_FP16), out: pypto.Tensor([R, C], pypto.DT_FP16)):
    pypto.set_vec_tile_shapes(8, 16)
    out[:] = pypto.asin(x)


def bitwise_kernel(dtype):
    @pypto.frontend.jit
    def kernel(a: pypto.Tensor([R, C], dtype), b: pypto.Tensor([R, C], dtype),
               and_out: pypto.Tensor([R, C], dtype), or_out: pypto.Tensor([R, C], dtype),
               xor_out: pypto.Tensor([R, C], dtype), not_out: pypto.Tensor([R, C], dtype),
               shl_out: pypto.Tensor([R, C], dtype), shr_out: pypto.Tensor([R, C], dtype),
               ands_out: pypto.Tensor([R, C], dtype), rshl_out: pypto.Tensor([R, C], dtype),
               gcd_out: pypto.Tensor([R, C], dtype), gcds_out: pypto.Tensor([R, C], dtype)):
        pypto.set_vec_tile_shapes(8, 32)  # 32-byte rows for uint8 too; the last column of tiles is partial
        and_out[:] = pypto.bitwise_and(a, b)
        or_out[:] = pypto.bitwise_or(a, b)
        xor_out[:] = pypto.bitwise_xor(a, b)
        not_out[:] = pypto.bitwise_not(a)
        counts = pypto.bitwise_and(b, 7)
        shl_out[:] = pypto.bitwise_left_shift(a, counts)
        shr_out[:] = pypto.bitwise_right_shift(a, counts)
        ands_out[:] = pypto.bitwise_and(a, 0x5A)
        rshl_out[:] = pypto.bitwise_left_shift(3, counts)
        gcd_out[:] = pypto.gcd(a, b)
        gcds_out[:] = pypto.gcd(a, 12)
    return kernel


def triangle_kernel(dtype, diagonal):
    @pypto.frontend.jit
    def kernel(x: pypto.Tensor([2, R, C], dtype), lower: pypto.Tensor([2, R, C], dtype),
               upper: pypto.Tensor([2, R, C], dtype)):
        pypto.set_vec_tile_shapes(1, 8, 16)
        lower[:] = pypto.tril(x, diagonal)
        upper[:] = x.triu(diagonal)
    return kernel


@pypto.frontend.jit
def blockwise_tril(x: pypto.Tensor([R, C], pypto.DT_FP32), out: pypto.Tensor([R, C], pypto.DT_FP32)):
    # PyPTO's own test form: each view block's diagonal moved by its offsets, a value known only at run time.
    for i in pypto.loop(0, 3, 1, name="rows", idx_name="i"):
        for j in pypto.loop(0, 3, 1, name="columns", idx_name="j"):
            block = pypto.view(x, [8, 16], [i * 8, j * 16], valid_shape=[8, pypto.min(C - j * 16, 16)])
            pypto.set_vec_tile_shapes(4, 8)
            pypto.assemble(pypto.tril(block, 2 + i * 8 - j * 16), [i * 8, j * 16], out)


def scan_kernel(dtype, out_dtype, dim):
    @pypto.frontend.jit
    def kernel(x: pypto.Tensor([R, C], dtype), sums: pypto.Tensor([R, C], out_dtype),
               products: pypto.Tensor([R, C], out_dtype)):
        pypto.set_vec_tile_shapes(8, 16)
        sums[:] = pypto.cumsum(x, dim)
        products[:] = pypto.cumprod(x, dim)
    return kernel


@pypto.frontend.jit
def long_scan(x: pypto.Tensor([256, 512], pypto.DT_FP32), products: pypto.Tensor([256, 512], pypto.DT_FP32)):
    # PyPTO's CumProd case 0: a [32, 512] tile whose scanned dim is taken whole is [256, 512] fp32, 512 KiB.
    pypto.set_vec_tile_shapes(32, 512)
    products[:] = pypto.cumprod(x, 0)


@pypto.frontend.jit
def integer_ceil_div(a: pypto.Tensor([R, C], pypto.DT_INT32), b: pypto.Tensor([R, C], pypto.DT_INT32),
                     out: pypto.Tensor([R, C], pypto.DT_INT32), by_three: pypto.Tensor([R, C], pypto.DT_INT32)):
    pypto.set_vec_tile_shapes(8, 16)
    out[:] = pypto.ceil_div(a, b)
    by_three[:] = pypto.ceil_div(a, 3)


@pypto.frontend.jit
def mixed_logical(a: pypto.Tensor([R, C], pypto.DT_FP16), b: pypto.Tensor([R, C], pypto.DT_INT8),
                  both: pypto.Tensor([R, C], pypto.DT_BOOL), either: pypto.Tensor([R, C], pypto.DT_BOOL)):
    pypto.set_vec_tile_shapes(8, 32)  # 32 int8 or bool columns: the 32-byte row the unified buffer needs
    both[:] = pypto.logical_and(a, b)
    either[:] = pypto.logical_or(a, b)


@pypto.frontend.jit
def bitwise_on_floats(x: pypto.Tensor([8, 16], pypto.DT_FP32), out: pypto.Tensor([8, 16], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 16)
    out[:] = pypto.bitwise_and(x, x)  # @bitwise-float


@pypto.frontend.jit
def acos_on_ints(x: pypto.Tensor([8, 16], pypto.DT_INT32), out: pypto.Tensor([8, 16], pypto.DT_INT32)):
    pypto.set_vec_tile_shapes(8, 16)
    out[:] = pypto.acos(x)  # @acos-int


@pypto.frontend.jit
def shifts_out_of_range(a: pypto.Tensor([8, 32], pypto.DT_INT16), counts: pypto.Tensor([8, 32], pypto.DT_INT16),
                        left: pypto.Tensor([8, 32], pypto.DT_INT16), right: pypto.Tensor([8, 32], pypto.DT_INT16)):
    pypto.set_vec_tile_shapes(8, 32)
    left[:] = pypto.bitwise_left_shift(a, counts)
    right[:] = pypto.bitwise_right_shift(a, counts)


@pypto.frontend.jit
def shift_by_float(x: pypto.Tensor([8, 16], pypto.DT_INT32), out: pypto.Tensor([8, 16], pypto.DT_INT32)):
    pypto.set_vec_tile_shapes(8, 16)
    out[:] = pypto.bitwise_left_shift(x, 1.5)  # @shift-float


@pypto.frontend.jit
def copy_signs(x: pypto.Tensor([R, C], pypto.DT_FP32), y: pypto.Tensor([1, C], pypto.DT_FP32),
               ints: pypto.Tensor([R, C], pypto.DT_INT32), out: pypto.Tensor([R, C], pypto.DT_FP32),
               from_ints: pypto.Tensor([R, C], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(R, C)
    out[:] = pypto.copysign(x, y)  # y broadcasts over the rows
    from_ints[:] = pypto.copysign(ints, ints)  # int32 operands: cast to fp32 first, as PyPTO's CopySign


class InverseTrigonometry(unittest.TestCase):
    def test_fp32_against_numpy(self):
        x = RNG.uniform(-1, 1, (R, C)).astype(np.float32)
        x[0, :4] = [1.0, -1.0, 0.0, 1.5]  # the domain's ends, and a NaN case
        y = RNG.uniform(-3, 3, (R, C)).astype(np.float32)
        y[1, :3] = [-0.0, 0.0, -np.inf]
        outs = [np.zeros((R, C), np.float32) for _ in range(4)] + [np.zeros((R, C), bool)]
        inverse_trig(x, y, *outs)
        kernel_checks.assert_functional(self)
        with np.errstate(invalid="ignore"):
            expected = [np.arccos(x), np.arcsin(x), np.arctan(y), np.arctan2(x, y)]
        for got, want in zip(outs[:4], expected):
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7, equal_nan=True)
        np.testing.assert_array_equal(outs[4], np.signbit(y))  # -0.0 has its sign bit set

    def test_copysign_takes_the_sign_bit_as_numpy(self):
        x = RNG.uniform(-5, 5, (R, C)).astype(np.float32)
        x[0, :2] = [0.0, -np.inf]
        y = RNG.uniform(-1, 1, (1, C)).astype(np.float32)
        y[0, :3] = [-0.0, 0.0, np.nan]  # -0.0 and NaN: only the sign bit counts
        ints = RNG.integers(-1000, 1000, (R, C)).astype(np.int32)
        out, from_ints = np.zeros((R, C), np.float32), np.zeros((R, C), np.float32)
        copy_signs(x, y, ints, out, from_ints)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(out, np.copysign(x, y))  # exact: only the sign changes
        np.testing.assert_array_equal(from_ints, np.copysign(ints, ints).astype(np.float32))

    def test_fp16(self):
        x = RNG.uniform(-1, 1, (R, C)).astype(np.float16)
        out = np.zeros((R, C), np.float16)
        inverse_trig_fp16(x, out)
        kernel_checks.assert_functional(self)
        np.testing.assert_allclose(out.astype(np.float32), np.arcsin(x.astype(np.float32)).astype(np.float16),
                                   rtol=1e-3, atol=1e-4)

    def test_integers_are_refused_at_the_line(self):
        with self.assertRaises(pypto.KernelError) as caught:
            acos_on_ints(np.zeros((8, 16), np.int32), np.zeros((8, 16), np.int32))
        self.assertIn("acos: needs a float tensor", str(caught.exception))
        self.assertIn(f"{HERE}:{line_of('@acos-int')}", str(caught.exception))


class Bitwise(unittest.TestCase):
    def check(self, dtype, numpy_dtype, low, high):
        a = RNG.integers(low, high, (R, C)).astype(numpy_dtype)
        b = RNG.integers(low, high, (R, C)).astype(numpy_dtype)
        outs = [np.zeros((R, C), numpy_dtype) for _ in range(10)]
        bitwise_kernel(dtype)(a, b, *outs)
        kernel_checks.assert_functional(self)
        counts = b & numpy_dtype(7)
        expected = [a & b, a | b, a ^ b, ~a, np.left_shift(a, counts), np.right_shift(a, counts),
                    a & numpy_dtype(0x5A), np.left_shift(numpy_dtype(3), counts).astype(numpy_dtype),
                    np.gcd(a, b), np.gcd(a, numpy_dtype(12))]
        names = ["and", "or", "xor", "not", "shl", "shr", "and 0x5A", "3 << b", "gcd", "gcd 12"]
        for name, got, want in zip(names, outs, expected):
            np.testing.assert_array_equal(got, want, err_msg=f"{name} on {numpy_dtype.__name__}")

    def test_int16(self):
        self.check(pypto.DT_INT16, np.int16, -30000, 30000)

    def test_int32(self):
        self.check(pypto.DT_INT32, np.int32, -2**31, 2**31 - 1)

    def test_uint8(self):
        self.check(pypto.DT_UINT8, np.uint8, 0, 256)

    def test_floats_are_refused_at_the_line(self):
        with self.assertRaises(pypto.KernelError) as caught:
            bitwise_on_floats(np.zeros((8, 16), np.float32), np.zeros((8, 16), np.float32))
        self.assertIn("bitwise_and: needs integer tensors", str(caught.exception))
        self.assertIn(f"{HERE}:{line_of('@bitwise-float')}", str(caught.exception))

    def test_counts_outside_the_width_shift_everything_out(self):
        # torch's rule (2.1+): a count below 0 or of 16 and more shifts every bit out of an int16, leaving 0 on
        # the left and the sign on the right. Written out here per element, independently of numpy's C shifts.
        a = RNG.integers(-30000, 30000, (8, 32)).astype(np.int16)
        counts = RNG.integers(-20, 40, (8, 32)).astype(np.int16)
        left, right = np.zeros_like(a), np.zeros_like(a)
        shifts_out_of_range(a, counts, left, right)
        kernel_checks.assert_functional(self)
        for x, c, got_left, got_right in zip(a.flat, counts.flat, left.flat, right.flat):
            x, c = int(x), int(c)
            inside = 0 <= c < 16
            want_left = ((x << c) + 2**15) % 2**16 - 2**15 if inside else 0
            want_right = x >> c if inside else (-1 if x < 0 else 0)
            self.assertEqual((int(got_left), int(got_right)), (want_left, want_right), f"{x} shifted by {c}")

    def test_a_float_shift_count_is_refused(self):
        with self.assertRaises(pypto.KernelError) as caught:
            shift_by_float(np.zeros((8, 16), np.int32), np.zeros((8, 16), np.int32))
        self.assertIn("must be an int", str(caught.exception))
        self.assertIn(f"{HERE}:{line_of('@shift-float')}", str(caught.exception))


class Triangles(unittest.TestCase):
    def test_every_diagonal_across_tile_borders(self):
        # Diagonals that cross tiles of 8 x 16 in different places, and ones that miss the matrix entirely.
        for diagonal in (0, 3, -5, 17, -30, 45):
            x = RNG.uniform(-2, 2, (2, R, C)).astype(np.float32)
            lower, upper = np.zeros_like(x), np.zeros_like(x)
            triangle_kernel(pypto.DT_FP32, diagonal)(x, lower, upper)
            kernel_checks.assert_functional(self)
            np.testing.assert_array_equal(lower, np.tril(x, diagonal), err_msg=f"tril diagonal {diagonal}")
            np.testing.assert_array_equal(upper, np.triu(x, diagonal), err_msg=f"triu diagonal {diagonal}")

    def test_a_diagonal_known_only_at_run_time(self):
        x = RNG.uniform(-2, 2, (R, C)).astype(np.float32)
        out = np.zeros_like(x)
        blockwise_tril(x, out)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(out, np.tril(x, 2))

    def test_int32(self):
        x = RNG.integers(-100, 100, (2, R, C)).astype(np.int32)
        lower, upper = np.zeros_like(x), np.zeros_like(x)
        triangle_kernel(pypto.DT_INT32, 1)(x, lower, upper)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(lower, np.tril(x, 1))
        np.testing.assert_array_equal(upper, np.triu(x, 1))


class Scans(unittest.TestCase):
    def test_fp32_along_each_dim(self):
        for dim in (0, 1, -1):
            x = RNG.uniform(0.9, 1.1, (R, C)).astype(np.float32)
            sums, products = np.zeros_like(x), np.zeros_like(x)
            scan_kernel(pypto.DT_FP32, pypto.DT_FP32, dim)(x, sums, products)
            kernel_checks.assert_functional(self)
            np.testing.assert_allclose(sums, np.cumsum(x, dim), rtol=1e-6)
            np.testing.assert_allclose(products, np.cumprod(x, dim), rtol=1e-6)

    def test_int32_gives_int64(self):
        x = RNG.integers(-5, 6, (R, C)).astype(np.int32)
        sums, products = np.zeros((R, C), np.int64), np.zeros((R, C), np.int64)
        scan_kernel(pypto.DT_INT32, pypto.DT_INT64, 0)(x, sums, products)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(sums, np.cumsum(x.astype(np.int64), 0))
        np.testing.assert_array_equal(products, np.cumprod(x.astype(np.int64), 0))  # wraps as int64, like numpy


    def test_a_whole_scanned_dim_past_the_unified_buffer_narrows_the_other_dims(self):
        x = RNG.uniform(0.99, 1.01, (256, 512)).astype(np.float32)
        products = np.zeros_like(x)
        long_scan(x, products)
        kernel_checks.assert_functional(self)
        np.testing.assert_allclose(products, np.cumprod(x, 0), rtol=1e-5)


class IntegerCeilDivAndMixedLogic(unittest.TestCase):
    def test_ceil_div_rounds_up(self):
        a = RNG.integers(-2**20, 2**20, (R, C)).astype(np.int32)
        b = RNG.integers(1, 1000, (R, C)).astype(np.int32)
        b[::2] *= -1
        a[0, :3], b[0, :3] = [7, -7, 6], [2, 2, 3]
        out, by_three = np.zeros_like(a), np.zeros_like(a)
        integer_ceil_div(a, b, out, by_three)
        kernel_checks.assert_functional(self)
        want = -(-a.astype(np.int64) // b)  # exact ceiling of the quotient
        np.testing.assert_array_equal(out, want)
        np.testing.assert_array_equal(by_three, -(-a.astype(np.int64) // 3))
        self.assertEqual(list(out[0, :3]), [4, -3, 2])

    def test_logical_ops_on_fp16_and_int8(self):
        a = RNG.choice(np.array([0.0, -0.0, 1.5, np.nan], np.float16), (R, C))
        b = RNG.integers(-1, 2, (R, C)).astype(np.int8)
        both, either = np.zeros((R, C), bool), np.zeros((R, C), bool)
        mixed_logical(a, b, both, either)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(both, np.logical_and(a, b))
        np.testing.assert_array_equal(either, np.logical_or(a, b))


if __name__ == "__main__":
    unittest.main()
