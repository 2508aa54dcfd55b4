"""Complex-number and symbolic-size lowerings end to end: PyTorch modules
exported with coreai_export, converted with coreai-opt's coreai-pipeline,
run in coreai-run and in coreai-core's interpreter, compared with eager
PyTorch.

complex / polar / view_as_complex[_copy] / view_as_real[_copy] run with
static shapes and with a dynamic leading dim (the expand_dims/shrink_dims
forms). Symbolic sizes (sym_size.int and the Python operators torch.export
records on them: add, sub, mul, pow, mod, floordiv, truediv, sym_min,
sym_max, sym_float, ceil, floor, trunc) feed a graph output each and a
dynamic reshape, at batch sizes other than the example's; their results
are exact. A size comparison decides a torch.cond (both branches taken). `_local_scalar_dense` (`.item()`) returns a reduction's value."""

import os
import subprocess
import sys

import numpy as np
import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_legalize import BUILD, REPO, run_coreai_core  # noqa: E402

HEADER = "import math\nimport torch\nA = torch.ops.aten\n"

COMPLEX = '''
class M(torch.nn.Module):
    def forward(self, a, b):
        z = torch.complex(a, b) * torch.polar(a.abs(), b)
        w = A.view_as_complex_copy.default(torch.stack([a, b], -1))
        return (torch.view_as_real(z), A.view_as_real_copy.default(w),
                torch.view_as_real(torch.view_as_complex(torch.stack([b, -a], -1)) + w))
def factory():
    torch.manual_seed(21)
    return M(), (torch.randn(3, 5), torch.randn(3, 5))
'''

# One input, so that its dynamic dim is the only symbol.
COMPLEX_DYNAMIC = '''
class M(torch.nn.Module):
    def forward(self, x):
        z = torch.view_as_complex(x)
        w = A.view_as_complex_copy.default(x * 2)
        return torch.view_as_real(z * w), A.view_as_real_copy.default(z + w)
def factory():
    torch.manual_seed(24)
    return M(), (torch.randn(3, 5, 2),)
'''

SYMBOLIC = '''
class M(torch.nn.Module):
    def forward(self, x):
        n = x.shape[0]
        k = n * 2 + -n + n % 3 + n ** 2 - n // 2
        m = torch.sym_max(torch.sym_min(n, x.shape[1] * 4), 3)
        c = math.ceil(n / 3) + math.trunc(n * 0.5) + math.floor(n / 4)
        return x.reshape(n, 2, 2) * 2.0, k, m, c, n / 3, torch.sym_float(n) * 0.25
def factory():
    torch.manual_seed(22)
    return M(), (torch.randn(6, 4),)
'''

# A symbolic size decides a torch.cond (aten.cond → coreai.if on the
# tensor<i1> of `n > 4`).
SIZE_COND = '''
class M(torch.nn.Module):
    def forward(self, x):
        return torch.cond(x.shape[0] > 4, lambda x: x * 2.0, lambda x: x - 1.0, (x,))
def factory():
    torch.manual_seed(25)
    return M(), (torch.randn(6, 4),)
'''

LOCAL_SCALAR = '''
class M(torch.nn.Module):
    def forward(self, x):
        return x.max().item(), x.min().item(), (x > 0).sum().item(), x * 1
def factory():
    torch.manual_seed(23)
    return M(), (torch.randn(3, 4),)
'''


def export(tmp_path, source, dynamic=None):
    src = tmp_path / "m.py"
    src.write_text(HEADER + source)
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "tools", "coreai-export"))
    aten = tmp_path / "aten.mlir"
    r = subprocess.run(
        [sys.executable, "-m", "coreai_export", "--module-file", f"{src}:factory", "-o", str(aten),
         "--inputs-out", str(tmp_path / "in.npz"), "--expected-out", str(tmp_path / "expected.npz")]
        + (["--dynamic-dims", dynamic] if dynamic else []),
        capture_output=True, text=True, env=env,
    )
    assert r.returncode == 0, r.stderr
    return aten


def convert(tmp_path, aten):
    core = tmp_path / "coreai.mlir"
    r = subprocess.run(
        [os.path.join(BUILD, "coreai-opt"), str(aten), "--pass-pipeline=builtin.module(coreai-pipeline)",
         "-o", str(core)],
        capture_output=True, text=True,
    )
    assert r.returncode == 0, r.stderr
    text = core.read_text()
    assert "aten." not in text and "func." not in text
    return core, text


def eager(source, inputs):
    """Eager PyTorch outputs of `source` on `inputs`, named as the exporter
    names them (`output` for a single tensor, else `output_<i>`; Python ints
    and floats as 0-d int64 / float64 arrays)."""
    ns = {}
    exec(HEADER + source, ns)  # noqa: S102
    model, _ = ns["factory"]()
    with torch.no_grad():
        out = model(*[torch.from_numpy(v) for v in inputs.values()])
    if isinstance(out, torch.Tensor):
        return {"output": out.numpy()}
    return {f"output_{i}": (o.numpy() if isinstance(o, torch.Tensor) else np.array(o)) for i, o in enumerate(out)}


