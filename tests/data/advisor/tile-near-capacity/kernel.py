"""exp(x) * 0.5 + x over a (512, 1024) tensor in [16, 1024] tiles, two tiles
per vector task (the project's vec_nbuffer_setting): the input, the
temporaries and the output of one tile fill the whole unified buffer, so the
second tile's load cannot start until the first tile is done."""
import pypto

ROWS, COLS = 512, 1024


@pypto.frontend.jit
def scale_shift(x: pypto.Tensor((ROWS, COLS), pypto.DT_FP32),
                y: pypto.Tensor((ROWS, COLS), pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(16, 1024)
    pypto.set_semantic_label("scale_shift")
    y[:] = pypto.exp(x) * 0.5 + x
