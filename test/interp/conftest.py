"""Helpers for the executor's validation tests: build small MLIR modules, run
them with coreai-run, and produce adversarial inputs."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # test/: toolchain.py, skip_policy.py
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "importer"))

import export_server  # noqa: E402
import oracle  # noqa: E402
import skip_policy  # noqa: E402
import toolchain  # noqa: E402


def pytest_configure(config):
    for name, plugin in [("skip_policy", skip_policy), ("oracle", oracle), ("export_server", export_server)]:
        if not config.pluginmanager.has_plugin(name):
            config.pluginmanager.register(plugin, name)


MLIR_TYPES = {
    np.dtype(np.float64): "f64",
    np.dtype(np.float32): "f32",
    np.dtype(np.float16): "f16",
    np.dtype(np.int64): "i64",
    np.dtype(np.int32): "i32",
    np.dtype(np.int16): "i16",
    np.dtype(np.int8): "i8",
    np.dtype(np.uint8): "ui8",
    np.dtype(np.bool_): "i1",
    np.dtype(np.complex64): "complex<f32>",
}


def coreai_run_path() -> Path:
    return toolchain.COREAI_RUN


def tensor_type(shape, dtype) -> str:
    dims = "x".join(str(d) for d in shape)
    elem = MLIR_TYPES[np.dtype(dtype)]
    return f"tensor<{dims}x{elem}>" if dims else f"tensor<{elem}>"


def mlir_attr(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return f"{v} : i64"
    if isinstance(v, float):
        return f"{v:.17e} : f64" if np.isfinite(v) else ("0x7FF0000000000000 : f64" if v > 0 else "0xFFF0000000000000 : f64")
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(str(int(x)) for x in v) + "]"
    if isinstance(v, np.dtype) or (isinstance(v, type) and issubclass(v, np.generic)):
        return MLIR_TYPES[np.dtype(v)]
    raise TypeError(v)


def single_op_module(op: str, inputs: dict, outputs: list, attrs: dict | None = None, generic: bool = True) -> str:
    """A func.func @main applying one aten op. `op` is the FX target
    (`aten::mul.Tensor`); with `generic` it is spelled `aten.operator`, else
    as the dialect's op `aten.mul.Tensor`. `outputs` lists (shape, dtype)."""
    args = ", ".join(f'%{n}: {tensor_type(a.shape, a.dtype)} {{coreai.name = "{n}"}}' for n, a in inputs.items())
    res_types = [tensor_type(s, d) for s, d in outputs]
    res = ", ".join(f'{t} {{coreai.name = "out{i}"}}' for i, t in enumerate(res_types))
    operands = ", ".join(f"%{n}" for n in inputs)
    in_types = ", ".join(tensor_type(a.shape, a.dtype) for a in inputs.values())
    attr_text = ""
    if attrs:
        attr_text = " {" + ", ".join(f"{k} = {mlir_attr(v)}" for k, v in attrs.items()) + "}"
    names = ", ".join(f"%r{i}" for i in range(len(outputs)))
    fn_ty = f"({in_types}) -> ({', '.join(res_types)})"
    if generic:
        body = f'{names} = aten.operator "{op}"({operands}){attr_text} : {fn_ty}'
    else:
        body = f"{names} = {op.replace('::', '.')} {operands}{attr_text} : {fn_ty}"
    return (
        f"func.func @main({args}) -> ({res}) {{\n"
        f"  {body}\n"
        f"  return {names} : {', '.join(res_types)}\n"
        f"}}\n"
    )


class Runner:
    def __init__(self, tmp_path: Path):
        self.tmp = tmp_path
        self.count = 0

    def run(self, module: str, inputs: dict, entry: str = "main", extra=(), expect_ok=True):
        self.count += 1
        mlir = self.tmp / f"m{self.count}.mlir"
        mlir.write_text(module)
        inp = self.tmp / f"in{self.count}.npz"
        out = self.tmp / f"out{self.count}.npz"
        np.savez(inp, **inputs)
        cmd = [str(coreai_run_path()), str(mlir), "--entry", entry, "--inputs", str(inp), "--outputs", str(out), *extra]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if not expect_ok:
            return p
        assert p.returncode == 0, f"coreai-run failed:\n{p.stderr}\n{module}"
        with np.load(out) as d:
            return [d[k] for k in d.files]


