"""Reductions."""

import torch


class Reductions(torch.nn.Module):
    def forward(self, x):
        return (x.sum(dim=(0, 2)), x.mean(dim=-1, keepdim=True), x.amax(1), x.amin(dim=(1, 2)),
                x.prod(dim=2), x.var(dim=1), x.std(dim=-1, keepdim=True), x.norm(dim=-1), x.mean())


def reductions():
    torch.manual_seed(9)
    return Reductions(), (torch.randn(2, 3, 4) * 5,)


class ArgmaxTopk(torch.nn.Module):
    def forward(self, x):
        v, i = torch.topk(x, 3, dim=-1)
        mx, imx = x.max(dim=0)
        return x.argmax(dim=-1), x.argmin(dim=0), v, i, mx, imx, torch.sort(x, dim=1)[0]


def argmax_topk():
    torch.manual_seed(10)
    return ArgmaxTopk(), (torch.randn(4, 7),)


class CumsumLogsumexp(torch.nn.Module):
    def forward(self, x):
        return x.cumsum(0), torch.logsumexp(x, dim=1), torch.cumprod(x, dim=1)


def cumsum_logsumexp():
    torch.manual_seed(11)
    return CumsumLogsumexp(), (torch.randn(3, 6),)
