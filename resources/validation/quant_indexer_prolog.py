"""PyPTO's own QuantIndexerProlog (models/deepseek_v32_exp in a PyPTO checkout), for the validation case that
replays PyPTO's tuning of it (docs/zh/tutorials/debug/performance_case_quantindexerprolog.md).

PyPTO's jit takes its tile settings as Python objects (IndexerPrologQuantConfigs, IndexerPrologQuantAttr),
which a project cannot pass, so each entry here is a jit whose arguments are tensors only and whose body is
PyPTO's kernel body, unchanged, called with the settings of one tuning step. The checkout comes from
$PTO_PYPTO_CHECKOUT (`pto validate --pypto DIR` sets it); nothing of PyPTO is bundled.

The settings are those of PyPTO's test `test_b4_s1_2_s2_64k` (B 4, MTP1, 64K keys):
- `tuned_cube_tiles`: the test's own (m 16, k 512 or 1024, n 128 / 64 / 32);
- `uniform_cube_tiles`: the guide's starting cube tiles, [128, 128] in m, k and n for all four matmuls
  (everything else as the test sets it).
L1 reuse on the Query-Linear is a pass option, set by each case's project.
"""
import os
import sys

_CHECKOUT = os.environ.get("PTO_PYPTO_CHECKOUT", "")
if not _CHECKOUT:
    raise ImportError("this kernel wraps PyPTO's own QuantIndexerProlog: give a PyPTO checkout "
                      "(pto validate --pypto DIR, or PTO_PYPTO_CHECKOUT)")
sys.path.insert(0, os.path.join(_CHECKOUT, "models", "deepseek_v32_exp"))

import pypto  # noqa: E402
from lightning_indexer_prolog_quant_impl import (  # noqa: E402
    IndexerPrologQuantAttr, IndexerPrologQuantConfigs, lightning_indexer_prolog_quant)

_TEST_SETTINGS = dict(unroll_list=[32, 16, 8, 4, 2, 1], cube_l1_reuse_setting={1: 4}, block_size=128,
                      t_sub_tile=1, chunk_size=2, vec_nbuffer_setting={-1: 1})
_TUNED = IndexerPrologQuantConfigs(
    q_linear=[16, 16, 512, 512, 128, 128], q_hd=[32, 32, 128, 128, 128, 128],
    k_linear=[16, 16, 512, 512, 64, 64], w_linear=[16, 16, 1024, 1024, 32, 32], **_TEST_SETTINGS)
_UNIFORM = IndexerPrologQuantConfigs(
    q_linear=[128] * 6, q_hd=[128] * 6, k_linear=[128] * 6, w_linear=[128] * 6, **_TEST_SETTINGS)
_ATTRS = IndexerPrologQuantAttr(eps=1e-6, layerout_query="TND", layerout_key="PA_BSND")

D, S = pypto.DYNAMIC, pypto.STATIC
NZ = pypto.TileOpFormat.TILEOP_NZ
_JIT = dict(pass_options={"enable_slice": False}, runtime_options={"stitch_function_max_num": 128,
                                                                   "device_sched_mode": 1})


def _entry(name, configs):
    """A jit of tensors only that runs PyPTO's kernel body with `configs`."""
    def kernel(
        x_in: pypto.Tensor([D, S], pypto.DT_BF16), q_norm_in: pypto.Tensor([D, S], pypto.DT_INT8),
        q_norm_scale_in: pypto.Tensor([D, S], pypto.DT_FP32),
        w_qb_in: pypto.Tensor([S, S], pypto.DT_INT8, format=NZ), w_qb_scale_in: pypto.Tensor([S, S], pypto.DT_FP32),
        wk_in: pypto.Tensor([S, S], pypto.DT_BF16, format=NZ), w_proj_in: pypto.Tensor([S, S], pypto.DT_BF16, format=NZ),
        ln_gamma_k_in: pypto.Tensor([S], pypto.DT_BF16), ln_beta_k_in: pypto.Tensor([S], pypto.DT_BF16),
        cos_idx_rope_in: pypto.Tensor([D, S], pypto.DT_BF16), sin_idx_rope_in: pypto.Tensor([D, S], pypto.DT_BF16),
        hadamard_q_in: pypto.Tensor([S, S], pypto.DT_BF16), hadamard_k_in: pypto.Tensor([S, S], pypto.DT_BF16),
        k_cache: pypto.Tensor([D, S, S, S], pypto.DT_INT8), k_cache_scale: pypto.Tensor([D, S, S, S], pypto.DT_FP16),
        k_cache_index_in: pypto.Tensor([D], pypto.DT_INT64), q_int8_out: pypto.Tensor([D, S, S], pypto.DT_INT8),
        q_scale_out: pypto.Tensor([D, S, S], pypto.DT_FP16), weights_out: pypto.Tensor([D, S], pypto.DT_FP16),
    ):
        # PyPTO's test passes one tensor as both a cache input and its output; so does this wrapper.
        lightning_indexer_prolog_quant.__wrapped__(
            x_in, q_norm_in, q_norm_scale_in, w_qb_in, w_qb_scale_in, wk_in, w_proj_in, ln_gamma_k_in,
            ln_beta_k_in, cos_idx_rope_in, sin_idx_rope_in, hadamard_q_in, hadamard_k_in, k_cache, k_cache_scale,
            k_cache_index_in, q_int8_out, q_scale_out, k_cache, k_cache_scale, weights_out, configs, _ATTRS)
    kernel.__name__ = kernel.__qualname__ = name
    return pypto.frontend.jit(**_JIT)(kernel)


tuned_cube_tiles = _entry("tuned_cube_tiles", _TUNED)
uniform_cube_tiles = _entry("uniform_cube_tiles", _UNIFORM)
