"""A model calling a custom torch.library op (imports as aten.operator)."""

import torch

_lib = torch.library.Library("coreai_test", "FRAGMENT")
_lib.define("scaled_add(Tensor a, Tensor b, float scale) -> Tensor")


@torch.library.impl(_lib, "scaled_add", "CompositeExplicitAutograd")
def _scaled_add(a, b, scale):
    return a + scale * b


@torch.library.register_fake("coreai_test::scaled_add", lib=_lib)
def _scaled_add_fake(a, b, scale):
    return torch.empty_like(a)


class CustomOp(torch.nn.Module):
    def forward(self, a, b):
        return torch.ops.coreai_test.scaled_add(a, b, 2.0).relu()


def custom_op():
    torch.manual_seed(43)
    return CustomOp(), (torch.randn(3, 4), torch.randn(3, 4))
