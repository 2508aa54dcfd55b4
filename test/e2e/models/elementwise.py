"""Elementwise ops: unary math, broadcasting binaries, activations, Scalar overloads."""

import torch
import torch.nn.functional as F


class UnaryFloat(torch.nn.Module):
    def forward(self, x):
        a = torch.exp(x) + torch.log(x.abs() + 1) + torch.sqrt(x.abs()) + torch.rsqrt(x.abs() + 1)
        b = torch.sin(x) * torch.cos(x) + torch.tanh(x) - torch.atan(x) + torch.erf(x)
        c = torch.floor(x) + torch.ceil(x) + torch.round(x) + torch.trunc(x) + torch.sign(x)
        d = torch.reciprocal(x.abs() + 1) + torch.expm1(x) + torch.log1p(x.abs()) + torch.exp2(x)
        return a + b + c + d - torch.neg(x)


def unary_float():
    torch.manual_seed(0)
    return UnaryFloat(), (torch.randn(3, 5) * 4,)


class BinaryBroadcast(torch.nn.Module):
    def forward(self, x, y):
        return (x + y, x - 2.5 * y, x * y, x / y, torch.pow(x.abs(), y), torch.maximum(x, y),
                torch.minimum(x, y), torch.atan2(x, y), torch.fmod(x, y), torch.remainder(x, y))


def binary_broadcast():
    torch.manual_seed(1)
    return BinaryBroadcast(), (torch.randn(2, 3, 4) * 12, torch.randn(4) + 3)


class Activations(torch.nn.Module):
    def forward(self, x):
        return (F.relu(x), F.gelu(x), F.gelu(x, approximate="tanh"), F.silu(x), F.sigmoid(x),
                F.hardswish(x), F.hardsigmoid(x), F.leaky_relu(x, 0.1), F.elu(x), F.softplus(x),
                F.hardtanh(x, -2.0, 2.0), F.mish(x), F.softmax(x, -1), F.log_softmax(x, 1))


def activations():
    torch.manual_seed(2)
    return Activations(), (torch.randn(4, 6) * 11,)


class ScalarOverloads(torch.nn.Module):
    def forward(self, x):
        return x + 1, x - 2, x * 3.5, x / 4, x ** 2, 2 ** x, 1 - x, x.clamp(min=-1.0)


def scalar_overloads():
    torch.manual_seed(3)
    return ScalarOverloads(), (torch.randn(5, 2) * 3,)