@pytest.fixture
def runner(tmp_path):
    assert coreai_run_path().exists(), f"{coreai_run_path()} is not built (cargo build -p coreai-run)"
    return Runner(tmp_path)


def adversarial(shape, dtype, rng, positive=False):
    """Values that straddle zero, exceed 10, and include NaN/inf/-0.0 (floats)
    or the extremes of the type (integers)."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype.kind == "f":
        v = rng.normal(0, 6, n) * rng.choice([1, 1, 1, 10], n)
        special = [np.nan, np.inf, -np.inf, -0.0, 0.0, 11.5, -13.25, 0.5, -0.5, 1e4]
        k = min(n // 3, len(special))
        v[rng.choice(n, k, replace=False)] = special[:k]
        if positive:
            v = np.abs(v)
        return v.astype(dtype).reshape(shape)
    if dtype.kind == "c":
        re = adversarial(shape, np.float32, rng)
        im = adversarial(shape, np.float32, rng)
        return (re + 1j * im).astype(dtype)
    if dtype.kind == "b":
        return (rng.random(n) < 0.5).reshape(shape)
    info = np.iinfo(dtype)
    v = rng.integers(-20 if info.min < 0 else 0, 20, n, endpoint=True).astype(np.int64)
    extremes = [info.max, info.min, info.max - 1, info.min + 1]
    k = min(n // 4, len(extremes))
    v[rng.choice(n, k, replace=False)] = extremes[:k]
    if positive:
        v = np.clip(np.abs(v), 1, None)
    return v.astype(dtype).reshape(shape)


def gelu_reference(x, approximate="none"):
    """gelu of `x` computed in float64 and rounded once to x's dtype, with
    the mathematical values at the special points: gelu(+inf) = +inf,
    gelu(-inf) = -0.0 (the limit, from below), NaN at NaN. The negative
    tail is x·erfc(-x/√2)/2 (tanh form: x / (1 + exp(-2u))), free of the
    cancellation of 1 + erf(x/√2).

    Why not PyTorch: its CPU gelu is not the same function everywhere at
    the infinities (torch 2.15, measured under ATEN_CPU_CAPABILITY=avx512,
    avx2 and default alike): NaN at -inf on every path; at +inf, +inf for
    a tensor shorter than one vector (1 element) and NaN inside the
    vectorized loop (64 elements) in f32 and bf16, +inf in f16 on both.
    On finite inputs its f32 erf is within 1e-6 absolute of the float64
    value."""
    x = np.asarray(x)
    t = torch.from_numpy(x.astype(np.float64))
    with np.errstate(over="ignore", invalid="ignore"):
        if approximate == "tanh":
            u = np.sqrt(2.0 / np.pi) * (t.numpy() + 0.044715 * t.numpy() ** 3)
            r = t.numpy() / (1.0 + np.exp(-2.0 * u))
        else:
            r = (0.5 * t * torch.special.erfc(-t * np.sqrt(0.5))).numpy()
        r = np.where(x == -np.inf, -0.0, np.where(x == np.inf, np.inf, r))
    return r.astype(x.dtype)


def gelu_oracle(t, approximate="none"):
    """PyTorch eager's gelu on the finite elements of tensor `t`, the
    mathematical value at ±inf (see gelu_reference for why)."""
    eager = torch.ops.aten.gelu.default(t, approximate=approximate)
    exact = torch.from_numpy(gelu_reference(t.numpy(), approximate))
    return torch.where(torch.isinf(t), exact, eager)


def assert_same(got, expected, exact=True, rtol=1e-6, atol=1e-6):
    """Equality with NaN == NaN and -0.0 distinguished when exact."""
    got = np.asarray(got)
    expected = np.asarray(expected)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    if exact:
        if got.dtype.kind in "fc":
            both_nan = np.isnan(got) & np.isnan(expected)
            same = (got == expected) | both_nan
            assert same.all(), f"mismatch at {np.argwhere(~same)[:5].tolist()}:\n got {got[~same][:8]}\n exp {expected[~same][:8]}"
            if got.dtype.kind == "f":
                zero = (got == 0) & (expected == 0)
                assert (np.signbit(got[zero]) == np.signbit(expected[zero])).all(), "signed zero differs"
        else:
            np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
