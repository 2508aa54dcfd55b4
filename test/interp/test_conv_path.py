"""The executor's convolution path (2-d convolution on im2col + GEMM with
the bias fused, f32 inference batch norm, constant padding) against real
oracles: PyTorch eager for the aten ops, coreai-core's interpreter for the
coreai graphs. Geometries are those of ResNet-style models (7x7 stride 2
with padding 3, 3x3 with padding 1, 1x1 with stride 2 and without) plus
the edge cases of the im2col copy: padding wider than a dilated tap, odd
strides, groups, and outputs one element wide."""

import zlib
from fractions import Fraction

import numpy as np
import pytest
import torch

from conftest import adversarial, assert_same, single_op_module
from test_coreai_vs_coreai_core import one, run_coreai_core, run_ours

aten = torch.ops.aten
f32, f16, f64 = np.float32, np.float16, np.float64

# (id, x shape, w shape, with bias, stride, padding, dilation, groups, dtype)
CONVS = [
    ("resnet_stem_7x7_s2_p3", (1, 3, 32, 30), (8, 3, 7, 7), True, [2, 2], [3, 3], [1, 1], 1, f32),
    ("resnet_3x3_p1", (2, 8, 9, 10), (6, 8, 3, 3), True, [1, 1], [1, 1], [1, 1], 1, f32),
    ("resnet_3x3_s2_p1_no_bias", (1, 6, 11, 10), (8, 6, 3, 3), False, [2, 2], [1, 1], [1, 1], 1, f32),
    ("pointwise_1x1", (2, 16, 5, 7), (12, 16, 1, 1), True, [1, 1], [0, 0], [1, 1], 1, f32),
    ("downsample_1x1_s2", (1, 8, 9, 9), (16, 8, 1, 1), False, [2, 2], [0, 0], [1, 1], 1, f32),
    ("pad_wider_than_dilated_tap", (1, 2, 6, 5), (3, 2, 3, 2), True, [3, 2], [4, 3], [2, 2], 1, f32),
    ("depthwise_groups", (1, 6, 8, 8), (6, 1, 3, 3), True, [1, 1], [1, 1], [1, 1], 6, f32),
    ("one_wide_output", (1, 3, 5, 3), (2, 3, 3, 3), True, [2, 2], [0, 0], [1, 1], 1, f32),
    ("f16_bias_rounds_twice", (1, 4, 6, 6), (5, 4, 3, 3), True, [1, 1], [1, 1], [1, 1], 1, f16),
    ("f64", (1, 3, 7, 6), (4, 3, 3, 3), True, [2, 1], [1, 2], [1, 1], 1, f64),
]


def finite(shape, dtype, rng):
    """Adversarial values without NaN/inf, in [-50, 50]."""
    a = adversarial(shape, dtype, rng)
    return np.clip(np.nan_to_num(a, nan=0.5, posinf=3.0, neginf=-3.0), -50, 50).astype(dtype)


@pytest.mark.parametrize("case", CONVS, ids=[c[0] for c in CONVS])
def test_convolution_matches_pytorch(runner, case):
    case_id, xs, ws, has_bias, stride, padding, dilation, groups, dt = case
    rng = np.random.default_rng(zlib.crc32(case_id.encode()))
    inputs = {"x": finite(xs, dt, rng), "w": finite(ws, dt, rng)}
    if has_bias:
        inputs["b"] = finite((ws[0],), dt, rng)
    targs = [torch.from_numpy(v.copy()) for v in inputs.values()]
    if not has_bias:
        targs.append(None)
    expected = aten.convolution.default(*targs, stride, padding, dilation, False, [0, 0], groups).numpy()
    attrs = {"stride": stride, "padding": padding, "dilation": dilation, "transposed": False,
             "output_padding": [0, 0], "groups": groups}
    module = single_op_module("aten::convolution.default", inputs, [(expected.shape, dt)], attrs)
    (got,) = runner.run(module, inputs)
    tol = 2e-3 if dt == f16 else 1e-5
    assert_same(got, expected, exact=False, rtol=tol, atol=tol * np.abs(expected).max())


