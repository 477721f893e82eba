"""GEMM kernels of the validation suite (`pto validate`).

gemm: one 128x256 output tile per task, in PyPTO's tile order, as PyPTO's
matmul tuning guide writes the "native" kernel. gemm_rounds_*: the same
tiles issued in rounds of M_DIM x N_DIM tiles, one per cube core, so that a
round reads M_DIM panels of `a` and N_DIM panels of `b` (the guide's L2
optimisation; the PTO ISA GEMM example splits its cores 4 x 6 the same way).
gemm_per_core_4x6: the PTO ISA GEMM example's form. Its cores split the output
4 x 6 and each core computes its whole block (singleCoreM x singleCoreN) in
one launch, loading the next tile's operands while it multiplies this one's;
here each block is one loop iteration whose output tiles
cube_nbuffer_setting merges into one task, so one task per core.
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


def _per_core(a, b, c, m_cores, n_cores):
    _tiles()
    m_core, n_core = a.shape[0] // m_cores, b.shape[1] // n_cores
    # All of a block's output tiles in one task (a count larger than the group merges the whole group).
    pypto.set_pass_options(cube_nbuffer_setting={"DEFAULT": int(m_core // M_L1) * int(n_core // N_L1)})
    for mi in pypto.loop(0, m_cores, 1, name="m_core", idx_name="mi"):
        for ni in pypto.loop(0, n_cores, 1, name="n_core", idx_name="ni"):
            rows = slice(mi * m_core, (mi + 1) * m_core)
            cols = slice(ni * n_core, (ni + 1) * n_core)
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
    """Any input dtype (bf16 with an fp32 result): for the cube bounds."""
    _tiles()
    c[:] = pypto.matmul(a, b, c.dtype)


@pypto.frontend.jit
def gemm_int8_nz(a: pypto.Tensor([], pypto.DT_INT8),
                 b: pypto.Tensor([], pypto.DT_INT8, format=pypto.TileOpFormat.TILEOP_NZ), c: pypto.Tensor()):
    """An int8 GEMM written as PyPTO's quantized kernels write theirs: the
    right matrix (the weight) in NZ, and k tiles of as many bytes as fp16's
    (twice the elements; the QuantIndexerProlog's Linear takes k 512 / 1024),
    so a k-step loads the same bytes and the cube, twice as fast per element,
    does twice the work."""
    pypto.set_cube_tile_shapes([M_L1, M_L1], [128, 512], [N_L1, N_L1])
    c[:] = pypto.matmul(a, b, c.dtype)


@pypto.frontend.jit
def gemm_per_core_4x6(a: pypto.Tensor([], pypto.DT_FP16), b: pypto.Tensor([], pypto.DT_FP16), c: pypto.Tensor()):
    _per_core(a, b, c, 4, 6)
