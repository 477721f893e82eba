"""x * 0.5 over (144, 20480) in [1, 20480] tiles: each task loads one long
row, scales it and stores it, one pipe after the other; with no second row in
the task, nothing overlaps the load."""
import pypto

ROWS, COLS = 144, 20480


@pypto.frontend.jit
def row_scale(x: pypto.Tensor((ROWS, COLS), pypto.DT_FP32),
              y: pypto.Tensor((ROWS, COLS), pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(1, 20480)
    pypto.set_semantic_label("row_scale")
    y[:] = x * 0.5
