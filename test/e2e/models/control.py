"""Control flow (torch.cond, while_loop) and mutated buffers (states)."""

import torch
from torch._higher_order_ops.while_loop import while_loop


class CondBranch(torch.nn.Module):
    def forward(self, x):
        def yes(x):
            return x.sin() * 2

        def no(x):
            return x.cos() - 1

        return torch.cond(x.sum() > 0, yes, no, (x,))


def cond_branch():
    torch.manual_seed(29)
    return CondBranch(), (torch.randn(3, 4),)


class WhileLoopCounter(torch.nn.Module):
    def forward(self, i, x):
        def cond_fn(i, x):
            return i < 5

        def body_fn(i, x):
            return i + 1, x * 2 + 1

        return while_loop(cond_fn, body_fn, (i, x))


def while_loop_counter():
    torch.manual_seed(30)
    return WhileLoopCounter(), (torch.tensor(0), torch.randn(2, 3))


class StatefulBuffer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(1))
        self.register_buffer("cache", torch.zeros(2, 4))
        self.register_buffer("scale", torch.full((4,), 0.5))

    def forward(self, x):
        self.count.add_(1)
        self.cache.copy_(self.cache * 0.9 + x)
        return x * self.scale + self.count


def stateful_buffer():
    torch.manual_seed(31)
    return StatefulBuffer(), (torch.randn(2, 4),)
