"""Indexing: gather, scatter, index.Tensor, index_put, masked ops, embedding."""

import torch


class GatherScatter(torch.nn.Module):
    def forward(self, x, idx, src):
        g = torch.gather(x, 1, idx)
        s = x.scatter(1, idx, src)
        r = x.scatter_add(1, idx, src)
        sr = x.scatter_reduce(1, idx, src, reduce="amax")
        return g, s, r, sr, torch.index_select(x, 0, idx[:, 0])


def gather_scatter():
    torch.manual_seed(17)
    x = torch.randn(4, 6)
    idx = torch.randint(0, 4, (4, 3))
    return GatherScatter(), (x, idx, torch.randn(4, 3))


class IndexTensor(torch.nn.Module):
    def forward(self, x, i, j):
        return x[i], x[:, j], x[i, j], x[i.unsqueeze(1), j]


def index_tensor():
    torch.manual_seed(18)
    return IndexTensor(), (torch.randn(5, 6), torch.tensor([0, 4, 2]), torch.tensor([1, 5, 3]))


class IndexPutMasked(torch.nn.Module):
    def forward(self, x, i, v, m):
        y = x.index_put((i,), v)
        z = x.index_put((i,), v, accumulate=True)
        return y, z, torch.masked_scatter(x, m, x * 2 + 1), x.masked_fill(m, 0.0)


def index_put_masked():
    torch.manual_seed(19)
    x = torch.randn(5, 4)
    return IndexPutMasked(), (x, torch.tensor([0, 3]), torch.randn(2, 4), torch.rand(5, 4) > 0.5)


class Embedding(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(50, 8)
        self.pos = torch.nn.Parameter(torch.randn(16, 8))

    def forward(self, ids):
        return self.emb(ids) + self.pos[: ids.shape[1]]


def embedding():
    torch.manual_seed(20)
    return Embedding(), (torch.randint(0, 50, (2, 10)),)
