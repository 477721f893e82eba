"""A 512x512x512 matrix multiplication: fp16 inputs, fp32 result.

128x128 output blocks (k 64 at a time, 256-wide L1 panels): the swimlane shows
16 tasks, one wave on 16 of the 24 cube cores, loading k-step i+1 during step i.
"""
import pypto

M, K, N = 512, 512, 512


@pypto.frontend.jit
def matmul(a: pypto.Tensor((M, K), pypto.DT_FP16),
           b: pypto.Tensor((K, N), pypto.DT_FP16),
           c: pypto.Tensor((M, N), pypto.DT_FP32)):
    pypto.set_cube_tile_shapes([128, 128], [64, 256], [128, 256])
    pypto.set_semantic_label("gemm")
    c[:] = pypto.matmul(a, b, pypto.DT_FP32)
