"""A calibration kernel: four stages, one after another (loop barriers), each
held by one machine figure.

matmul:  four cube tasks, few enough that their GM->L1 copy engines, not HBM, set their time.
stream:  32 vector tasks of 8 merged tiles each, together moving 24 MiB: HBM bandwidth.
compute: eight vector tasks of heavy arithmetic on small data: the vector unit's rate.
tiny:    256 vector tasks with almost nothing to do: the AICPU's dispatch cost.
"""
import pypto


@pypto.frontend.jit
def calibration_mix(a: pypto.Tensor((128, 256), pypto.DT_FP32),
                    w: pypto.Tensor((256, 256), pypto.DT_FP32),
                    c: pypto.Tensor((128, 256), pypto.DT_FP32),
                    x: pypto.Tensor((512, 4096), pypto.DT_FP32),
                    y: pypto.Tensor((512, 4096), pypto.DT_FP32),
                    s: pypto.Tensor((512, 4096), pypto.DT_FP32),
                    u: pypto.Tensor((64, 1024), pypto.DT_FP32),
                    z: pypto.Tensor((64, 1024), pypto.DT_FP32),
                    t: pypto.Tensor((256, 64), pypto.DT_FP32),
                    r: pypto.Tensor((256, 64), pypto.DT_FP32)):
    pypto.set_cube_tile_shapes([64, 64], [128, 256], [128, 128])
    pypto.set_semantic_label("matmul")
    c[:] = pypto.matmul(a, w, pypto.DT_FP32)

    for i in pypto.loop(0, 1, 1, name="stream_stage", idx_name="i", submit_before_loop=True):
        pypto.set_vec_tile_shapes(8, 1024)
        pypto.set_semantic_label("stream")
        s[:] = x * 2.0 + y

    for j in pypto.loop(0, 1, 1, name="compute_stage", idx_name="j", submit_before_loop=True):
        pypto.set_vec_tile_shapes(8, 1024)
        pypto.set_semantic_label("compute")
        z[:] = pypto.exp(u) / (u + 1.0)

    for k in pypto.loop(0, 1, 1, name="tiny_stage", idx_name="k", submit_before_loop=True):
        pypto.set_vec_tile_shapes(1, 64)
        pypto.set_semantic_label("tiny")
        r[:] = t + 1.0
