"""The `decompose` pass against PyTorch's own decompositions.

For every corpus model: import with `--decompositions none`, run
`decompose` (coreai table), and check that (1) no op the table decomposes is
left, (2) the result runs in coreai-run and matches eager PyTorch exactly as
well as the `--decompositions coreai` import does (f32: atol 1e-4 x max|ref|,
rtol 1e-4; integers exactly). Where the executor cannot run the
`--decompositions coreai` import (an op without a kernel, see
test_export.USER_KERNELS), the decomposed module must fail with the same
message: the gap is the executor's, not the decomposition's.

`test_decomposition_branches` covers branches the corpus does not reach
(odd 'same' padding, vector norms of other orders, rsub with alpha, ...)
with a model of its own, also against eager PyTorch.
"""

import importlib.util
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from coreai_export.cli import build_parser, run
from models import CORPUS, EXPORT_FLAGS
from toolchain import COREAI_OPT, COREAI_RUN, REPO

TABLE = os.path.join(REPO, "passes", "data", "torch_default_decompositions.txt")
PRESERVED = {
    "hardsigmoid.default", "hardswish.default", "instance_norm.default", "pixel_shuffle.default",
    "reflection_pad1d.default", "reflection_pad2d.default", "reflection_pad3d.default",
    "replication_pad1d.default", "replication_pad2d.default", "replication_pad3d.default",
    "scaled_dot_product_attention.default", "silu.default",
}
# In PyTorch's table, but kept (passes/decompose.rs, KEPT): torch.export
# keeps sym_size.int too (it reads a symbolic size), and arange.default /
# arange.start are lowered as arange.start_step with start 0 and step 1,
# which is PyTorch's decomposition (a symbolic `end` stays an operand).
KEPT = {"sym_size.int", "arange.default", "arange.start"}
OP_RE = re.compile(r'^\s*(?:%[^=]+= )?aten\.([\w.]+)(?: "aten::([^"]+)")?')


def coreai_table():
    with open(TABLE) as f:
        table = {line.strip()[len("aten."):] for line in f if line.startswith("aten.")}
    return table - PRESERVED - KEPT


def support():
    """`coreai-compile --print-aten-support`: {key: "decompose" | "lower" | "decompose,lower"}."""
    out = subprocess.run([str(COREAI_OPT.parent / "coreai-compile"), "--print-aten-support"], capture_output=True,
                         text=True, check=True).stdout
    return dict(line.split("\t") for line in out.splitlines())


def kept_for_the_legalizer():
    """Ops of the coreai table that `decompose` keeps whole: no Rust
    decomposition, a lowering (passes/decompose.rs)."""
    return {k for k, how in support().items() if how == "lower"} & coreai_table()


def aten_ops(text):
    out = set()
    for line in text.splitlines():
        m = OP_RE.match(line)
        if m:
            out.add(m.group(2) or m.group(1))
    return out


def export(spec, flags, out_dir, decompositions):
    out_dir.mkdir(parents=True, exist_ok=True)
    mod, fac = spec.split(":")
    target = f"models.{mod}:{fac}" if "/" not in mod else None
    source = ["--model", target] if target else ["--module-file", spec]
    ns = build_parser().parse_args(
        [*source, "-o", str(out_dir / "m.mlir"), "--decompositions", decompositions,
         "--inputs-out", str(out_dir / "in.npz"), "--expected-out", str(out_dir / "expected.npz"), *flags]
    )
    run(ns)
    return out_dir / "m.mlir"


def scale_of(expected):
    """max |finite expected value| over the float outputs."""
    with np.load(expected) as z:
        finite = [np.abs(z[k][np.isfinite(z[k])]) for k in z.files if z[k].dtype.kind in "fc"]
        return max([float(f.max()) for f in finite if f.size] or [1.0])


def execute(module, directory):
    expected = directory / "expected.npz"
    return subprocess.run(
        [COREAI_RUN, str(module), "--inputs", str(directory / "in.npz"), "--compare", str(expected),
         "--atol", str(1e-4 * max(scale_of(expected), 1.0)), "--rtol", "1e-4"],
        capture_output=True, text=True,
    )


