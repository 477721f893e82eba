"""The Linear stage of DeepSeek-V3.2's Indexer Prolog as it stands alone:
an int8 [tokens, 1536] x [1536, 8192] projection (12 MB of int8 weights
streamed once) with int32 accumulation. Batch 4 with one MTP token: 8 rows."""
import pypto


@pypto.frontend.jit
def linear(x: pypto.Tensor([], pypto.DT_INT8), w: pypto.Tensor([], pypto.DT_INT8), y: pypto.Tensor([], pypto.DT_INT32)):
    pypto.set_cube_tile_shapes([16, 16], [256, 512], [256, 256])
    y[:] = pypto.matmul(x, w, pypto.DT_INT32)
