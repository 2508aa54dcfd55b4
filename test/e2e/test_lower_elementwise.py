"""Elementwise, activation, comparison and cast lowerings, end to end:
small PyTorch modules → coreai_export → legalize-aten-to-coreai → the coreai
output run in coreai-run AND coreai-core's interpreter, each compared with
eager PyTorch (the exporter's expected.npz). Inputs straddle zero, exceed 10,
and hold NaN, ±inf, -0.0 and integer overflow.

Tolerance: f32 outputs atol 1e-5, rtol 1e-6 (≈ 8 ulp: transcendental ops
in PyTorch (SLEEF), coreai-core and coreai-run may differ by an ulp or two);
integer and bool outputs must be equal. Wider tolerances are stated where
used, with the reason.

Also: the corpus models of these op families legalize completely and match
eager PyTorch in coreai-run.
"""

import numpy as np
import pytest

from toolchain import (
    assert_coreai_run_matches, export_corpus_model, export_source, load, lower, run_coreai_core,
)

TEMPLATE = '''
import torch
import torch.nn.functional as F
inf, nan = float("inf"), float("nan")
SPECIAL = [-inf, -1000.0, -12.5, -2.5, -1.5, -1.0, -0.5, -1e-7, -0.0, 0.0,
           1e-7, 0.5, 1.5, 2.5, 3.0, 10.5, 12.5, 1000.0, inf, nan]
class M(torch.nn.Module):
    def forward(self, {args}):
{body}
def factory():
    torch.manual_seed(0)
    return M(), ({inputs},)
'''


def convert(tmp_path, args, body, inputs):
    """Exports the module, legalizes it; returns (coreai path, inputs, expected)."""
    lines = "\n".join("        " + line for line in body.strip().splitlines())
    aten = export_source(tmp_path, TEMPLATE.format(args=args, body=lines, inputs=inputs))
    core = tmp_path / "coreai.mlir"
    assert "aten." not in lower(aten, core, "legalize-aten-to-coreai")
    return core, load(tmp_path / "in.npz"), load(tmp_path / "expected.npz")


def compare(name, got, want, atol, rtol, who):
    assert got.shape == want.shape, f"{who} {name}: shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{who} {name}: dtype {got.dtype} != {want.dtype}"
    if np.issubdtype(want.dtype, np.floating):
        np.testing.assert_allclose(got, want, atol=atol, rtol=rtol, equal_nan=True,
                                   err_msg=f"{who} {name}")
    else:
        np.testing.assert_array_equal(got, want, err_msg=f"{who} {name}")


def check(tmp_path, args, body, inputs, atol=1e-5, rtol=1e-6, core=True, skip_core=(), aten=False):
    """Both executors against eager PyTorch. `skip_core` names outputs
    coreai-core's interpreter is not asked about (each use says why);
    `aten` also runs the aten stage in coreai-run."""
    path, ins, expected = convert(tmp_path, args, body, inputs)
    for module in [path, tmp_path / "aten.mlir"] if aten else [path]:
        assert_coreai_run_matches(module, tmp_path / "in.npz", tmp_path / "expected.npz", atol, rtol)
    if core:
        ours = run_coreai_core(path.read_text(), ins, tmp_path)
        for name, want in expected.items():
            if name not in skip_core:
                compare(name, ours[name], want, atol, rtol, "coreai-core")
    return path, expected


SPECIAL_4x5 = "torch.tensor(SPECIAL).reshape(4, 5).clone()"


def test_unary_math(tmp_path):
    check(tmp_path, "x", """
return (torch.exp(x), torch.log(x), torch.sqrt(x), torch.rsqrt(x), torch.sin(x), torch.cos(x),
        torch.tan(x), torch.asin(x), torch.acos(x), torch.atan(x), torch.erf(x))
""", SPECIAL_4x5)


def test_unary_hyperbolic_and_sign(tmp_path):
    check(tmp_path, "x", """
return (torch.sinh(x), torch.cosh(x), torch.tanh(x), torch.asinh(x), torch.acosh(x), torch.atanh(x),
        torch.reciprocal(x), torch.neg(x), torch.abs(x), torch.sign(x))
""", SPECIAL_4x5)


def test_exp_log_variants_keep_tiny_arguments_accurate(tmp_path):
    # expm1/log1p of ±1e-7 (in SPECIAL) lose every digit as exp(x) - 1 and
    # log(1 + x); the Kahan/Goldberg forms keep a few-ulp relative error,
    # so the relative tolerance alone decides there.
    check(tmp_path, "x", """
return torch.expm1(x), torch.log1p(x), torch.exp2(x), torch.log2(x), torch.log10(x)
""", SPECIAL_4x5, atol=0, rtol=1e-6)


