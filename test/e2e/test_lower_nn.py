"""Matrix products, convolutions, normalization, attention, pooling and
resampling: PyTorch → coreai_export → legalize-aten-to-coreai, run in
coreai-run and in coreai-core's interpreter, compared with eager PyTorch (the
exporter's expected.npz). Shapes are asymmetric and spatial sizes odd;
convolutions use groups, dilation, stride and padding; inputs straddle zero
and exceed 10 in magnitude.

Tolerance: f32 outputs within atol = 1e-4 · max|ref| (rtol 1e-5): the
lowerings reassociate sums (a matmul or convolution accumulates in another
order than PyTorch's kernels, a norm computes the variance as the mean of
squared deviations), which moves results by a few ulp of the largest value.
Regressions: the causal mask of SDPA is PyTorch's upper-left one when
q_len ≠ k_len (coreai-torch's composite is lower-right), and instance norm
with running statistics (use_input_stats = false) uses them.
"""

import numpy as np
import pytest

from test_lower_reduce import export_and_lower
from toolchain import (
    assert_coreai_run_matches, export_corpus_model, export_source, load, lower, run_coreai_core,
)

MATMUL = '''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(7, 5)
    def forward(self, a, b, c, bias):
        return (a @ b, torch.bmm(c, c.transpose(1, 2)), torch.addmm(bias, a, b, beta=0.5, alpha=-2.0),
                torch.addmm(bias, a, b, beta=0.0), self.fc(c), torch.matmul(c, a.T[:, 0]))
def factory():
    torch.manual_seed(0)
    return M(), (torch.randn(3, 7) * 12, torch.randn(7, 5), torch.randn(2, 3, 7) * 4, torch.randn(5) * 20)
'''

# Ops the coreai table decomposes, exported whole (--decompositions none).
MATMUL_WHOLE = '''
import torch
class M(torch.nn.Module):
    def forward(self, x, w, b, v, c):
        return (torch.nn.functional.linear(x, w, b), torch.matmul(x, v), torch.matmul(v, w.T),
                torch.baddbmm(c, x, x.transpose(1, 2), beta=2.0, alpha=0.5))
def factory():
    torch.manual_seed(1)
    return M(), (torch.randn(2, 3, 6) * 11, torch.randn(4, 6), torch.randn(4), torch.randn(6), torch.randn(2, 1, 3))
'''

CONV = '''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv1d(4, 6, 3, stride=2, padding=2, dilation=2)
        self.c2 = torch.nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)
        self.c2d = torch.nn.Conv2d(4, 4, 3, padding=1, groups=4, bias=False)
        self.c3 = torch.nn.Conv3d(2, 3, (2, 3, 3), stride=(1, 2, 1), padding=(1, 0, 1))
        self.t1 = torch.nn.ConvTranspose1d(4, 2, 3, stride=2, padding=1, output_padding=1)
        self.t2 = torch.nn.ConvTranspose2d(4, 6, (3, 2), stride=(2, 3), padding=(1, 0), output_padding=(1, 2), groups=2)
        self.t3 = torch.nn.ConvTranspose3d(2, 2, 2, stride=2)
    def forward(self, x1, x2, x3):
        return (self.c1(x1), self.c2(x2), self.c2d(x2), self.c3(x3), self.t1(x1), self.t2(x2), self.t3(x3),
                self.c2(x2[0]), self.t1(x1[1]))  # unbatched inputs
def factory():
    torch.manual_seed(2)
    return M(), (torch.randn(2, 4, 11) * 10, torch.randn(1, 4, 7, 9) * 10, torch.randn(1, 2, 3, 5, 4) * 10)
'''

NORMS = '''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = torch.nn.BatchNorm2d(3)
        self.ln = torch.nn.LayerNorm([5, 6])
        self.gn = torch.nn.GroupNorm(2, 6)
        self.inorm = torch.nn.InstanceNorm2d(3, affine=True)
        self.irun = torch.nn.InstanceNorm2d(3, track_running_stats=True)
        with torch.no_grad():
            for m in (self.bn, self.irun):
                m.running_mean.copy_(torch.tensor([0.5, -3.0, 12.0]))
                m.running_var.copy_(torch.tensor([2.0, 0.25, 30.0]))
            self.bn.weight.copy_(torch.tensor([1.5, -0.5, 2.0]))
            self.bn.bias.copy_(torch.tensor([0.1, 3.0, -2.0]))
            self.inorm.weight.copy_(torch.tensor([0.7, 1.3, -1.0]))
            self.inorm.bias.copy_(torch.tensor([1.0, 0.0, -4.0]))
    def forward(self, x, y):
        return self.bn(x), self.ln(x), self.gn(y), self.inorm(x), self.irun(x)
def factory():
    torch.manual_seed(3)
    m = M().eval()
    return m, (torch.randn(2, 3, 5, 6) * 8 + 3, torch.randn(2, 6, 3, 5) * 15)
'''

