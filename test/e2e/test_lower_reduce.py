"""Reductions, scans and sorts: PyTorch → coreai_export → legalize-aten-to-coreai,
run in coreai-run and in coreai-core's interpreter, compared with eager PyTorch
(the exporter's expected.npz). Covers negative dims, keepdim both ways, ties
(argmax/argmin/sort stability), NaN (max/argmax/sort propagate or pick NaN as
PyTorch does), integer dtypes, and int64 accumulation past int32
(conversion guide §9.4)."""

import numpy as np
import pytest

from toolchain import (
    assert_coreai_run_matches, export_corpus_model, export_source, load, lower, run_coreai_core,
)

FLOAT_REDUCTIONS = '''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return (x.sum(dim=(0, -1)), x.sum(dim=1, keepdim=True), x.sum(), x.mean(dim=-2),
                x.mean(dim=(0, 2), keepdim=True), x.mean(), x.amax(dim=(-1, 0)), x.amin(1, keepdim=True),
                x.prod(dim=-1), x.prod(), x.var(dim=1), x.var(dim=(0, 2), correction=0, keepdim=True),
                x.std(dim=-1), torch.logsumexp(x, dim=(1,)), x.cumsum(-1), x.cumprod(0),
                (x > 0).any(dim=1), (x > 0).all(dim=-1, keepdim=True), x.max(), x.min(),
                x.norm(dim=-1))
def factory():
    torch.manual_seed(3)
    return M(), (torch.randn(2, 3, 4) * 3,)
'''

# Ties and NaN. PyTorch: argmax/argmin/max.dim/min.dim return the first
# extremum and the first NaN; max/amax propagate NaN; sort puts NaN last
# ascending and first descending, ties in their original order.
# coreai-core's argmax never picks a NaN and its sort puts NaN last in both
# directions; the lowering adds the NaN path (reduce.rs: arg_index,
# sort_permutation).
TIES_NAN = '''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        mx, imx = x.max(dim=1)
        mn, imn = x.min(dim=-1, keepdim=True)
        sv, si = torch.sort(x, dim=-1, descending=True)
        av, ai = torch.sort(x, dim=1)
        return (x.argmax(dim=1), x.argmin(dim=-1), x.argmax(), mx, imx, mn, imn,
                x.amax(dim=1), sv, si, av, ai, torch.sort(x, dim=0, descending=True, stable=True)[1])
def factory():
    nan, inf = float("nan"), float("inf")
    x = torch.tensor([[1.0, 5.0, 5.0, -2.0, 5.0, 0.0],
                      [3.0, nan, 7.0, nan, -inf, 7.0],
                      [inf, 2.0, nan, inf, 1.0, 2.0],
                      [-0.0, 0.0, -1.0, -1.0, 4.0, 4.0]])
    return M(), (x,)
'''

# topk without ties: PyTorch's CPU topk does not say which of equal elements
# it returns (eager picks [2, 4] of [3, 1, 3, 2, 3]; the lowering, a stable
# sort, picks [0, 2]), so ties are not compared here. NaN counts as the
# largest value, as in PyTorch.
TOPK = '''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        v, i = torch.topk(x, 3, dim=-1)
        w, j = torch.topk(x, 2, dim=0, largest=False)
        return v, i, w, j
def factory():
    torch.manual_seed(5)
    x = torch.randn(4, 6)
    x[1, 2] = float("nan")
    return M(), (x,)
'''

# Integers: int64 sums, products and cumulative sums accumulate in si64
# (values ~2e9 overflow int32 after two terms; coreai-torch narrows to int32
# and wraps, conversion guide §9.4); int32/int8/bool inputs promote to int64.
INTEGERS = '''
import torch
class M(torch.nn.Module):
    def forward(self, x, small, mask, tiny):
        return (x.sum(), x.sum(dim=0), x.cumsum(dim=1), x.to(torch.int32).sum(dtype=torch.int64),
                x.to(torch.int32).sum(dim=-1), x.to(torch.int32).cumsum(0), (x // 1000000).prod(dim=1),
                small.sum(dim=1), mask.sum(), mask.sum(dim=0, keepdim=True), mask.cumsum(1),
                small.prod(dim=-1), x.amax(dim=0), x.argmax(dim=1), x.argmin(dim=0), x.max(dim=1)[1],
                torch.sort(x, dim=1, descending=True)[1], mask.any(dim=1), tiny.cumprod(dim=1))
def factory():
    g = torch.Generator().manual_seed(7)
    x = torch.randint(1_900_000_000, 2_100_000_000, (4, 5), generator=g, dtype=torch.int64)
    x[1, 3] = -x[1, 3]
    x[2, :] = x[2, 0]
    small = torch.randint(-128, 127, (3, 40), generator=g, dtype=torch.int8)
    mask = torch.rand(3, 40, generator=g) > 0.3
    tiny = torch.randint(-8, 8, (3, 6), generator=g, dtype=torch.int8)
    return M(), (x, small, mask, tiny)
'''

