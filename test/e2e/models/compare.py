"""Comparisons, boolean masks, where, clamp."""

import torch


class ComparisonsMasks(torch.nn.Module):
    def forward(self, x, y):
        m = (x > y) & (x != 0) | ~(x <= -1)
        return (x == y, x >= 0.5, x < y, m, torch.logical_xor(x > 0, y > 0), x.masked_fill(m, -1e4),
                torch.isnan(x), torch.isinf(x), m.any(), m.all(dim=1))


def comparisons_masks():
    torch.manual_seed(7)
    return ComparisonsMasks(), (torch.randn(3, 4) * 11, torch.randn(3, 4))


class WhereClamp(torch.nn.Module):
    def forward(self, x, lo, hi):
        return torch.where(x > 0, x, 0.1 * x), torch.clamp(x, lo, hi), torch.clamp(x, -2, 2), torch.where(x < lo, lo, x)


def where_clamp():
    torch.manual_seed(8)
    return WhereClamp(), (torch.randn(2, 5) * 20, torch.full((5,), -3.0), torch.full((2, 5), 4.0))