# enable_gqa: 4 query heads share 2 key/value heads.
ATTENTION = '''
import torch
import torch.nn.functional as F
class M(torch.nn.Module):
    def forward(self, q, k, v, fmask, bmask, kg, vg):
        return (F.scaled_dot_product_attention(q, k, v),
                F.scaled_dot_product_attention(q, k, v, attn_mask=fmask, scale=0.3),
                F.scaled_dot_product_attention(q, k, v, attn_mask=bmask),
                F.scaled_dot_product_attention(q, k, v, is_causal=True),
                F.scaled_dot_product_attention(q, kg, vg, is_causal=True, enable_gqa=True),
                torch.softmax(q, dim=-2), torch.log_softmax(q, dim=1))
def factory():
    torch.manual_seed(4)
    q = torch.randn(2, 4, 3, 8) * 3
    k = torch.randn(2, 4, 5, 8) * 3
    v = torch.randn(2, 4, 5, 6) * 12
    bmask = torch.rand(3, 5) > 0.4
    bmask[:, 0] = True
    return M(), (q, k, v, torch.randn(2, 1, 3, 5) * 2, bmask, torch.randn(2, 2, 5, 8) * 3, torch.randn(2, 2, 5, 8))
'''

POOL = '''
import torch
import torch.nn.functional as F
class M(torch.nn.Module):
    def forward(self, x, z):
        return (F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
                F.max_pool2d(x, (2, 3), stride=(1, 2), dilation=(2, 1)),
                F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False),
                F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
                F.avg_pool2d(x, 2, divisor_override=3),
                F.avg_pool3d(z, (1, 2, 2), stride=(1, 2, 1), padding=(0, 1, 0), count_include_pad=False),
                F.adaptive_avg_pool2d(x, (3, 4)), F.adaptive_avg_pool2d(x, (1, 1)),
                F.adaptive_max_pool2d(x, (2, 3)), F.adaptive_max_pool2d(x, (7, 3)),
                # unbatched inputs
                F.max_pool2d(x[0], 3, stride=2, ceil_mode=True), F.avg_pool2d(x[1], 2, padding=1),
                F.avg_pool3d(z[0], 2), F.adaptive_avg_pool2d(x[0], (3, 4)), F.adaptive_max_pool2d(x[1], (2, 2)))
def factory():
    torch.manual_seed(5)
    return M(), (torch.randn(2, 3, 7, 9) * 10, torch.randn(1, 2, 3, 5, 4) * 10)
'''

# Max-pool and adaptive max-pool indices: flat h·W + w of each window's
# first maximum.
MAX_POOL_INDICES = '''
import torch
import torch.nn.functional as F
class M(torch.nn.Module):
    def forward(self, x):
        a, ia = F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, return_indices=True)
        b, ib = F.max_pool2d(x, (2, 3), stride=(1, 2), dilation=(2, 1), return_indices=True)
        c, ic = F.max_pool2d(x[1], 2, padding=1, return_indices=True)
        d, id_ = F.adaptive_max_pool2d(x, (3, 4), return_indices=True)
        e, ie = F.adaptive_max_pool2d(x[0], (7, 3), return_indices=True)
        return a, ia, b, ib, c, ic, d, id_, e, ie
def factory():
    torch.manual_seed(10)
    return M(), (torch.randn(2, 3, 7, 9) * 10,)
'''

UPSAMPLE = '''
import torch
import torch.nn.functional as F
class M(torch.nn.Module):
    def forward(self, x):
        return (F.interpolate(x, size=(7, 11), mode="bilinear"),
                F.interpolate(x, scale_factor=(1.5, 2.25), mode="bilinear"),
                F.interpolate(x, size=(9, 4), mode="bilinear", align_corners=True),
                F.interpolate(x, scale_factor=2, mode="nearest"),
                F.interpolate(x, size=(7, 11), mode="nearest"),
                F.interpolate(x, scale_factor=(1.75, 0.5), mode="nearest"))
def factory():
    torch.manual_seed(6)
    return M(), (torch.randn(1, 2, 4, 5) * 10,)
'''


