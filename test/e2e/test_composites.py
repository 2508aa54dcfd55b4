"""The ATen-derived composites (legalize-aten-to-coreai{composites=graph}, the
default) against eager PyTorch in coreai-run and in coreai-core's
interpreter, with the declarations coreai-torch gives them, deterministic
names, and the same outputs as composites=inline. Also through
coreai-pipeline (canonicalize and cse keep the graphs)."""

import os
import re

import pytest

import numpy as np

from test_lower_reduce import export_and_lower
from toolchain import REPO, assert_coreai_run_matches, coreai_run, load, lower, run_coreai_core

# Every composite coreai-torch emits, some twice (two graphs, two names),
# and the forms that stay inline (instance norm on running statistics).
MODEL = '''
import torch
import torch.nn.functional as F
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = torch.nn.BatchNorm2d(4).eval()
        self.bn.running_mean.uniform_(-1, 1)
        self.bn.running_var.uniform_(0.5, 2)
        self.gn = torch.nn.GroupNorm(2, 4)
        self.ln = torch.nn.LayerNorm(6)
        self.inorm = torch.nn.InstanceNorm2d(4)
        self.inorm_running = torch.nn.InstanceNorm2d(4, track_running_stats=True).eval()
        self.inorm_running.running_mean.uniform_(-1, 1)
    def forward(self, x, q, k, v, m, z):
        ln = self.ln(self.ln(x))
        return (
            self.bn(x), self.gn(x), ln, self.inorm(x), self.inorm_running(x),
            F.log_softmax(x, dim=1), F.hardsigmoid(x),
            F.pixel_shuffle(x, 2),
            F.scaled_dot_product_attention(q, k, v),
            F.scaled_dot_product_attention(q, k, v, attn_mask=m),
            F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.5),
            F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
            F.avg_pool3d(z, 2, divisor_override=3),
        )
def factory():
    torch.manual_seed(0)
    return M().eval(), (torch.randn(2, 4, 5, 6) * 3 + 1, torch.randn(1, 2, 3, 8),
                        torch.randn(1, 2, 5, 8), torch.randn(1, 2, 5, 4),
                        torch.randn(3, 5), torch.randn(1, 2, 4, 4, 4))
'''

DECLS = ["batch_norm", "group_norm", "layer_norm", "instance_norm", "log_softmax", "hard_sigmoid",
         "pixel_shuffle", "scaled_dot_product_attention", "avg_pool_2d", "avg_pool_3d"]

# linalg_vector_norm is decomposed by the coreai table; kept whole (table
# none) it is a composite too.
VECTOR_NORM = '''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return (torch.linalg.vector_norm(x, ord=3, dim=(1, 3)), torch.linalg.vector_norm(x, keepdim=True),
                torch.linalg.vector_norm(x, ord=float("-inf"), dim=-1))
def factory():
    torch.manual_seed(0)
    return M(), (torch.randn(2, 4, 5, 6),)
'''


def compare_both(tmp_path, core, text):
    assert_coreai_run_matches(core, tmp_path / "in.npz", tmp_path / "expected.npz", 1e-5, 1e-5)
    ours = run_coreai_core(text, load(tmp_path / "in.npz"), tmp_path)
    for name, want in load(tmp_path / "expected.npz").items():
        np.testing.assert_allclose(ours[name], want, rtol=1e-5, atol=1e-5, err_msg=name)


def test_composites_match_eager_in_both_executors_and_inline(tmp_path):
    core, text = export_and_lower(tmp_path, MODEL)
    # coreai-torch's form: private noinline graphs with a declaration, called
    # by coreai.invoke; one per call site, named in program order.
    decls = re.findall(r'composite_declaration<"(\w+)"', text)
    assert sorted(set(decls)) == sorted(DECLS)
    names = re.findall(r"coreai\.graph private noinline @(\w+)\(", text)
    assert names.count("layer_norm") == 1 and "layer_norm_1" in names
    assert len(names) == len(set(names)) == len(decls) == 13
    for name in names:
        assert f"coreai.invoke @{name}(" in text, name
    # Instance norm on running statistics stays inline, as in coreai-torch.
    assert decls.count("instance_norm") == 1
    compare_both(tmp_path, core, text)

    # The same input gives byte-identical output.
    again = tmp_path / "again.mlir"
    lower(tmp_path / "aten.mlir", again, "legalize-aten-to-coreai")
    assert again.read_text() == text

    # composites=inline computes bit-identical outputs in coreai-run.
    inline = tmp_path / "inline.mlir"
    lower(tmp_path / "aten.mlir", inline, "legalize-aten-to-coreai{composites=inline}")
    assert "noinline" not in inline.read_text() and "coreai.invoke" not in inline.read_text()
    outs = {}
    for form, path in [("graph", core), ("inline", inline)]:
        out = tmp_path / f"{form}.npz"
        r = coreai_run(path, "--inputs", tmp_path / "in.npz", "--outputs", out)
        assert r.returncode == 0, r.stdout + r.stderr
        outs[form] = load(out)
    for name in outs["graph"]:
        np.testing.assert_array_equal(outs["graph"][name], outs["inline"][name], err_msg=name)


