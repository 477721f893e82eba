"""Skinny bf16 matmul (884736, 16) x (16, 16) -> (884736, 16), bf16 out, two ways.

Published case: hicann/pypto docs/zh/tutorials/debug/performance.md ("other tuning methods").
  direct:     the matmul as written; the guide says L1 reuse alone gets it to about 500 us.
  blockdiag:  four copies of b placed on the diagonal of a (64, 64) matrix c, a viewed as
              (221184, 64) (four consecutive rows per row), one matmul a' x c, the (221184, 64)
              result viewed back as (884736, 16); the guide reports about 40 us.
Both compute the same values: row r of a' holds rows 4r..4r+3 of a side by side, and the
block-diagonal c multiplies each 16-column group by b on its own.
"""
import pypto

ROWS, D = 884736, 16
GROUP = 4                      # copies of b on c's diagonal
WIDE = D * GROUP               # 64


@pypto.frontend.jit
def direct(a: pypto.Tensor([ROWS, D], pypto.DT_BF16), b: pypto.Tensor([D, D], pypto.DT_BF16),
           out: pypto.Tensor([ROWS, D], pypto.DT_BF16)):
    # Assumed tiles: the same M tile as the rewrite (512 rows), K and N the whole 16.
    pypto.set_cube_tile_shapes([512, 512], [16, 16], [16, 16])
    out[:] = pypto.matmul(a, b, pypto.DT_BF16)


@pypto.frontend.jit
def blockdiag(a: pypto.Tensor([ROWS, D], pypto.DT_BF16), b: pypto.Tensor([D, D], pypto.DT_BF16),
              out: pypto.Tensor([ROWS, D], pypto.DT_BF16)):
    # Build c = diag(b, b, b, b) on the vector side.
    pypto.set_vec_tile_shapes(64, 64)
    zero = pypto.full([D, D], 0.0, pypto.DT_BF16)
    rows = []
    for g in range(GROUP):
        rows.append(pypto.concat([b if j == g else zero for j in range(GROUP)], 1))
    c = pypto.concat(rows, 0)                                   # (64, 64)
    a_wide = pypto.reshape(a, [ROWS // GROUP, WIDE])            # (221184, 64)
    pypto.set_pass_options(cube_l1_reuse_setting={"DEFAULT": 9})
    pypto.set_cube_tile_shapes([512, 512], [64, 64], [64, 64], True)
    e = pypto.matmul(a_wide, c, pypto.DT_BF16)                  # (221184, 64)
    pypto.assemble(pypto.reshape(e, [ROWS, D]), [0, 0], out)


@pypto.frontend.jit
def blockdiag_inplace(a: pypto.Tensor([ROWS, D], pypto.DT_BF16), b: pypto.Tensor([D, D], pypto.DT_BF16),
                      out: pypto.Tensor([ROWS, D], pypto.DT_BF16)):
    """The same rewrite, but the result is written through an in-place (221184, 64) view of `out`
    instead of reshape + assemble (which PTO Studio lowers to 3456 vector copy tasks)."""
    pypto.set_vec_tile_shapes(64, 64)
    zero = pypto.full([D, D], 0.0, pypto.DT_BF16)
    c = pypto.concat([pypto.concat([b if j == g else zero for j in range(GROUP)], 1) for g in range(GROUP)], 0)
    a_wide = pypto.reshape(a, [ROWS // GROUP, WIDE])
    out_wide = pypto.reshape(out, [ROWS // GROUP, WIDE], inplace=True)
    pypto.set_pass_options(cube_l1_reuse_setting={"DEFAULT": 9})
    pypto.set_cube_tile_shapes([512, 512], [64, 64], [64, 64], True)
    out_wide[:] = pypto.matmul(a_wide, c, pypto.DT_BF16)
