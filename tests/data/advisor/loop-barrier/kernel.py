"""Two loops that share no data, the second submitted behind PyPTO's loop
barrier: its blocks wait until every block of the first has finished, though
nothing it reads or writes was touched there."""
import pypto

BLOCKS, ROWS, COLS = 8, 16, 1024


@pypto.frontend.jit
def two_streams(x: pypto.Tensor((BLOCKS * ROWS, COLS), pypto.DT_FP32),
                w: pypto.Tensor((BLOCKS * ROWS, COLS), pypto.DT_FP32),
                y: pypto.Tensor((BLOCKS * ROWS, COLS), pypto.DT_FP32),
                z: pypto.Tensor((BLOCKS * ROWS, COLS), pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(ROWS, 256)
    pypto.set_semantic_label("activate")
    for i in pypto.loop(0, BLOCKS, 1, name="ACTIVATE", idx_name="i"):
        block = pypto.view(x, [ROWS, COLS], [i * ROWS, 0])
        pypto.assemble(pypto.exp(block) * 0.5, [i * ROWS, 0], y)
    pypto.set_semantic_label("scale")
    for j in pypto.loop(0, BLOCKS, 1, name="SCALE", idx_name="j",
                        submit_before_loop=True):
        block = pypto.view(w, [ROWS, COLS], [j * ROWS, 0])
        pypto.assemble(pypto.sqrt(block) + 1.0, [j * ROWS, 0], z)
