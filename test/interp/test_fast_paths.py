"""The executor's fast kernel paths (f32 row kernels, strided matmul, f32
attention, tiled permute, trailing-axis reductions) against PyTorch eager:
large magnitudes, NaN and infinite rows, long rows, non-last axes,
broadcast batches, transposed operands and sizes that take the threaded
paths."""

import numpy as np
import pytest
import torch

from conftest import adversarial, assert_same, gelu_oracle, gelu_reference, single_op_module

aten = torch.ops.aten
f32, f16, f64 = np.float32, np.float16, np.float64
NP = {torch.float32: f32, torch.float16: f16, torch.float64: f64, torch.bool: np.bool_}


def run_op(runner, op, inputs, attrs, fn):
    """Runs `op` on `inputs` and returns (ours, PyTorch's) output lists."""
    targs = [torch.from_numpy(np.ascontiguousarray(a)) for a in inputs.values()]
    expected = fn(*targs)
    expected = list(expected) if isinstance(expected, (tuple, list)) else [expected]
    outputs = [(tuple(e.shape), NP[e.dtype]) for e in expected]
    got = runner.run(single_op_module(op, inputs, outputs, attrs), inputs)
    return got, [e.numpy() for e in expected]


def rows_with_specials(shape, dtype, rng, scale=1.0):
    """Random rows, one all-NaN row, one row with +inf, one of only -inf,
    one with a single NaN, and one of huge magnitudes."""
    x = (rng.standard_normal(shape) * scale).astype(dtype)
    flat = x.reshape(-1, shape[-1])
    flat[0] = np.nan
    flat[1, 3] = np.inf
    flat[2] = -np.inf
    flat[3, 1] = np.nan
    flat[4] = np.clip(rng.standard_normal(shape[-1]) * 3e4, -6e4, 6e4).astype(dtype)
    return x


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("shape,dim", [((8, 3000), -1), ((6, 40, 7), 1), ((5, 64), 0), ((2, 4, 128, 128), -1)])
def test_softmax_f32(runner, shape, dim, log):
    rng = np.random.default_rng(sum(shape) + dim)
    x = rows_with_specials(shape, f32, rng, scale=40.0)
    op = "aten::_log_softmax.default" if log else "aten::_softmax.default"
    fn = (lambda t: aten._log_softmax.default(t, dim, False)) if log else (lambda t: aten._softmax.default(t, dim, False))
    (got,), (exp,) = run_op(runner, op, {"x": x}, {"dim": dim, "half_to_float": False}, fn)
    assert_same(got, exp, exact=False, rtol=2e-6, atol=2e-6)
    assert (np.isnan(got) == np.isnan(exp)).all()


