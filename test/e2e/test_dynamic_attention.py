"""Attention and reductions with dynamic dims: scaled_dot_product_attention
over a dynamic sequence length (no mask, causal, causal GQA, a boolean mask
built from aranges of the length, a broadcast float mask), and var / std
(N read at run time), cummax / cummin, logcumsumexp and kthvalue along a
dynamic dim. Each module is exported with dynamic dims (`--dynamic-dims`),
converted with coreai-pipeline and run at three sizes within the dims'
ranges in coreai-run and in coreai-core's interpreter, compared with eager
PyTorch."""

import numpy as np

from test_lower_complex_symbolic import family_tests

# name → (module source, --dynamic-dims spec, inputs(n, rng), tolerance).
FAMILIES = {
    # One input, so the sequence length is one symbol: q, k and v are
    # projections of it (4 query heads, 2 key/value heads).
    "sdpa": ('''
F = torch.nn.functional
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.q, self.k, self.v = torch.nn.Linear(16, 32), torch.nn.Linear(16, 16), torch.nn.Linear(16, 16)
    def forward(self, x):
        b, s, _ = x.shape
        q = self.q(x).view(b, s, 4, 8).transpose(1, 2)
        k = self.k(x).view(b, s, 2, 8).transpose(1, 2)
        v = self.v(x).view(b, s, 2, 8).transpose(1, 2)
        kr, vr = k.repeat_interleave(2, 1), v.repeat_interleave(2, 1)
        pos = torch.arange(s)
        keep = pos[:, None] >= pos[None, :] - 1
        return (F.scaled_dot_product_attention(q, kr, vr), F.scaled_dot_product_attention(q, kr, vr, is_causal=True),
                F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True),
                F.scaled_dot_product_attention(q, kr, vr, attn_mask=keep),
                F.scaled_dot_product_attention(q, kr, vr, attn_mask=q[..., :1] * 0.5))
def factory():
    return M(), (torch.randn(1, 5, 16),)
''', "x:1=1:64", lambda n, rng: {"x": rng.normal(size=(1, 2 * n - 1 if n > 1 else 1, 16)).astype(np.float32)}, 1e-5),
    "reductions": ('''
class M(torch.nn.Module):
    def forward(self, x):
        cmv, cmi = torch.cummax(x, 0)
        cnv, cni = torch.cummin(x, 1)
        kv, ki = torch.kthvalue(x, 1, 0)
        sd, mean = torch.std_mean(x, 0)
        return (torch.var(x, 0), torch.std(x, 1, correction=0), torch.var(x), sd, mean,
                cmv, cmi, cnv, cni, torch.logcumsumexp(x, 0), torch.logcumsumexp(x, 1), kv, ki)
def factory():
    return M(), (torch.randn(4, 5),)
''', "x:0=1:32,x:1=1:32", lambda n, rng: {
        # Rounded to quarters: ties for cummax / cummin (the later index wins).
        "x": (np.round(rng.normal(size=(n, n % 4 + 2)) * 4) / 4).astype(np.float32),
    }, 1e-5),
}


converted, test_dynamic_family_matches_eager_in_both_executors = family_tests(FAMILIES)