# int64 values past 2^53 (a float64 key would tie them): argmax, argmin,
# max.dim, sort and topk compare exactly, sums stay exact.
BIG_INT64 = '''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        v, i = torch.topk(x, 2, dim=1)
        return (x.argmax(dim=1), x.argmin(dim=1), x.max(dim=0)[1], torch.sort(x, dim=1)[1],
                torch.sort(x, dim=1, descending=True)[0], v, i, x.sum(dim=1), x.cumsum(dim=1))
def factory():
    b = 2 ** 60
    x = torch.tensor([[b, b + 1, b - 1, b + 3], [-b, -b - 2, -b + 1, -b - 1]], dtype=torch.int64)
    return M(), (x,)
'''

# Ops torch.export keeps whole under the coreai table and coreai-torch does
# not lower: var_mean.correction (std_mean too), cummax, cummin. cummax and
# cummin: ties take the later index, NaN propagates with its own index.
RUNNING_EXTREMA = '''
import torch
class M(torch.nn.Module):
    def forward(self, x, n):
        v, m = torch.var_mean(x, dim=1)
        s, m2 = torch.std_mean(x, dim=(0,), keepdim=True, correction=0)
        cv, ci = torch.cummax(x, dim=1)
        nv, ni = torch.cummin(x, dim=0)
        iv, ii = torch.cummax(n, dim=-1)
        jv, ji = torch.cummin(n, dim=-1)
        return v, m, s, m2, cv, ci, nv, ni, iv, ii, jv, ji
def factory():
    nan = float("nan")
    x = torch.tensor([[1.0, 3.0, 3.0, 2.0, nan, 5.0, nan, 1.0],
                      [nan, -1.0, -2.0, -2.0, 0.0, -3.0, 4.0, 4.0],
                      [0.5, 0.5, -0.5, 7.0, 7.0, 6.0, -9.0, 8.0]])
    n = torch.tensor([[3, 1, 1, 5, 5, -2, 9, 9], [2, 2, 2, 2, 3, 1, 1, 0]], dtype=torch.int64)
    return M(), (x, n)
'''

# median: the lower median; a lane with a NaN gives NaN and its first NaN's
# index. kthvalue ranks NaN largest. No ties: PyTorch does not specify which
# of equal elements median/kthvalue return.
MEDIAN = '''
import torch
class M(torch.nn.Module):
    def forward(self, x, n):
        v, i = torch.median(x, dim=1)
        w, j = torch.median(x, dim=0, keepdim=True)
        kv, ki = torch.kthvalue(x, 2, dim=1)
        return (v, i, w, j, torch.median(x), torch.median(n, dim=-1)[0], torch.median(n), kv, ki,
                torch.kthvalue(x, 5, dim=-1, keepdim=True)[0], torch.kthvalue(n, 1, dim=0)[1])
def factory():
    nan = float("nan")
    x = torch.tensor([[1.0, 4.0, -2.0, 3.0, 0.5], [5.0, nan, 1.0, nan, 2.0],
                      [0.25, -7.0, 9.0, 8.0, -1.5], [6.0, 2.5, -3.0, 1.25, 4.5]])
    n = torch.tensor([[3, -1, 7, 2], [10, 4, 8, -6]], dtype=torch.int64)
    return M(), (x, n)
'''

# Rank-0 inputs: dim 0 and -1 name the tensor itself; nothing is reduced.
RANK0 = '''
import torch
class M(torch.nn.Module):
    def forward(self, x, n):
        return (x.sum(dim=0), x.amax(dim=-1, keepdim=True), x.argmax(dim=0), n.cumsum(0), x.var(dim=0, correction=0),
                x.any(dim=0), n.prod(dim=0), x.mean(), n.sum())
def factory():
    return M(), (torch.tensor(2.5), torch.tensor(7, dtype=torch.int64))
'''

# A dynamic batch dim: dropping the reduced dims is coreai.shrink_dims
# (a reshape needs a static shape).
DYNAMIC_BATCH = '''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        m, i = x.max(dim=1)
        return x.sum(dim=-1), x.argmax(dim=1), m, i, x.mean(dim=1, keepdim=True), x.var(dim=1), x.cumsum(0)
def factory():
    torch.manual_seed(2)
    return M(), (torch.randn(3, 5),)
'''

