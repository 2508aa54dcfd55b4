"""Shape, layout and indexing lowerings end to end: small PyTorch modules
exported with coreai_export, legalized with coreai-opt, run in coreai-run
and in coreai-core's interpreter, compared with eager PyTorch exactly
(these ops move data: bit-identical results are expected).

Shapes are asymmetric, dims negative, indices negative and duplicated,
slices stepped and clamped, so that a lowering that mixes up dims or
ignores a sign cannot pass on shapes alone."""


import numpy as np
import pytest

from toolchain import assert_coreai_run_matches, export_source, lower, run_coreai_core

HEADER = "import torch\nimport torch.nn.functional as F\n"

# (id, module source defining `factory()`, decomposition table)
CASES = [
    ("layout", '''
class M(torch.nn.Module):
    def forward(self, x, y):
        a = x.view(3, -1, 2)                 # [3, 10, 2]
        b = a.permute(-1, 0, 1)              # [2, 3, 10]
        c = x.transpose(0, -1).contiguous()  # [5, 4, 3]
        d = y.unsqueeze(-2).unsqueeze(0)     # [1, 3, 1, 5]
        e = d.squeeze(2)                     # [1, 3, 5]
        f = d.expand(2, -1, 4, 5)            # [2, 3, 4, 5]
        g = x.flatten(1)                     # [3, 20]
        h = y.reshape(-1)                    # [15]
        return b * 1, c * 1, e * 1, f * 1, g * 1, h * 1, x.mT * 1
def factory():
    torch.manual_seed(1)
    return M(), (torch.randn(3, 4, 5), torch.randn(3, 5))
''', "coreai"),
    ("slicing", '''
class M(torch.nn.Module):
    def forward(self, x):
        return (x[:, 1:7:2] * 1, x[-2:, -100:100] * 1, x[:, ::3] * 1, x[-1] * 1, x[:, -3] * 1,
                x.narrow(1, 2, 3) * 1, x.flip(0, -1) * 1, x.flip(1) * 1, x[1:2, 5:] * 1)
def factory():
    torch.manual_seed(2)
    return M(), (torch.randn(4, 9),)
''', "coreai"),
    ("cat_split", '''
class M(torch.nn.Module):
    def forward(self, x, y):
        a, b, c = torch.split(x, [1, 2, 4], dim=-1)
        p, q = torch.split(y, 2, dim=0)      # [2, 7], [1, 7] (uneven)
        u = torch.unbind(y, dim=1)
        s = torch.stack([a, a * 2], dim=1)
        t = torch.stack([p[0], q[0]], dim=-1)
        k = torch.chunk(x, 3, dim=1)
        return (torch.cat([c, a, b], dim=-1), torch.cat([x, x[:1]], dim=0), s, t,
                u[0] * 1, u[6] * 1, k[2] * 1, torch.cat([y.float(), y.float()], 1))
def factory():
    torch.manual_seed(3)
    return M(), (torch.randn(3, 7), torch.randn(3, 7))
''', "coreai"),
    ("cat_split_undecomposed", '''
class M(torch.nn.Module):
    def forward(self, x, y):
        return (torch.stack([x, y], dim=-1), torch.unbind(x, 1)[1], x.transpose(-1, 0),
                torch.roll(x, shifts=(1, -2), dims=(0, 1)), torch.roll(y, 5),
                torch.split(x, 3, dim=1)[1], torch.tile(x, (2,)))
def factory():
    torch.manual_seed(4)
    return M(), (torch.randn(2, 5), torch.randn(2, 5))
''', "none"),
    ("repeat_pad", '''
class M(torch.nn.Module):
    def forward(self, x, z):
        return (x.repeat(2, 1, 1, 3), torch.tile(x, (2, 1)), x.expand(4, -1, -1),
                F.pad(x, (2, 1, 0, 3), value=-1.5), F.pad(x, (-1, 2, 1, -1)),
                F.pad(z, (2, 1, 1, 2), mode="reflect"), F.pad(z, (1, 3, 2, 0), mode="replicate"),
                F.pad(z[0], (2, 3), mode="reflect"), F.pad(z[0], (0, 2), mode="replicate"),
                F.pixel_shuffle(z.reshape(1, 8, 3, 2), 2), F.pixel_unshuffle(z, 2))
def factory():
    torch.manual_seed(5)
    return M(), (torch.randn(1, 3, 5), torch.randn(2, 4, 6))
''', "coreai"),
    ("gather_scatter", '''
class M(torch.nn.Module):
    def forward(self, x, idx, src, perm):
        return (torch.gather(x, -1, idx), torch.gather(x, 0, idx[:2, :3] % 4),
                x.scatter(1, perm, src), x.scatter(1, perm, 7.0), x.scatter_add(1, idx, src),
                x.scatter_reduce(1, idx, src, "sum", include_self=False),
                x.scatter_reduce(1, idx, src, "prod"),
                x.scatter_reduce(1, idx, src, "amax", include_self=False),
                x.scatter_reduce(1, idx, src, "amin"),
                torch.index_select(x, -1, idx[0]), torch.index_select(x, 0, idx[:, 0] % 4),
                x.scatter(0, perm[:2, :4] % 4, src[:2, :4]),
                x.scatter_reduce(1, idx, src, "mean"), x.scatter_reduce(1, idx, src, "mean", include_self=False),
                x.long().scatter_reduce(1, idx, src.long(), "mean", include_self=False),
                x.long().scatter_reduce(1, idx, src.long() * 3, "mean"))
def factory():
    torch.manual_seed(6)
    x = torch.randint(-9, 9, (4, 6)).float()
    idx = torch.randint(0, 6, (4, 5))
    perm = torch.stack([torch.randperm(6)[:5] for _ in range(4)])
    return M(), (x, idx, torch.randint(-5, 5, (4, 5)).float(), perm)
''', "coreai"),
    ("index_tensor", '''
class M(torch.nn.Module):
    def forward(self, x, i, j, k):
        return (x[i], x[:, j], x[i, j], x[i.unsqueeze(1), j], x[:, :, k], x[i, :, k],
                x[:, i, k], x[-1, j] * 1)
def factory():
    torch.manual_seed(7)
    return M(), (torch.randn(4, 5, 6), torch.tensor([0, -1, 2, -4, 1]),
                 torch.tensor([4, -5, 3, 0, -2]), torch.tensor([-6, 5, 0, 2, -3]))
''', "coreai"),
    ("index_put_masked", '''
class M(torch.nn.Module):
    def forward(self, x, i, j, v, m, w, ids):
        a = x.index_put((i,), v)
        b = x.index_put((i,), v, accumulate=True)
        c = x.index_put((i, j), v[:, 0], accumulate=True)
        d = x.index_put((i, j), torch.tensor(5.0))
        e = x.masked_fill(m, float("-inf"))
        f = torch.masked_scatter(x, m, v.repeat(3, 2))
        g = F.embedding(ids, w)
        return a, b, c, d, e, f, g, x.masked_fill(m[0], 2.5)
def factory():
    torch.manual_seed(8)
    x = torch.randint(-9, 9, (5, 4)).float()
    return M(), (x, torch.tensor([1, -1, 1, 0]), torch.tensor([3, 0, 3, -2]),
                 torch.randint(-5, 5, (4, 4)).float(), torch.rand(5, 4) > 0.5,
                 torch.randn(7, 3), torch.tensor([[0, 6, 3], [2, 2, 1]]))
''', "coreai"),
    ("misc_undecomposed", '''
class M(torch.nn.Module):
    def forward(self, x, s, r, m):
        return (F.pixel_unshuffle(x, 2), x.masked_fill(m, -3.0),
                torch.slice_scatter(x, s, dim=-1, start=1, end=6, step=2),
                torch.select_scatter(x, r, 2, -1), x.squeeze(0), torch.full_like(x, 2.0),
                torch.zeros_like(x), torch.ones_like(m), x.clone().fill_(1.5), x.index_select(-2, r[0, 0, :2].long() % 4))
def factory():
    torch.manual_seed(10)
    return M(), (torch.randn(1, 2, 4, 6), torch.randn(1, 2, 4, 3), torch.randint(0, 9, (1, 2, 6)).float(),
                 torch.rand(1, 2, 4, 6) > 0.5)
''', "none"),
    ("creators_undecomposed", '''
class M(torch.nn.Module):
    def forward(self, x, m):
        return (torch.arange(5) * 1, torch.arange(-3, 4) * 1, x.new_zeros(2, 3), x.new_ones(3), x.new_full((2,), 7.0),
                x.masked_fill(m, torch.tensor(-1.5)), x.flatten() * 1, x.unflatten(1, (2, 2)) * 1)
def factory():
    torch.manual_seed(11)
    return M(), (torch.randn(3, 4), torch.rand(3, 4) > 0.5)
''', "none"),
    ("dynamic_batch", '''
class M(torch.nn.Module):
    def forward(self, x):
        return (x.expand(-1, 3, -1) * 1, x.unsqueeze(0).expand(2, -1, -1, -1) * 1, x[:, -1] * 1,
                x.permute(2, 0, 1) * 1, x.flip(0) * 1, x[:, :, ::2] * 1, torch.cat([x, x], 1), x.squeeze(1) * 1,
                torch.stack([x, x], -1), torch.split(x, 3, dim=2)[1] * 1, x.repeat(1, 2, 1), F.pad(x, (1, -1)),
                torch.roll(x, 1, 2), F.pixel_shuffle(x.reshape(-1, 4, 1, 1), 2) * 1, x.unsqueeze(2).expand(-1, -1, 3, -1) * 1)
def factory():
    torch.manual_seed(12)
    return M(), (torch.randn(3, 1, 4),)
''', "coreai"),
    ("bool_mask_put", '''
class M(torch.nn.Module):
    def forward(self, x, m, r):
        return (x.index_put((r,), torch.tensor(3.0)), x.index_put((m,), torch.tensor([1.5]), accumulate=True),
                x.index_put((m,), torch.tensor(-4.0)))
def factory():
    torch.manual_seed(13)
    return M(), (torch.randn(4, 3), torch.rand(4, 3) > 0.5, torch.tensor([True, False, True, True]))
''', "coreai"),
    ("dynamic_indexing", '''
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(10, 5)
    def forward(self, x, ids, j):
        idx = (x[:, :3].abs() * 10).long() % 6
        return (torch.gather(x, 1, idx), x.scatter_add(1, idx, x[:, 3:]), self.emb(ids), x[:, j] * 1,
                torch.index_select(x, 1, j[0] % 6), x.unsqueeze(-1)[:, :, j[0] * 0] * 1)
def factory():
    torch.manual_seed(15)
    return M(), (torch.randn(3, 6), torch.randint(0, 10, (5, 4)), torch.tensor([[5, -1], [0, 2], [-6, 3]]))
''', "coreai"),
    ("scatter_nan", '''
class M(torch.nn.Module):
    def forward(self, x, idx, src):
        return (x.scatter_reduce(1, idx, src, "amax"), x.scatter_reduce(1, idx, src, "amin", include_self=False),
                x.scatter_reduce(1, idx, src, "amax", include_self=False))
def factory():
    torch.manual_seed(16)
    x = torch.randn(3, 5)
    x[2, 1] = float("nan")
    src = torch.randn(3, 4)
    src[0, 1] = float("nan")
    src[1, 3] = float("nan")
    return M(), (x, torch.tensor([[0, 1, 1, 4], [2, 2, 0, 3], [1, 1, 4, 0]]), src)
''', "coreai"),
    ("pad_modes_undecomposed", '''
class M(torch.nn.Module):
    def forward(self, x):
        return (F.pad(x, (2, 1, 1, 3), mode="circular"), F.pad(x, (1, 2), mode="reflect"),
                F.pad(x, (0, 3, 2, 0), mode="replicate"), F.pad(x, (1, -2, 0, 1), value=2.5),
                torch.repeat_interleave(x, 2, dim=-1), torch.repeat_interleave(x, 3),
                torch.diagonal(x, 0, 1, 2), torch.diagonal(x, 1, -1, 1), torch.diagonal(x, -1, 0, 2),
                torch.diagonal(x, 5, 1, 2))
def factory():
    torch.manual_seed(17)
    return M(), (torch.randn(2, 3, 4),)
''', "none"),
    ("index_put_patterns", '''
class M(torch.nn.Module):
    def forward(self, x, i, k, v):
        a = x.clone(); a[i, :, k] = v                      # non-adjacent: broadcast dims first
        b = x.clone(); b[:, i] = 7.0                       # leading slice
        c = x.clone(); c[i, :, k] += v
        d = x.clone(); d[:, :, k] += 1.0
        return a, b, c, d
def factory():
    torch.manual_seed(18)
    x = torch.randint(-9, 9, (3, 4, 5)).float()
    return M(), (x, torch.tensor([0, -1, 2]), torch.tensor([4, 1, -5]), torch.randint(-5, 5, (3, 4)).float())
''', "coreai"),
    ("creators", '''
class M(torch.nn.Module):
    def forward(self, x):
        n = torch.arange(2, 11, 3)
        f = torch.arange(0.5, 2.0, 0.25)
        return (x + n, x.unsqueeze(-1) * f, torch.full((2, 3), -2.5) + x[:2, :3],
                torch.zeros_like(x) + x, torch.ones(3, 1) * x, torch.empty(2, 3).fill_(4.0) * 0 + x[:2, :3])
def factory():
    torch.manual_seed(9)
    return M(), (torch.randn(3, 3),)
''', "coreai"),
]


