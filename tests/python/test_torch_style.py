"""Kernels written the way PyPTO's public examples write them, run on torch CPU tensors.

torch tensors in and out, torch.testing.assert_close, named dynamic dims (pypto.frontend.dynamic) used in the
annotations and in the kernel body, device loops over batch tiles, pypto.tensor temporaries returned from
the kernel, slicing with open ends, run modes SIM and NPU, bf16. Each expected value is computed by torch on
the CPU, independently of the kernel.
"""
import os
import subprocess
import sys
import textwrap
import unittest

import torch

import pypto

torch.manual_seed(1234)

BS = pypto.frontend.dynamic("bs")
SEQ, HEAD, DIM = 8, 2, 64
HIDDEN = 256
SIM = {"run_mode": pypto.RunMode.SIM}

# Tolerances (stated against torch computing the same formula on the CPU):
#  - fp32 softmax: exp/sum/div in fp32 on both sides, differently ordered sums: rtol 1e-5, atol 1e-6.
#  - bf16 rms_norm computed in fp32 and rounded once to bf16: both sides round an fp32 value that may differ
#    in its last fp32 bits, which can move the result by one bf16 ulp, at most 2^-7 of the value.
#  - bf16 rms_norm computed in bf16 (every op rounds): about six roundings of 2^-9 relative: rtol 3e-2.
#  - matmul, fp16 operands, fp32 accumulation: |error| <= k * 2^-24 * (|A| @ |B|); the operands lie in
#    [-1, 1] so |A| @ |B| <= k: atol k^2 * 2^-24 (about 2.4e-4 for k = 64), rtol 1e-5.
SOFTMAX_TOL = dict(rtol=1e-5, atol=1e-6)
BF16_ONE_ROUNDING = dict(rtol=2.0 ** -7, atol=1e-6)
BF16_EVERY_OP = dict(rtol=3e-2, atol=1e-2)


def softmax_core(x):
    """softmax over the last dim, written out as PyPTO examples do."""
    peak = pypto.amax(x, dim=-1, keepdim=True)
    e = pypto.exp(x - peak)
    return e / pypto.sum(e, dim=-1, keepdim=True)


def build_softmax(run_mode, tile_b):
    @pypto.frontend.jit(runtime_options={"run_mode": run_mode})
    def softmax_kernel(x: pypto.Tensor((BS, SEQ, HEAD, DIM), pypto.DT_FP32)
                       ) -> pypto.Tensor((BS, SEQ, HEAD, DIM), pypto.DT_FP32):
        out = pypto.tensor((BS, SEQ, HEAD, DIM), pypto.DT_FP32)
        pypto.set_vec_tile_shapes(1, 4, 2, 64)
        b_loop = (BS + tile_b - 1) // tile_b  # the last tile may be partial
        for idx in pypto.loop(0, b_loop, 1, name="LOOP_L0_bIdx", idx_name="idx"):
            b0 = idx * tile_b
            b1 = pypto.min(b0 + tile_b, BS)
            out[b0:, ...] = softmax_core(x[b0:b1, :SEQ, :HEAD, :DIM])
        return out

    return softmax_kernel


class Softmax(unittest.TestCase):
    def test_one_batch_per_iteration_for_several_batch_sizes(self):
        kernel = build_softmax(pypto.RunMode.SIM, tile_b=1)
        for bs in (1, 3, 8):
            x = torch.randn(bs, SEQ, HEAD, DIM) * 3
            y = kernel(x)
            self.assertIsInstance(y, torch.Tensor)
            self.assertEqual(y.dtype, torch.float32)
            torch.testing.assert_close(y, torch.softmax(x, dim=-1), **SOFTMAX_TOL)

    def test_batch_tiles_with_a_partial_last_tile(self):
        kernel = build_softmax(pypto.RunMode.SIM, tile_b=4)
        for bs in (4, 5, 11):
            x = torch.rand(bs, SEQ, HEAD, DIM) * 10 - 5
            torch.testing.assert_close(kernel(x), torch.softmax(x, dim=-1), **SOFTMAX_TOL)

    def test_the_dynamic_dim_must_agree_between_arguments(self):
        @pypto.frontend.jit(runtime_options=SIM)
        def add(a: pypto.Tensor((BS, DIM), pypto.DT_FP32), b: pypto.Tensor((BS, DIM), pypto.DT_FP32),
                out: pypto.Tensor((BS, DIM), pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(1, 64)
            out[:] = a + b

        with self.assertRaises(pypto.KernelError) as caught:
            add(torch.zeros(3, DIM), torch.zeros(4, DIM), torch.zeros(3, DIM))
        self.assertIn("dynamic dim 'bs' is 3 in argument 'a' but 4 in 'b'", caught.exception.message)


def rms_norm_reference(x, gamma, eps):
    """torch in float32, rounded to the input dtype at the end."""
    x32 = x.float()
    normed = x32 * torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True) + eps) * gamma.float()
    return normed.to(x.dtype)


