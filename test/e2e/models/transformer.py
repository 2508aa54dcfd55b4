"""Decoder block (RMSNorm, RoPE, GQA causal SDPA, SwiGLU) and a top-k MoE layer."""

import torch
import torch.nn.functional as F


class RMSNorm(torch.nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.ones(d) + 0.1 * torch.randn(d))

    def forward(self, x):
        x32 = x.float()
        return (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)).type_as(x) * self.weight


def rope(x, cos, sin):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin


class LlamaBlock(torch.nn.Module):
    def __init__(self, d=64, heads=4, kv_heads=2, hidden=128, seq=16):
        super().__init__()
        self.h, self.kv, self.hd = heads, kv_heads, d // heads
        self.q = torch.nn.Linear(d, heads * self.hd, bias=False)
        self.k = torch.nn.Linear(d, kv_heads * self.hd, bias=False)
        self.v = torch.nn.Linear(d, kv_heads * self.hd, bias=False)
        self.o = torch.nn.Linear(heads * self.hd, d, bias=False)
        self.gate = torch.nn.Linear(d, hidden, bias=False)
        self.up = torch.nn.Linear(d, hidden, bias=False)
        self.down = torch.nn.Linear(hidden, d, bias=False)
        self.n1, self.n2 = RMSNorm(d), RMSNorm(d)
        inv = 1.0 / (10000 ** (torch.arange(0, self.hd, 2).float() / self.hd))
        ang = torch.outer(torch.arange(seq).float(), inv)
        emb = torch.cat([ang, ang], -1)
        self.register_buffer("cos", emb.cos(), persistent=False)
        self.register_buffer("sin", emb.sin(), persistent=False)

    def forward(self, x):
        b, s, _ = x.shape
        h = self.n1(x)
        q = self.q(h).view(b, s, self.h, self.hd).transpose(1, 2)
        k = self.k(h).view(b, s, self.kv, self.hd).transpose(1, 2)
        v = self.v(h).view(b, s, self.kv, self.hd).transpose(1, 2)
        q, k = rope(q, self.cos[:s], self.sin[:s]), rope(k, self.cos[:s], self.sin[:s])
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        x = x + self.o(a.transpose(1, 2).reshape(b, s, -1))
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


def llama_block():
    torch.manual_seed(35)
    return LlamaBlock(), (torch.randn(2, 16, 64),)


class MoE(torch.nn.Module):
    def __init__(self, d=32, experts=4, hidden=64, k=2):
        super().__init__()
        self.k = k
        self.router = torch.nn.Linear(d, experts, bias=False)
        self.w1 = torch.nn.Parameter(torch.randn(experts, d, hidden) * 0.1)
        self.w2 = torch.nn.Parameter(torch.randn(experts, hidden, d) * 0.1)

    def forward(self, x):
        logits = self.router(x)
        weights, idx = torch.topk(F.softmax(logits, dim=-1), self.k, dim=-1)
        weights = weights / weights.sum(-1, keepdim=True)
        w1, w2 = self.w1[idx], self.w2[idx]  # (tokens, k, d, hidden)
        h = F.gelu(torch.einsum("td,tkdh->tkh", x, w1))
        y = torch.einsum("tkh,tkhd->tkd", h, w2)
        return (y * weights.unsqueeze(-1)).sum(1), idx


def moe_topk():
    torch.manual_seed(36)
    return MoE(), (torch.randn(10, 32),)


class LlamaBlockDynamicSeq(LlamaBlock):
    """The decoder block for any sequence length (exported with a dynamic
    one): the RoPE angles come from arange(s) rather than a slice of a
    fixed-length table."""

    def forward(self, x):
        b, s, _ = x.shape
        inv = 1.0 / (10000 ** (torch.arange(0, self.hd, 2).float() / self.hd))
        ang = torch.arange(s).float()[:, None] * inv[None, :]
        emb = torch.cat([ang, ang], -1)
        cos, sin = emb.cos(), emb.sin()
        h = self.n1(x)
        q = self.q(h).view(b, s, self.h, self.hd).transpose(1, 2)
        k = self.k(h).view(b, s, self.kv, self.hd).transpose(1, 2)
        v = self.v(h).view(b, s, self.kv, self.hd).transpose(1, 2)
        q, k = rope(q, cos, sin), rope(k, cos, sin)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        x = x + self.o(a.transpose(1, 2).reshape(b, s, -1))
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


def llama_block_dynamic_seq():
    torch.manual_seed(35)
    return LlamaBlockDynamicSeq().eval(), (torch.randn(2, 11, 64),)
