#!/usr/bin/env python3
"""Which summation order of mla_prolog_quant's k-path matmul puts kr on the golden's side of each bf16 rounding.

PyPTO's models/deepseek_v32_exp/deepseekv32_mla_prolog_quant.py::test_b64_s64k2_pa_nd_bf16_d compares kr (RoPE of
the last 64 columns of bf16(x @ w_dkvkr), a 7 168-term float32 sum) with torch's CPU result at atol 1e-4,
rtol 2^-7 and no mismatch allowed. This script makes the case's x, w_dkvkr, cos, sin and cache_index from the
case's seed (the same random stream as the script: its block table's randperm first, whose length depends on
s2, then the tensors in the script's order), computes the k path's sum in several orders, rounds each to bf16,
applies the golden's RoPE (float32, then bf16) and counts the kr elements that fail the script's rule against
torch's CPU matmul (the golden) and against the exactly rounded sum.

    /usr/bin/python3 scripts/pypto_mla_kr_order.py            # s2 = 16K (the runner's reduced shape) and 64K

Orders: torch's CPU float32 matmul (the golden's); the exact sum (float64) rounded once; the cube's order as
PTO Studio's functional simulator follows it (ExpandFunction cuts k by the cube tile's kL0, 64 for this case on
the 950 machine, each TMATMUL sums its 64 products and L0C adds the steps in float32 in k order), with each
step's 64-term sum either exact or a float32 matmul; a plain sequential float32 sum over k.
"""
import math
import sys

import numpy as np
import torch

B, S, S1, H, Q_LORA, N1, NOPE, ROPE, KV_LORA, BLOCK = 64, 2, 2, 7168, 1536, 128, 128, 64, 512, 128
SEED, KL0 = 5, 64


def case_data(s2):
    """The case's tensors the k path reads, drawn in the script's order from its seed."""
    torch.manual_seed(SEED)
    blocks_per_row = math.ceil(s2 / BLOCK)
    block_ids = torch.arange(0, B * blocks_per_row)
    block_ids = block_ids[torch.randperm(block_ids.size(0))].to(torch.int32)
    table = block_ids.reshape(B, blocks_per_row)
    positions = [s2 - S1 + j for j in range(S1)]
    cache_index = torch.tensor([[int(table[i, p // BLOCK]) * BLOCK + p % BLOCK for p in positions] for i in range(B)])
    bf16 = torch.bfloat16
    x = torch.empty([B, S, H]).uniform_(-1, 1).to(bf16)
    torch.empty([H, Q_LORA]).uniform_(-0.1, 0.1)  # w_dq
    torch.empty([Q_LORA, N1 * (NOPE + ROPE)]).uniform_(-0.1, 0.1)  # w_uqqr
    w_dkvkr = torch.empty([H, KV_LORA + ROPE]).uniform_(-0.1, 0.1).to(bf16)
    torch.empty([N1, NOPE, KV_LORA]).uniform_(-0.1, 0.1)  # w_uk
    torch.empty([Q_LORA]).uniform_(-1, 1)  # gamma_cq
    torch.empty([KV_LORA]).uniform_(-1, 1)  # gamma_ckv
    cos = torch.empty([B, S, ROPE]).uniform_(-0.1, 0.1).to(bf16)
    sin = torch.empty([B, S, ROPE]).uniform_(-0.1, 0.1).to(bf16)
    return x.reshape(B * S, H).float(), w_dkvkr.float(), cos, sin, cache_index.reshape(-1)


def sums(x, w):
    """The k path's float32 sums in each order (the rope columns only; the others do not reach kr)."""
    w_rope = w[:, KV_LORA:]
    result = {"torch CPU float32 matmul (the golden)": torch.matmul(x, w)[:, KV_LORA:],
              "exact sum, rounded once": (x.double() @ w_rope.double()).float()}
    exact_steps = torch.zeros(x.shape[0], ROPE)
    float_steps = torch.zeros(x.shape[0], ROPE)
    for k0 in range(0, H, KL0):
        exact_steps = exact_steps + (x[:, k0:k0 + KL0].double() @ w_rope[k0:k0 + KL0].double()).float()
        float_steps = float_steps + x[:, k0:k0 + KL0] @ w_rope[k0:k0 + KL0]
    result[f"cube order: kL0 = {KL0} steps, each exact, float32 across"] = exact_steps
    result[f"cube order: kL0 = {KL0} steps, each a float32 matmul, float32 across"] = float_steps
    xs, ws = x.numpy(), w_rope.numpy()
    sequential = np.zeros((x.shape[0], ROPE), dtype=np.float32)
    for k in range(H):
        sequential = (sequential + np.outer(xs[:, k], ws[k]).astype(np.float32)).astype(np.float32)
    result["sequential float32 over k"] = torch.from_numpy(sequential)
    return result


def rope(k_sum, cos, sin):
    """The golden's apply_rotary_pos_emb_v2 on k: bf16 input, float32 arithmetic, bf16 result."""
    k = k_sum.to(torch.bfloat16).float().reshape(B, S, 1, ROPE // 2, 2).permute(0, 1, 2, 4, 3).reshape(B, S, 1, ROPE)
    rotated = torch.cat((-k[..., ROPE // 2:], k[..., :ROPE // 2]), dim=-1)
    return (k * cos.float().unsqueeze(2) + rotated * sin.float().unsqueeze(2)).to(torch.bfloat16).reshape(B * S, ROPE)


def off(kr, reference):
    """The script's compare(kr, ..., atol=0.0001, rtol=0.0078125): elements outside atol + rtol * |reference|."""
    kr, reference = kr.float(), reference.float()
    return (kr - reference).abs() > 0.0001 + 0.0078125 * reference.abs()


def report(s2):
    x, w, cos, sin, cache_index = case_data(s2)
    orders = sums(x, w)
    golden_sum = orders["torch CPU float32 matmul (the golden)"]
    exact_sum = orders["exact sum, rounded once"]
    golden_kr, exact_kr = rope(golden_sum, cos, sin), rope(exact_sum, cos, sin)
    print(f"s2 = {s2}: {B * S} tokens, {B * S * ROPE} kr values written")
    for name, k_sum in orders.items():
        kr = rope(k_sum, cos, sin)
        bad = off(kr, golden_kr)
        places = [f"({int(cache_index[t]) // BLOCK}, {int(cache_index[t]) % BLOCK}, 0, {d}) by "
                  f"{abs(kr[t, d].item() - golden_kr[t, d].item()):.6f}" for t, d in bad.nonzero().tolist()]
        print(f"  {name}: k_pe bf16 values unlike the golden's {(k_sum.to(torch.bfloat16) != golden_sum.to(torch.bfloat16)).sum().item()}, "
              f"unlike the exact sum's {(k_sum.to(torch.bfloat16) != exact_sum.to(torch.bfloat16)).sum().item()}; "
              f"kr elements failing against the golden {bad.sum().item()} {' '.join(places[:3])}, "
              f"against the exact order's kr {off(kr, exact_kr).sum().item()}")


if __name__ == "__main__":
    for s2 in [int(a) for a in sys.argv[1:]] or [16 * 1024, 64 * 1024]:
        report(s2)