def check_both(tmp_path, core, text, inputs, expected, tol):
    np.savez(tmp_path / "run_in.npz", **inputs)
    np.savez(tmp_path / "run_expected.npz", **expected)
    r = subprocess.run(
        [os.path.join(BUILD, "coreai-run"), str(core), "--inputs", str(tmp_path / "run_in.npz"),
         "--compare", str(tmp_path / "run_expected.npz"), "--atol", str(tol), "--rtol", str(tol)],
        capture_output=True, text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    ours = run_coreai_core(text, inputs, tmp_path)
    for key, want in expected.items():
        got = np.asarray(ours[key])
        assert got.shape == want.shape, key
        assert got.dtype == want.dtype, key
        np.testing.assert_allclose(got, want, atol=tol, rtol=tol, err_msg=key)


def load(path):
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def test_complex_ops_match_pytorch_in_both_executors(tmp_path):
    aten = export(tmp_path, COMPLEX)
    for op in ("complex.default", "polar.default", "view_as_complex.default", "view_as_complex_copy.default",
               "view_as_real.default", "view_as_real_copy.default"):
        assert f"aten.{op}" in aten.read_text(), op
    core, text = convert(tmp_path, aten)
    assert "coreai.create_complex" in text and "coreai.real_part" in text and "coreai.imaginary_part" in text
    # polar's cos/sin and the complex product round in f32.
    check_both(tmp_path, core, text, load(tmp_path / "in.npz"), load(tmp_path / "expected.npz"), 1e-5)


@pytest.fixture(scope="module")
def dynamic_complex(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dyn_complex")
    aten = export(tmp, COMPLEX_DYNAMIC, "x:0=2:64")
    assert "tensor<?x5x2xf32>" in aten.read_text()
    return convert(tmp, aten)


@pytest.mark.parametrize("batch", [2, 7, 64])
def test_complex_ops_with_a_dynamic_dim_match_pytorch(dynamic_complex, batch, tmp_path):
    core, text = dynamic_complex
    assert "coreai.expand_dims" in text and "coreai.shrink_dims" in text
    rng = np.random.default_rng(batch)
    inputs = {"x": rng.normal(size=(batch, 5, 2)).astype(np.float32)}
    check_both(tmp_path, core, text, inputs, eager(COMPLEX_DYNAMIC, inputs), 1e-5)


@pytest.fixture(scope="module")
def symbolic(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("symbolic")
    aten = export(tmp, SYMBOLIC, "x:0=2:64")
    body = aten.read_text()
    for op in ("sym_size.int", "add", "sub", "mul", "pow", "mod", "floordiv", "truediv", "sym_min", "sym_max",
               "sym_float", "ceil", "floor", "trunc"):
        assert f"aten.{op} " in body, op
    return convert(tmp, aten)


@pytest.mark.parametrize("batch", [2, 6, 11, 64])
def test_symbolic_sizes_match_pytorch_exactly_at_other_batch_sizes(symbolic, batch, tmp_path):
    core, text = symbolic
    assert "coreai.get_shape" in text
    inputs = {"x": np.random.default_rng(batch).normal(size=(batch, 4)).astype(np.float32)}
    expected = eager(SYMBOLIC, inputs)
    assert expected["output_1"].dtype == np.int64 and expected["output_4"].dtype == np.float64
    check_both(tmp_path, core, text, inputs, expected, 0)


@pytest.fixture(scope="module")
def size_cond(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("size_cond")
    aten = export(tmp, SIZE_COND, "x:0=2:64")
    assert "aten.gt " in aten.read_text() and "aten.cond " in aten.read_text()
    return convert(tmp, aten)


@pytest.mark.parametrize("batch", [2, 4, 5, 64])
def test_a_symbolic_size_decides_a_cond_as_in_pytorch(size_cond, batch, tmp_path):
    core, text = size_cond
    assert "coreai.if" in text and "coreai.get_shape" in text
    inputs = {"x": np.random.default_rng(batch).normal(size=(batch, 4)).astype(np.float32)}
    check_both(tmp_path, core, text, inputs, eager(SIZE_COND, inputs), 0)


def test_local_scalar_dense_matches_pytorch(tmp_path):
    aten = export(tmp_path, LOCAL_SCALAR)
    assert "aten._local_scalar_dense.default" in aten.read_text()
    core, text = convert(tmp_path, aten)
    check_both(tmp_path, core, text, load(tmp_path / "in.npz"), load(tmp_path / "expected.npz"), 0)
