"""Attention: plain SDPA (masks, causal), nn.MultiheadAttention."""

import torch
import torch.nn.functional as F


class SdpaPlain(torch.nn.Module):
    def forward(self, q, k, v, mask):
        return (F.scaled_dot_product_attention(q, k, v),
                F.scaled_dot_product_attention(q, k, v, is_causal=True),
                F.scaled_dot_product_attention(q, k, v, attn_mask=mask))


def sdpa_plain():
    torch.manual_seed(27)
    q, k, v = (torch.randn(1, 2, 5, 8) for _ in range(3))
    return SdpaPlain(), (q, k, v, torch.rand(5, 5) > 0.3)


class MhaModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = torch.nn.MultiheadAttention(16, 4, batch_first=True)

    def forward(self, x):
        out, w = self.mha(x, x, x)
        return out, w


def mha_module():
    torch.manual_seed(28)
    return MhaModule(), (torch.randn(2, 5, 16),)