def run_batch_norm(runner, inputs, eps):
    """The normalized output of inference batch norm on `inputs` (x, w, b,
    m, v): (coreai-run's, eager PyTorch's)."""
    targs = [torch.from_numpy(v.copy()) for v in inputs.values()]
    out = aten._native_batch_norm_legit_no_training.default(*targs, 0.1, eps)
    expected = [o.numpy() for o in out]
    module = single_op_module(
        "aten::_native_batch_norm_legit_no_training.default", inputs,
        [(e.shape, e.dtype.type) for e in expected], {"momentum": 0.1, "eps": eps})
    return runner.run(module, inputs)[0], expected[0]


def round_f32(q):
    """The f32 nearest to the rational `q`, ties to even."""
    f = np.float32(float(q))  # within one f32 ulp of q: pick among its neighbours
    cands = [np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))]
    cands = [c for c in cands if np.isfinite(c)]
    return min(cands, key=lambda c: (abs(Fraction(float(c)) - q), int(c.view(np.uint32)) & 1))


def fma_f32(a, b, c):
    """fma(a, b, c) of f32 scalars, rounded once (exact rationals)."""
    a, b, c = np.float32(a), np.float32(b), np.float32(c)
    if not (np.isfinite(a) and np.isfinite(b) and np.isfinite(c)):
        return np.float32(np.float64(a) * np.float64(b) + np.float64(c))
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    if exact == 0:
        return np.float32(np.float64(a) * np.float64(b) + np.float64(c))  # the sign of an exact zero
    return round_f32(exact)


def batch_norm_fma_reference(x, w, b, m, v, eps):
    """Inference batch norm as alpha = (1 / sqrt(v + eps)) * w and beta =
    fma(-m, alpha, b) in f32 per channel, out = fma(x, alpha, beta), each
    fma rounded once: the same on every machine."""
    one = np.float32(1)
    alpha = [(one / np.sqrt(np.float32(v[i]) + np.float32(eps))) * np.float32(w[i]) for i in range(len(w))]
    beta = [fma_f32(-m[i], alpha[i], b[i]) for i in range(len(w))]
    out = np.empty_like(x)
    for idx in np.ndindex(x.shape):
        out[idx] = fma_f32(x[idx], alpha[idx[1]], beta[idx[1]])
    return out


def test_batch_norm_f32_is_pytorchs_bits(runner):
    """f32 inference batch norm computes PyTorch's alpha/beta per channel and
    x * alpha + beta with fused multiply-adds, in f32: bit-identical to the
    fma reference, specials included.

    PyTorch's kernels disagree (torch 2.15, measured on this input): the
    AVX2 and AVX-512 kernels fuse the multiply-adds and give these bits;
    the default (scalar) kernel rounds x * alpha and + beta apart, off in
    106 of 420 elements, by up to 25 ulp where beta cancels x * alpha. So
    eager is compared within that rounding, whichever kernel runs."""
    rng = np.random.default_rng(11)
    inputs = {
        "x": adversarial((2, 5, 6, 7), f32, rng),
        "w": adversarial((5,), f32, rng),
        "b": adversarial((5,), f32, rng),
        "m": adversarial((5,), f32, rng),
        "v": np.abs(adversarial((5,), f32, rng)) + 0.25,
    }
    got, expected = run_batch_norm(runner, inputs, 1e-3)
    assert_same(got, batch_norm_fma_reference(*inputs.values(), 1e-3))
    # Two roundings instead of one: within an f32 ulp of |x * alpha| and |beta|.
    x, w, v = inputs["x"], inputs["w"], inputs["v"]
    alpha = (w / np.sqrt(v + np.float32(1e-3))).reshape(1, -1, 1, 1)
    finite = np.isfinite(expected)
    bound = 2.0**-23 * (np.abs(np.where(np.isfinite(x), x, 0) * alpha) + np.abs(got))
    assert (np.isnan(got) == np.isnan(expected)).all()
    assert (got[~finite] == expected[~finite])[~np.isnan(got[~finite])].all()
    assert (np.abs(got[finite].astype(np.float64) - expected[finite]) <= 2 * bound[finite]).all()


