"""Conv blocks: group norm, pixel shuffle, reflection padding, transposed conv."""

import torch
import torch.nn.functional as F


class ConvGnBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(8, 16, 3, padding=1)
        self.gn = torch.nn.GroupNorm(4, 16)
        self.c2 = torch.nn.Conv2d(16, 8, 1)

    def forward(self, x):
        return x + self.c2(F.silu(self.gn(self.c1(x))))


def conv_gn_block():
    torch.manual_seed(37)
    return ConvGnBlock(), (torch.randn(1, 8, 12, 10),)


class PixelShuffleReflect(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pad = torch.nn.ReflectionPad2d(1)
        self.c = torch.nn.Conv2d(3, 12, 3)
        self.ps = torch.nn.PixelShuffle(2)

    def forward(self, x):
        y = self.ps(self.c(self.pad(x)))
        return y, F.pad(x, (2, 2, 1, 1), mode="replicate"), F.pad(x, (1, 0, 0, 2), value=0.5), F.pixel_unshuffle(y, 2)


def pixel_shuffle_reflect():
    torch.manual_seed(38)
    return PixelShuffleReflect(), (torch.randn(1, 3, 8, 8),)


class TransposedDecoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.t1 = torch.nn.ConvTranspose2d(16, 8, 4, stride=2, padding=1)
        self.t2 = torch.nn.ConvTranspose2d(8, 3, 3, stride=2, padding=1, output_padding=1)
        self.t1d = torch.nn.ConvTranspose1d(4, 2, 3, stride=2)

    def forward(self, x, s):
        return torch.tanh(self.t2(F.relu(self.t1(x)))), self.t1d(s)


def transposed_decoder():
    torch.manual_seed(39)
    return TransposedDecoder(), (torch.randn(1, 16, 4, 4), torch.randn(1, 4, 6))
