"""A concat whose result is read through a view at a row known only at run time, in one pinned subgraph
(DeepSeek-V4's compressed flash attention, compress_flash_attention_impl.py:186: two [128, 512] bf16 key blocks
concatenated, then the 128 rows from a computed offset assembled into the keys). The halves reach that read
through global memory (stored before its load), so their buffers are free once stored: the subgraph needs two
128 KiB tiles at a time, not the halves and the read's tile together (393 216 bytes against a2's 196 608 before).
Run through the compiler and the functional simulator, compared exactly with torch (copies and one bf16 add)."""
import unittest

import torch

import pypto

import kernel_checks

BLOCK, DIM, BLOCKS = 128, 512, 8


@pypto.frontend.jit
def window_keys(kv: pypto.Tensor([BLOCKS * BLOCK, DIM], pypto.DT_BF16),
                table: pypto.Tensor([4], pypto.DT_INT32),
                out: pypto.Tensor([4 * BLOCK, DIM], pypto.DT_BF16)):
    pypto.set_vec_tile_shapes(2 * BLOCK, DIM)
    for i in pypto.loop(2, name="L", idx_name="i"):
        pypto.set_pass_options(sg_set_scope=2)
        first = pypto.view(kv, [BLOCK, DIM], [table[0] * BLOCK, 0])
        second = pypto.view(kv, [BLOCK, DIM], [table[1] * BLOCK, 0])
        both = pypto.concat([first, second], dim=0)
        window = pypto.view(both, [BLOCK, DIM], [table[2] + i, 0], valid_shape=[BLOCK, DIM])
        keys = pypto.tensor([2 * BLOCK, DIM], kv.dtype, "keys")
        keys[0:BLOCK, :] = window
        keys[BLOCK:2 * BLOCK, :] = pypto.view(kv, [BLOCK, DIM], [table[3] * BLOCK, 0])
        pypto.set_pass_options(sg_set_scope=-1)
        pypto.set_vec_tile_shapes(64, DIM)
        out[i * 2 * BLOCK:, :] = pypto.add(keys, keys)


class ConcatReadAtRuntimeRow(unittest.TestCase):
    def test_fits_the_unified_buffer_and_matches_torch(self):
        torch.manual_seed(5)
        kv = torch.randn(BLOCKS * BLOCK, DIM).to(torch.bfloat16)
        table = torch.tensor([3, 5, 17, 1], dtype=torch.int32)
        out = torch.zeros(4 * BLOCK, DIM, dtype=torch.bfloat16)
        window_keys(kv, table, out)
        kernel_checks.assert_functional(self)
        both = torch.cat([kv[3 * BLOCK:4 * BLOCK], kv[5 * BLOCK:6 * BLOCK]])
        for i in range(2):
            keys = torch.cat([both[17 + i:17 + i + BLOCK], kv[BLOCK:2 * BLOCK]])
            self.assertTrue(torch.equal(out[i * 2 * BLOCK:(i + 1) * 2 * BLOCK], keys + keys), f"iteration {i}")


if __name__ == "__main__":
    unittest.main()
