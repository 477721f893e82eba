"""A weight declared `format=pypto.TileOpFormat.TILEOP_NZ`, as PyPTO's quantized kernels declare theirs.

The arrays a caller passes are row-major either way, and the functional result is the same (compared with
numpy, exactly: small integers). What NZ changes is the timing: an ND [K, N] int8 matrix whose tiles have rows of
128 bytes goes into L1 row by row (one DMA request per row, paths.gm_to_l1.run_ns), while the same matrix stored
as the cube's fractals goes in as columns of K x 32 bytes, at the path's peak. So the NZ kernel must be faster,
and by no more than the ND kernel's whole row cost (an upper bound from the machine file: every row of every B
tile, run_ns each, on the busiest core)."""
import json
import math
import os
import unittest

import numpy as np

import pypto

import kernel_checks

M, K, N = 128, 2048, 1024
M_TILE, K_TILE, N_TILE = 128, 512, 128
NZ = pypto.TileOpFormat.TILEOP_NZ


def _tiles():
    pypto.set_cube_tile_shapes([M_TILE, M_TILE], [K_TILE, K_TILE], [N_TILE, N_TILE])


@pypto.frontend.jit
def linear_nd(x: pypto.Tensor([M, K], pypto.DT_INT8), w: pypto.Tensor([K, N], pypto.DT_INT8),
              y: pypto.Tensor([M, N], pypto.DT_INT32)):
    _tiles()
    y[:] = pypto.matmul(x, w, pypto.DT_INT32)


@pypto.frontend.jit
def linear_nz(x: pypto.Tensor([M, K], pypto.DT_INT8), w: pypto.Tensor([K, N], pypto.DT_INT8, format=NZ),
              y: pypto.Tensor([M, N], pypto.DT_INT32)):
    _tiles()
    y[:] = pypto.matmul(x, w, pypto.DT_INT32)


def _machine(name):
    folder = os.environ.get("PTO_MACHINES_PATH") or os.path.join(os.path.dirname(pypto.__file__), "..", "..",
                                                                  "share", "pto-studio", "machines")
    with open(os.path.join(folder, name + ".json"), encoding="utf-8") as f:
        return json.load(f)


class NzWeights(unittest.TestCase):
    def run_kernel(self, kernel):
        rng = np.random.default_rng(11)
        x = rng.integers(-3, 4, (M, K)).astype(np.int8)
        w = rng.integers(-3, 4, (K, N)).astype(np.int8)
        y = np.zeros((M, N), np.int32)
        kernel(x, w, y)
        report = kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(y, x.astype(np.int32) @ w.astype(np.int32))
        return report

    def test_an_nz_weight_computes_the_same_and_loads_as_fractal_columns(self):
        nd = self.run_kernel(linear_nd)
        nz = self.run_kernel(linear_nz)
        self.assertLess(nz["makespan_us"], nd["makespan_us"])
        machine = _machine(nd.get("machine", "a2"))
        run_ns = machine["paths"]["gm_to_l1"]["run_ns"]
        cube_cores = machine["cores"]["aic"]
        tiles_per_core = math.ceil((N // N_TILE) / cube_cores)
        row_cost_us = tiles_per_core * K * run_ns / 1000.0  # every B row of the busiest core, ND
        self.assertLessEqual(nd["makespan_us"] - nz["makespan_us"], row_cost_us * 1.001)


if __name__ == "__main__":
    unittest.main()