# coreai-core's interpreter aborts the process (SIGILL, a trapping overflow
# check) when an integer `scan` overflows; PyTorch, coreai-core's own
# reduce_product and coreai-run wrap. The same int64 cumprod as above on
# inputs whose running product leaves int64.
OVERFLOWING_CUMPROD = '''
import torch
class M(torch.nn.Module):
    def forward(self, small):
        return small.cumprod(dim=1)
def factory():
    g = torch.Generator().manual_seed(7)
    return M(), (torch.randint(-128, 127, (3, 40), generator=g, dtype=torch.int8),)
'''

# f16: PyTorch accumulates in f32 and rounds once. coreai-core's f16 scan
# rounds every partial sum (2048 values near 1.05 end at 2070, not 2150), so
# the lowering scans f16/bf16 in f32 (variances too, as PyTorch).
HALF = '''
import torch
class M(torch.nn.Module):
    def forward(self, x, y):
        return x.cumsum(dim=1), x.sum(dim=1), x.mean(dim=-1), x.cumprod(dim=0), y.var(dim=1)
def factory():
    g = torch.Generator().manual_seed(1)
    x = (torch.rand(2, 2048, generator=g) * 0.1 + 1).half()
    y = (torch.rand(2, 64, generator=g) * 0.02 + 0.995).half()
    return M(), (x, y)
'''

# Ops the coreai decomposition table decomposes, exported whole with
# --decompositions none: sum.default, all.dims, std.correction, logsumexp,
# argsort.stable, sort.stable, linalg_vector_norm.
WHOLE = '''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return (x.sum(), (x > -1).all(), torch.std(x, dim=(0, 1)), torch.logsumexp(x, dim=-1, keepdim=True),
                torch.argsort(x, dim=1, descending=True, stable=True), torch.linalg.vector_norm(x, ord=3, dim=1),
                torch.linalg.vector_norm(x, ord=float("inf")), torch.linalg.vector_norm(x, ord=1, dim=(0,), keepdim=True),
                torch.argsort(x, dim=0), (x > 0).any(dim=(0, 1)))
def factory():
    torch.manual_seed(4)
    x = torch.randn(3, 5) * 4
    x[0, 1] = x[0, 3]
    return M(), (x,)
'''


def export_and_lower(tmp_path, source, decompositions="coreai", extra=()):
    aten = export_source(tmp_path, source, "--decompositions", decompositions, *extra)
    core = tmp_path / "coreai.mlir"
    text = lower(aten, core, f"legalize-aten-to-coreai{{table={decompositions}}}")
    assert "aten." not in text and "func." not in text
    return core, text


def check_both_executors(tmp_path, source, atol, rtol, decompositions="coreai", extra=()):
    core, text = export_and_lower(tmp_path, source, decompositions, extra)
    assert_coreai_run_matches(core, tmp_path / "in.npz", tmp_path / "expected.npz", atol, rtol)
    expected = load(tmp_path / "expected.npz")
    ours = run_coreai_core(text, load(tmp_path / "in.npz"), tmp_path)
    for name, want in expected.items():
        got = ours[name]
        assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
        if want.dtype.kind in "iub":
            np.testing.assert_array_equal(got, want, err_msg=name)
        else:
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=name)
    return text


def test_float_reductions_match_pytorch(tmp_path):
    # Float sums in a different order than PyTorch's: a few ulp.
    check_both_executors(tmp_path, FLOAT_REDUCTIONS, atol=1e-5, rtol=1e-5)


def test_ties_and_nan_pick_what_pytorch_picks(tmp_path):
    text = check_both_executors(tmp_path, TIES_NAN, atol=0, rtol=0)
    assert "coreai.not_equal" in text  # the NaN path is there


def test_topk_largest_and_smallest(tmp_path):
    check_both_executors(tmp_path, TOPK, atol=0, rtol=0)


def test_integer_sums_accumulate_in_64_bits(tmp_path):
    text = check_both_executors(tmp_path, INTEGERS, atol=0, rtol=0)
    assert "xsi32>) -> tensor<si32>" not in text
    expected = load(tmp_path / "expected.npz")
    # The regression: the true totals exceed int32.
    assert abs(int(expected["output_0"])) > 2**31


def test_half_scans_accumulate_in_f32(tmp_path):
    text = check_both_executors(tmp_path, HALF, atol=0, rtol=0)
    assert "combiner = <sum> : (tensor<2x2048xf32>" in text


HALF_PROD = '''
import torch
class M(torch.nn.Module):
    def forward(self, y):
        return y.prod(dim=1)
def factory():
    g = torch.Generator().manual_seed(1)
    return M(), ((torch.rand(2, 64, generator=g) * 0.02 + 0.995).half(),)
'''