# Cases exported with a dynamic dim (`--dynamic-dims`, with an explicit range).
DYNAMIC_DIMS = {"dynamic_batch": "x:0=2:64", "dynamic_indexing": "x:0=2:64,ids:0=2:64"}


def export(tmp_path, source, table, dynamic=None):
    return export_source(tmp_path, HEADER + source, "--decompositions", table,
                         *(["--dynamic-dims", dynamic] if dynamic else []))


def legalize(tmp_path, aten, table):
    core = tmp_path / "coreai.mlir"
    text = lower(aten, core, f"legalize-aten-to-coreai{{table={table}}}")
    assert "aten." not in text and "func." not in text
    return core, text


@pytest.mark.parametrize("name,source,table", CASES, ids=[c[0] for c in CASES])
def test_matches_pytorch_exactly_in_both_executors(tmp_path, name, source, table):
    aten = export(tmp_path, source, table, DYNAMIC_DIMS.get(name))
    core, text = legalize(tmp_path, aten, table)
    assert_coreai_run_matches(core, tmp_path / "in.npz", tmp_path / "expected.npz", 0, 0)
    with np.load(tmp_path / "expected.npz") as z:
        expected = {k: z[k] for k in z.files}
    with np.load(tmp_path / "in.npz") as z:
        inputs = {k: z[k] for k in z.files}
    ours = run_coreai_core(text, inputs, tmp_path)
    for key, want in expected.items():
        got = ours[key]
        assert got.shape == want.shape, key
        np.testing.assert_array_equal(got.astype(want.dtype), want, err_msg=key)