class RmsNormBf16(unittest.TestCase):
    def test_computed_in_fp32_one_row_per_iteration(self):
        @pypto.frontend.jit(runtime_options=SIM)
        def rms_norm_kernel(x: pypto.Tensor((BS, HIDDEN), pypto.DT_BF16),
                            gamma: pypto.Tensor((HIDDEN,), pypto.DT_BF16),
                            out: pypto.Tensor((BS, HIDDEN), pypto.DT_BF16)):
            pypto.set_vec_tile_shapes(128)
            gamma_fp32 = pypto.cast(gamma, pypto.DT_FP32)
            pypto.set_vec_tile_shapes(1, 128)
            for row in pypto.loop(0, BS, 1, name="LOOP_ROWS", idx_name="row"):
                x_fp32 = pypto.cast(x[row:row + 1, :], pypto.DT_FP32)
                normed = pypto.rms_norm(x_fp32, gamma_fp32, epsilon=1e-6)
                out[row:row + 1, :] = pypto.cast(normed, pypto.DT_BF16)

        for bs in (1, 5):
            x = (torch.randn(bs, HIDDEN) * 2).to(torch.bfloat16)
            gamma = (torch.rand(HIDDEN) + 0.5).to(torch.bfloat16)
            out = torch.zeros(bs, HIDDEN, dtype=torch.bfloat16)
            rms_norm_kernel(x, gamma, out)
            expected = rms_norm_reference(x, gamma, 1e-6)
            self.assertEqual(out.dtype, torch.bfloat16)
            torch.testing.assert_close(out.float(), expected.float(), **BF16_ONE_ROUNDING)

    def test_computed_in_bf16(self):
        @pypto.frontend.jit(runtime_options=SIM)
        def rms_norm_kernel(x: pypto.Tensor((BS, HIDDEN), pypto.DT_BF16),
                            gamma: pypto.Tensor((1, HIDDEN), pypto.DT_BF16),
                            out: pypto.Tensor((BS, HIDDEN), pypto.DT_BF16)):
            pypto.set_vec_tile_shapes(2, 128)
            out[:] = pypto.rms_norm(x, gamma)

        x = (torch.randn(6, HIDDEN)).to(torch.bfloat16)
        gamma = (torch.rand(1, HIDDEN) + 0.5).to(torch.bfloat16)
        out = torch.zeros(6, HIDDEN, dtype=torch.bfloat16)
        rms_norm_kernel(x, gamma, out)
        torch.testing.assert_close(out.float(), rms_norm_reference(x, gamma, 1e-6).float(), **BF16_EVERY_OP)

    def test_bf16_result_returned_to_torch_callers(self):
        @pypto.frontend.jit(runtime_options=SIM)
        def rms_norm_kernel(x: pypto.Tensor((BS, HIDDEN), pypto.DT_BF16)) -> pypto.Tensor((BS, HIDDEN), pypto.DT_BF16):
            pypto.set_vec_tile_shapes(2, 128)
            out = pypto.tensor((BS, HIDDEN), pypto.DT_BF16)
            out[:] = pypto.cast(pypto.rms_norm(pypto.cast(x, pypto.DT_FP32)), pypto.DT_BF16)
            return out

        x = torch.randn(3, HIDDEN).to(torch.bfloat16)
        y = rms_norm_kernel(x)
        self.assertEqual(y.dtype, torch.bfloat16)
        torch.testing.assert_close(y.float(), rms_norm_reference(x, torch.ones(HIDDEN), 1e-6).float(),
                                   **BF16_ONE_ROUNDING)


M = pypto.frontend.dynamic("m")
K, N = 64, 48


def matmul_tolerance(k):
    return dict(rtol=1e-5, atol=k * k * 2.0 ** -24)


