"""Integer arithmetic: true division of ints, sums past int32, floor/mod."""

import torch


class TrueDivision(torch.nn.Module):
    def forward(self, a, b):
        return a / b, torch.div(a, b, rounding_mode="floor"), torch.div(a, b, rounding_mode="trunc"), a / 3


def true_division():
    torch.manual_seed(4)
    a = torch.randint(-100, 100, (4, 5), dtype=torch.int64)
    b = torch.randint(1, 9, (4, 5), dtype=torch.int64)
    return TrueDivision(), (a, b)


class LargeSums(torch.nn.Module):
    def forward(self, x):
        return x.sum(), x.sum(dim=0), (x * 3).cumsum(1), x.to(torch.int32).sum(dtype=torch.int64)


def large_sums():
    torch.manual_seed(5)
    return LargeSums(), (torch.randint(2**30, 2**31 - 1, (6, 7), dtype=torch.int64),)


class FloorMod(torch.nn.Module):
    def forward(self, a, b):
        return a // b, a % b, torch.bitwise_and(a, b), a ^ b, ~a, a << 1, torch.abs(a)


def floor_mod():
    torch.manual_seed(6)
    a = torch.randint(-50, 50, (8,), dtype=torch.int32)
    b = torch.randint(1, 7, (8,), dtype=torch.int32)
    return FloorMod(), (a, b)
