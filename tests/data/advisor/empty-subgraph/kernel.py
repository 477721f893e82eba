"""A matmul whose result is both returned as is and plus one: the copy of the
product to `c` moves data and computes nothing, in tasks of its own."""
import pypto

M, K, N = 768, 128, 512


@pypto.frontend.jit
def matmul_twice(a: pypto.Tensor((M, K), pypto.DT_FP16),
                 w: pypto.Tensor((K, N), pypto.DT_FP16),
                 c: pypto.Tensor((M, N), pypto.DT_FP32),
                 d: pypto.Tensor((M, N), pypto.DT_FP32)):
    pypto.set_cube_tile_shapes([128, 128], [64, 128], [128, 128])
    pypto.set_semantic_label("gemm")
    product = pypto.matmul(a, w, pypto.DT_FP32)

    pypto.set_vec_tile_shapes(32, 128)
    pypto.set_semantic_label("copy_out")
    c[:] = product
    pypto.set_semantic_label("plus_one")
    d[:] = product + 1.0
