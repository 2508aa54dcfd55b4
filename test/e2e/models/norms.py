"""Normalizations."""

import torch


class BatchLayerNorm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = torch.nn.BatchNorm2d(4)
        self.ln = torch.nn.LayerNorm([6])
        self.bn.running_mean.uniform_(-1, 1)
        self.bn.running_var.uniform_(0.5, 2)

    def forward(self, x):
        return self.bn(x), self.ln(x), torch.nn.functional.normalize(x, dim=1)


def batch_layer_norm():
    torch.manual_seed(25)
    return BatchLayerNorm(), (torch.randn(2, 4, 5, 6),)


class GroupInstanceNorm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gn = torch.nn.GroupNorm(2, 6)
        self.inorm = torch.nn.InstanceNorm2d(6, affine=True)

    def forward(self, x):
        return self.gn(x), self.inorm(x)


def group_instance_norm():
    torch.manual_seed(26)
    return GroupInstanceNorm(), (torch.randn(2, 6, 5, 5),)