def test_batch_norm_f16_matches_pytorch(runner):
    """f16 batch norm (the f64 path rounded once to f16) within f16
    tolerance of eager."""
    rng = np.random.default_rng(12)
    inputs = {
        "x": finite((1, 3, 4, 4), f16, rng),
        "w": finite((3,), f16, rng),
        "b": finite((3,), f16, rng),
        "m": finite((3,), f16, rng),
        "v": (np.abs(finite((3,), f16, rng)) + 0.5).astype(f16),
    }
    got, expected = run_batch_norm(runner, inputs, 1e-5)
    assert_same(got, expected, exact=False, rtol=2e-3, atol=2e-3 * np.abs(expected).max())


# coreai graphs as coreai-torch emits a padded convolution: coreai.pad then
# coreai.conv2d (no padding operand), compared with coreai-core.
U2, U8 = "tensor<2xui32>", "tensor<8xui32>"


def pad_conv(xs, ws, pads, stride, groups, out):
    ty = lambda s: "tensor<" + "x".join(map(str, s)) + "xf32>"  # noqa: E731
    padded = [xs[0], xs[1], xs[2] + pads[4] + pads[5], xs[3] + pads[6] + pads[7]]
    body = (
        f'  %p = "coreai.constant"() <{{value = dense<{pads}> : {U8}}}> : () -> {U8}\n'
        f'  %z = "coreai.constant"() <{{value = dense<0.0> : tensor<f32>}}> : () -> tensor<f32>\n'
        f'  %s = "coreai.constant"() <{{value = dense<{stride}> : {U2}}}> : () -> {U2}\n'
        f'  %d = "coreai.constant"() <{{value = dense<1> : {U2}}}> : () -> {U2}\n'
        f'  %g = "coreai.constant"() <{{value = dense<{groups}> : tensor<ui32>}}> : () -> tensor<ui32>\n'
        f'  %xp = "coreai.pad"(%x, %p, %z) {{padding_mode = #coreai.padding_mode<constant>}} : '
        f"({ty(xs)}, {U8}, tensor<f32>) -> {ty(padded)}\n"
        f'  %r = "coreai.conv2d"(%xp, %w, %s, %d, %g) : ({ty(padded)}, {ty(ws)}, {U2}, {U2}, tensor<ui32>) -> {ty(out)}\n'
        f"  coreai.output %r : {ty(out)}"
    )
    args = ", ".join(f'%{n}: {ty(s)} {{coreai.name = "{n}"}}' for n, s in (("x", xs), ("w", ws)))
    return f'coreai.graph @main({args}) -> ({ty(out)} {{coreai.name = "out"}}) {{\n{body}\n}}\n'


COREAI_CONVS = [
    # id, x, w, pads (before/after per dim), stride, groups, out
    ("pad3_conv7x7_s2", (1, 3, 20, 18), (4, 3, 7, 7), [0, 0, 0, 0, 3, 3, 3, 3], 2, 1, (1, 4, 10, 9)),
    ("pad1_conv3x3", (1, 8, 9, 7), (8, 8, 3, 3), [0, 0, 0, 0, 1, 1, 1, 1], 1, 1, (1, 8, 9, 7)),
    ("asym_pad_groups", (1, 4, 6, 5), (6, 2, 3, 3), [0, 0, 0, 0, 2, 0, 0, 1], 1, 2, (1, 6, 6, 4)),
]