# Ops the coreai table decomposes, exported whole (--decompositions none).
NN_WHOLE = '''
import torch
import torch.nn.functional as F
class M(torch.nn.Module):
    def forward(self, x):
        return (F.adaptive_avg_pool2d(x, (3, 2)), torch.softmax(x, dim=1, dtype=torch.float64),
                torch.log_softmax(x, dim=-1), F.max_pool2d(x, 2), F.group_norm(x, 3), F.layer_norm(x, [7, 9]))
def factory():
    torch.manual_seed(9)
    return M(), (torch.randn(2, 6, 7, 9) * 10,)
'''


# A dynamic batch: norms and softmax need only the channel / normalized dims.
DYNAMIC_BATCH = '''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = torch.nn.LayerNorm(6)
        self.bn = torch.nn.BatchNorm1d(5)
        with torch.no_grad():
            self.bn.running_mean.copy_(torch.linspace(-3, 3, 5))
            self.bn.running_var.copy_(torch.linspace(0.5, 4, 5))
    def forward(self, x):
        return self.ln(x), self.bn(x), torch.softmax(x, dim=-1), torch.log_softmax(x, dim=1)
def factory():
    torch.manual_seed(8)
    return M().eval(), (torch.randn(4, 5, 6) * 10,)
'''


# Attention over a dynamic batch, with a float mask and an explicit scale.
DYNAMIC_ATTENTION = '''
import torch
import torch.nn.functional as F
class M(torch.nn.Module):
    def forward(self, x, m):
        return (F.scaled_dot_product_attention(x, x * 0.5, x + 1.0, scale=0.4),
                F.scaled_dot_product_attention(x, x, x, attn_mask=m))
def factory():
    torch.manual_seed(11)
    return M(), (torch.randn(2, 3, 5, 8) * 3, torch.randn(5, 5))
'''


def check(tmp_path, source, decompositions="coreai"):
    """Both executors against eager PyTorch, f32 within 1e-4 · max|ref|."""
    core, text = export_and_lower(tmp_path, source, decompositions)
    expected = load(tmp_path / "expected.npz")
    scale = max(float(np.max(np.abs(v))) for v in expected.values() if v.size)
    atol = 1e-4 * scale
    assert_coreai_run_matches(core, tmp_path / "in.npz", tmp_path / "expected.npz", atol, 1e-5)
    ours = run_coreai_core(text, load(tmp_path / "in.npz"), tmp_path)
    for name, want in expected.items():
        tol = 1e-4 * float(np.max(np.abs(want))) if want.size else 0.0
        np.testing.assert_allclose(ours[name], want, rtol=1e-5, atol=tol, err_msg=name)
    return text


def test_matrix_products(tmp_path):
    text = check(tmp_path, MATMUL)
    assert "coreai.decomposable.broadcasting_batch_matmul" in text


def test_linear_matmul_baddbmm_kept_whole(tmp_path):
    check(tmp_path, MATMUL_WHOLE, decompositions="none")


def test_convolutions_1d_2d_3d_and_transposed(tmp_path):
    text = check(tmp_path, CONV)
    for op in ("coreai.conv2d", "coreai.conv3d", "coreai.conv_transpose2d", "coreai.conv_transpose3d"):
        assert op in text, op


def test_norms_including_instance_norm_with_running_stats(tmp_path):
    check(tmp_path, NORMS)
    # The regression: the running statistics are far from the input's own,
    # so using input statistics instead would be far off.
    expected = load(tmp_path / "expected.npz")
    x = load(tmp_path / "in.npz")
    own = (x["x"] - x["x"].mean(axis=(2, 3), keepdims=True)) / np.sqrt(
        x["x"].var(axis=(2, 3), keepdims=True) + 1e-5)
    assert np.max(np.abs(expected["output_4"] - own)) > 1.0


def test_attention_masks_causal_upper_left_and_gqa(tmp_path):
    text = check(tmp_path, ATTENTION)
    assert "0xFF800000" in text  # -inf, not coreai-torch's -1e4
    # The regression: with q_len 3 ≠ k_len 5, a lower-right causal mask
    # (query i attends keys j ≤ i + 2) differs from PyTorch's upper-left one.
    import torch
    x = load(tmp_path / "in.npz")
    q, k, v = (torch.from_numpy(x[n]) for n in ("q", "k", "v"))
    lower_right = torch.ones(3, 5, dtype=torch.bool).tril(diagonal=2)
    wrong = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=lower_right).numpy()
    assert np.max(np.abs(load(tmp_path / "expected.npz")["output_3"] - wrong)) > 1e-2


