"""A matmul written in 128x128 blocks, then a bias-and-ReLU step that reads
them 16 rows at a time: each block the cube writes is read by 8 small vector
tasks."""
import pypto

M, K, N = 512, 128, 256


@pypto.frontend.jit
def matmul_relu(a: pypto.Tensor((M, K), pypto.DT_FP16),
                w: pypto.Tensor((K, N), pypto.DT_FP16),
                bias: pypto.Tensor((1, N), pypto.DT_FP32),
                y: pypto.Tensor((M, N), pypto.DT_FP32)):
    pypto.set_cube_tile_shapes([128, 128], [64, 128], [128, 128])
    pypto.set_semantic_label("gemm")
    product = pypto.matmul(a, w, pypto.DT_FP32)

    pypto.set_vec_tile_shapes(16, 128)
    pypto.set_semantic_label("bias_relu")
    y[:] = pypto.relu(product + bias)
