"""A module exported with a dynamic batch dim runs in coreai-run at batch
sizes other than the example's, matching eager PyTorch: `sym_size` and the
symbolic `view` sizes are evaluated at run time."""

import numpy as np
import pytest
import torch

from coreai_export.cli import build_parser, run
from models import EXPORT_FLAGS, dynamic
from toolchain import coreai_run



@pytest.fixture(scope="module")
def module(tmp_path_factory):
    out = tmp_path_factory.mktemp("dynamic") / "m.mlir"
    flags = EXPORT_FLAGS["dynamic_batch_mlp"]
    run(build_parser().parse_args(["--model", "models.dynamic:dynamic_batch_mlp", "-o", str(out), *flags]))
    assert "tensor<?x8xf32>" in out.read_text()
    return out


@pytest.mark.parametrize("batch", [1, 5, 64])
def test_dynamic_batch_runs_at_other_sizes(module, batch, tmp_path):
    x = np.random.default_rng(batch).normal(size=(batch, 8)).astype(np.float32) * 4
    np.savez(tmp_path / "in.npz", x=x)
    model, _ = dynamic.dynamic_batch_mlp()
    with torch.no_grad():
        expected = model(torch.from_numpy(x))
    np.savez(tmp_path / "expected.npz", **{f"output_{i}": e.numpy() for i, e in enumerate(expected)})
    r = coreai_run(module, "--inputs", tmp_path / "in.npz", "--compare", tmp_path / "expected.npz",
                   "--atol", "1e-5", "--rtol", "1e-5")
    assert r.returncode == 0, r.stdout + r.stderr


# A symbolic float (`n / 2`, `c ** 0.5`) or int (`round(n / 2)`) meets a
# tensor: ATen wraps it like a Python number, and the importer writes the
# node as a generic `aten.operator "aten::mul.Tensor"` taking the scalar
# (the typed op needs a tensor operand). `round(n / 2)` is Python's round,
# half to even: the sizes below make n / 2 and c / 2 end in .5 (3 → 2,
# 7 → 4, 5 → 2), where rounding half up or away from zero would differ.
# On f16, PyTorch's CPU mul/div read the scalar in f32 and round the result
# once: `xh * (n / 3)`, `xh / (c / 3)` and `xh * (c * 1000 + 1)` (numbers
# f16 cannot hold: an odd int above 2048 is one) match eager exactly only
# when the lowering and the aten-stage executor compute them in f32.
SYMBOLIC_SCALARS = '''
import torch
class M(torch.nn.Module):
    def forward(self, x, xi, xh):
        n, c = x.shape[0], x.shape[1]
        return (x * (n / 2), x * (c ** 0.5), x + n * 0.25, x - c / 4, x / round(n / 2), x * round(c / 2),
                xi * (n / 2), xi + round(c / 2), xh * (n / 2), xh * round(n / 2), xh * (n / 3), xh / (c / 3),
                xh * (c * 1000 + 1))
def factory():
    g = torch.Generator().manual_seed(0)
    return M(), (torch.randn(4, 4, generator=g) * 3, torch.randint(-50, 50, (2, 3), generator=g),
                 (torch.randn(2, 3, generator=g) * 5).half())
'''


@pytest.fixture(scope="module")
def symbolic_scalars(tmp_path_factory):
    from test_lower_complex_symbolic import convert, export

    tmp = tmp_path_factory.mktemp("symbolic_scalars")
    aten = export(tmp, SYMBOLIC_SCALARS, dynamic="x:0,x:1")
    assert 'aten.operator "aten::mul.Tensor"' in aten.read_text()
    return (aten, *convert(tmp, aten))


@pytest.mark.parametrize("n,c", [(3, 5), (7, 3), (6, 2)])
def test_symbolic_float_times_tensor_and_round_match_eager(symbolic_scalars, n, c, tmp_path):
    from test_lower_complex_symbolic import check_both, eager

    aten, core, text = symbolic_scalars
    rng = np.random.default_rng(n)
    inputs = {"x": rng.normal(size=(n, c)).astype(np.float32) * 3, "xi": rng.integers(-50, 50, (2, 3)),
              "xh": (rng.normal(size=(2, 3)) * 5).astype(np.float16)}
    # Exact: each output is one operation on the tensor in its dtype, with
    # the scalar rounded to that dtype's opmath type as PyTorch does.
    check_both(tmp_path, core, text, inputs, eager(SYMBOLIC_SCALARS, inputs), 0)
    r = coreai_run(aten, "--inputs", tmp_path / "run_in.npz", "--compare",
                   tmp_path / "run_expected.npz", "--atol", "0", "--rtol", "0")
    assert r.returncode == 0, r.stdout + r.stderr
