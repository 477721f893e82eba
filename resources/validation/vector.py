"""Vector kernels of the validation suite: a stream bound by global memory and
a chain of exponentials bound by the vector units."""
import pypto

CHAIN = 64


@pypto.frontend.jit
def stream_add(x: pypto.Tensor([], pypto.DT_FP32), y: pypto.Tensor([], pypto.DT_FP32),
               z: pypto.Tensor([], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(16, 512)
    z[:] = pypto.add(x, y)


@pypto.frontend.jit
def exp_chain(x: pypto.Tensor([], pypto.DT_FP32), z: pypto.Tensor([], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 1024)
    t = x
    for _ in range(CHAIN):
        t = pypto.exp(t)
    z[:] = t
