"""Small models inside the aicode writer's subset (test_aicode_writer.py)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(8, 32), nn.Linear(32, 4)

    def forward(self, x):
        return torch.softmax(self.b(torch.relu(self.a(x))), -1)


def mlp():
    torch.manual_seed(31)
    return Mlp(), (torch.randn(3, 8),)


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 16, 3, stride=2)
        self.fc = nn.Linear(16 * 3 * 3, 10)

    def forward(self, x):
        y = F.max_pool2d(torch.relu(self.c1(x)), 2)
        y = F.silu(self.c2(y))
        return self.fc(y.flatten(1))


def convnet():
    torch.manual_seed(32)
    return ConvNet(), (torch.randn(2, 3, 16, 16),)


class Elementwise(nn.Module):
    def forward(self, x, y):
        a = torch.sigmoid(x - y) * torch.tanh(x * y) + torch.exp(-x.abs())
        b = torch.where(x > y, torch.sqrt(y.abs() + 1), F.gelu(x))
        c = torch.cat([a, b], 1)[:, 1:] / (torch.cat([x, y], 1)[:, 1:].abs() + 4)
        return c.transpose(0, 1), torch.maximum(x, y) * torch.minimum(x, y) ** 2


def elementwise():
    torch.manual_seed(33)
    return Elementwise(), (torch.randn(4, 6), torch.randn(4, 6))


class Reductions(nn.Module):
    def forward(self, x, n):
        m = x > 0
        return (x.sum((0, 2), keepdim=True), x.mean(-1), x.amax(1), x.amin((0, 2)), x.prod(2),
                m.any(1), m.all(0), x.argmax(-1), x.argmin(1), n.sum(0), n.amax(1), x.var(1),
                torch.logsumexp(x, 2))


def reductions():
    torch.manual_seed(35)
    return Reductions(), (torch.randn(2, 3, 4), torch.randint(-50, 50, (5, 3)))


class Composites(nn.Module):
    """Layer, group, batch and RMS norms, attention with a mask, average
    pooling: composite graphs and invokes."""

    def __init__(self):
        super().__init__()
        self.ln, self.gn = nn.LayerNorm(8), nn.GroupNorm(2, 4)
        self.bn = nn.BatchNorm2d(4).eval()
        self.bn.running_mean.uniform_(-1, 1)
        self.bn.running_var.uniform_(0.5, 2)
        self.rms = nn.RMSNorm(8)

    def forward(self, x, q, mask):
        y = self.gn(x) + self.bn(x)
        y = F.avg_pool2d(y, 2) + self.ln(x)[:, :, ::2, ::2]
        a = F.scaled_dot_product_attention(q, q * 2, q, attn_mask=mask)
        return y, self.rms(a)


def composites():
    torch.manual_seed(36)
    return Composites(), (torch.randn(2, 4, 8, 8), torch.randn(1, 2, 5, 8), torch.rand(5, 5) > 0.3)


class ShapesIndexing(nn.Module):
    """Multi-result split, sort/top-k (argsort), tile, expand_dims (conv1d),
    scatter along an axis and scatter_nd (index_put), interpolation, and
    cumulative sums and products (scan)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(3, 4, 3, padding=1)

    def forward(self, x, idx, upd, img, seq):
        a, b, c = torch.split(x, [1, 2, 3], dim=1)
        v, i = torch.topk(x, 3, dim=-1)
        s = torch.sort(x, dim=0)[0]
        t = x[:, :2].repeat(2, 3)
        sc = x.scatter(1, idx, upd) + x.scatter_add(1, idx, upd)
        put = x.index_put((torch.tensor([3, 0]),), upd[:2].repeat(1, 2))
        up = F.interpolate(img, scale_factor=2, mode="nearest") + F.interpolate(img, scale_factor=2,
                                                                               mode="bilinear")
        return (torch.cat([c, a, b], 1), v, i, s, t, sc, put, up, self.conv(seq), x.cumsum(1),
                x.cumprod(0))


def shapes_indexing():
    torch.manual_seed(37)
    return ShapesIndexing(), (torch.randn(4, 6), torch.randint(0, 6, (4, 3)), torch.randn(4, 3),
                              torch.randn(1, 2, 4, 5), torch.randn(2, 3, 10))
