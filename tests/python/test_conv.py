"""pypto.conv as PyPTO's API page defines it (1-D, 2-D and 3-D, strides, dilations, paddings in PyPTO's order,
groups, bias and ReLU through extend_params), through the compiler and the functional simulator, against torch's
conv1d/conv2d/conv3d in float64 (fp32 sums of at most 72 products of values below 1: rtol 1e-5, atol 1e-5; the
fp16 case within one fp16 rounding, 2^-10 relative, and atol 1e-3)."""
import unittest

import numpy as np
import torch

import pypto

import kernel_checks

RNG = np.random.default_rng(20261130)


def reference(x, w, strides, pads, dilations, groups, bias=None, relu=False):
    """torch's convolution of PyPTO's attributes: PyPTO orders 2-D paddings [top, bottom, left, right] and 3-D
    strides/dilations [h, w, d] with paddings [top, bottom, left, right, head, tail]."""
    nd = x.ndim - 2
    if nd == 3:
        strides, dilations = [strides[2], strides[0], strides[1]], [dilations[2], dilations[0], dilations[1]]
        pads = pads[4:6] + pads[0:4]
    pairs = [(pads[2 * i], pads[2 * i + 1]) for i in range(nd)]
    torch_pad = [v for pair in reversed(pairs) for v in pair]  # F.pad: last dim first
    padded = torch.nn.functional.pad(torch.from_numpy(x).double(), torch_pad)
    conv = {1: torch.nn.functional.conv1d, 2: torch.nn.functional.conv2d, 3: torch.nn.functional.conv3d}[nd]
    out = conv(padded, torch.from_numpy(w).double(), None if bias is None else torch.from_numpy(bias).double(),
               stride=strides, dilation=dilations, groups=groups)
    return (out.clamp(min=0) if relu else out).numpy()


@pypto.frontend.jit
def conv2d(x: pypto.Tensor([2, 4, 9, 11], pypto.DT_FP32), w: pypto.Tensor([6, 2, 3, 3], pypto.DT_FP32),
           bias: pypto.Tensor([6], pypto.DT_FP32), out: pypto.Tensor([2, 6, 5, 3], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(16, 8, 8, 8)
    pypto.set_conv_tile_shapes(pypto.pypto_impl.TileL1Info(tileHin=4, tileHout=4, tileWin=8, tileWout=8,
                                                           tileCinFmap=4, tileCinWeight=4, tileN=6, tileBatch=1))
    out[:] = pypto.conv(x, w, pypto.DT_FP32, strides=[2, 3], paddings=[1, 2, 0, 1], dilations=[1, 2], groups=2,
                        extend_params={"bias_tensor": bias, "relu_type": pypto.ConvReLuType.RELU})


@pypto.frontend.jit
def conv1d(x: pypto.Tensor([1, 3, 20], pypto.DT_FP16), w: pypto.Tensor([5, 3, 4], pypto.DT_FP16),
           out: pypto.Tensor([1, 5, 19], pypto.DT_FP16)):
    pypto.set_vec_tile_shapes(16, 16, 16)
    out[:] = pypto.conv(x, w, pypto.DT_FP16, strides=[1], paddings=[1, 1], dilations=[1])


@pypto.frontend.jit
def conv3d(x: pypto.Tensor([1, 2, 4, 5, 6], pypto.DT_FP32), w: pypto.Tensor([3, 2, 2, 3, 2], pypto.DT_FP32),
           out: pypto.Tensor([1, 3, 2, 5, 3], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(16, 8, 4, 8, 8)
    # strides [h, w, d] = [1, 2, 2], paddings [top, bottom, left, right, head, tail] = [1, 1, 0, 0, 0, 0]
    out[:] = pypto.conv(x, w, pypto.DT_FP32, strides=[1, 2, 2], paddings=[1, 1, 0, 0, 0, 0], dilations=[1, 1, 1])


@pypto.frontend.jit
def conv1d_tiles_from_scope(x: pypto.Tensor([1, 3, 20], pypto.DT_FP16), w: pypto.Tensor([5, 3, 4], pypto.DT_FP16),
                            out: pypto.Tensor([1, 5, 19], pypto.DT_FP16)):
    pypto.set_vec_tile_shapes(16, 16, 16)
    with pypto.options(conv_tile_shapes=(SCOPED_L1,)):
        SEEN_IN_SCOPE.append(pypto.get_conv_tile_shapes())
        out[:] = pypto.conv(x, w, pypto.DT_FP16, strides=[1], paddings=[1, 1], dilations=[1])


SCOPED_L1 = pypto.pypto_impl.TileL1Info(tileHin=1, tileHout=1, tileWin=16, tileWout=16, tileCinFmap=3,
                                        tileCinWeight=3, tileN=5, tileBatch=1)
SEEN_IN_SCOPE = []


class Conv(unittest.TestCase):
    def check_1d_in_fp16(self, kernel):
        x = RNG.uniform(-1, 1, (1, 3, 20)).astype(np.float16)
        w = RNG.uniform(-1, 1, (5, 3, 4)).astype(np.float16)
        out = np.zeros((1, 5, 19), np.float16)
        kernel(x, w, out)
        kernel_checks.assert_functional(self)
        want = reference(x.astype(np.float32), w.astype(np.float32), [1], [1, 1], [1], 1)
        np.testing.assert_allclose(out.astype(np.float64), want, rtol=2 ** -10, atol=1e-3)

    def test_conv_tile_shapes_in_an_options_scope_are_kept_as_set_conv_tile_shapes_keeps_them(self):
        self.check_1d_in_fp16(conv1d_tiles_from_scope)
        self.assertIs(SEEN_IN_SCOPE[-1][0], SCOPED_L1)

    def test_2d_with_strides_dilation_padding_groups_bias_and_relu(self):
        x = RNG.uniform(-1, 1, (2, 4, 9, 11)).astype(np.float32)
        w = RNG.uniform(-1, 1, (6, 2, 3, 3)).astype(np.float32)
        bias = RNG.uniform(-1, 1, 6).astype(np.float32)
        out = np.zeros((2, 6, 5, 3), np.float32)
        conv2d(x, w, bias, out)
        kernel_checks.assert_functional(self)
        want = reference(x, w, [2, 3], [1, 2, 0, 1], [1, 2], 2, bias, relu=True)
        self.assertEqual(want.shape, out.shape)
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
        self.assertGreater((want == 0).mean(), 0.2)  # the ReLU cut something

    def test_1d_in_fp16(self):
        self.check_1d_in_fp16(conv1d)

    def test_3d_reads_strides_in_pyptos_order(self):
        x = RNG.uniform(-1, 1, (1, 2, 4, 5, 6)).astype(np.float32)
        w = RNG.uniform(-1, 1, (3, 2, 2, 3, 2)).astype(np.float32)
        out = np.zeros((1, 3, 2, 5, 3), np.float32)
        conv3d(x, w, out)
        kernel_checks.assert_functional(self)
        np.testing.assert_allclose(out, reference(x, w, [1, 2, 2], [1, 1, 0, 0, 0, 0], [1, 1, 1], 1),
                                   rtol=1e-5, atol=1e-5)


if __name__ == "__main__":
    unittest.main()
