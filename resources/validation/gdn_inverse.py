"""The first stage of the Gated DeltaNet chunk inverse, two ways (hicann/pypto
docs/zh/tutorials/debug/performance_case_GDR.md, section 3.4).

Each chunk of L = 128 tokens has a strictly lower-triangular [128, 128] fp32 matrix A. The
inverse starts on the eight [16, 16] diagonal blocks: for each block, by forward substitution,
    Y[0:2] = A[0:2];  Y[i] = A[i] + sum_{j<i} A[i, j] * Y[j]   (i = 2..15),  result Y + I
(= (I - A_blk)^-1), one row at a time, the row loop a static Python loop (section 3.3.1).

  per_block:  eight independent [16, 16] chains per chunk, one subgraph (task) each  ("8 x 28 us")
  concat:     the eight blocks side by side as one [16, 128] tile; each row step handles all eight
              blocks at once by reshaping the row to [8, 16], transposing the first i columns and
              broadcasting them against Y viewed as [8 i, 16]  ("49 us")

The chunks come from a dynamic loop (one loop iteration per chunk), as in the operator's
B x Nv x S loops. Output: the eight inverted blocks side by side, [chunks * 16, 128].
"""
import pypto

L = 128
BLK = 16
NB = L // BLK          # 8 blocks

# Both forms take the same arguments: A, chunk after chunk; the identity's diagonal blocks side by side; and the
# output, each chunk's eight inverted blocks side by side.
CHUNKS = pypto.Tensor([pypto.DYNAMIC, L], pypto.DT_FP32)
EYE = pypto.Tensor([BLK, NB * BLK], pypto.DT_FP32)
INVERSES = pypto.Tensor([pypto.DYNAMIC, NB * BLK], pypto.DT_FP32)


def invert_block(blk):
    """blk: [16, 16] fp32 in UB -> Y (without the identity), rows built one by one."""
    y = pypto.view(blk, [2, BLK], [0, 0]) + 0.0
    for i in range(2, BLK):
        row = pypto.view(blk, [1, BLK], [i, 0])
        coef = pypto.reshape(pypto.view(blk, [1, i], [i, 0]), [i, 1])       # A[i, :i] as a column
        prod = pypto.sum(coef * y, 0, keepdim=True)                          # [1, 16]
        y = pypto.concat([y, row + prod], 0)
    return y


def invert_concat(d, nb=NB):
    """d: [16, 16 nb] = nb blocks side by side -> their Y side by side."""
    width = nb * BLK
    y = pypto.view(d, [2, width], [0, 0]) + 0.0
    for i in range(2, BLK):
        row = pypto.view(d, [1, width], [i, 0])
        # coef[(j, b)] = block b's A[i, j], j < i, as an [8 i, 1] column (row-major over (j, b))
        coef = pypto.reshape(pypto.transpose(pypto.view(pypto.reshape(row, [nb, BLK]), [nb, i], [0, 0]), 0, 1),
                             [nb * i, 1])
        prod = pypto.reshape(coef * pypto.reshape(y, [nb * i, BLK]), [i, width])
        y = pypto.concat([y, row + pypto.sum(prod, 0, keepdim=True)], 0)
    return y


@pypto.frontend.jit(runtime_options={"stitch_function_max_num": 128})
def per_block(a: CHUNKS, eye: EYE, out: INVERSES):
    chunks = a.shape[0] // L
    pypto.set_vec_tile_shapes(128, 128)
    for c in pypto.loop(0, chunks, 1, name="chunk", idx_name="c"):
        for b in range(NB):
            pypto.set_semantic_label("inverse")
            pypto.set_pass_options(sg_set_scope=b)
            blk = pypto.view(a, [BLK, BLK], [c * L + b * BLK, b * BLK]) + 0.0
            y = invert_block(blk) + pypto.view(eye, [BLK, BLK], [0, 0])
            pypto.assemble(y, [c * BLK, b * BLK], out)
            pypto.set_pass_options(sg_set_scope=-1)


@pypto.frontend.jit(runtime_options={"stitch_function_max_num": 128})
def concat(a: CHUNKS, eye: EYE, out: INVERSES):
    chunks = a.shape[0] // L
    pypto.set_vec_tile_shapes(128, 128)
    for c in pypto.loop(0, chunks, 1, name="chunk", idx_name="c"):
        pypto.set_semantic_label("inverse")
        pypto.set_pass_options(sg_set_scope=0)
        d = pypto.concat([pypto.view(a, [BLK, BLK], [c * L + b * BLK, b * BLK]) + 0.0 for b in range(NB)], 1)
        y = invert_concat(d) + eye
        pypto.assemble(y, [c * BLK, 0], out)
        pypto.set_pass_options(sg_set_scope=-1)