# coreai-pipeline with core-optimize's value-changing rewrites off: its
# batch-norm folding removes batch_norm composites with constant statistics
# on purpose (test/Passes/core-optimize.mlir); every other composite
# survives the whole pipeline. Call sites of identical composite graphs
# (same declaration, same body: the two equal layer norms) share one graph,
# as in coreai-torch's to_coreai() output; every call site is kept.
EXACT_PIPELINE = "decompose,legalize-aten-to-coreai,fp16-stabilize,canonicalize,cse,core-optimize{exact=true}"


def test_composites_survive_the_pipeline(tmp_path):
    export_and_lower(tmp_path, MODEL)
    piped = tmp_path / "piped.mlir"
    lower(tmp_path / "aten.mlir", piped, EXACT_PIPELINE)
    text = piped.read_text()
    names = re.findall(r"coreai\.graph private noinline @(\w+)\(", text)
    assert "layer_norm_1" not in names and len(names) == 12, names
    assert sorted(set(re.findall(r'composite_declaration<"(\w+)"', text))) == sorted(DECLS)
    calls = re.findall(r"coreai\.invoke @(\w+)\(", text)
    assert len(calls) == 13 and calls.count("layer_norm") == 2, calls
    assert set(calls) == set(names)
    compare_both(tmp_path, piped, text)


def test_vector_norm_composite(tmp_path):
    core, text = export_and_lower(tmp_path, VECTOR_NORM, decompositions="none")
    # ord as torch.export records it: an int is si64, a float f32 (-inf as
    # its bit pattern).
    for ord_ in ("ord = 3 : si64", "ord = 2 : si64", "ord = 0xFF800000 : f32"):
        assert ord_ in text, ord_
    assert re.findall(r"coreai\.graph private noinline @(\w+)\(", text) == [
        "linalg_vector_norm", "linalg_vector_norm_1", "linalg_vector_norm_2"]
    compare_both(tmp_path, core, text)


# The golden cases (utils/coreai-golden/generate.py) whose coreai-torch
# output has composites, and the composites we deliberately emit inline.
GOLDEN = ["composites_norms", "composites_attention", "conv_pool", "adaptive_pool_softmax", "indexing",
          "pool_pad_more", "activations", "misc_activations"]
INLINE_BY_DESIGN = {
    # hardswish: coreai-torch's x · hard_sigmoid(x) rounds differently from
    # PyTorch's (x · relu6(x + 3)) / 6, which the inline lowering follows.
    ("misc_activations", "hard_sigmoid"),
}

GOLDEN_FACTORY = '''
import os, sys
sys.path.insert(0, {tools!r})
import generate
def factory():
    return generate.CASES[{name!r}][:2]
'''


def composite_headers(text, strip):
    """The signature and attributes of each composite graph, its name without
    the suffix `strip` matches (coreai-torch's random one, our counter)."""
    heads = []
    for line in text.splitlines():
        if "coreai.graph private noinline" in line:
            line = re.sub(strip, "", line.strip().rstrip("{").strip(), count=1)
            heads.append(re.sub(r"%arg\d+", "%arg", line))
    return heads


@pytest.mark.parametrize("name", GOLDEN)
def test_composites_have_coreai_torch_signatures_on_its_golden_models(tmp_path, name):
    tools = os.path.join(REPO, "utils", "coreai-golden")
    golden_dir = os.path.join(REPO, "test", "golden")
    work = tmp_path / name
    work.mkdir()
    core, _ = export_and_lower(work, GOLDEN_FACTORY.format(tools=tools, name=name))
    piped = work / "piped.mlir"
    lower(work / "aten.mlir", piped, EXACT_PIPELINE)
    ours = composite_headers(piped.read_text(), r"_\d+(?=\()")
    with open(os.path.join(golden_dir, f"{name}.mlir")) as f:
        theirs = composite_headers(f.read(), r"_[a-z]{8}(?=\()")
    assert theirs, name
    for header in theirs:
        decl = re.search(r'composite_declaration<"(\w+)"', header).group(1)
        if (name, decl) in INLINE_BY_DESIGN:
            assert header not in ours
            continue
        assert header in ours, f"{name}: {header}\nours: {ours}"
