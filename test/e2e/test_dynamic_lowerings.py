"""Lowerings that read no size of a dynamic dim, or read it at run time:
group norm, creators (full / zeros / ones / empty and their `_like` and
`new_` forms), pooling (avg_pool2d, _adaptive_avg_pool2d,
max_pool2d_with_indices) and convolution, each in a small module exported
with a dynamic dim (`--dynamic-dims`), converted with coreai-pipeline and run
at three sizes within the dim's range in coreai-run and in coreai-core's
interpreter, compared with eager PyTorch."""

import numpy as np
import pytest

from test_lower_complex_symbolic import HEADER, check_both, convert, eager, export

# name → (module source, --dynamic-dims spec, input shapes per size, tolerance)
# Every module is built with a fixed seed; inputs are drawn per size.
FAMILIES = {
    # native_group_norm with a dynamic batch, and with dynamic batch and
    # height together (the grouped reshape then reads both sizes at run time).
    "group_norm": ('''
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gn = torch.nn.GroupNorm(2, 4)
        with torch.no_grad():
            self.gn.weight.copy_(torch.linspace(0.5, 2, 4))
            self.gn.bias.copy_(torch.linspace(-1, 1, 4))
    def forward(self, x, y):
        return self.gn(x), torch.nn.functional.group_norm(y, 3)
def factory():
    return M(), (torch.randn(3, 4, 5, 5), torch.randn(2, 6, 7))
''', "x:0=1:16,y:0=1:16,y:2=2:32", lambda n: [(n, 4, 5, 5), (n + 1, 6, 2 * n + 1)], 1e-5),
    # Creators of a dynamic shape: from symbolic sizes and from `_like`.
    "full": ('''
class M(torch.nn.Module):
    def forward(self, x):
        n = x.shape[0]
        return (torch.zeros(n, 3), torch.ones(n, 2, dtype=torch.int64), torch.full((2, n), 2.5),
                torch.full_like(x, -1.5), torch.zeros_like(x), torch.ones_like(x, dtype=torch.int32),
                x.new_zeros((n, 4)) + 1, torch.empty_like(x).fill_(3.0), x + torch.ones(n, 1))
def factory():
    return M(), (torch.randn(3, 5),)
''', "x:0=1:16", lambda n: [(n, 5)], 0),
    "pooling": ('''
class M(torch.nn.Module):
    def forward(self, x, s):
        v, i = torch.nn.functional.max_pool2d(x, 3, stride=2, padding=1, return_indices=True)
        av, ai = torch.nn.functional.adaptive_max_pool2d(x, 3, return_indices=True)
        return (torch.nn.functional.avg_pool2d(x, 2), torch.nn.functional.avg_pool2d(x, 3, 2, 1, ceil_mode=True),
                torch.nn.functional.adaptive_avg_pool2d(x, (2, 2)), torch.nn.functional.adaptive_avg_pool2d(x, 3),
                v, i, torch.nn.functional.max_pool2d(x, 2), av, ai, torch.nn.functional.avg_pool3d(s, 2))
def factory():
    return M(), (torch.randn(3, 4, 8, 8), torch.randn(2, 3, 4, 4, 4))
''', "x:0=1:16,x:1=1:8,s:0=1:16", lambda n: [(n, 4 if n < 5 else 2, 8, 8), (n + 1, 3, 4, 4, 4)], 1e-5),
    "convolution": ('''
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.c2 = torch.nn.Conv2d(4, 6, 3, padding=1)
        self.g2 = torch.nn.Conv2d(4, 4, 3, stride=2, groups=2)
        self.c1 = torch.nn.Conv1d(4, 5, 3)
        self.t2 = torch.nn.ConvTranspose2d(4, 3, 2, stride=2)
    def forward(self, x, s):
        return self.c2(x), self.g2(x), self.c1(s), self.t2(x)
def factory():
    return M(), (torch.randn(3, 4, 8, 8), torch.randn(3, 4, 10))
''', "x:0=1:16,s:0=1:16", lambda n: [(n, 4, 8, 8), (n + 2, 4, 10)], 1e-4),
}


@pytest.fixture(scope="module", params=sorted(FAMILIES))
def converted(request, tmp_path_factory):
    name = request.param
    source, dynamic, _, _ = FAMILIES[name]
    tmp = tmp_path_factory.mktemp(f"dyn_{name}")
    aten = export(tmp, source, dynamic)
    assert "tensor<?x" in aten.read_text()
    return (name, *convert(tmp, aten))


@pytest.mark.parametrize("n", [1, 4, 9])
def test_dynamic_family_matches_eager_in_both_executors(converted, n, tmp_path):
    name, core, text = converted
    source, _, shapes, tol = FAMILIES[name]
    rng = np.random.default_rng(n)
    args = {"group_norm": ["x", "y"], "full": ["x"]}.get(name, ["x", "s"])
    inputs = {a: rng.normal(size=s).astype(np.float32) * 2 for a, s in zip(args, shapes(n))}
    check_both(tmp_path, core, text, inputs, eager(source, inputs), tol)