@pytest.mark.parametrize("case", COREAI_CONVS, ids=[c[0] for c in COREAI_CONVS])
def test_coreai_pad_conv_matches_coreai_core(runner, tmp_path, case):
    case_id, xs, ws, pads, stride, groups, out = case
    rng = np.random.default_rng(zlib.crc32(case_id.encode()))
    inputs = {"x": finite(xs, f32, rng), "w": finite(ws, f32, rng)}
    text = pad_conv(xs, ws, pads, stride, groups, out)
    got = run_ours(runner, text, inputs)["out"]
    expected = run_coreai_core(text, inputs, tmp_path)["out"]
    assert_same(got, expected, exact=False, rtol=1e-5, atol=1e-5 * np.abs(expected).max())


def test_coreai_pad_keeps_specials(runner, tmp_path):
    """The block copy of coreai.pad: NaN/inf/-0.0 pass through bit for bit;
    a fill of NaN; uneven pads on three dims."""
    rng = np.random.default_rng(5)
    x = adversarial((2, 3, 4), f32, rng)
    ty_out = "tensor<3x7x5xf32>"
    text = one("coreai.pad", [("x", "tensor<2x3x4xf32>")],
               [("p", "[1, 0, 3, 1, 0, 1]", "tensor<6xui32>"), ("v", "0x7FC00000", "tensor<f32>")],
               ["x", "p", "v"], ty_out, "padding_mode = #coreai.padding_mode<constant>")
    got = run_ours(runner, text, {"x": x})["out"]
    expected = run_coreai_core(text, {"x": x}, tmp_path)["out"]
    assert_same(got, expected)


def test_constant_pad_nd_crops_with_negative_pads(runner):
    """aten.constant_pad_nd with negative pads crops (the block copy's source
    window starts inside the input)."""
    rng = np.random.default_rng(6)
    x = adversarial((3, 4, 5), f32, rng)
    pad = [-1, 2, 1, -2, 0, 1]
    expected = aten.constant_pad_nd.default(torch.from_numpy(x.copy()), pad, -7.5).numpy()
    module = single_op_module("aten::constant_pad_nd.default", {"x": x}, [(expected.shape, f32)],
                              {"pad": pad, "value": -7.5})
    (got,) = runner.run(module, {"x": x})
    assert_same(got, expected)


# (id, x shape, dtype, kernel, stride, padding, dilation, ceil_mode)
MAX_POOLS = [
    ("resnet_3x3_s2_p1", (1, 4, 12, 11), f32, [3, 3], [2, 2], [1, 1], [1, 1], False),
    ("dilated_ceil_nan", (2, 3, 9, 8), f32, [3, 2], [2, 3], [1, 1], [2, 3], True),
    ("f16_through_f64", (1, 2, 7, 6), f16, [2, 3], [1, 2], [1, 1], [1, 1], True),
]


@pytest.mark.parametrize("case", MAX_POOLS, ids=[c[0] for c in MAX_POOLS])
def test_max_pool2d_with_indices_matches_pytorch(runner, case):
    """Values and indices bit for bit (NaN wins, a later NaN replaces an
    earlier one, padding never wins), f32 in f32, f16 through f64."""
    case_id, xs, dt, k, s, p, d, ceil = case
    rng = np.random.default_rng(zlib.crc32(case_id.encode()))
    x = adversarial(xs, dt, rng)
    expected = [o.numpy() for o in aten.max_pool2d_with_indices.default(torch.from_numpy(x.copy()), k, s, p, d, ceil)]
    module = single_op_module("aten::max_pool2d_with_indices.default", {"x": x},
                              [(e.shape, e.dtype.type) for e in expected],
                              {"kernel_size": k, "stride": s, "padding": p, "dilation": d, "ceil_mode": ceil})
    got = runner.run(module, {"x": x})
    assert_same(got[0], expected[0])
    assert_same(got[1], expected[1])


