"""Softmax over the last axis of a (batch, 32, 1, 256) tensor.

The batch size is dynamic. Each row is 8 independent tasks; rows share no data
and arrive together (PyPTO's default stitching), so every vector core is busy;
the gaps between tasks are AICPU dispatch cost (bigger tiles: fewer tasks).
"""
import pypto

BATCH = pypto.DYNAMIC


def row_softmax(x):
    # Subtracting the row maximum keeps exp() from overflowing.
    row_max = pypto.amax(x, dim=-1, keepdim=True)
    numerator = pypto.exp(x - row_max)
    return numerator / pypto.sum(numerator, dim=-1, keepdim=True)


@pypto.frontend.jit
def softmax(x: pypto.Tensor((BATCH, 32, 1, 256), pypto.DT_FP32),
            y: pypto.Tensor((BATCH, 32, 1, 256), pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(1, 4, 1, 64)
    pypto.set_semantic_label("softmax")
    batch = x.shape[0]
    for b in pypto.loop(0, batch, 1, name="batch_loop", idx_name="b"):
        y[b:b + 1, :, :, :] = row_softmax(x[b:b + 1, :, :, :])
