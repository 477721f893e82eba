"""Scatters of rows into a destination that stays in global memory (MSCATTER), as PyPTO's DeepSeek prologs
write each new token's key row into a paged cache: `scatter_update(cache, -2, index, src)` with a 2-D index
of slot numbers is cut into tiles of src's rows (by the vec tile in force), each writing only the rows its
slice of the index names. The cache is updated in place, as in PyPTO, and is never loaded or held on chip:
a cache of 64K tokens (tens of MiB) is far beyond the 192 KiB unified buffer, and before this every such
kernel fell back to the reference interpreter. Every case runs on the functional simulator and is compared
bit for bit with numpy's fancy-index assignment (a scatter moves bytes: no tolerance); rows the index does
not name must keep their values.
"""
import unittest

import numpy as np

import pypto

RNG = np.random.default_rng(20261127)
BLOCK = 128


def run(kernel, *arrays):
    kernel(*arrays)
    return pypto.last_run()


class ScatterRowsToGlobalMemory(unittest.TestCase):
    def assert_simulated(self, report):
        self.assertTrue(report["simulated"], report.get("simulation_error"))
        self.assertEqual(report["outputs_from"], "functional")

    def test_a_few_computed_slots_of_a_cache_larger_than_the_unified_buffer(self):
        # [65536, 128] fp16 is 16 MiB; 4 x 24 new rows go to slots the kernel computes (3 * where + 7, so
        # no scalar read of the index can stand in), in PyPTO's in-place form `x = scatter_update(x, ...)`.
        slots, width, b, s = 65536, 128, 4, 24

        @pypto.frontend.jit
        def update(cache: pypto.Tensor([slots, width], pypto.DT_FP16), where: pypto.Tensor([b, s], pypto.DT_INT32),
                   rows: pypto.Tensor([b * s, width], pypto.DT_FP16)):
            pypto.set_vec_tile_shapes(32, 128)
            computed = pypto.add(pypto.mul(where, 3), 7)
            cache = pypto.scatter_update(cache, -2, computed, rows)  # noqa: F841 (updated in place)

        cache = RNG.standard_normal((slots, width)).astype(np.float16)
        where = RNG.choice((slots - 7) // 3, (b, s), replace=False).astype(np.int32)
        rows = RNG.standard_normal((b * s, width)).astype(np.float16)
        want = cache.copy()
        want[(3 * where + 7).reshape(-1)] = rows
        report = run(update, cache, where, rows)
        self.assert_simulated(report)
        np.testing.assert_array_equal(cache, want)
        # Only the rows moved: storing the whole 16 MiB once would take 16 MiB / 100.9 GiB/s = 155 us on a2
        # (its UB -> GM peak; loading it as well would double that); the scatter stays far below.
        self.assertLess(report["makespan_us"], 0.1 * slots * width * 2 / (100.9 * 2**30) * 1e6)

    def test_the_paged_form_in_place_and_written_to_an_output(self):
        # PyPTO's prolog form: a cache [blocks, 128, 1, d], index [b, s] of flat slot numbers (slot n is row
        # n % 128 of block n // 128), src [b, s, 1, d], written to the kernel's output with `out[:] =`. The
        # cache itself is updated in place (PyPTO's semantics); the output receives the whole updated cache.
        blocks, width, b, s = 16, 64, 2, 8

        @pypto.frontend.jit
        def update(cache: pypto.Tensor([blocks, BLOCK, 1, width], pypto.DT_FP32),
                   index: pypto.Tensor([b, s], pypto.DT_INT32),
                   src: pypto.Tensor([b, s, 1, width], pypto.DT_FP32),
                   cache_out: pypto.Tensor([blocks, BLOCK, 1, width], pypto.DT_FP32),
                   again: pypto.Tensor([blocks, BLOCK, 1, width], pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(1, 4, 1, 64)
            cache_out[:] = pypto.scatter_update(cache, -2, index, src)
            # Writing the result back to the cache it came from moves nothing.
            cache.move(pypto.scatter_update(cache, -2, index, pypto.mul(src, 2.0)))
            again.move(cache)

        cache = RNG.standard_normal((blocks, BLOCK, 1, width)).astype(np.float32)
        index = RNG.choice(blocks * BLOCK, (b, s), replace=False).astype(np.int32)
        src = RNG.standard_normal((b, s, 1, width)).astype(np.float32)
        first = cache.copy().reshape(blocks * BLOCK, width)
        first[index.reshape(-1)] = src.reshape(b * s, width)
        second = first.copy()
        second[index.reshape(-1)] = 2.0 * src.reshape(b * s, width)
        cache_out = np.zeros_like(cache)
        again = np.zeros_like(cache)
        report = run(update, cache, index, src, cache_out, again)
        self.assert_simulated(report)
        np.testing.assert_array_equal(cache_out.reshape(blocks * BLOCK, width), first)
        np.testing.assert_array_equal(cache.reshape(blocks * BLOCK, width), second)
        np.testing.assert_array_equal(again.reshape(blocks * BLOCK, width), second)

    def test_writes_and_gathers_of_one_cache_in_one_kernel_are_ordered(self):
        # A block of the cache is written, rows are scattered (some into that block), and rows are gathered
        # back (some just scattered): the gather must see the scatter and the scatter must not hide the block
        # written before it.
        slots, width, b, s, picked = 4096, 64, 2, 16, 64

        @pypto.frontend.jit
        def step(cache: pypto.Tensor([slots, width], pypto.DT_FP32), block: pypto.Tensor([BLOCK, width], pypto.DT_FP32),
                 index: pypto.Tensor([b, s], pypto.DT_INT32), src: pypto.Tensor([b * s, width], pypto.DT_FP32),
                 where: pypto.Tensor([picked], pypto.DT_INT32), out: pypto.Tensor([picked, width], pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(16, 64)
            cache[BLOCK:2 * BLOCK, :] = pypto.add(block, 1.0)
            cache[:] = pypto.scatter_update(cache, -2, index, src)
            out[:] = pypto.index_select(cache, 0, where)

        cache = RNG.standard_normal((slots, width)).astype(np.float32)
        block = RNG.standard_normal((BLOCK, width)).astype(np.float32)
        index = RNG.choice(slots, (b, s), replace=False).astype(np.int32)
        index[0, :4] = BLOCK + np.arange(4) * 5  # some rows inside the block written first
        src = RNG.standard_normal((b * s, width)).astype(np.float32)
        where = np.concatenate([index.reshape(-1), RNG.integers(0, slots, picked - b * s)]).astype(np.int32)
        want = cache.copy()
        want[BLOCK:2 * BLOCK] = block + 1.0
        want[index.reshape(-1)] = src
        out = np.zeros((picked, width), np.float32)
        report = run(step, cache, block, index, src, where, out)
        self.assert_simulated(report)
        np.testing.assert_array_equal(cache, want)
        np.testing.assert_array_equal(out, want[where])

    def test_one_array_passed_for_the_cache_input_and_output_is_one_tensor(self):
        # PyPTO's lightning indexer prolog (lightning_indexer_prolog_quant_impl.py:529) declares its key cache
        # twice, k_in and k_out, writes `k_out.move(scatter_update(k_in, ...))` per token tile, and its caller
        # passes one tensor for both: the cache is updated in place and nothing copies it. A block of k_in read
        # before the scatter (one of its slots is scattered) is written back through k_out after it, as
        # `pypto.assemble(..., k_out)`.
        blocks, width, t, tile = 64, 64, 32, 8
        cache_rows = blocks * BLOCK

        @pypto.frontend.jit
        def step(k_in: pypto.Tensor([blocks, BLOCK, 1, width], pypto.DT_FP32),
                 index: pypto.Tensor([t, 1], pypto.DT_INT32), k: pypto.Tensor([t, 1, 1, width], pypto.DT_FP32),
                 k_out: pypto.Tensor([blocks, BLOCK, 1, width], pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(1, 32, 1, width)
            first = pypto.add(pypto.view(k_in, [1, BLOCK, 1, width], [0, 0, 0, 0]), 1.0)
            for t_idx in pypto.loop(0, t, tile, name="tokens", idx_name="t_idx"):
                pypto.set_vec_tile_shapes(tile, 1, 1, width)
                slots = pypto.view(index, [tile, 1], [t_idx, 0])
                rows = pypto.view(k, [tile, 1, 1, width], [t_idx, 0, 0, 0])
                k_out.move(pypto.scatter_update(k_in, -2, slots, rows))
            pypto.set_vec_tile_shapes(1, 32, 1, width)
            pypto.assemble(first, [blocks - 1, 0, 0, 0], k_out)

        def want(cache, index, k):
            rows = cache.reshape(cache_rows, width).copy()
            first = rows[:BLOCK] + 1.0
            rows[index.reshape(-1)] = k.reshape(t, width)
            rows[cache_rows - BLOCK:] = first
            return rows.reshape(blocks, BLOCK, 1, width)

        index = RNG.choice(np.arange(BLOCK, cache_rows - BLOCK), (t, 1), replace=False).astype(np.int32)
        index[0, 0] = 5  # a slot of the block read before the scatter
        k = RNG.standard_normal((t, 1, 1, width)).astype(np.float32)

        # The same numpy array for both parameters.
        cache = RNG.standard_normal((blocks, BLOCK, 1, width)).astype(np.float32)
        expected = want(cache, index, k)
        report = run(step, cache, index, k, cache)
        self.assert_simulated(report)
        np.testing.assert_array_equal(cache, expected)
        # One tensor, written in place: the only output is the cache under its first name, and nothing copies
        # it. A copy of the cache cut by the loop's vec tile [8, 1, 1, width] is blocks * 128 / 8 = 1024 tiles
        # of a TLOAD and a TSTORE each, per iteration; the scatters, the block's add and its write-back take
        # fewer instructions than that copy has tiles.
        copy_tiles = cache_rows // tile
        self.assertEqual([output["name"] for output in report["outputs"]], ["k_in"])
        self.assertLess(report["instructions"], copy_tiles)

        # The same torch tensor for both, as PyPTO's test passes it.
        import torch
        tensor = torch.from_numpy(RNG.standard_normal((blocks, BLOCK, 1, width)).astype(np.float32))
        expected = want(tensor.numpy(), index, k)
        report = run(step, tensor, torch.from_numpy(index), torch.from_numpy(k), tensor)
        self.assert_simulated(report)
        np.testing.assert_array_equal(tensor.numpy(), expected)
        self.assertLess(report["instructions"], copy_tiles)

        # Distinct arrays after the aliased calls: the kernel is traced again, k_in is updated in place (PyPTO's
        # scatter_update) and k_out receives the whole updated cache at every iteration, then the block read
        # before the loop (its write-back must come after the loop's copies).
        cache = RNG.standard_normal((blocks, BLOCK, 1, width)).astype(np.float32)
        out = np.zeros_like(cache)
        scattered = cache.reshape(cache_rows, width).copy()
        scattered[index.reshape(-1)] = k.reshape(t, width)
        expected = want(cache, index, k)
        report = run(step, cache, index, k, out)
        self.assert_simulated(report)
        np.testing.assert_array_equal(cache.reshape(cache_rows, width), scattered)
        np.testing.assert_array_equal(out, expected)
        self.assertEqual([output["name"] for output in report["outputs"]], ["k_in", "k_out"])
        self.assertGreater(report["instructions"], 2 * copy_tiles * t // tile)

    def test_overlapping_views_of_one_buffer_are_refused_when_the_kernel_writes_one(self):
        rows, width = 256, 32

        @pypto.frontend.jit
        def update(x: pypto.Tensor([rows, width], pypto.DT_FP32), out: pypto.Tensor([rows, width], pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(64, 32)
            out[:] = pypto.add(x, 1.0)

        buffer = np.zeros((2 * rows, width), np.float32)
        with self.assertRaises(pypto.KernelError) as raised:
            update(buffer[:rows], buffer[rows // 2:rows // 2 + rows])
        self.assertIn("arguments 'x' (float32[256, 32]) and 'out' (float32[256, 32], at +16384 bytes from it) are "
                      "overlapping views of one buffer, and the kernel writes 'out'", str(raised.exception))
        self.assertIn("test_scatter_rows.py", str(raised.exception))

        # Overlapping views that the kernel only reads are fine (each is its own copy).
        @pypto.frontend.jit
        def total(x: pypto.Tensor([rows, width], pypto.DT_FP32), y: pypto.Tensor([rows, width], pypto.DT_FP32),
                  out: pypto.Tensor([rows, width], pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(64, 32)
            out[:] = pypto.add(x, y)

        buffer = RNG.standard_normal((2 * rows, width)).astype(np.float32)
        out = np.zeros((rows, width), np.float32)
        report = run(total, buffer[:rows], buffer[rows // 2:rows // 2 + rows], out)
        self.assert_simulated(report)
        np.testing.assert_allclose(out, buffer[:rows] + buffer[rows // 2:rows // 2 + rows], rtol=1e-6, atol=0)

    def test_an_index_outside_the_cache_is_an_error_naming_the_line(self):
        blocks, width = 4, 32

        @pypto.frontend.jit
        def update(cache: pypto.Tensor([blocks, BLOCK, 1, width], pypto.DT_FP32),
                   index: pypto.Tensor([1, 8], pypto.DT_INT32), src: pypto.Tensor([1, 8, 1, width], pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(1, 8, 1, 32)
            cache.move(pypto.scatter_update(cache, -2, pypto.add(index, 500), src))

        cache = np.zeros((blocks, BLOCK, 1, width), np.float32)
        index = (np.arange(8, dtype=np.int32) * 2).reshape(1, 8)  # 500 + 12 = 512 is the first past slot 511
        src = np.ones((1, 8, 1, width), np.float32)
        with self.assertRaises(Exception) as raised:
            update(cache, index, src)
        self.assertIn("test_scatter_rows.py", str(raised.exception))
        self.assertIn("index 512", str(raised.exception))


if __name__ == "__main__":
    unittest.main()