def test_softmax_f16(runner):
    rng = np.random.default_rng(3)
    x = rows_with_specials((6, 300), f16, rng, scale=4.0)
    (got,), (exp,) = run_op(runner, "aten::_softmax.default", {"x": x}, {"dim": -1, "half_to_float": False},
                            lambda t: aten._softmax.default(t, -1, False))
    assert_same(got, exp, exact=False, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("shape,nd", [((2, 128, 256), 1), ((6, 4096), 1), ((4, 6, 5), 2)])
def test_layer_norm_f32(runner, shape, nd, affine):
    rng = np.random.default_rng(sum(shape) + nd)
    x = rows_with_specials(shape, f32, rng, scale=3.0)
    # A row far from zero with a small spread, and one of large magnitude.
    flat = x.reshape(-1, int(np.prod(shape[-nd:])))
    flat[5 % flat.shape[0]] = (1e4 + rng.standard_normal(flat.shape[1])).astype(f32)
    norm = list(shape[-nd:])
    inputs = {"x": x}
    if affine:
        inputs["w"] = rng.standard_normal(norm).astype(f32)
        inputs["b"] = rng.standard_normal(norm).astype(f32)
        fn = lambda t, w, b: aten.native_layer_norm.default(t, norm, w, b, 1e-5)  # noqa: E731
    else:
        fn = lambda t: aten.native_layer_norm.default(t, norm, None, None, 1e-5)  # noqa: E731
    got, exp = run_op(runner, "aten::native_layer_norm.default", inputs, {"normalized_shape": norm, "eps": 1e-5}, fn)
    # PyTorch's f32 statistics lose |mean| * 2^-24 on the row near 1e4
    # (6e-4 in the output); the executor's f64 statistics do not: it is
    # within f32 rounding of PyTorch in float64.
    # A row holding ±inf has mean ±inf in the executor (sum / n, as before
    # these kernels) and NaN in PyTorch's Welford update; the normalized
    # output is NaN in both.
    exact = fn(*[torch.from_numpy(a.astype(f64)) for a in inputs.values()])
    finite = np.isfinite(flat).all(axis=1) | np.isnan(flat).any(axis=1)
    far = np.arange(flat.shape[0]) == 5 % flat.shape[0]
    for i, (g, e, t) in enumerate(zip(got, exp, exact)):
        g, e, t = (a.reshape(flat.shape[0], -1) for a in (g, e, t.numpy().astype(f32)))
        keep = finite if i > 0 else np.ones_like(finite)
        assert_same(g[keep & ~far], e[keep & ~far], exact=False, rtol=1e-4, atol=1e-4)
        assert_same(g[far], e[far], exact=False, rtol=1e-4, atol=1e-2)
        assert_same(g[keep], t[keep], exact=False, rtol=1e-6, atol=1e-6)
        assert (np.isnan(g[keep]) == np.isnan(e[keep])).all()


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", [f32, f16])
def test_gelu_large_magnitudes(runner, approximate, dtype):
    rng = np.random.default_rng(11)
    x = adversarial((300, 300), dtype, rng)  # 90000 elements: the parallel path
    x.reshape(-1)[:6] = np.array([1e4, -1e4, 30.0, -30.0, 1e-30, -5.5], dtype)
    (got,), (exp,) = run_op(runner, "aten::gelu.default", {"x": x}, {"approximate": approximate},
                            lambda t: gelu_oracle(t, approximate))
    # PyTorch's vectorized erf is within 1e-6 absolute, not relative, in
    # the tails; the executor computes erf in f64.
    tol = (1e-6, 1e-5) if dtype == f32 else (1e-3, 1e-3)
    assert_same(got, exp, exact=False, rtol=tol[0], atol=tol[1])
    # Against float64 rounded once: within one ulp of the result type.
    ulp = 2.0**-23 if dtype == f32 else 2.0**-10
    tiny = float(np.finfo(dtype).smallest_subnormal)
    assert_same(got, gelu_reference(x, approximate), exact=False, rtol=ulp, atol=tiny)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", [f32, f16])
@pytest.mark.parametrize("n", [8, 1 << 17], ids=["small", "parallel"])
def test_gelu_special_values_are_the_mathematical_ones(runner, approximate, dtype, n):
    """gelu(+inf) = +inf, gelu(-inf) = -0.0, NaN stays NaN, signed zeros
    keep their sign, on the small-tensor path and the parallel path. Not
    PyTorch: its gelu gives NaN at -inf, and at +inf NaN or +inf by kernel
    path and tensor length (conftest.gelu_reference)."""
    specials = np.array([-np.inf, np.inf, np.nan, -0.0, 0.0, -30.0, 1.0, -1e4], dtype)
    x = np.resize(specials, n)
    (got,) = runner.run(single_op_module("aten::gelu.default", {"x": x}, [((n,), dtype)], {"approximate": approximate}),
                        {"x": x})
    want = np.resize(np.array([-0.0, np.inf, np.nan, -0.0, 0.0, -0.0, np.nan, -0.0], dtype), n)
    at_one = np.arange(n) % 8 == 6
    want[at_one] = gelu_reference(np.array([1.0], dtype), approximate)[0]
    assert_same(got, want)


def test_unary_f32_in_place_of_the_f64_domain(runner):
    rng = np.random.default_rng(5)
    x = adversarial((70000,), f32, rng)
    for op, fn in [("aten::exp.default", aten.exp.default), ("aten::tanh.default", aten.tanh.default),
                   ("aten::sigmoid.default", aten.sigmoid.default), ("aten::rsqrt.default", aten.rsqrt.default)]:
        (got,), (exp,) = run_op(runner, op, {"x": x}, {}, fn)
        assert_same(got, exp, exact=False, rtol=2e-6, atol=1e-30)


@pytest.mark.skip_allowed("PyTorch rejects a mask with is_causal")
@pytest.mark.parametrize("mask", [None, "bool", "float"])
@pytest.mark.parametrize("causal", [False, True])
def test_sdpa_f32(runner, mask, causal):
    if mask and causal:
        pytest.skip("PyTorch rejects a mask with is_causal")
    rng = np.random.default_rng(7)
    q = rng.standard_normal((1, 4, 128, 64)).astype(f32)
    k = rng.standard_normal((1, 4, 96, 64)).astype(f32) * 3
    v = rng.standard_normal((1, 4, 96, 32)).astype(f32)
    inputs = {"q": q, "k": k, "v": v}
    if mask == "bool":
        m = rng.random((128, 96)) < 0.7
        m[:, 0] = True
        inputs["m"] = m
    elif mask == "float":
        inputs["m"] = (rng.standard_normal((1, 1, 128, 96)) * 5).astype(f32)
    fn = lambda *t: aten.scaled_dot_product_attention.default(*t, is_causal=causal)  # noqa: E731
    (got,), (exp,) = run_op(runner, "aten::scaled_dot_product_attention.default", inputs,
                            {"dropout_p": 0.0, "is_causal": causal, "enable_gqa": False}, fn)
    assert_same(got, exp, exact=False, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("m,k,n", [(128, 256, 768), (3, 5, 7), (128, 1024, 256)])
def test_addmm_and_linear_f32(runner, m, k, n):
    rng = np.random.default_rng(m + k + n)
    x = rng.standard_normal((m, k)).astype(f32)
    w = rng.standard_normal((n, k)).astype(f32)
    b = rng.standard_normal((n,)).astype(f32)
    wt = np.ascontiguousarray(w.T)
    (got,), (exp,) = run_op(runner, "aten::addmm.default", {"b": b, "x": x, "wt": wt}, {"beta": 1, "alpha": 1},
                            lambda b, x, wt: aten.addmm.default(b, x, wt))
    assert_same(got, exp, exact=False, rtol=1e-5, atol=1e-4)
    x3 = x.reshape(1, m, k)
    (got,), (exp,) = run_op(runner, "aten::linear.default", {"x": x3, "w": w, "b": b}, {},
                            lambda x, w, b: aten.linear.default(x, w, b))
    assert_same(got, exp, exact=False, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("sa,sb", [((2, 1, 64, 32), (3, 32, 16)), ((5, 128, 64), (64, 40)), ((64,), (4, 64, 3))])
def test_matmul_broadcast_batches(runner, sa, sb):
    rng = np.random.default_rng(len(sa) * 10 + len(sb))
    a = rng.standard_normal(sa).astype(f32)
    b = rng.standard_normal(sb).astype(f32)
    (got,), (exp,) = run_op(runner, "aten::matmul.default", {"a": a, "b": b}, {}, aten.matmul.default)
    assert_same(got, exp, exact=False, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("shape,perm", [((768, 256), [1, 0]), ((1, 128, 1, 3, 256), [3, 1, 2, 0, 4]),
                                        ((128, 4, 64), [1, 0, 2]), ((3, 33, 65), [2, 0, 1])])
def test_permute_is_exact(runner, shape, perm):
    x = np.random.default_rng(1).standard_normal(shape).astype(f32)
    (got,), (exp,) = run_op(runner, "aten::permute.default", {"x": x}, {"dims": perm},
                            lambda t: aten.permute.default(t, perm).contiguous())
    assert_same(got, exp)


@pytest.mark.parametrize("op,fn", [("aten::mean.dim", aten.mean.dim), ("aten::sum.dim_IntList", aten.sum.dim_IntList),
                                   ("aten::amax.default", aten.amax.default)])
def test_trailing_reductions_f32(runner, op, fn):
    rng = np.random.default_rng(2)
    x = rows_with_specials((3, 50, 256), f32, rng, scale=100.0)
    (got,), (exp,) = run_op(runner, op, {"x": x}, {"dim": [-2, -1], "keepdim": True}, lambda t: fn(t, [-2, -1], True))
    assert_same(got, exp, exact=False, rtol=1e-5, atol=1e-3)
    (got,), (exp,) = run_op(runner, op, {"x": x}, {"dim": [-1], "keepdim": False}, lambda t: fn(t, [-1], False))
    assert_same(got, exp, exact=False, rtol=1e-5, atol=1e-3)
