"""Half-precision models."""

import torch
import torch.nn.functional as F


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(16, 32)
        self.l2 = torch.nn.Linear(32, 8)
        self.ln = torch.nn.LayerNorm(32)

    def forward(self, x):
        return F.softmax(self.l2(F.gelu(self.ln(self.l1(x)))), -1)


def fp16_mlp():
    torch.manual_seed(40)
    return Mlp().half(), (torch.randn(4, 16).half(),)


class Conv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(4)

    def forward(self, x):
        return F.adaptive_avg_pool2d(F.relu(self.bn(self.c(x))), 1).flatten(1)


def fp16_conv():
    torch.manual_seed(41)
    return Conv().half(), (torch.randn(2, 3, 8, 8).half(),)