def decompose(module, out):
    r = subprocess.run([COREAI_OPT, str(module), "--pass-pipeline=builtin.module(decompose)", "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-4000:]
    return out


CASES = [pytest.param(n, s, marks=[pytest.mark.slow] if slow else [], id=n) for n, s, slow in CORPUS]


@pytest.mark.parametrize("name,spec", CASES)
def test_decompose_matches_the_coreai_table(name, spec, tmp_path):
    flags = EXPORT_FLAGS.get(name, [])
    none = export(spec, flags, tmp_path / "none", "none")
    reference = export(spec, flags, tmp_path / "coreai", "coreai")
    decomposed = decompose(none, tmp_path / "none" / "decomposed.mlir")

    left = aten_ops(decomposed.read_text()) & coreai_table() - kept_for_the_legalizer()
    assert not left, f"decompose left ops the coreai table decomposes: {sorted(left)}"

    ours = execute(decomposed, tmp_path / "none")
    # Printed by coreai-opt too, so that both report file:line:col locations.
    theirs = execute(decompose(reference, tmp_path / "coreai" / "decomposed.mlir"), tmp_path / "coreai")
    if theirs.returncode == 0:
        assert ours.returncode == 0, (ours.stdout + ours.stderr)[-4000:]
    elif ours.returncode != 0:
        # (ours may run where theirs does not: decompose also rewrites
        # symbolic views, whose aten.sym_size.int the executor cannot run.)
        assert reason(ours) == reason(theirs), (ours.stdout + ours.stderr)[-4000:]


def reason(run):
    """Why coreai-run failed: its error without the location, or 'out of tolerance'."""
    if run.returncode == 0:
        return "ok"
    if "outputs differ from" in run.stderr:
        return "out of tolerance"
    errors = [re.sub(r'^.*?"[^"]*":\d+:\d+: ', "", line) for line in run.stderr.splitlines() if "error" in line]
    return errors[-1] if errors else "out of tolerance"


BRANCHES = '''
import torch
import torch.nn.functional as F

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w_even = torch.nn.Parameter(torch.randn(4, 3, 4, 2))
        self.lin = torch.nn.Linear(5, 6, bias=False)
        self.gn = torch.nn.GroupNorm(2, 4, affine=False)
        self.ln = torch.nn.LayerNorm([3, 5], elementwise_affine=False)

    def forward(self, x, y, m, v):
        outs = []
        outs.append(F.conv2d(x, self.w_even, padding="same", dilation=(1, 2)))
        outs.append(F.conv2d(x, self.w_even, padding="valid"))
        outs.append(self.lin(y))
        outs.append(self.gn(torch.cat([x, x[:, :1]], 1)))
        outs.append(self.ln(y[0]))
        outs.append(torch.linalg.vector_norm(y, ord=float("inf"), dim=(0, 2)))
        outs.append(torch.linalg.vector_norm(y, ord=1))
        outs.append(torch.linalg.vector_norm(y, ord=3, dim=-1, keepdim=True))
        outs.append(torch.rsub(y, 2.5, alpha=3))
        outs.append(F.softplus(y * 4, beta=2, threshold=3))
        outs.append(torch.einsum("bij,bjk->bik", y, y.transpose(1, 2)))
        outs.append(torch.einsum("ij,kj->ki", y[0], y[1]))
        outs.append(torch.roll(y, shifts=(-1, 7), dims=(0, 2)))
        outs.append(torch.tile(y, (2, 1)))
        outs.append(torch.split(y, 2, dim=2)[2])
        outs.append(F.pad(y, (1, 2), value=-3.0))
        outs.append(torch.logsumexp(v, dim=(0, 1), keepdim=True))
        outs.append(torch.softmax(y, dim=0, dtype=torch.float64))
        outs.append(torch.stack([y, y], dim=-1))
        outs.append(torch.var(y, dim=[0, 2], unbiased=False))
        outs.append(torch.std(y, dim=1, keepdim=True))
        outs.append(y.masked_fill(m, 7))
        outs.append(m.all(dim=0))
        outs.append(F.avg_pool1d(y, 2, stride=1, padding=1, count_include_pad=False))
        outs.append(torch.repeat_interleave(y, 3, dim=-1))
        # Ops that models reach through transformers' and timm's code.
        ids = (y * 10).long()
        outs.append(torch.diff(ids, prepend=ids[..., :1] - 1, dim=-1))
        outs.append(torch.diff(y, n=2, dim=1, prepend=y[:, :1], append=y[:, -1:]))
        outs.append(torch.diff(m, dim=0))
        outs.append(torch.where(m, y, 2.5))
        outs.append(torch.where(m, ids, -3))
        outs.append(torch.where(m, ids, 0.5))
        outs.append(torch.min(y, y.flip(0)))
        outs.append(torch.max(ids, ids.flip(2)))
        outs.append(F.adaptive_avg_pool1d(y, 3))
        outs.append(F.adaptive_avg_pool1d(y[0], 2))
        outs.append(torch._weight_norm(y, y[:1, :, :1] + 2, 1))
        outs.append(torch._weight_norm(y, y[:1, :1, :1] + 2, -1))
        outs.append(torch._weight_norm(y, y[:1, :1, :] + 2, 2))
        # Batch statistics without running ones (timm's ScaledStdConv2d).
        outs.append(F.batch_norm(y, None, None, training=True, eps=1e-3))
        outs.append(F.batch_norm(x, None, None, weight=x[0, :, 0, 0] + 2, bias=x[0, :, 1, 1], training=True))
        return tuple(outs)

def factory():
    torch.manual_seed(0)
    v = torch.randn(2, 3, 4)
    v[0, 0, 0] = float("inf")
    return M(), (torch.randn(1, 3, 6, 7), torch.randn(2, 3, 5), torch.randn(2, 3, 5) > 0, v)
'''


def test_decomposition_branches(tmp_path):
    src = tmp_path / "branches.py"
    src.write_text(BRANCHES)
    none = export(f"{src}:factory", [], tmp_path / "none", "none")
    reached = {"diff.default", "where.ScalarOther", "min.other", "max.other", "adaptive_avg_pool1d.default",
               "_weight_norm.default", "_native_batch_norm_legit.no_stats"}
    assert reached <= aten_ops(none.read_text()), sorted(reached - aten_ops(none.read_text()))
    decomposed = decompose(none, tmp_path / "none" / "decomposed.mlir")
    assert not aten_ops(decomposed.read_text()) & coreai_table() - kept_for_the_legalizer()
    r = execute(decomposed, tmp_path / "none")
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]


KEPT_WHOLE = '''
import torch

class M(torch.nn.Module):
    def forward(self, x, y):
        return torch.matmul(x, y), x.new_ones(3), torch.zeros(2, 3) + x[0, :1]

def factory():
    torch.manual_seed(0)
    return M(), (torch.randn(4, 5), torch.randn(5, 3))
'''


def test_ops_with_a_lowering_and_no_decomposition_are_kept_and_convert(tmp_path):
    """matmul, new_ones and zeros are in the coreai table with no Rust
    decomposition: decompose keeps them for legalize-aten-to-coreai, and the
    whole pipeline matches eager PyTorch."""
    kept = kept_for_the_legalizer()
    assert {"matmul.default", "new_ones.default", "zeros.default"} <= kept, sorted(kept)
    src = tmp_path / "kept.py"
    src.write_text(KEPT_WHOLE)
    none = export(f"{src}:factory", [], tmp_path / "none", "none")
    decomposed = decompose(none, tmp_path / "none" / "decomposed.mlir")
    assert {"matmul.default", "new_ones.default", "zeros.default"} <= aten_ops(decomposed.read_text())
    assert_pipeline_matches(none, tmp_path / "none")


def assert_pipeline_matches(aten, directory):
    """coreai-pipeline on `aten` converts, and coreai-run's result matches
    directory/expected.npz (eager PyTorch)."""
    lowered = directory / "lowered.mlir"
    p = subprocess.run([COREAI_OPT, str(aten), "--pass-pipeline=builtin.module(coreai-pipeline)", "-o", str(lowered)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-4000:]
    r = execute(lowered, directory)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]


def test_an_op_without_decomposition_is_reported(tmp_path):
    # aten.hardtanh_backward.default is in PyTorch's table; no Rust decomposition.
    module = tmp_path / "m.mlir"
    module.write_text(
        "func.func @main(%g: tensor<3xf32>, %x: tensor<3xf32>) -> tensor<3xf32> {\n"
        '  %0 = aten.operator "aten::hardtanh_backward.default"(%g, %x) {min_val = -1.0 : f64, max_val = 1.0 : f64}'
        " : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>\n"
        "  return %0 : tensor<3xf32>\n}\n"
    )
    r = subprocess.run([COREAI_OPT, str(module), "--pass-pipeline=builtin.module(decompose)"],
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert "no decomposition here: aten.hardtanh_backward.default" in r.stderr, r.stderr


DYNAMIC = '''
import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 5)

    def forward(self, x):
        y = self.lin(x)
        return y, torch.repeat_interleave(y, 2, dim=1)

def factory():
    torch.manual_seed(0)
    return M(), (torch.randn(4, 3, 8),)
'''


def test_dynamic_batch_decomposes_with_inferred_views(tmp_path):
    """linear on a [batch?, 3, 8] input: views with -1 for the dynamic dim,
    then the whole pipeline, in coreai-run and coreai-core."""
    src = tmp_path / "dynamic.py"
    src.write_text(DYNAMIC)
    none = export(f"{src}:factory", ["--dynamic-dims", "x:0=1:16"], tmp_path / "none", "none")
    assert "tensor<?x3x8xf32>" in none.read_text()
    decomposed = decompose(none, tmp_path / "none" / "decomposed.mlir")
    assert "{size = [-1, 8]}" in decomposed.read_text()
    r = execute(decomposed, tmp_path / "none")
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]

    spec = importlib.util.spec_from_file_location("coreai_report", os.path.join(REPO, "utils", "coreai-report", "report.py"))
    report = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(report)
    out = tmp_path / "coreai.mlir"
    _, error = report.convert(none, out)
    assert not error, error
    expected = report.load(tmp_path / "none" / "expected.npz")
    for runner in (report.run_coreai_run, report.run_coreai_core):
        outputs, message = runner(out, tmp_path / "none" / "in.npz", tmp_path)
        assert outputs is not None, message
        verdict = report.compare(outputs, expected)
        assert verdict["ok"], verdict


FALLBACK = '''
import torch
import torch.nn.functional as F

class M(torch.nn.Module):
    def forward(self, x, y):
        return (torch.addcmul(x, x, y, value=0.5), torch.tril(x), torch.triu(x, 1), torch.square(y),
                F.rms_norm(x, (5,), eps=1e-5), torch.lerp(x, y, 0.25), torch.logaddexp(x, y), F.celu(x),
                F.glu(torch.cat([x, y], -1)))

def factory():
    torch.manual_seed(0)
    return M(), (torch.randn(4, 5), torch.randn(4, 5))
'''
# Exported as themselves under `--decompositions none`, with neither a Rust
# decomposition nor a lowering: PyTorch's decomposition applies at import.
FALLBACK_OPS = {"addcmul.default", "tril.default", "triu.default", "square.default", "rms_norm.default",
                "lerp.Scalar", "logaddexp.default", "celu.default", "glu.default"}


def test_ops_the_compiler_lacks_fall_back_to_pytorchs_decomposition_at_import(tmp_path):
    """The default (`none`) import decomposes, with PyTorch's own
    decompositions, the ops the compiler can neither decompose nor lower,
    one remark each, and the program converts and matches eager PyTorch."""
    assert not FALLBACK_OPS & set(support()), "the compiler handles one of them now: pick another op"
    src = tmp_path / "fallback.py"
    src.write_text(FALLBACK)
    aten = tmp_path / "aten.mlir"
    r = export_with_stderr(src, aten, tmp_path)
    assert r.returncode == 0, r.stderr
    for key in FALLBACK_OPS:
        assert f"remark: aten.{key} has no decomposition or lowering in the compiler" in r.stderr, r.stderr
    assert "fallback.py:" in r.stderr, "a remark names the line of the model's code"
    assert not FALLBACK_OPS & aten_ops(aten.read_text())
    assert_pipeline_matches(aten, tmp_path)


def test_the_fallback_asks_the_compiler_convert_was_given(tmp_path):
    """convert(compiler=...) is the binary the import's fallback asks for
    its ATen support, not the one found on PATH."""
    from coreai_export.convert import convert, find_compiler

    log = tmp_path / "calls.log"
    wrapper = tmp_path / "my-compile"
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> {log}\nexec {find_compiler()} "$@"\n')
    wrapper.chmod(0o755)
    model, inputs = load_factory(FALLBACK)()
    convert(model, inputs, tmp_path / "m.aimodel", compiler=str(wrapper))
    calls = log.read_text().splitlines()
    assert calls[0] == "--print-aten-support" and len(calls) == 2, calls


FUNCTIONAL = '''
import torch
import torch.nn.functional as F

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(12, 12)
        self.drop = torch.nn.Dropout(0.1)

    def forward(self, x):
        h = self.drop(self.proj(x)).to(torch.float16).to(x.device, dtype=torch.float32)
        h = h.unflatten(-1, (3, 4)).softmax(-1)
        return h.flatten(-2) * x

def factory():
    torch.manual_seed(0)
    return M().eval(), (torch.randn(2, 5, 12),)
'''

IN_PLACE = '''
import torch

class M(torch.nn.Module):
    def forward(self, x):
        y = x * 2
        y.add_(1)
        return y.relu_()

def factory():
    torch.manual_seed(0)
    return M(), (torch.randn(3, 4),)
'''


@pytest.mark.parametrize("source,retraced", [(FUNCTIONAL, False), (IN_PLACE, True)], ids=["functional", "in-place"])
def test_a_functional_program_imports_as_exported(source, retraced, tmp_path, monkeypatch):
    """The default import skips run_decompositions (a whole retrace) when
    torch.export's program only calls functional ATen ops the compiler
    lowers: training-IR forms such as eval-mode dropout, `to` with a
    device and `unflatten` import as they are. A program with an in-place
    op is retraced, as before. Either converts and matches eager."""
    import torch

    calls = []
    original = torch.export.ExportedProgram.run_decompositions

    def counted(self, *args, **kwargs):
        calls.append(args)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(torch.export.ExportedProgram, "run_decompositions", counted)
    src = tmp_path / "m.py"
    src.write_text(source)
    aten = export(f"{src}:factory", [], tmp_path, "none")
    assert bool(calls) == retraced, calls
    ops = aten_ops(aten.read_text())
    if not retraced:
        assert {"dropout.default", "to.device", "unflatten.int"} <= ops, sorted(ops)
    assert_pipeline_matches(aten, tmp_path)


def load_factory(source):
    ns = {}
    exec(source, ns)  # noqa: S102
    return ns["factory"]


def export_with_stderr(src, out, tmp_path):
    from toolchain import export as export_tool
    return export_tool(src, out, "--decompositions", "none", inputs_out=tmp_path / "in.npz",
                       expected_out=tmp_path / "expected.npz")


def test_every_op_export_can_leave_has_a_path():
    """Every ATen overload torch.export can leave in a program without
    run_decompositions (the keys of its default decompositions and the
    CompositeImplicitAutograd overloads export preserves) has a Rust
    decomposition or lowering, or PyTorch's decomposition for the import's
    fallback."""
    import torch
    from torch._export.utils import _collect_all_valid_cia_ops_for_aten_namespace

    table = {str(op).removeprefix("aten."): op for op in torch.export.default_decompositions()
             if str(op).startswith("aten.")}
    cia = {str(op).removeprefix("aten.") for op in _collect_all_valid_cia_ops_for_aten_namespace()}
    exportable = set(table) | cia
    assert len(exportable) > 900, len(exportable)
    ours = set(support())
    without = sorted(k for k in exportable if k not in ours and k not in table)
    assert not without, f"no path for: {without}"


AS_STRIDED = '''
import torch
import torch.nn.functional as F

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3)

    def forward(self, x):
        y = self.conv(x).contiguous(memory_format=torch.channels_last)
        return F.adaptive_avg_pool2d(y, 1).flatten(1), F.adaptive_avg_pool2d(y, (1, 1)) * 2

def factory():
    torch.manual_seed(0)
    return M(), (torch.randn(2, 3, 9, 9),)
'''


def test_as_strided_of_channels_last_pooling_converts_and_matches(tmp_path):
    """PyTorch's adaptive_avg_pool2d decomposition restrides a channels-last
    [N, C, 1, 1] with as_strided (timm's ConvNeXt and EdgeNeXt under the
    coreai table): a view, lowered as one, matching eager PyTorch."""
    src = tmp_path / "pool.py"
    src.write_text(AS_STRIDED)
    aten = export(f"{src}:factory", [], tmp_path, "coreai")
    assert "as_strided" in aten.read_text()
    assert_pipeline_matches(aten, tmp_path)