BOOL_MASK_GATHER = """
func.func @main(%x: tensor<4x3xf32> {coreai.name = "x"}, %r: tensor<4xi1> {coreai.name = "r"}, %m: tensor<4x3xi1> {coreai.name = "m"}) -> (tensor<?x3xf32> {coreai.name = "a"}, tensor<?xf32> {coreai.name = "b"}) {
  %0 = aten.index.Tensor %x, %r {indices_present = array<i1: true>} : (tensor<4x3xf32>, tensor<4xi1>) -> tensor<?x3xf32>
  %1 = aten.index.Tensor %x, %m {indices_present = array<i1: true>} : (tensor<4x3xf32>, tensor<4x3xi1>) -> tensor<?xf32>
  return %0, %1 : tensor<?x3xf32>, tensor<?xf32>
}
"""


def test_boolean_mask_gather_matches_pytorch(tmp_path):
    """x[mask] has a data-dependent size, which the exporter only gives with
    symbolic-size ops lowered elsewhere; the aten IR is written by hand and
    the expected values come from eager PyTorch."""
    import torch

    aten = tmp_path / "aten.mlir"
    aten.write_text(BOOL_MASK_GATHER)
    core, text = legalize(tmp_path, aten, "coreai")
    torch.manual_seed(14)
    x, r, m = torch.randn(4, 3), torch.tensor([True, False, True, True]), torch.rand(4, 3) > 0.5
    inputs = {"x": x.numpy(), "r": r.numpy(), "m": m.numpy()}
    expected = {"a": x[r].numpy(), "b": x[m].numpy()}
    np.savez(tmp_path / "in.npz", **inputs)
    np.savez(tmp_path / "expected.npz", **expected)
    assert_coreai_run_matches(core, tmp_path / "in.npz", tmp_path / "expected.npz", 0, 0)
    ours = run_coreai_core(text, inputs, tmp_path)
    for key, want in expected.items():
        np.testing.assert_array_equal(ours[key], want, err_msg=key)
