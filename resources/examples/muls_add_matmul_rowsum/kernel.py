"""Vector and cube work in one kernel: rowsum((A * 0.5 + B) @ W).

The scale-and-add runs on the vector cores in 32x32 tiles; the matmul is one
untiled cube block; the row sum is vector work again. On A2-like machines the
matmul result travels through global memory between the two, so the
swimlane shows three stages.
"""
import pypto


@pypto.frontend.jit
def muls_add_matmul_rowsum(a: pypto.Tensor((64, 64), pypto.DT_FP32),
                           b: pypto.Tensor((64, 64), pypto.DT_FP32),
                           w: pypto.Tensor((64, 32), pypto.DT_FP32),
                           out: pypto.Tensor((64, 1), pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(32, 32)
    pypto.set_semantic_label("scale_add")
    hidden = a * 0.5 + b

    pypto.set_cube_tile_shapes([64, 64], [64, 64], [32, 32])
    pypto.set_semantic_label("matmul")
    product = pypto.matmul(hidden, w, pypto.DT_FP32)

    pypto.set_vec_tile_shapes(32, 32)
    pypto.set_semantic_label("rowsum")
    out[:] = pypto.sum(product, dim=-1, keepdim=True)