def test_rounding(tmp_path):
    check(tmp_path, "x, h", """
return (torch.floor(x), torch.ceil(x), torch.trunc(x), torch.round(x), torch.round(h),
        torch.round(x, decimals=1), torch.round(x, decimals=-1))
""", SPECIAL_4x5 + ", torch.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 4.5])")


def test_binary_float(tmp_path):
    # b holds 0.0 and -0.0 (division by signed zero), inf, and non-integral
    # divisors for the floor/trunc/remainder paths.
    check(tmp_path, "a, b", """
return (a + b, a - b, a * b, a / b, torch.maximum(a, b), torch.minimum(a, b),
        torch.remainder(a, b), torch.floor_divide(a, b), torch.div(a, b, rounding_mode="trunc"),
        torch.div(a, b, rounding_mode="floor"), torch.add(a, b, alpha=2.5), torch.sub(a, b, alpha=-0.5),
        torch.fmod(a, b))
""", SPECIAL_4x5 + ", torch.tensor([-2.5, -0.0, 0.1, 3.0, 0.0])")


def test_fmod_by_infinity(tmp_path):
    check(tmp_path, "a, b", "return torch.fmod(a, b)",
          "torch.tensor([-2.5, 0.5, 1000.0]), torch.tensor([float('inf'), float('-inf'), float('inf')])")


def test_pow(tmp_path):
    check(tmp_path, "a, b", """
return a ** b, a ** 2, a ** 0.5, 2 ** b, torch.pow(a, -1.5)
""", "torch.tensor([0.0, 0.5, 1.5, 2.5, 10.5, 12.5]).reshape(6, 1).clone(), torch.tensor([-2.5, 0.0, 0.1, 3.0])")


def test_pow_special_exponents(tmp_path):
    # PyTorch computes x ** 2, 3, -2, 0.5, -0.5, -1 as x·x, x·x·x, 1/(x·x),
    # sqrt, rsqrt, 1/x (sqrt(-0.0) = -0.0, sqrt(-inf) = NaN); integer
    # powers wrap on overflow (2^40 cubed).
    check(tmp_path, "x, i", """
return (x ** 2, x ** 3, x ** -2, x ** 0.5, x ** -0.5, x ** -1, i ** 2, i ** 3, i ** 5, i ** 0)
""", SPECIAL_4x5 + ", torch.tensor([-7, 3, 0, 2**40, -2**21, 12345])")


def test_atan2_signed_zeros_and_infinities(tmp_path):
    # Every pair of special values, both orders of signs.
    check(tmp_path, "y, x", "return torch.atan2(y, x)",
          "torch.tensor([-inf, -1.0, -0.0, 0.0, 1.0, inf, nan]).reshape(7, 1).clone(), "
          "torch.tensor([-inf, -2.5, -0.0, 0.0, 2.5, inf, nan])")


def test_python_numbers(tmp_path):
    check(tmp_path, "x", """
return (x + 1, x - 2.5, x * 0.1, x / 3, x / 0.1, 1 - x, x % 2.5, torch.fmod(x, -1.5), x // 0.1,
        torch.div(x, 1, rounding_mode="floor"), torch.div(x, 1, rounding_mode="trunc"),
        torch.clamp(x, min=-1.5, max=0.1), torch.clamp(x, min=0.5), torch.clamp(x, max=-0.5))
""", SPECIAL_4x5)


INTS = ("torch.tensor([-7, 7, -7, 7, 0, 13, -13, 2**40, -2**40, 5]), "
        "torch.tensor([2, -2, -2, 2, 3, 4, -4, 3, 7, -1])")


def test_integer_arithmetic(tmp_path):
    # a * 3037000500 overflows int64 for |a| ≥ 2^40 (wraps, as in PyTorch).
    check(tmp_path, "a, b", """
return (a // b, a % b, torch.div(a, b, rounding_mode="trunc"), torch.div(a, b, rounding_mode="floor"),
        a / b, a / 3, a * 3, a * 3037000500, a + b, a - b, torch.abs(a), -a, torch.sign(a),
        torch.maximum(a, b), torch.minimum(a, b), torch.remainder(a, -3), torch.fmod(a, 3),
        a + 0.5, torch.floor(a), torch.round(a), b ** 2, torch.sqrt(b.abs()))
""", INTS)


def test_int32_bitwise_and_shift(tmp_path):
    check(tmp_path, "a, b", """
return (a & b, a | b, a ^ b, ~a, a << 3, a << 31, a // b, a % b, a.to(torch.float32) / b)
""", "torch.tensor([-7, 7, 300, -2147483647, 0, 65535, -1, 12], dtype=torch.int32), "
     "torch.tensor([2, -2, 7, 3, 5, -9, 4, -5], dtype=torch.int32)")


FLOATS_AND_NAN = ("torch.tensor([[-1.0, -0.0, 0.0, 0.5, nan], [1.0, 2.0, inf, -inf, 0.5]]), "
                  "torch.tensor([0.5, 0.0, -0.0, nan, 0.5])")


