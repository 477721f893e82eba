"""PyPTO operations built here from modelled instructions or given one: expand_clone (TEXPAND, one per output
tile), expand_exp_dif, axpy_, one_hot, pad, index_add/index_add_, index_put_, scatter (a scalar source too),
atomic_add, var on fp16 (computed in fp32 as torch
does, where it used to overflow), and PyPTO's dtype promotion of pow and exp2.

Every kernel runs through the compiler and the functional simulator (checked) with vec tiles that cut the
outputs into several tiles, partial ones included. Expected values come from numpy. Tolerances: copies,
one_hot, pad of a copy and integer results are exact; exp(a - b) in fp32 within rtol 1e-6 (libm's expf
against numpy's); index_add within rtol 1e-6 (fp32 adds in another order than numpy's add.at; atol 1e-5 where sums of
values up to 10 cancel; rtol 1e-5, atol 1e-4 with alpha 1.2 over up to ten updates of magnitude 12 each); var on fp16
within 2e-3 relative (one fp16 rounding of the result, 2^-11, and fp32 sums).
"""
import unittest

import numpy as np

import pypto

import kernel_checks

RNG = np.random.default_rng(20261129)
R, C = 24, 40  # tiles of (8, 16): partial tiles in the last column


@pypto.frontend.jit
def broadcasts(row: pypto.Tensor([1, C], pypto.DT_FP32), column: pypto.Tensor([R, 1], pypto.DT_FP32),
               expanded: pypto.Tensor([R, C], pypto.DT_FP32), exp_dif: pypto.Tensor([R, C], pypto.DT_FP32),
               y: pypto.Tensor([R, C], pypto.DT_FP32), padded: pypto.Tensor([R + 3, C + 5], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 16)
    expanded[:] = pypto.expand_clone(row, [R, C])
    exp_dif[:] = pypto.expand_exp_dif(expanded, column)
    pypto.axpy_(y, expanded, 2.0)
    padded[:] = pypto.pad(exp_dif, (0, 5, 0, 3), value=-1.0)


@pypto.frontend.jit
def axpy_mixed(y: pypto.Tensor([R, C], pypto.DT_FP32), x: pypto.Tensor([R, 1], pypto.DT_FP16),
               y16: pypto.Tensor([R, C], pypto.DT_FP16), x32: pypto.Tensor([R, C], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 16)
    pypto.axpy_(y, x, 1.5)      # an fp16 column into fp32 rows
    pypto.axpy_(y16, x32, -0.5)  # fp32 into fp16: computed in fp32, rounded once


@pypto.frontend.jit
def puts(x: pypto.Tensor([16, 4, 8], pypto.DT_FP32), rows: pypto.Tensor([3, 4, 8], pypto.DT_FP32),
         i0: pypto.Tensor([3], pypto.DT_INT32), cells: pypto.Tensor([5, 8], pypto.DT_FP32),
         j0: pypto.Tensor([5], pypto.DT_INT64), j1: pypto.Tensor([5], pypto.DT_INT64),
         one: pypto.Tensor([16, 4, 8], pypto.DT_FP32), two: pypto.Tensor([16, 4, 8], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 4, 8)
    pypto.assemble(x, [0, 0, 0], one)
    pypto.index_put_(one, (i0,), rows)                        # one[i0[i]] = rows[i]
    pypto.assemble(x, [0, 0, 0], two)
    pypto.index_put_(two, (j0, j1), cells, accumulate=True)  # two[j0[i], j1[i]] += cells[i] (repeats add up)


@pypto.frontend.jit
def atomic_sums(x: pypto.Tensor([8, 32], pypto.DT_FP32), acc: pypto.Tensor([2, 32], pypto.DT_FP32),
                cells: pypto.Tensor([4, 4], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(2, 32)
    for i in pypto.loop(0, 4, 1, name="blocks", idx_name="i"):
        pypto.atomic_add(pypto.view(x, [2, 32], [i * 2, 0]), [0, 0], acc)            # every block into one
        pypto.operation.atomic_add(pypto.view(x, [1, 2], [i, 0]), [i, 1], cells)   # each into its own cell


@pypto.frontend.jit
def expand_int8_columns(column: pypto.Tensor([R, 1], pypto.DT_INT8), out: pypto.Tensor([R, 64], pypto.DT_INT8)):
    pypto.set_vec_tile_shapes(8, 32)
    out[:] = column.expand_clone([R, 64])


@pypto.frontend.jit
def classes(labels: pypto.Tensor([R], pypto.DT_INT32), out: pypto.Tensor([R, 10], pypto.DT_INT64)):
    pypto.set_vec_tile_shapes(8, 16)
    out[:] = pypto.one_hot(labels, 10)


@pypto.frontend.jit
def add_rows(base: pypto.Tensor([6, 16], pypto.DT_FP32), rows: pypto.Tensor([5], pypto.DT_INT32),
             source: pypto.Tensor([5, 16], pypto.DT_FP32), out: pypto.Tensor([6, 16], pypto.DT_FP32),
             in_place: pypto.Tensor([6, 16], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 16)
    out[:] = pypto.index_add(base, 0, rows, source, alpha=2)
    pypto.index_add_(in_place, 0, rows, source)


@pypto.frontend.jit
def add_rows_ub(base: pypto.Tensor([6, 16], pypto.DT_FP32), rows: pypto.Tensor([5], pypto.DT_INT32),
                source: pypto.Tensor([5, 16], pypto.DT_FP32), out: pypto.Tensor([6, 16], pypto.DT_FP32),
                in_place: pypto.Tensor([6, 16], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 16)
    out[:] = pypto.index_add_ub(base, 0, rows, source, alpha=2)  # PyPTO's unified-buffer forms: same results
    pypto.index_add__ub(in_place, 0, rows, source)


@pypto.frontend.jit
def variance_fp16(x: pypto.Tensor([8, 256], pypto.DT_FP16), out: pypto.Tensor([8], pypto.DT_FP16)):
    pypto.set_vec_tile_shapes(8, 256)
    out[:] = pypto.var(x, 1)


@pypto.frontend.jit
def variance_everything(x: pypto.Tensor([24, 40], pypto.DT_FP32), out: pypto.Tensor([1], pypto.DT_FP32),
                        none_left: pypto.Tensor([24], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(24, 40)
    out[:] = pypto.var(x, [], correction=0)  # an empty dim list: every dim, squeezed to [1] as PyPTO's Var
    none_left[:] = pypto.var(x, 1, correction=40)  # 40 elements, correction 40: divides by max(0, 0)


@pypto.frontend.jit
def pick_rows_2d(x: pypto.Tensor([32, 16], pypto.DT_FP32), index: pypto.Tensor([4, 6], pypto.DT_INT32),
                 out: pypto.Tensor([4, 6, 16], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(32, 16)
    picked = pypto.index_select(x, 0, index)  # a 2-D index, as PyPTO's Gather: its dims replace dim 0
    pypto.set_vec_tile_shapes(4, 6, 16)
    out[:] = picked


@pypto.frontend.jit
def sort_columns(x: pypto.Tensor([600, 40], pypto.DT_FP32), out: pypto.Tensor([600, 40], pypto.DT_INT32)):
    pypto.set_vec_tile_shapes(64, 8)  # cuts the 40 columns into tiles of 8; each sorts its 600 rows whole
    out[:] = pypto.argsort(x, 0, descending=True)


@pypto.frontend.jit
def sort_long_rows(x: pypto.Tensor([24, 7526], pypto.DT_FP32), out: pypto.Tensor([24, 7526], pypto.DT_INT32)):
    # PyPTO's ArgSort case 11: a [13, 384] tile holding the sorted dim whole is [13, 7526] fp32 (382 KiB), and
    # its int32 indices as much again, past a2's 192 KiB unified buffer.
    pypto.set_vec_tile_shapes(13, 384)
    out[:] = pypto.argsort(x, 1, descending=True)


@pypto.frontend.jit
def sort_long_columns(x: pypto.Tensor([4096, 3], pypto.DT_FP16), out: pypto.Tensor([4096, 3], pypto.DT_INT32)):
    # A column of 4 096 is 4 096 rows of 32 bytes in the unified buffer (128 KiB, and as much for its indices)
    # along dim 0: argsort transposes it to the last dim, sorts, transposes the indices back.
    pypto.set_vec_tile_shapes(384, 3)
    out[:] = pypto.argsort(x, 0)


@pypto.frontend.jit
def scatter_columns(x: pypto.Tensor([64, 96], pypto.DT_FP32), index: pypto.Tensor([64, 96], pypto.DT_INT64),
                    src: pypto.Tensor([64, 96], pypto.DT_FP32), out: pypto.Tensor([64, 96], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(64, 32)  # three column tiles, each scattering its 64 rows whole
    out[:] = pypto.scatter(x, 0, index, src)


@pypto.frontend.jit
def scatter_narrow_index(x: pypto.Tensor([64, 96], pypto.DT_FP32), index: pypto.Tensor([48, 40], pypto.DT_INT64),
                         src: pypto.Tensor([48, 40], pypto.DT_FP32), out: pypto.Tensor([64, 96], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(64, 32)  # the index reaches 40 columns: the third tile only copies x
    out[:] = pypto.scatter(x, 0, index, src)


@pypto.frontend.jit
def scatter_in_place(x: pypto.Tensor([96, 256], pypto.DT_FP32), index: pypto.Tensor([96, 256], pypto.DT_INT64),
                     src: pypto.Tensor([96, 256], pypto.DT_FP32), out: pypto.Tensor([96, 256], pypto.DT_FP32)):
    # x 48 KB + index 96 KB + src 48 KB fill the 192 KB unified buffer: the result takes x's bytes.
    pypto.set_vec_tile_shapes(96, 128)
    out[:] = pypto.scatter(x, 0, index, src)


@pypto.frontend.jit
def scatter_scalar(x: pypto.Tensor([128, 512], pypto.DT_FP32), index: pypto.Tensor([128, 512], pypto.DT_INT64),
                   out: pypto.Tensor([128, 512], pypto.DT_FP32)):
    # x 64 KB + index 128 KB fill the unified buffer: the scalar is the instruction's operand, not a tile.
    pypto.set_vec_tile_shapes(128, 128)
    out[:] = pypto.scatter(x, 0, index, 2.0)


@pypto.frontend.jit
def expand_blocks(x: pypto.Tensor([1, 20], pypto.DT_FP32), out: pypto.Tensor([4, 20], pypto.DT_FP32)):
    # PyPTO's Expand test: view blocks of 8 columns, the last one valid in 4, each broadcast to 4 rows.
    for i in pypto.loop(0, 3, 1, name="cols", idx_name="i"):
        block = pypto.view(x, [1, 8], [0, i * 8], valid_shape=[1, pypto.min(20 - i * 8, 8)])
        pypto.set_vec_tile_shapes(1, 4)
        pypto.assemble(pypto.expand_clone(block, [4, 8]), [0, i * 8], out)


@pypto.frontend.jit
def expand_past_the_end(x: pypto.Tensor([6, 1], pypto.DT_FP32), out: pypto.Tensor([6, 10], pypto.DT_FP32)):
    # PyPTO's Expand test over blocks of [4, 4]: the last row block and column block reach past the end, and
    # expand_clone's valid_shape says which part of each holds data (only that part is assembled).
    for i in pypto.loop(0, 2, 1, name="rows", idx_name="i"):
        for j in pypto.loop(0, 3, 1, name="cols", idx_name="j"):
            block = pypto.view(x, [4, 1], [i * 4, 0], valid_shape=[pypto.min(6 - i * 4, 4), 1])
            pypto.set_vec_tile_shapes(2, 2)
            wide = pypto.expand_clone(block, [4, 4], valid_shape=[pypto.min(6 - i * 4, 4), pypto.min(10 - j * 4, 4)])
            pypto.assemble(wide, [i * 4, j * 4], out)


@pypto.frontend.jit
def gather_blocks(x: pypto.Tensor([20, 37], pypto.DT_FP32), index: pypto.Tensor([12, 10], pypto.DT_INT32),
                  out: pypto.Tensor([12, 10, 37], pypto.DT_FP32)):
    # PyPTO's Gather test over view blocks [8, 8, 16] of the output: the last block of the index's rows, of its
    # columns and of the source's columns each reach past the end, with valid_shape saying how far.
    for i in pypto.loop(0, 2, 1, name="rows", idx_name="i"):
        for j in pypto.loop(0, 2, 1, name="cols", idx_name="j"):
            for k in pypto.loop(0, 3, 1, name="width", idx_name="k"):
                source = pypto.view(x, [20, 16], [0, k * 16], valid_shape=[20, pypto.min(37 - k * 16, 16)])
                block = pypto.view(index, [8, 8], [i * 8, j * 8],
                                   valid_shape=[pypto.min(12 - i * 8, 8), pypto.min(10 - j * 8, 8)])
                pypto.set_vec_tile_shapes(4, 8, 8)
                pypto.assemble(pypto.index_select(source, 0, block), [i * 8, j * 8, k * 16], out)


@pypto.frontend.jit
def gather_whole_blocks(x: pypto.Tensor([20, 16], pypto.DT_FP32), index: pypto.Tensor([16, 16], pypto.DT_INT32),
                        out: pypto.Tensor([16, 16, 16], pypto.DT_FP32)):
    # Every block is whole, though its valid_shape is written as PyPTO's tests write it (min(16 - i*8, 8)):
    # the compiler knows the loop's range, so the flattened index is a whole tensor, not a partial one.
    for i in pypto.loop(0, 2, 1, name="rows", idx_name="i"):
        block = pypto.view(index, [8, 16], [i * 8, 0], valid_shape=[pypto.min(16 - i * 8, 8), 16])
        pypto.set_vec_tile_shapes(4, 16, 16)
        flat = pypto.reshape(block, [128])
        pypto.assemble(pypto.reshape(pypto.index_select(x, 0, flat), [8, 16, 16]), [i * 8, 0, 0], out)


@pypto.frontend.jit
def select_middle_dim(x: pypto.Tensor([16, 24, 64], pypto.DT_FP32), index: pypto.Tensor([40], pypto.DT_INT32),
                      out: pypto.Tensor([16, 40, 64], pypto.DT_FP32)):
    # index_select along dim 1 of a 3-D source under a small vec tile: gathered on chip tile by tile (each
    # takes the source whole along dim 1), not as one tile of the whole result (640 KB, past the UB).
    pypto.set_vec_tile_shapes(4, 8, 32)
    pypto.assemble(pypto.index_select(x, 1, index), [0, 0, 0], out)


@pypto.frontend.jit
def add_columns_in_place(base: pypto.Tensor([8, 8, 8, 49], pypto.DT_FP32), cols: pypto.Tensor([13], pypto.DT_INT32),
                         source: pypto.Tensor([8, 8, 8, 13], pypto.DT_FP32),
                         out: pypto.Tensor([8, 8, 8, 49], pypto.DT_FP32)):
    # index_add along the last dim: its scatter_ is cut by the vec tile along the other dims (each tile holds
    # all 49 columns), computed in place over the copied input, and the result is read back in 16-column parts
    # by the assemble in the same task (PyPTO's IndexAdd_ case 26).
    pypto.set_vec_tile_shapes(8, 8, 8, 16)
    out[:] = pypto.index_add(base, 3, cols, source)


@pypto.frontend.jit
def put_cells_by_columns(grid: pypto.Tensor([16, 4, 8], pypto.DT_FP16), rows: pypto.Tensor([3], pypto.DT_INT64),
                         cols: pypto.Tensor([3], pypto.DT_INT64), cells: pypto.Tensor([3, 8], pypto.DT_FP16)):
    # Two indexed dims: index_put_ writes each cell to its row of grid seen as [64, 8] rows, in [16, 4] tiles
    # of the cells (PyPTO's IndexPut_ case 8).
    pypto.set_vec_tile_shapes(16, 4, 4)
    pypto.index_put_(grid, (rows, cols), cells)


@pypto.frontend.jit
def put_large_slices(x: pypto.Tensor([128, 64, 128], pypto.DT_FP16), index: pypto.Tensor([8], pypto.DT_INT32),
                     values: pypto.Tensor([8, 64, 128], pypto.DT_FP16), out: pypto.Tensor([128, 64, 128], pypto.DT_FP16)):
    # PyPTO's IndexPut_ case 19: out (2 MiB, ten times the unified buffer) is never loaded; each [64, 128]
    # slice's rows go to it from the values' tiles.
    pypto.set_vec_tile_shapes(8, 64, 64)
    pypto.assemble(x, [0, 0, 0], out)
    pypto.index_put_(out, (index,), values)


@pypto.frontend.jit
def add_long_source(base: pypto.Tensor([10, 12, 20, 24], pypto.DT_FP32), index: pypto.Tensor([49], pypto.DT_INT32),
                    source: pypto.Tensor([10, 12, 49, 24], pypto.DT_FP32),
                    out: pypto.Tensor([10, 12, 20, 24], pypto.DT_FP32)):
    # index_add along dim 2 with 49 source slices under a tile of 8 there: each tile of the input (all 20
    # slices) takes the index and the source in chunks of 8, one after another (PyPTO's IndexAdd_ case 25).
    pypto.set_vec_tile_shapes(8, 8, 8, 16)
    out[:] = pypto.index_add(base, 2, index, source, alpha=1.2)


class Broadcasts(unittest.TestCase):
    def test_expand_exp_dif_axpy_and_pad(self):
        row = RNG.uniform(-1, 1, (1, C)).astype(np.float32)
        column = RNG.uniform(-1, 1, (R, 1)).astype(np.float32)
        y = RNG.uniform(-1, 1, (R, C)).astype(np.float32)
        y_before = y.copy()
        expanded, exp_dif = np.zeros((R, C), np.float32), np.zeros((R, C), np.float32)
        padded = np.zeros((R + 3, C + 5), np.float32)
        broadcasts(row, column, expanded, exp_dif, y, padded)
        kernel_checks.assert_functional(self)
        want = np.broadcast_to(row, (R, C))
        np.testing.assert_array_equal(expanded, want)
        np.testing.assert_allclose(exp_dif, np.exp(want - column), rtol=1e-6)
        np.testing.assert_allclose(y, y_before + np.float32(2) * want, rtol=1e-6)
        want_padded = np.full((R + 3, C + 5), -1.0, np.float32)
        want_padded[:R, :C] = exp_dif
        np.testing.assert_array_equal(padded, want_padded)

    def test_axpy_of_another_float_dtype_computes_in_fp32(self):
        y = RNG.uniform(-1, 1, (R, C)).astype(np.float32)
        x = RNG.uniform(-1, 1, (R, 1)).astype(np.float16)
        y16 = RNG.uniform(-1, 1, (R, C)).astype(np.float16)
        x32 = RNG.uniform(-1, 1, (R, C)).astype(np.float32)
        want = y + np.float32(1.5) * x.astype(np.float32)
        want16 = (y16.astype(np.float32) + np.float32(-0.5) * x32).astype(np.float16)
        axpy_mixed(y, x, y16, x32)
        kernel_checks.assert_functional(self)
        np.testing.assert_allclose(y, want, rtol=1e-6)  # fp32 multiply-add: one rounding each
        np.testing.assert_array_equal(y16, want16)      # one rounding to fp16 of the fp32 sum, as numpy's

    def test_index_put_of_slices_larger_than_the_unified_buffer(self):
        x = RNG.uniform(-1, 1, (128, 64, 128)).astype(np.float16)
        values = RNG.uniform(-1, 1, (8, 64, 128)).astype(np.float16)
        index = np.array([3, 127, 0, 64, 5, 90, 17, 2], np.int32)
        out = np.zeros_like(x)
        put_large_slices(x, index, values, out)
        kernel_checks.assert_functional(self)
        want = x.copy()
        want[index] = values
        np.testing.assert_array_equal(out, want)

    def test_index_put_writes_and_accumulates_rows(self):
        x = RNG.uniform(-1, 1, (16, 4, 8)).astype(np.float32)
        rows = RNG.uniform(-1, 1, (3, 4, 8)).astype(np.float32)
        i0 = np.array([5, 0, 15], np.int32)
        cells = RNG.uniform(-1, 1, (5, 8)).astype(np.float32)
        j0 = np.array([2, 2, 9, 15, 2], np.int64)
        j1 = np.array([1, 1, 3, 0, 1], np.int64)  # (2, 1) three times: accumulated
        one, two = np.zeros_like(x), np.zeros_like(x)
        puts(x, rows, i0, cells, j0, j1, one, two)
        kernel_checks.assert_functional(self)
        want_one = x.copy()
        want_one[i0] = rows
        np.testing.assert_array_equal(one, want_one)
        want_two = x.copy()
        np.add.at(want_two, (j0, j1), cells)
        np.testing.assert_allclose(two, want_two, rtol=1e-6, atol=1e-6)  # three fp32 adds, in index order

    def test_atomic_add_sums_every_update(self):
        x = RNG.uniform(-1, 1, (8, 32)).astype(np.float32)
        acc, cells = np.ones((2, 32), np.float32), np.zeros((4, 4), np.float32)
        atomic_sums(x, acc, cells)
        kernel_checks.assert_functional(self)
        np.testing.assert_allclose(acc, 1 + x.reshape(4, 2, 32).sum(0), rtol=1e-6, atol=1e-6)  # 4 fp32 adds
        want = np.zeros((4, 4), np.float32)
        want[:, 1:3] = x[:4, :2]
        np.testing.assert_array_equal(cells, want)

    def test_expand_clone_repeats_columns_byte_for_byte(self):
        column = RNG.integers(-128, 128, (R, 1)).astype(np.int8)
        out = np.zeros((R, 64), np.int8)
        expand_int8_columns(column, out)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(out, np.broadcast_to(column, (R, 64)))


class Indexing(unittest.TestCase):
    def test_one_hot(self):
        labels = RNG.integers(0, 10, R).astype(np.int32)
        out = np.zeros((R, 10), np.int64)
        classes(labels, out)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(out, np.eye(10, dtype=np.int64)[labels])

    def test_index_add_with_repeated_rows(self):
        base = RNG.uniform(-1, 1, (6, 16)).astype(np.float32)
        in_place = base.copy()
        rows = np.array([0, 3, 0, 5, 3], np.int32)  # rows 0 and 3 are added to twice
        source = RNG.uniform(-1, 1, (5, 16)).astype(np.float32)
        out = np.zeros((6, 16), np.float32)
        for kernel in (add_rows, add_rows_ub):
            out, in_place = np.zeros((6, 16), np.float32), base.copy()
            kernel(base, rows, source, out, in_place)
            kernel_checks.assert_functional(self)
            want = base.copy()
            np.add.at(want, rows, np.float32(2) * source)
            np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-7)
            want_in_place = base.copy()
            np.add.at(want_in_place, rows, source)
            np.testing.assert_allclose(in_place, want_in_place, rtol=1e-6, atol=1e-7)


@pypto.frontend.jit
def mixed_pow(base: pypto.Tensor([8, 32], pypto.DT_FP16), power: pypto.Tensor([8, 32], pypto.DT_INT32),
              out: pypto.Tensor([8, 32], pypto.DT_FP16), twos: pypto.Tensor([8, 32], pypto.DT_FP32),
              less_one: pypto.Tensor([8, 32], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 32)
    out[:] = pypto.pow(base, power)  # PyPTO: fp16 with int32 gives fp16
    twos[:] = pypto.exp2(power)  # PyPTO: integer input gives fp32
    less_one[:] = pypto.expm1(power)  # likewise (PyPTO's expm1 page)


@pypto.frontend.jit
def channel_prelu(x: pypto.Tensor([4, 6, 8, 32], pypto.DT_FP32), weight: pypto.Tensor([6], pypto.DT_FP32),
                  out: pypto.Tensor([4, 6, 8, 32], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(2, 3, 8, 32)
    out[:] = pypto.prelu(x, weight)


class ChannelWeights(unittest.TestCase):
    def test_prelu_weights_dim_1_as_torch_does(self):
        x = RNG.uniform(-2, 2, (4, 6, 8, 32)).astype(np.float32)
        weight = RNG.uniform(0.01, 0.3, 6).astype(np.float32)
        out = np.zeros_like(x)
        channel_prelu(x, weight, out)
        kernel_checks.assert_functional(self)
        # torch.nn.functional.prelu's rule, written out: channel c (dim 1) scales its negatives by weight[c].
        want = np.where(x >= 0, x, x * weight.reshape(1, 6, 1, 1))
        np.testing.assert_array_equal(out, want)


class Promotion(unittest.TestCase):
    def test_pow_of_fp16_by_int32_and_exp2_expm1_of_int32(self):
        base = RNG.uniform(0.5, 2.0, (8, 32)).astype(np.float16)
        power = RNG.integers(-3, 4, (8, 32)).astype(np.int32)
        out, twos = np.zeros((8, 32), np.float16), np.zeros((8, 32), np.float32)
        less_one = np.zeros((8, 32), np.float32)
        mixed_pow(base, power, out, twos, less_one)
        kernel_checks.assert_functional(self)
        # The int32 power is converted to fp16 exactly (|power| <= 3); the fp32 power then rounds once to fp16.
        want = np.power(base.astype(np.float32), power.astype(np.float32)).astype(np.float16)
        np.testing.assert_allclose(out.astype(np.float32), want.astype(np.float32), rtol=1e-3)
        np.testing.assert_array_equal(twos, np.exp2(power.astype(np.float32)))
        # libm's expm1f against numpy's float32 expm1: a couple of ulps
        np.testing.assert_allclose(less_one, np.expm1(power.astype(np.float32)), rtol=1e-6, atol=1e-7)


class MultiDimIndex(unittest.TestCase):
    def test_index_select_with_a_2d_index_as_numpy_take(self):
        x = RNG.standard_normal((32, 16)).astype(np.float32)
        index = RNG.integers(0, 32, (4, 6)).astype(np.int32)
        out = np.zeros((4, 6, 16), np.float32)
        pick_rows_2d(x, index, out)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(out, np.take(x, index, axis=0))  # exact: values are only moved

    def test_blocks_past_the_end_of_index_and_source_as_numpy_take(self):
        x = RNG.standard_normal((20, 37)).astype(np.float32)
        index = RNG.integers(0, 20, (12, 10)).astype(np.int32)
        out = np.full((12, 10, 37), 7.0, np.float32)
        gather_blocks(x, index, out)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(out, np.take(x, index, axis=0))

    def test_other_dims_and_ranks_gather_tile_by_tile(self):
        x = RNG.standard_normal((16, 24, 64)).astype(np.float32)
        index = RNG.integers(0, 24, 40).astype(np.int32)
        out = np.zeros((16, 40, 64), np.float32)
        select_middle_dim(x, index, out)
        report = kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(out, np.take(x, index, axis=1))
        self.assertGreater(report["tasks"], 1, "one task would hold the whole result")

    def test_a_valid_shape_whole_in_every_iteration_reshapes_as_whole(self):
        x = RNG.standard_normal((20, 16)).astype(np.float32)
        index = RNG.integers(0, 20, (16, 16)).astype(np.int32)
        out = np.zeros((16, 16, 16), np.float32)
        gather_whole_blocks(x, index, out)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(out, np.take(x, index, axis=0))


class SortedRows(unittest.TestCase):
    def test_argsort_cut_along_the_other_dims_as_numpy(self):
        x = RNG.permutation(600 * 40).reshape(600, 40).astype(np.float32)  # distinct: one right order
        out = np.zeros((600, 40), np.int32)
        sort_columns(x, out)
        report = kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(out, np.argsort(-x, axis=0, kind="stable"))
        self.assertGreaterEqual(report["tasks"], 5)  # a task per 8 columns, not one 96 KiB tile

    def test_a_long_column_is_sorted_along_the_last_dim(self):
        x = RNG.integers(-50, 50, (4096, 3)).astype(np.float16)  # many ties: stable order checked
        out = np.zeros((4096, 3), np.int32)
        sort_long_columns(x, out)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(out, np.argsort(x, axis=0, kind="stable"))

    def test_a_whole_sorted_dim_past_the_unified_buffer_narrows_the_other_dims(self):
        x = RNG.standard_normal((24, 7526)).astype(np.float32)
        x[:, ::7] = 0.5  # ties, which keep their index order (PyPTO's argsort is stable)
        out = np.zeros((24, 7526), np.int32)
        sort_long_rows(x, out)
        report = kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(out, np.argsort(-x, axis=1, kind="stable"))
        # 13 rows halved to 2 (values and indices of 2 rows: 4 x 29.4 KiB), so 12 tiles of the 24 rows.
        self.assertGreaterEqual(report["tasks"], 12)


class ScatterColumns(unittest.TestCase):
    def test_scatter_cut_along_the_other_dims_as_numpy(self):
        x = RNG.standard_normal((64, 96)).astype(np.float32)
        # A permutation per column: every target is written once, so the result does not depend on order.
        index = np.argsort(RNG.random((64, 96)), axis=0).astype(np.int64)
        src = RNG.standard_normal((64, 96)).astype(np.float32)
        out = np.zeros((64, 96), np.float32)
        scatter_columns(x, index, src, out)
        report = kernel_checks.assert_functional(self)
        want = x.copy()
        np.put_along_axis(want, index, src, axis=0)
        np.testing.assert_array_equal(out, want)
        self.assertGreaterEqual(report["tasks"], 3)

    def test_columns_the_index_does_not_reach_keep_the_input(self):
        x = RNG.standard_normal((64, 96)).astype(np.float32)
        index = np.stack([RNG.permutation(64)[:48] for _ in range(40)], axis=1).astype(np.int64)
        src = RNG.standard_normal((48, 40)).astype(np.float32)
        out = np.zeros((64, 96), np.float32)
        scatter_narrow_index(x, index, src, out)
        kernel_checks.assert_functional(self)
        want = x.copy()
        for j in range(40):
            want[index[:, j], j] = src[:, j]
        np.testing.assert_array_equal(out, want)

    def test_a_scalar_source_takes_no_buffer(self):
        x = RNG.standard_normal((128, 512)).astype(np.float32)
        index = RNG.integers(0, 128, (128, 512)).astype(np.int64)
        out = np.zeros_like(x)
        scatter_scalar(x, index, out)
        report = kernel_checks.assert_functional(self)
        self.assertEqual(report["tasks"], 4)
        want = x.copy()
        np.put_along_axis(want, index, np.float32(2.0), axis=0)
        np.testing.assert_array_equal(out, want)

    def test_the_result_takes_the_inputs_bytes_when_the_buffer_is_full(self):
        x = RNG.standard_normal((96, 256)).astype(np.float32)
        index = np.argsort(RNG.random((96, 256)), axis=0).astype(np.int64)
        src = RNG.standard_normal((96, 256)).astype(np.float32)
        out = np.zeros((96, 256), np.float32)
        scatter_in_place(x, index, src, out)
        kernel_checks.assert_functional(self)
        want = x.copy()
        np.put_along_axis(want, index, src, axis=0)
        np.testing.assert_array_equal(out, want)


    def test_in_place_scatter_tiles_read_back_in_parts(self):
        base = RNG.uniform(-10, 10, (8, 8, 8, 49)).astype(np.float32)
        cols = RNG.integers(0, 10, 13).astype(np.int32)  # columns 0..9, several added to more than once
        source = RNG.uniform(-10, 10, (8, 8, 8, 13)).astype(np.float32)
        out = np.zeros_like(base)
        add_columns_in_place(base, cols, source, out)
        kernel_checks.assert_functional(self)
        want = base.copy()
        for i, c in enumerate(cols):
            want[..., c] += source[..., i]
        np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-5)

    def test_a_write_back_reads_its_copy_overlaid_by_the_column_tiles(self):
        grid = RNG.uniform(-1, 1, (16, 4, 8)).astype(np.float16)
        rows, cols = np.array([3, 11, 3], np.int64), np.array([0, 2, 1], np.int64)  # three distinct cells
        cells = RNG.uniform(-10, 10, (3, 8)).astype(np.float16)
        want = grid.copy()
        want[rows, cols] = cells
        put_cells_by_columns(grid, rows, cols, cells)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(grid, want)


    def test_a_source_longer_than_the_tile_is_scattered_in_chunks_in_order(self):
        base = RNG.uniform(-10, 10, (10, 12, 20, 24)).astype(np.float32)
        index = RNG.integers(0, 20, 49).astype(np.int32)  # 49 slices into 20: most targets more than once
        source = RNG.uniform(-10, 10, (10, 12, 49, 24)).astype(np.float32)
        out = np.zeros_like(base)
        add_long_source(base, index, source, out)
        report = kernel_checks.assert_functional(self)
        self.assertGreater(report["tasks"], 1)
        want = base.copy()
        for i, target in enumerate(index):
            want[:, :, target] += np.float32(1.2) * source[:, :, i]
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)


class ExpandBlocks(unittest.TestCase):
    def test_expand_clone_of_a_partly_valid_block_as_numpy(self):
        x = RNG.standard_normal((1, 20)).astype(np.float32)
        out = np.zeros((4, 20), np.float32)
        expand_blocks(x, out)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(out, np.broadcast_to(x, (4, 20)))  # exact: values are only copied

    def test_blocks_past_the_end_write_only_their_valid_shape(self):
        x = RNG.standard_normal((6, 1)).astype(np.float32)
        out = np.zeros((6, 10), np.float32)
        expand_past_the_end(x, out)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(out, np.broadcast_to(x, (6, 10)))


class Variance(unittest.TestCase):
    def test_fp16_squares_beyond_fp16_range_stay_finite(self):
        # Values around 300: squares of the deviations sum to about 256 * 100^2 / 3 > 65504 (fp16's max).
        x = RNG.uniform(100, 300, (8, 256)).astype(np.float16)
        out = np.zeros(8, np.float16)
        variance_fp16(x, out)
        kernel_checks.assert_functional(self)
        want = np.var(x.astype(np.float64), axis=1, ddof=1)
        self.assertTrue(np.all(np.isfinite(out)))
        np.testing.assert_allclose(out.astype(np.float64), want, rtol=2e-3)

    def test_every_dim_and_no_degrees_of_freedom_as_pypto(self):
        x = RNG.uniform(-10, 10, (24, 40)).astype(np.float32)
        x[5] = 3.0  # a constant row: 0 / 0
        out, none_left = np.zeros(1, np.float32), np.zeros(24, np.float32)
        with np.errstate(divide="ignore", invalid="ignore"):
            variance_everything(x, out, none_left)
        kernel_checks.assert_functional(self)
        np.testing.assert_allclose(out, [np.var(x.astype(np.float64))], rtol=1e-5)
        # PyPTO's Var divides by max(0, N - correction): inf, and NaN for the row with no deviation at all.
        self.assertTrue(np.all(np.isinf(np.delete(none_left, 5))))
        self.assertTrue(np.isnan(none_left[5]))


if __name__ == "__main__":
    unittest.main()
