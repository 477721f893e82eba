"""PyPTO's own GLM-4.5 attention (models/glm_v4_5/glm_attention.py in a PyPTO checkout), for the validation case
that replays PyPTO's Stitch tuning of it (docs/zh/tutorials/debug/performance.md, "Stitch调优").

PyPTO's jit takes the softmax scale and its tile settings as Python objects, which a project cannot pass, so
the entry here is a jit whose arguments are tensors only and whose body is PyPTO's kernel body, unchanged,
called with the settings of the test case the guide measured (b 8, s1 1, s2 16K, 12 query heads, one KV head,
head dim 128, blocks of 128; PyPTO's `ifa_b8_s1_1_s2_16k`). The checkout comes from $PTO_PYPTO_CHECKOUT
(`pto validate --pypto DIR` sets it); nothing of PyPTO is bundled.

The pass options are those of the kernel the guide measured (March 2026: `cube_l1_reuse_setting` {0: 4}; its
`pg_upper_bound` 1536 is left out, as PyPTO no longer has that option); `stitch_function_max_num`, the option
the guide varies, is set by each configuration's project.

Host-side plumbing only: the module imports `torch._dynamo.allow_in_graph` for its torch wrapper, which
Debian's torch 1.13 lacks; when it is missing an identity stand-in is registered before the import. It never
touches the kernel.
"""
import math
import os
import sys
import types

_CHECKOUT = os.environ.get("PTO_PYPTO_CHECKOUT", "")
if not _CHECKOUT:
    raise ImportError("this kernel wraps PyPTO's own GLM attention: give a PyPTO checkout "
                      "(pto validate --pypto DIR, or PTO_PYPTO_CHECKOUT)")
sys.path.insert(0, os.path.join(_CHECKOUT, "models", "glm_v4_5"))

try:
    import torch._dynamo  # noqa: F401  (torch 2)
except ImportError:
    _dynamo = types.ModuleType("torch._dynamo")
    _dynamo.allow_in_graph = lambda function: function
    sys.modules["torch._dynamo"] = _dynamo

import pypto  # noqa: E402
import glm_attention as _glm  # noqa: E402

_CASE = _glm.get_case_config("ifa_b8_s1_1_s2_16k")
_SOFTMAX_SCALE = 1.0 / math.sqrt(_CASE["qd"])
_TILES = _CASE["tile_config"]

D = pypto.DYNAMIC
_JIT = dict(pass_options={"cube_l1_reuse_setting": {0: 4}},
            runtime_options={"stitch_function_max_num": 128})


@pypto.frontend.jit(**_JIT)
def glm_attention(
    q: pypto.Tensor([D, ...], pypto.DT_BF16),
    k: pypto.Tensor([D, ...], pypto.DT_BF16),
    v: pypto.Tensor([D, ...], pypto.DT_BF16),
    block_table: pypto.Tensor([D, ...], pypto.DT_INT32),
    kv_act_seqs: pypto.Tensor([D], pypto.DT_INT32),
    atten_out: pypto.Tensor([D, ...], pypto.DT_BF16),
):
    _glm.ifa_func_kernel.__wrapped__(q, k, v, block_table, kv_act_seqs, atten_out, _SOFTMAX_SCALE, _TILES)
