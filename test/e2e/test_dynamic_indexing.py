"""Indexing, upsampling, symbolic scalars, views and expands with dynamic
dims: index.Tensor (one index, `x[:, j]`, two indices of one shape),
index_select and index_put (one and two indices, values broadcast at run
time) with dynamic data and index lengths; upsample_nearest2d /
upsample_bilinear2d with a dynamic batch and channel count, and with
dynamic spatial dims under power-of-two scale factors; masked_scatter; scalar_tensor
of a symbolic size, views with two symbolic sizes, expand of a unit dim to
a symbolic size, argmax / argmin over every dim of a dynamic shape, and
constant_pad_nd, pixel_shuffle / pixel_unshuffle (dynamic batch) and repeat
along dynamic dims.
Each module is exported with dynamic dims (`--dynamic-dims`), converted
with coreai-pipeline and run at three sizes within the dims' ranges in
coreai-run and in coreai-core's interpreter, compared with eager PyTorch."""

import numpy as np

from test_lower_complex_symbolic import family_tests

# name → (module source, --dynamic-dims spec, inputs(n, rng), tolerance).
FAMILIES = {
    # `i` holds distinct rows (index_put without accumulate writes each
    # once); `k` may repeat and be negative (gathers only).
    "index": ('''
class M(torch.nn.Module):
    def forward(self, x, i, k, j):
        w = torch.arange(5, dtype=torch.float32)
        return (x[k], x[:, j], torch.index_select(x, 0, i), torch.index_select(x, 1, j % 5), x[i, i % 5],
                x.index_put((i,), w), x.index_put((i,), (i.float() * 0.5).unsqueeze(1)),
                x.index_put((i, i % 5), i.float() + 100.0))
def factory():
    return M(), (torch.randn(6, 5), torch.tensor([4, 0, 2]), torch.tensor([1, -1, 1, 3]), torch.tensor([0, 4, -2]))
''', "x:0=3:32,i:0=1:16,k:0=1:16,j:0=1:16", lambda n, rng: {
        "x": rng.normal(size=(n + 2, 5)).astype(np.float32),
        "i": rng.permutation(n + 2)[:n].astype(np.int64),
        "k": rng.integers(-(n + 2), n + 2, size=2 * n).astype(np.int64),
        "j": rng.integers(-5, 5, size=n + 1).astype(np.int64),
    }, 0),
    "upsample": ('''
F = torch.nn.functional
class M(torch.nn.Module):
    def forward(self, x, y):
        return (F.interpolate(x, scale_factor=2, mode="nearest"), F.interpolate(x, size=(6, 7), mode="nearest"),
                F.interpolate(x, scale_factor=2, mode="bilinear"),
                F.interpolate(x, size=(7, 9), mode="bilinear", align_corners=True),
                F.interpolate(y, scale_factor=2, mode="nearest"), F.interpolate(y, scale_factor=(4, 2), mode="bilinear"))
def factory():
    return M(), (torch.randn(2, 3, 4, 5), torch.randn(1, 2, 3, 4))
''', "x:0=1:16,x:1=1:8,y:2=1:32,y:3=1:32", lambda n, rng: {
        "x": rng.normal(size=(n, 3 if n < 5 else 2, 4, 5)).astype(np.float32),
        "y": rng.normal(size=(1, 2, n, 2 * n + 1)).astype(np.float32),
    }, 1e-5),
    # masked_scatter with a dynamic shape (mask and source of x's shape).
    "masked": ('''
class M(torch.nn.Module):
    def forward(self, x):
        return x.masked_scatter(x > 0, x * 2 + 1), x.masked_scatter(x < 0.5, -x)
def factory():
    return M(), (torch.randn(4, 3),)
''', "x:0=1:16", lambda n, rng: {"x": rng.normal(size=(n, 3)).astype(np.float32)}, 0),
    # Padding, pixel shuffle and repeat: x is [n, 8, 3, 4] (pixel shuffle
    # needs static spatial dims, and says so), y is [3, m] with m
    # independent of n; repeat also along the dynamic dims.
    "pad_shuffle_repeat": ('''
F = torch.nn.functional
class M(torch.nn.Module):
    def forward(self, x, y):
        return (F.pad(x, (1, 2, 0, 1), value=-3.5), F.pad(y, (2, 0)), F.pad(y, (1, 1, 1, 0), value=7.0),
                F.pixel_shuffle(x, 2), F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2),
                x.repeat(2, 1, 1, 3), y.repeat(1, 3), y.repeat(2, 2, 1))
def factory():
    return M(), (torch.randn(2, 8, 3, 4), torch.randn(3, 5))
''', "x:0=1:16,y:1=1:16", lambda n, rng: {
        "x": rng.normal(size=(n, 8, 3, 4)).astype(np.float32),
        "y": rng.normal(size=(3, n % 4 + 1)).astype(np.float32),
    }, 0),
    # x: [n, m, 6] with n and m independent.
    "symbolic": ('''
class M(torch.nn.Module):
    def forward(self, x, y):
        n, m = x.shape[0], x.shape[1]
        return (x.reshape(n, m, 2, 3), x.reshape(m, n, 6), x.view(n, m, 3, 2).sum(-1), x * torch.scalar_tensor(n),
                torch.scalar_tensor(m * 2, dtype=torch.int64), torch.argmax(x), torch.argmin(x),
                y.expand(n, 3), y.expand(m, n, 3), x.flatten(0, 1))
def factory():
    return M(), (torch.randn(3, 4, 6), torch.randn(1, 3))
''', "x:0=1:16,x:1=1:16", lambda n, rng: {
        "x": rng.normal(size=(n, n % 3 + 2, 6)).astype(np.float32),
        "y": rng.normal(size=(1, 3)).astype(np.float32),
    }, 0),
}


converted, test_dynamic_family_matches_eager_in_both_executors = family_tests(FAMILIES)
