"""Shape and layout: view, permute, cat/split, slicing, expand; dict outputs."""

import torch


class ReshapePermute(torch.nn.Module):
    def forward(self, x):
        y = x.reshape(2, 3, 20).permute(2, 0, 1).contiguous()
        z = x.flatten(1).unsqueeze(0).transpose(1, 2).squeeze(0)
        return y, z, x.view(-1), x.mT


def reshape_permute():
    torch.manual_seed(12)
    return ReshapePermute(), (torch.randn(6, 4, 5),)


class CatSplitStack(torch.nn.Module):
    def forward(self, x, y):
        a, b, c = torch.split(x, [1, 2, 3], dim=1)
        d = torch.chunk(y, 2, dim=0)
        return torch.cat([a, c, b], dim=1), torch.stack([x, x], dim=0), d[1], torch.unbind(y, 1)[0]


def cat_split_stack():
    torch.manual_seed(13)
    return CatSplitStack(), (torch.randn(4, 6), torch.randn(4, 3))


class SliceSelectFlip(torch.nn.Module):
    def forward(self, x):
        return x[:, 1:5:2], x[-1], x[..., ::-1] if False else torch.flip(x, [0, 1]), x.narrow(1, 2, 3), torch.roll(x, 2, 1)


def slice_select_flip():
    torch.manual_seed(14)
    return SliceSelectFlip(), (torch.randn(3, 8),)


class ExpandRepeatTile(torch.nn.Module):
    def forward(self, x):
        return x.expand(4, 3, 5), x.repeat(2, 1, 3), torch.tile(x, (2,)), x.repeat_interleave(2, dim=1)


def expand_repeat_tile():
    torch.manual_seed(15)
    return ExpandRepeatTile(), (torch.randn(1, 3, 5),)


class MultiOutputDict(torch.nn.Module):
    def forward(self, x):
        return {"double": x * 2, "shape": x.reshape(-1, 2), "mean": x.mean(0)}


def multi_output_dict():
    torch.manual_seed(16)
    return MultiOutputDict(), (torch.randn(4, 6),)