def test_comparisons(tmp_path):
    # NaN: every comparison but ne is false (ge/le too).
    check(tmp_path, "x, y", """
return (x == y, x != y, x < y, x <= y, x > y, x >= y, x == 0.5, x != 0, x < 0, x <= -1, x > 0.5,
        x >= 0.5, torch.isnan(x), torch.isinf(x), torch.logical_not(x), torch.logical_and(x, y),
        torch.logical_or(x > 0, y > 0), torch.logical_xor(x > 0, y), torch.where(x > 0, x, 0.5),
        torch.where(x > y, x, y))
""", FLOATS_AND_NAN)


def test_mixed_dtype_comparisons_and_where(tmp_path):
    check(tmp_path, "i, x, p", """
return (i > 0.5, i == x, i <= x, torch.where(p, i, x), torch.where(p, i, 7), p & (i > 1), p | ~p, ~p)
""", "torch.tensor([-1, 0, 1, 2, 3]), torch.tensor([-1.0, 0.5, 1.0, 2.5, nan]), "
     "torch.tensor([True, False, True, False, True])")


def test_activations(tmp_path):
    # gelu takes g, SPECIAL without ±inf. PyTorch's CPU gelu is no oracle
    # there (torch 2.15, every ATEN_CPU_CAPABILITY): NaN at -inf, and at +inf
    # +inf for a tensor shorter than one vector but NaN inside its vectorized
    # loop (f32). The executor gives the limits (+inf, -0.0), coreai-core
    # +inf and NaN; test/interp checks the infinities against the limits.
    check(tmp_path, "x, g", """
return (F.relu(x), F.gelu(g), F.gelu(g, approximate="tanh"), F.silu(x), torch.sigmoid(x),
        F.hardswish(x), F.hardsigmoid(x), F.hardtanh(x, -2.0, 2.0), F.leaky_relu(x, 0.1),
        torch.ops.aten.elu(x, 1.5, 2.0, 0.5), F.elu(x), torch.clamp(x, -1.0, 1.0), F.relu6(x),
        F.softplus(x), F.softplus(x, beta=2.0, threshold=5.0), F.mish(g))
""", SPECIAL_4x5 + ", torch.tensor(SPECIAL[1:-2] + [nan])")


def test_fp16_activations_do_not_overflow_early(tmp_path):
    # exp(x) overflows f16 at x ≈ 11.1; PyTorch computes these in f32
    # (conversion-guide §9.1), so does the lowering: bit-identical results.
    check(tmp_path, "x", "return F.softplus(x), F.mish(x), F.elu(x), F.hardswish(x), F.silu(x)",
          "torch.tensor([-20.0, -11.5, -1.0, -0.0, 0.5, 10.4, 11.2, 12.0, 15.0, 19.0, 25.0]).half()",
          atol=0, rtol=0)


def test_integer_relu_and_clamp(tmp_path):
    check(tmp_path, "a", "return F.relu(a), torch.clamp(a, -3, 5), torch.clamp(a, min=0.5)",
          "torch.tensor([-7, 7, -2, 0, 9])")


def test_casts(tmp_path):
    # coreai-core's interpreter aborts on a float → int cast of NaN or ±inf
    # (a Swift range trap), so the float → int inputs are finite.
    check(tmp_path, "x, f, i, j, p", """
return (x.to(torch.int32), x.to(torch.int64), x.to(torch.int32).to(torch.float32), f.to(torch.float16),
        f.to(torch.bool), i.to(torch.int8), i.to(torch.uint8), j.to(torch.uint8), j.to(torch.int16),
        p.to(torch.float32), p.to(torch.int32), i.to(torch.float32), x.to(torch.float64).to(torch.float32))
""", "torch.tensor([-2.7, -2.5, -1.5, -0.5, -0.0, 0.5, 1.5, 2.5, 2.7, 1e9]), "
     "torch.tensor([70000.0, -70000.0, nan, -0.0, 0.0, 0.1, inf, 1e-9]), "
     "torch.tensor([300, -7, 128, -129, 2**40 + 5, 255, -256, 0]), "
     "torch.tensor([300, -7, 128, -129, 70000, 255, -256, 0], dtype=torch.int32), "
     "torch.tensor([True, False, True, False, True, True, False, False])")


CORPUS = ["unary_float", "binary_broadcast", "activations", "scalar_overloads",
          "int_true_division", "int_floor_mod", "comparisons_masks", "where_clamp"]


@pytest.mark.parametrize("model", CORPUS)
def test_corpus_model_legalizes_and_matches_eager(tmp_path, model):
    source, inputs, expected = export_corpus_model(model, tmp_path)
    core = tmp_path / "coreai.mlir"
    assert "aten." not in lower(source, core, "legalize-aten-to-coreai")
    assert_coreai_run_matches(core, inputs, expected, 1e-5, 1e-6)