def test_half_prod_accumulates_in_f32(tmp_path):
    """Eager PyTorch's CPU prod of f16 accumulates in f16 in its vectorized
    order; coreai-core's f16 reduce_product accumulates in f16 sequentially.
    Neither order can be reproduced, so the lowering multiplies in f32 and
    rounds once: the oracle is PyTorch's f32 product rounded to f16, which
    here equals the float64 product rounded once (1.4277, 1.3760).
    Eager gives 1.4209, 1.3643 under ATEN_CPU_CAPABILITY=avx512, avx2 and
    default alike (measured), so the recorded disagreement holds on every
    x86-64 machine."""
    core, text = export_and_lower(tmp_path, HALF_PROD)
    assert "coreai.reduce_product %" in text and "(tensor<2x64xf32>, tensor<1xsi32>)" in text
    import torch

    y = load(tmp_path / "in.npz")["y"]
    want = torch.from_numpy(y).float().prod(dim=1).half().numpy()
    assert np.array_equal(want, torch.from_numpy(y).double().prod(dim=1).half().numpy())
    eager = load(tmp_path / "expected.npz")["output"]
    assert not np.array_equal(want, eager)  # the recorded disagreement
    ours = run_coreai_core(text, {"y": y}, tmp_path)
    np.testing.assert_array_equal(ours["output"], want)
    np.savez(tmp_path / "f32.npz", output=want)
    assert_coreai_run_matches(core, tmp_path / "in.npz", tmp_path / "f32.npz", 0, 0)


def test_ops_kept_whole_without_decompositions(tmp_path):
    check_both_executors(tmp_path, WHOLE, atol=1e-5, rtol=1e-5, decompositions="none")


@pytest.mark.parametrize("model", ["reductions", "argmax_topk", "cumsum_logsumexp", "int_large_sums", "moe_topk"])
def test_corpus_model_converts_and_matches(tmp_path, model):
    """The corpus models of this family, end to end (needs the elementwise,
    shape and indexing lowerings too)."""
    source, inputs, expected_npz = export_corpus_model(model, tmp_path)
    core = tmp_path / "coreai.mlir"
    lower(source, core, "legalize-aten-to-coreai")
    assert_coreai_run_matches(core, inputs, expected_npz, 1e-5, 1e-5)
    expected = load(expected_npz)
    ours = run_coreai_core(core.read_text(), load(inputs), tmp_path)
    for name, want in expected.items():
        assert ours[name].dtype == want.dtype, (name, ours[name].dtype, want.dtype)
        np.testing.assert_allclose(ours[name], want, rtol=1e-5, atol=1e-5, err_msg=name)


def test_var_mean_cummax_cummin_match_pytorch(tmp_path):
    text = check_both_executors(tmp_path, RUNNING_EXTREMA, atol=1e-6, rtol=1e-6)
    assert "combiner = <max>" in text and "combiner = <min>" in text


def test_median_matches_pytorch(tmp_path):
    check_both_executors(tmp_path, MEDIAN, atol=0, rtol=0)


def test_rank0_inputs(tmp_path):
    """coreai-run only: coreai-core's runtime aborts the process (SIGILL) on
    any rank-0 graph input, even for a graph that returns its argument."""
    core, text = export_and_lower(tmp_path, RANK0)
    assert "coreai.scan" not in text  # nothing to scan along
    assert_coreai_run_matches(core, tmp_path / "in.npz", tmp_path / "expected.npz", 0, 0)


def test_dynamic_batch_drops_reduced_dims_with_shrink_dims(tmp_path):
    text = check_both_executors(tmp_path, DYNAMIC_BATCH, atol=1e-6, rtol=1e-6, extra=("--dynamic-dims", "x:0=2:64"))
    assert "coreai.shrink_dims" in text and "tensor<?x5xf32>" in text


def test_int64_past_2_53_compares_exactly(tmp_path):
    check_both_executors(tmp_path, BIG_INT64, atol=0, rtol=0)


def test_coreai_core_traps_on_overflowing_integer_scan(tmp_path):
    """Recorded disagreement: PyTorch wraps an overflowing int64 cumprod;
    coreai-run wraps and matches it; coreai-core's interpreter kills the
    process (the oracle worker's death, expected, so not rerun)."""
    import oracle

    core, text = export_and_lower(tmp_path, OVERFLOWING_CUMPROD)
    assert "combiner = <product>" in text and "tensor<3x40xsi64>" in text
    assert_coreai_run_matches(core, tmp_path / "in.npz", tmp_path / "expected.npz", 0, 0)
    died = oracle.interpret((tmp_path / "coreai.mlir").read_text(), load(tmp_path / "in.npz"), tmp_path,
                            expect_death=True)
    assert isinstance(died, oracle.OracleDied), \
        "coreai-core no longer traps: compare it with PyTorch in test_integer_sums_accumulate_in_64_bits"
