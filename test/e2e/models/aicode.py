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


class Summed(nn.Module):
    """Uses reduce_sum, which the aicode writer does not cover yet."""

    def forward(self, x):
        return torch.relu(x).sum(1)


def summed():
    torch.manual_seed(34)
    return Summed(), (torch.randn(4, 6),)