def test_max_pool2d_ties_signed_zeros_and_nans(runner):
    """Many equal values: the first maximum of a window wins (-0.0 and 0.0
    are equal, so the earlier keeps its sign and index); a NaN beats every
    number and the last NaN of a window wins."""
    rng = np.random.default_rng(21)
    x = rng.integers(-2, 2, (2, 3, 9, 10)).astype(f32)
    x[x == -2] = -0.0
    x.flat[rng.choice(x.size, 12, replace=False)] = np.nan
    x.flat[rng.choice(x.size, 6, replace=False)] = -np.inf
    for dt in (f32, f64):
        xd = x.astype(dt)
        expected = [o.numpy() for o in aten.max_pool2d_with_indices.default(
            torch.from_numpy(xd.copy()), [3, 3], [1, 2], [1, 1], [1, 1], False)]
        module = single_op_module("aten::max_pool2d_with_indices.default", {"x": xd},
                                  [(e.shape, e.dtype.type) for e in expected],
                                  {"kernel_size": [3, 3], "stride": [1, 2], "padding": [1, 1],
                                   "dilation": [1, 1], "ceil_mode": False})
        got = runner.run(module, {"x": xd})
        assert_same(got[0], expected[0])
        assert_same(got[1], expected[1])


def test_conv1d_with_bias_runs_as_2d(runner):
    """A 1-d convolution (lifted to 2-d over a height of 1) with bias,
    stride, padding, dilation and groups."""
    rng = np.random.default_rng(31)
    inputs = {"x": finite((2, 4, 11), f32, rng), "w": finite((6, 2, 3), f32, rng), "b": finite((6,), f32, rng)}
    targs = [torch.from_numpy(v.copy()) for v in inputs.values()]
    expected = aten.convolution.default(*targs, [2], [2], [2], False, [0], 2).numpy()
    attrs = {"stride": [2], "padding": [2], "dilation": [2], "transposed": False, "output_padding": [0], "groups": 2}
    module = single_op_module("aten::convolution.default", inputs, [(expected.shape, f32)], attrs)
    (got,) = runner.run(module, inputs)
    assert_same(got, expected, exact=False, rtol=1e-5, atol=1e-5 * np.abs(expected).max())


# (id, FX target, a shape, b shape): b broadcasts along one dim of a
PER_CHANNEL = [
    ("add_bias_nchw", "aten::add.Tensor", (2, 3, 4, 5), (1, 3, 1, 1)),
    ("sub_rank_lower", "aten::sub.Tensor", (2, 3, 4, 5), (3, 1, 1)),
    ("mul_last_dim", "aten::mul.Tensor", (4, 6), (6,)),
    ("div_rows", "aten::div.Tensor", (5, 7), (5, 1)),
]


@pytest.mark.parametrize("case", PER_CHANNEL, ids=[c[0] for c in PER_CHANNEL])
def test_per_channel_broadcast_is_exact(runner, case):
    """f32 add/sub/mul/div of a tensor and an operand that broadcasts along
    one dim: bit for bit as eager, specials included."""
    case_id, op, sa, sb = case
    rng = np.random.default_rng(zlib.crc32(case_id.encode()))
    inputs = {"a": adversarial(sa, f32, rng), "b": adversarial(sb, f32, rng)}
    fn = getattr(aten, op.split("::")[1].split(".")[0]).Tensor
    expected = fn(*(torch.from_numpy(v.copy()) for v in inputs.values())).numpy()
    module = single_op_module(op, inputs, [(expected.shape, f32)])
    (got,) = runner.run(module, inputs)
    assert_same(got, expected)


def test_coreai_broadcasting_add_per_channel_matches_coreai_core(runner, tmp_path):
    rng = np.random.default_rng(41)
    x, y = adversarial((1, 4, 3, 5), f32, rng), adversarial((1, 4, 1, 1), f32, rng)
    ta, tb = "tensor<1x4x3x5xf32>", "tensor<1x4x1x1xf32>"
    text = one("coreai.decomposable.broadcasting_add", [("x", ta), ("y", tb)], [], ["x", "y"], ta)
    got = run_ours(runner, text, {"x": x, "y": y})["out"]
    assert_same(got, run_coreai_core(text, {"x": x, "y": y}, tmp_path)["out"])
