"""Convolution, pooling, upsampling."""

import torch
import torch.nn.functional as F


class Conv2dPool(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.c2 = torch.nn.Conv2d(8, 8, 3, padding=2, dilation=2, groups=4, bias=False)
        self.dw = torch.nn.Conv2d(8, 8, 5, padding="same", groups=8)

    def forward(self, x):
        y = self.dw(self.c2(F.relu(self.c1(x))))
        return F.max_pool2d(y, 2), F.avg_pool2d(y, 3, stride=1, padding=1), F.max_pool2d(y, 3, 2, ceil_mode=True)


def conv2d_pool():
    torch.manual_seed(21)
    return Conv2dPool(), (torch.randn(1, 3, 16, 12),)


class Conv1dConv3d(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv1d(4, 6, 3, padding=1)
        self.c3 = torch.nn.Conv3d(2, 3, (1, 3, 3))

    def forward(self, a, b):
        return F.avg_pool1d(self.c1(a), 2), F.avg_pool3d(self.c3(b), (1, 2, 2))


def conv1d_conv3d():
    torch.manual_seed(22)
    return Conv1dConv3d(), (torch.randn(2, 4, 10), torch.randn(1, 2, 3, 8, 8))


class Upsample(torch.nn.Module):
    def forward(self, x):
        return (F.interpolate(x, scale_factor=2, mode="nearest"),
                F.interpolate(x, size=(7, 9), mode="bilinear", align_corners=False),
                F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True))


def upsample():
    torch.manual_seed(23)
    return Upsample(), (torch.randn(1, 2, 4, 5),)


class AdaptivePool(torch.nn.Module):
    def forward(self, x):
        return F.adaptive_avg_pool2d(x, (1, 1)), F.adaptive_avg_pool2d(x, 2), F.adaptive_max_pool2d(x, 2)


def adaptive_pool():
    torch.manual_seed(24)
    return AdaptivePool(), (torch.randn(2, 3, 8, 8),)
