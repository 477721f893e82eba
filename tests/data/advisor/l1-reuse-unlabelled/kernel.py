"""A short, wide matmul with no semantic label: each cube task computes a
64-column block of the output and loads all of A again, the same 64 x 512
region, so cube_l1_reuse_setting's DEFAULT key is the advisor's way in."""
import pypto

M, K, N = 64, 512, 12288


@pypto.frontend.jit
def wide(a: pypto.Tensor((M, K), pypto.DT_FP16),
         b: pypto.Tensor((K, N), pypto.DT_FP16),
         c: pypto.Tensor((M, N), pypto.DT_FP32)):
    pypto.set_cube_tile_shapes([64, 64], [256, 256], [64, 64])
    c[:] = pypto.matmul(a, b, pypto.DT_FP32)
