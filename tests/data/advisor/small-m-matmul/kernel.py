"""A 256x256x256 matmul tiled with 16-row output blocks: each cube task loads
all of B's k panel for 16 rows of A, so the cube is mostly waiting for loads."""
import pypto

M, K, N = 256, 256, 256


@pypto.frontend.jit
def small_m(a: pypto.Tensor((M, K), pypto.DT_FP16),
            b: pypto.Tensor((K, N), pypto.DT_FP16),
            c: pypto.Tensor((M, N), pypto.DT_FP32)):
    pypto.set_cube_tile_shapes([16, 16], [64, 256], [128, 256])
    pypto.set_semantic_label("gemm")
    c[:] = pypto.matmul(a, b, pypto.DT_FP32)
