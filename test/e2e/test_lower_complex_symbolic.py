"""Complex-number and symbolic-size lowerings end to end: PyTorch modules
exported with coreai_export, converted with coreai-opt's coreai-pipeline,
run in coreai-run and in coreai-core's interpreter, compared with eager
PyTorch.

complex / polar / view_as_complex[_copy] / view_as_real[_copy] run with
static shapes and with a dynamic leading dim (the expand_dims/shrink_dims
forms). Symbolic sizes (sym_size.int and the Python operators torch.export
records on them: add, sub, mul, pow, mod, floordiv, truediv, sym_min,
sym_max, sym_float, ceil, floor, trunc) feed graph outputs (next to a
dynamic reshape, which decompose turns into -1), at batch sizes other than
the example's; their results are exact. A size comparison decides a torch.cond (both branches taken). The
remaining operators (neg, round, sym_int, sym_sqrt, sym_not, comparisons,
mod/floordiv with negative operands) run in a hand-written aten module
against Python's own operators. `_local_scalar_dense` (`.item()`) returns a reduction's value."""

import math

import numpy as np
import pytest
import torch

from toolchain import assert_coreai_run_matches, export_source, load, lower, run_coreai_core

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
    return export_source(tmp_path, HEADER + source, *(["--dynamic-dims", dynamic] if dynamic else []))


def convert(tmp_path, aten):
    core = tmp_path / "coreai.mlir"
    text = lower(aten, core, "coreai-pipeline")
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
    assert_coreai_run_matches(core, tmp_path / "run_in.npz", tmp_path / "run_expected.npz", tol, tol)
    ours = run_coreai_core(text, inputs, tmp_path)
    for key, want in expected.items():
        got = np.asarray(ours[key])
        assert got.shape == want.shape, key
        assert got.dtype == want.dtype, key
        np.testing.assert_allclose(got, want, atol=tol, rtol=tol, err_msg=key)



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


# The Python operators the exported models above leave out, on a symbolic
# size, written in the aten dialect by hand (torch.export folds or avoids
# them for these simple expressions); Python itself is the oracle.
PYTHON_OPERATORS = """
func.func @main(%x: tensor<?x3xf32> {coreai.name = "x"}) -> (i64 {coreai.name = "neg"}, i64 {coreai.name = "mod_neg_lhs"}, i64 {coreai.name = "floordiv_neg"}, i64 {coreai.name = "mod_neg_rhs"}, i64 {coreai.name = "pow"}, i64 {coreai.name = "round"}, i64 {coreai.name = "sym_int"}, i64 {coreai.name = "floor"}, f64 {coreai.name = "sym_sqrt"}, i1 {coreai.name = "eq"}, i1 {coreai.name = "ne"}, i1 {coreai.name = "lt"}, i1 {coreai.name = "le"}, i1 {coreai.name = "ge"}, i1 {coreai.name = "sym_not"}, i64 {coreai.name = "sym_max"}, tensor<?x3xf32> {coreai.name = "scaled"}) {
  %n = aten.sym_size.int %x {dim = 0 : i64} : (tensor<?x3xf32>) -> i64
  %c7 = arith.constant 7 : i64
  %m7 = arith.constant -7 : i64
  %c2 = arith.constant 2 : i64
  %c4 = arith.constant 4 : i64
  %0 = aten.neg %n : (i64) -> i64
  %1 = aten.mod %m7, %n : (i64, i64) -> i64
  %2 = aten.floordiv %m7, %n : (i64, i64) -> i64
  %3 = aten.mod %n, %m7 : (i64, i64) -> i64
  %4 = aten.pow %n, %c2 : (i64, i64) -> i64
  %f = aten.truediv %n, %c4 : (i64, i64) -> f64
  %5 = aten.round %f : (f64) -> i64
  %nf = aten.neg %f : (f64) -> f64
  %6 = aten.sym_int %nf : (f64) -> i64
  %7 = aten.floor %nf : (f64) -> i64
  %8 = aten.sym_sqrt %n : (i64) -> f64
  %9 = aten.eq %n, %c7 : (i64, i64) -> i1
  %10 = aten.ne %n, %c7 : (i64, i64) -> i1
  %11 = aten.lt %n, %c7 : (i64, i64) -> i1
  %12 = aten.le %n, %c7 : (i64, i64) -> i1
  %13 = aten.ge %n, %c7 : (i64, i64) -> i1
  %14 = aten.sym_not %9 : (i1) -> i1
  %15 = aten.sym_max %n, %c7 : (i64, i64) -> i64
  %16 = aten.mul %x, %f : (tensor<?x3xf32>, f64) -> tensor<?x3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16 : i64, i64, i64, i64, i64, i64, i64, i64, f64, i1, i1, i1, i1, i1, i1, i64, tensor<?x3xf32>
}
"""


def python_operators_expected(n, x):
    f = n / 4
    expected = dict(neg=-n, mod_neg_lhs=-7 % n, floordiv_neg=-7 // n, mod_neg_rhs=n % -7, pow=n ** 2, round=round(f),
                    sym_int=int(-f), floor=math.floor(-f), sym_sqrt=math.sqrt(n), eq=n == 7, ne=n != 7, lt=n < 7,
                    le=n <= 7, ge=n >= 7, sym_not=not n == 7, sym_max=max(n, 7))
    expected = {k: np.array(v) for k, v in expected.items()}
    # x * (n / 4) in PyTorch: the Python float is used as f32.
    expected["scaled"] = x * np.float32(f)
    return expected


@pytest.fixture(scope="module")
def python_operators(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("python_operators")
    aten = tmp / "aten.mlir"
    aten.write_text(PYTHON_OPERATORS)
    return convert(tmp, aten)


# n = 2, 6, 10: round(n / 4) on 0.5, 1.5, 2.5 (half to even); n = 7: the comparisons flip.
@pytest.mark.parametrize("n", [2, 6, 7, 10, 14])
def test_python_operators_on_a_size_match_python(python_operators, n, tmp_path):
    core, text = python_operators
    x = np.random.default_rng(n).normal(size=(n, 3)).astype(np.float32)
    check_both(tmp_path, core, text, {"x": x}, python_operators_expected(n, x), 0)


def family_tests(families):
    """The fixture and the test of a table of dynamic-shape families,
    name → (module source, --dynamic-dims spec, inputs(n, rng), tolerance):
    each module is exported once with its dynamic dims and converted, then
    run at sizes 1, 4 and 9 in both executors against eager PyTorch. A test
    module binds them: `converted, test_... = family_tests(FAMILIES)`."""

    @pytest.fixture(scope="module", params=sorted(families))
    def converted(request, tmp_path_factory):
        name = request.param
        source, dynamic, _, _ = families[name]
        tmp = tmp_path_factory.mktemp(f"dyn_{name}")
        aten = export(tmp, source, dynamic)
        assert "?x" in aten.read_text(), "no dynamic dim was exported"
        return (name, *convert(tmp, aten))

    @pytest.mark.parametrize("n", [1, 4, 9])
    def test(converted, n, tmp_path):
        name, core, text = converted
        source, _, inputs_of, tol = families[name]
        inputs = inputs_of(n, np.random.default_rng(n))
        check_both(tmp_path, core, text, inputs, eager(source, inputs), tol)

    return converted, test
