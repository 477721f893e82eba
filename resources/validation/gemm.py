"""GEMM kernels of the validation suite (`pto validate`).

gemm: one 128x256 output tile per task, in PyPTO's tile order, as PyPTO's
matmul tuning guide writes the "native" kernel. gemm_rounds_*: the same
tiles issued in rounds of M_DIM x N_DIM tiles, one per cube core, so that a
round reads M_DIM panels of `a` and N_DIM panels of `b` (the guide's L2
optimisation; the PTO ISA GEMM example splits its cores 4 x 6 the same way).
The output dtype is the argument's (fp32 or fp16).
"""
import pypto

M_L1, N_L1 = 128, 256


def _tiles():
    pypto.set_cube_tile_shapes([M_L1, M_L1], [64, 256], [N_L1, N_L1])


def _in_rounds(a, b, c, m_dim, n_dim):
    _tiles()
    m_view, n_view = M_L1 * m_dim, N_L1 * n_dim
    for mi in pypto.loop(0, a.shape[0] // m_view, 1, name="m_round", idx_name="mi"):
        for ni in pypto.loop(0, b.shape[1] // n_view, 1, name="n_round", idx_name="ni"):
            rows = slice(mi * m_view, (mi + 1) * m_view)
            cols = slice(ni * n_view, (ni + 1) * n_view)
            c[rows, cols] = pypto.matmul(a[rows, :], b[:, cols], c.dtype)


@pypto.frontend.jit
def gemm(a: pypto.Tensor([], pypto.DT_FP16), b: pypto.Tensor([], pypto.DT_FP16), c: pypto.Tensor()):
    _tiles()
    c[:] = pypto.matmul(a, b, c.dtype)


@pypto.frontend.jit
def gemm_rounds_4x6(a: pypto.Tensor([], pypto.DT_FP16), b: pypto.Tensor([], pypto.DT_FP16), c: pypto.Tensor()):
    _in_rounds(a, b, c, 4, 6)


@pypto.frontend.jit
def gemm_rounds_6x4(a: pypto.Tensor([], pypto.DT_FP16), b: pypto.Tensor([], pypto.DT_FP16), c: pypto.Tensor()):
    _in_rounds(a, b, c, 6, 4)


@pypto.frontend.jit
def gemm_any(a: pypto.Tensor(), b: pypto.Tensor(), c: pypto.Tensor()):
    """Any input dtype (bf16, int8 with an int32 result): for the cube bounds."""
    _tiles()
    c[:] = pypto.matmul(a, b, c.dtype)