class MatmulFp16(unittest.TestCase):
    def test_fp16_operands_fp32_result(self):
        @pypto.frontend.jit(runtime_options=SIM)
        def matmul_kernel(a: pypto.Tensor((M, K), pypto.DT_FP16),
                          b: pypto.Tensor((K, N), pypto.DT_FP16)) -> pypto.Tensor((M, N), pypto.DT_FP32):
            pypto.set_cube_tile_shapes([16, 32], [32, 64], [16, 48])
            return pypto.matmul(a, b, pypto.DT_FP32)

        for m in (1, 7, 33):
            a = (torch.rand(m, K) * 2 - 1).half()
            b = (torch.rand(K, N) * 2 - 1).half()
            c = matmul_kernel(a, b)
            self.assertEqual(c.dtype, torch.float32)
            torch.testing.assert_close(c, a.float() @ b.float(), **matmul_tolerance(K))

    def test_tiled_over_m_with_transposed_b_into_fp16(self):
        @pypto.frontend.jit(runtime_options=SIM)
        def matmul_kernel(a: pypto.Tensor((M, K), pypto.DT_FP16),
                          b_t: pypto.Tensor((N, K), pypto.DT_FP16)) -> pypto.Tensor((M, N), pypto.DT_FP16):
            out = pypto.tensor((M, N), pypto.DT_FP16, "out")
            pypto.set_cube_tile_shapes([16, 32], [32, 64], [16, 48])
            tile_m = 16
            for idx in pypto.loop(0, (M + tile_m - 1) // tile_m, 1, name="LOOP_M", idx_name="m_idx"):
                m0 = idx * tile_m
                m1 = pypto.min(m0 + tile_m, M)
                out[m0:, :] = pypto.matmul(a[m0:m1, :], b_t, pypto.DT_FP16, b_trans=True)
            return out

        for m in (16, 40):
            a = (torch.rand(m, K) * 2 - 1).half()
            b = (torch.rand(K, N) * 2 - 1).half()
            c = matmul_kernel(a, b.t().contiguous())
            self.assertEqual(c.dtype, torch.float16)
            # One extra rounding to fp16 at the end: rtol 2^-11 on top of the fp32 accumulation bound.
            torch.testing.assert_close(c.float(), a.float() @ b.float(), rtol=2.0 ** -11,
                                       atol=matmul_tolerance(K)["atol"])


class InPlaceOutputs(unittest.TestCase):
    def test_outputs_are_written_into_the_callers_torch_memory(self):
        @pypto.frontend.jit(runtime_options=SIM)
        def axpy(x: pypto.Tensor((BS, DIM), pypto.DT_FP32), y: pypto.Tensor((BS, DIM), pypto.DT_FP32),
                 out: pypto.Tensor((BS, DIM), pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(2, 64)
            out[:] = x * 2.5 + y

        x = torch.randn(5, DIM)
        y = torch.randn(5, DIM)
        x_before, y_before = x.clone(), y.clone()
        out = torch.full((5, DIM), float("nan"))
        address = out.data_ptr()
        self.assertIsNone(axpy(x, y, out))
        self.assertEqual(out.data_ptr(), address)
        torch.testing.assert_close(out, x * 2.5 + y, rtol=0, atol=0)  # two fp32 roundings on both sides
        torch.testing.assert_close(x, x_before, rtol=0, atol=0)
        torch.testing.assert_close(y, y_before, rtol=0, atol=0)

    def test_partial_writes_leave_the_rest_of_the_output_alone(self):
        @pypto.frontend.jit(runtime_options=SIM)
        def fill_rows(x: pypto.Tensor((BS, SEQ, HEAD, DIM), pypto.DT_FP16),
                      out: pypto.Tensor((BS, SEQ, HEAD, DIM), pypto.DT_FP16)):
            pypto.set_vec_tile_shapes(1, 4, 2, 64)
            for idx in pypto.loop(0, BS, 1, name="LOOP_B", idx_name="b"):
                out[idx:idx + 1, 2:6, :, :] = pypto.relu(x[idx:idx + 1, 2:6, :HEAD, :DIM])

        x = torch.randn(3, SEQ, HEAD, DIM).half()
        out = torch.full((3, SEQ, HEAD, DIM), 7.0).half()
        fill_rows(x, out)
        expected = torch.full((3, SEQ, HEAD, DIM), 7.0).half()
        expected[:, 2:6] = x[:, 2:6].float().relu().half()  # torch 1.13 has no CPU relu for fp16
        torch.testing.assert_close(out, expected, rtol=0, atol=0)

    def test_bf16_output_in_place(self):
        @pypto.frontend.jit(runtime_options=SIM)
        def scale(x: pypto.Tensor((BS, DIM), pypto.DT_BF16), out: pypto.Tensor((BS, DIM), pypto.DT_BF16)):
            pypto.set_vec_tile_shapes(2, 64)
            out[:] = x * 0.5 - 1.0

        x = torch.randn(4, DIM).to(torch.bfloat16)
        out = torch.zeros(4, DIM, dtype=torch.bfloat16)
        scale(x, out)
        # fp32 maths, one rounding to bf16 per op, like torch's bf16 ops on the CPU.
        expected = ((x.float() * 0.5).to(torch.bfloat16).float() - 1.0).to(torch.bfloat16)
        torch.testing.assert_close(out, expected, rtol=0, atol=0)

    def test_two_returned_temporaries(self):
        @pypto.frontend.jit(runtime_options=SIM)
        def stats(x: pypto.Tensor((BS, DIM), pypto.DT_FP32)) -> (pypto.Tensor((BS, 1), pypto.DT_FP32),
                                                                  pypto.Tensor((BS, 1), pypto.DT_INT32)):
            pypto.set_vec_tile_shapes(2, 64)
            peak = pypto.tensor((BS, 1), pypto.DT_FP32, "peak")
            where = pypto.tensor((BS, 1), pypto.DT_INT32, "where")
            peak[:] = pypto.amax(x, dim=-1, keepdim=True)
            where[:] = pypto.argmax(x, dim=-1, keepdim=True)
            return peak, where

        x = torch.randn(6, DIM)
        peak, where = stats(x)
        values, indices = torch.max(x, dim=-1, keepdim=True)
        torch.testing.assert_close(peak, values, rtol=0, atol=0)
        torch.testing.assert_close(where, indices.int(), rtol=0, atol=0)


NPU_SCRIPT = textwrap.dedent("""
    import torch
    import pypto

    BS = pypto.frontend.dynamic("bs")

    def build():
        @pypto.frontend.jit(runtime_options={"run_mode": pypto.RunMode.NPU})
        def double(x: pypto.Tensor((BS, 64), pypto.DT_FP32)) -> pypto.Tensor((BS, 64), pypto.DT_FP32):
            pypto.set_vec_tile_shapes(1, 64)
            return x * 2.0
        return double

    x = torch.arange(3 * 64, dtype=torch.float32).reshape(3, 64)
    for _ in range(2):
        torch.testing.assert_close(build()(x), x * 2.0)
    print("ran")
""")


class RunModes(unittest.TestCase):
    def test_npu_mode_says_once_that_it_simulates_and_still_runs(self):
        result = subprocess.run([sys.executable, "-c", NPU_SCRIPT], capture_output=True, text=True, timeout=120,
                                env=dict(os.environ))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "ran")
        notice = "pypto: RunMode.NPU requested; PTO Studio has no NPU and runs the kernel in its simulator instead"
        self.assertEqual(result.stderr.count(notice), 1, result.stderr)

    def test_run_mode_is_read_when_the_kernel_is_called(self):
        # PyPTO's examples decorate with a runtime_options dict and set its run_mode afterwards.
        script = textwrap.dedent("""
            import torch
            import pypto

            options = {"run_mode": pypto.RunMode.NPU}

            @pypto.frontend.jit(runtime_options=options)
            def double(x: pypto.Tensor((3, 64), pypto.DT_FP32)) -> pypto.Tensor((3, 64), pypto.DT_FP32):
                pypto.set_vec_tile_shapes(1, 64)
                return x * 2.0

            options["run_mode"] = pypto.RunMode.SIM
            x = torch.arange(3 * 64, dtype=torch.float32).reshape(3, 64)
            torch.testing.assert_close(double(x), x * 2.0)
            print("ran")
        """)
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                                env=dict(os.environ))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "ran")
        self.assertEqual(result.stderr, "")

    def test_sim_mode_is_silent(self):
        script = NPU_SCRIPT.replace("RunMode.NPU", "RunMode.SIM")
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                                env=dict(os.environ))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stderr, "")


if __name__ == "__main__":
    unittest.main()