def test_pooling(tmp_path):
    text = check(tmp_path, POOL)
    for op in ("coreai.max_pool_2d", "coreai.sum_pool_2d", "coreai.sum_pool_3d"):
        assert op in text, op


def test_max_pool_indices(tmp_path):
    core, text = export_and_lower(tmp_path, MAX_POOL_INDICES)
    assert_coreai_run_matches(core, tmp_path / "in.npz", tmp_path / "expected.npz", 0, 0)
    ours = run_coreai_core(text, load(tmp_path / "in.npz"), tmp_path)
    for name, want in load(tmp_path / "expected.npz").items():
        np.testing.assert_array_equal(ours[name], want, err_msg=name)


def test_upsampling(tmp_path):
    text = check(tmp_path, UPSAMPLE)
    assert "interpolation_mode<nearest_neighbor>" in text and "interpolation_mode<linear>" in text


def test_nn_ops_kept_whole(tmp_path):
    check(tmp_path, NN_WHOLE, decompositions="none")


def check_dynamic(tmp_path, source, dynamic_dims, typed):
    """`check` for an export with dynamic dims; `typed` must appear in it."""
    aten = export_source(tmp_path, source, "--dynamic-dims", dynamic_dims)
    assert typed in aten.read_text()
    core = tmp_path / "coreai.mlir"
    lower(aten, core, "legalize-aten-to-coreai")
    expected = load(tmp_path / "expected.npz")
    assert_coreai_run_matches(core, tmp_path / "in.npz", tmp_path / "expected.npz", 1e-4, 1e-5)
    ours = run_coreai_core(core.read_text(), load(tmp_path / "in.npz"), tmp_path)
    for name, want in expected.items():
        np.testing.assert_allclose(ours[name], want, rtol=1e-5, atol=1e-4 * float(np.max(np.abs(want))), err_msg=name)


def test_norms_and_softmax_with_a_dynamic_batch(tmp_path):
    check_dynamic(tmp_path, DYNAMIC_BATCH, "x:0=1:64", "tensor<?x5x6xf32>")


def test_attention_with_a_dynamic_batch(tmp_path):
    check_dynamic(tmp_path, DYNAMIC_ATTENTION, "x:0=1:16", "tensor<?x3x5x8xf32>")


@pytest.mark.parametrize("model", [
    "conv2d_pool", "conv1d_conv3d", "upsample", "adaptive_pool", "batch_layer_norm", "group_instance_norm",
    "sdpa_plain", "mha_module", "llama_block", "conv_gn_block", "transposed_decoder",
    pytest.param("resnet18", marks=pytest.mark.slow), pytest.param("mobilenet_v3_small", marks=pytest.mark.slow),
    pytest.param("vit_tiny", marks=pytest.mark.slow), "fp16_conv", "fp16_mlp",
])
def test_corpus_model_converts_and_matches(tmp_path, model):
    """The corpus models of this family, end to end in coreai-run and in
    coreai-core's interpreter (needs the other families' lowerings too)."""
    source, inputs, expected_npz = export_corpus_model(model, tmp_path)
    core = tmp_path / "coreai.mlir"
    lower(source, core, "legalize-aten-to-coreai")
    expected = load(expected_npz)
    scale = max(float(np.max(np.abs(v))) for v in expected.values() if v.size)
    # f16 models: PyTorch's CPU kernels and ours each round to f16 once per
    # op but at different points (f32 accumulation), so results may differ
    # by an f16 ulp (2^-10 relative): 1e-3 instead of f32's 1e-4.
    rel = 1e-3 if model.startswith("fp16") else 1e-4
    assert_coreai_run_matches(core, inputs, expected_npz, rel * scale, 1e-5)
    ours = run_coreai_core(core.read_text(), load(inputs), tmp_path)
    # coreai-core's interpreter is up to 2 f16 ulps from PyTorch on fp16_mlp
    # (measured: 0.1700 vs 0.1702) where coreai-run is within one: it keeps
    # more intermediates in f16.
    rel = 2 * rel if model.startswith("fp16") else rel
    for name, want in expected.items():
        tol = rel * float(np.max(np.abs(want))) if want.size else 0.0
        np.testing.assert_allclose(ours[name], want, rtol=1e-5, atol=tol, err_msg=name)
