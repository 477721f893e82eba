"""A tall matrix product whose 128-row output blocks make 64 independent cube
tasks: on a2's 24 cube cores that is 2.67 waves, the last with 16 of 24 cores
busy (advisor test: uneven-waves; report test: an occupancy-bound run)."""
import pypto

M, K, N = 8192, 4096, 128


@pypto.frontend.jit
def tall_matmul(a: pypto.Tensor((M, K), pypto.DT_FP16),
                b: pypto.Tensor((K, N), pypto.DT_FP16),
                c: pypto.Tensor((M, N), pypto.DT_FP32)):
    # kL1 256: a taller tile's L1 blocks (A [m, 256], B [256, 128]) stay double-buffered in L1 up to m 208,
    # so what a taller tile changes is the waves (with kL1 512 they stop fitting and the loads serialise).
    pypto.set_cube_tile_shapes([128, 128], [128, 256], [128, 128])
    pypto.set_semantic_label("tall")
    c[:] = pypto.matmul(a, b, pypto.DT_FP32)
