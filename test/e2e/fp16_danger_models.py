"""Models whose fp32 results are ordinary numbers but whose usual
formulations overflow fp16 on the way (conversion guide §9.1 and §5.6):
softplus/mish/logsumexp/logcumsumexp/log-sigmoid on inputs from -20 to 20,
softmax written by hand, norms over activations in the hundreds, attention
with logits above 11, a small Llama-style block. Each factory returns
(module, inputs); `test_fp16_danger.py` converts them and runs them with
every value rounded through fp16."""

import torch
import torch.nn.functional as F


def ramp(*shape, lo=-20.0, hi=20.0):
    """`lo`..`hi` evenly over `shape`, in a scrambled but fixed order."""
    n = 1
    for s in shape:
        n *= s
    g = torch.Generator().manual_seed(n)
    return torch.linspace(lo, hi, n)[torch.randperm(n, generator=g)].reshape(shape)


class Softplus(torch.nn.Module):
    def forward(self, x):
        return (F.softplus(x), F.softplus(x, beta=1.5, threshold=25.0),
                F.softplus(x, beta=0.75, threshold=12.0))


class Mish(torch.nn.Module):
    def forward(self, x):
        return F.mish(x), x * torch.tanh(F.softplus(x))


class LogSumExp(torch.nn.Module):
    def forward(self, x):
        return torch.logsumexp(x, dim=-1), torch.logsumexp(x, dim=0, keepdim=True)


class LogCumSumExp(torch.nn.Module):
    def forward(self, x):
        return torch.logcumsumexp(x, dim=-1), torch.logcumsumexp(x, dim=0)


class LogSigmoid(torch.nn.Module):
    def forward(self, x):
        return F.logsigmoid(x), torch.log(torch.sigmoid(x))


class Softmax(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1), torch.log_softmax(x, dim=-1), torch.log_softmax(x, dim=0)


class HandWritten(torch.nn.Module):
    """The naive forms users write: log(1+exp(x)), log(sum(exp(x))),
    exp(x)/sum(exp(x))."""

    def forward(self, x):
        e = torch.exp(x)
        return (torch.log(1 + torch.exp(x)), torch.log1p(torch.exp(x)),
                torch.log(torch.sum(torch.exp(x), dim=-1)), e / e.sum(dim=-1, keepdim=True))


class RMSNorms(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.RMSNorm(24, eps=1e-6)
        with torch.no_grad():
            self.norm.weight.copy_(torch.linspace(0.5, 1.5, 24))

    def forward(self, x):
        h = x * 20  # activations in the hundreds: x² passes 65504 at |x| > 256
        by_hand = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)
        return self.norm(h), by_hand


class Norms(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = torch.nn.LayerNorm(24)
        self.gn = torch.nn.GroupNorm(2, 4)

    def forward(self, x, img):
        h = x * 20
        var = h.var(dim=-1, keepdim=True, unbiased=False)
        return (self.ln(h), self.gn(img * 20), (h - h.mean(-1, keepdim=True)) / torch.sqrt(var + 1e-5),
                torch.linalg.vector_norm(h, dim=-1), h / h.norm(dim=-1, keepdim=True))


class Attention(torch.nn.Module):
    """Scores reach ±40: exp of the raw logits overflows at 11.09."""

    def forward(self, q, k, v):
        s = q @ k.transpose(-1, -2) / 2.0
        p = torch.exp(s) / torch.exp(s).sum(-1, keepdim=True)
        return torch.softmax(s, dim=-1) @ v, p @ v, F.scaled_dot_product_attention(q, k, v, scale=0.5)


class LlamaBlock(torch.nn.Module):
    """Residual stream in the hundreds; returns the block output and the
    attention branch (the residual alone would hide a zeroed branch)."""

    def __init__(self, d=32, heads=2, hidden=48):
        super().__init__()
        torch.manual_seed(0)
        self.heads = heads
        self.n1 = torch.nn.RMSNorm(d, eps=1e-5)
        self.n2 = torch.nn.RMSNorm(d, eps=1e-5)
        self.qkv = torch.nn.Linear(d, 3 * d, bias=False)
        self.o = torch.nn.Linear(d, d, bias=False)
        self.gate = torch.nn.Linear(d, hidden, bias=False)
        self.up = torch.nn.Linear(d, hidden, bias=False)
        self.down = torch.nn.Linear(hidden, d, bias=False)
        with torch.no_grad():
            self.qkv.weight.mul_(4.0)  # logits well above 11

    def forward(self, x):
        b, t, d = x.shape
        h = self.n1(x)
        q, k, v = self.qkv(h).split(d, dim=-1)
        q, k, v = (z.reshape(b, t, self.heads, -1).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        attn = self.o(a.transpose(1, 2).reshape(b, t, d))
        x = x + attn
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h)), attn


def softplus():
    return Softplus(), (ramp(8, 16),)


def mish():
    return Mish(), (ramp(8, 16),)


def logsumexp():
    return LogSumExp(), (ramp(6, 20),)


def logcumsumexp():
    return LogCumSumExp(), (ramp(6, 20),)


def log_sigmoid():
    return LogSigmoid(), (ramp(8, 16),)


def softmax():
    return Softmax(), (ramp(6, 20),)


def hand_written():
    return HandWritten(), (ramp(6, 20),)


def rms_norm():
    return RMSNorms(), (ramp(3, 5, 24),)


def norms():
    return Norms(), (ramp(3, 5, 24), ramp(2, 4, 3, 5))


def attention():
    return Attention(), (ramp(2, 5, 8, lo=-4, hi=4), ramp(2, 7, 8, lo=-4, hi=4), ramp(2, 7, 8, lo=-3, hi=3))


def llama_block():
    return LlamaBlock(), (ramp(1, 6, 32, lo=-300, hi=300),)
