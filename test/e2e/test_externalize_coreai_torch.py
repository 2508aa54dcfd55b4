"""coreai-torch's own module classes through `coreai_export --externalize`
(and `Marked(..., [coreai_torch.ExternalizeSpec, ...])`): a block written
for coreai-torch (`RMSNormImpl`, `RoPE`, `SDPA`, `GatherMM`) converts here
unchanged, with the declarations coreai-torch 0.4.3 prints for it (compared
as IR text after `coreai-pipeline`), and its outputs match eager PyTorch in
coreai-run and in coreai-core's interpreter. Also guide §8.7d (coreai-torch
issue #1): `SDPA` with a static query length and a dynamic key length,
which coreai-torch's externalize re-export refuses ("Constraints
violated"), converts here with the composite and runs at several lengths.

Tolerance: atol 1e-5 · max|ref| in f32 (the composite bodies are the
classes' own forward ops; the softmax and matmuls accumulate in another
order than PyTorch's).
"""

import re
import subprocess
import sys
import warnings

import numpy as np

from toolchain import IMPORTER, coreai_run, export, load, lower, run_coreai_core

BLOCK = '''
import torch
from torch import nn
from coreai_torch.composite_ops import GatherMM, RMSNorm, RMSNormImpl, RoPE, SDPA


class Block(nn.Module):
    def __init__(self, d=32, nh=4, nkv=2):
        super().__init__()
        self.nh, self.nkv, self.hd = nh, nkv, d // nh
        self.weight = nn.Parameter(torch.rand(d) + 0.5)
        self.norm = RMSNormImpl(eps=1e-6)
        self.post = RMSNorm(d, eps=1e-5)  # the wrapper: its inner RMSNormImpl matches
        self.rope = RoPE()
        self.rope_i = RoPE(interleaved=True, dims=4)
        self.sdpa = SDPA()
        self.causal = SDPA(is_causal=True, scale=0.25)
        self.gmm = GatherMM()
        self.experts = nn.Parameter(torch.randn(4, 8, 6) * 0.3)
        self.q = nn.Linear(d, d, bias=False)
        self.k = nn.Linear(d, nkv * self.hd, bias=False)
        self.v = nn.Linear(d, nkv * self.hd, bias=False)

    def forward(self, x, cos, sin, mask, idx):
        b, t, _ = x.shape
        h = self.norm(x, self.weight)
        q = self.q(h).view(b, t, self.nh, self.hd).transpose(1, 2)
        k = self.k(h).view(b, t, self.nkv, self.hd).transpose(1, 2)
        v = self.v(h).view(b, t, self.nkv, self.hd).transpose(1, 2)
        o = self.sdpa(self.rope(q, cos, sin), self.rope(k, cos, sin), v, mask)
        c = self.causal(self.rope_i(q, cos[:, :2], sin[:, :2]), k, v)
        y = self.post((o + c).transpose(1, 2).reshape(b, t, -1))
        return y, self.gmm(o[:, :, :, None, None, :], self.experts, rhs_indices=idx)


def factory():
    torch.manual_seed(0)
    t, hd = 6, 8
    half = torch.outer(torch.arange(t).float(), 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd)))
    mask = torch.zeros(t, t).masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
    return Block().eval(), (torch.randn(2, t, 32) * 3, half.cos(), half.sin(), mask,
                            torch.randint(0, 4, (2, 4, t, 2)).int())
'''

COMP = "coreai_torch.composite_ops"
FLAGS = [
    "--externalize", f"{COMP}.RMSNormImpl=rms_norm:axes,eps",
    "--externalize", f"{COMP}.RoPE=rope:scale,base,dims,interleaved",
    "--externalize", f"{COMP}.SDPA=scaled_dot_product_attention:scale,is_causal,window_size",
    "--externalize", f"{COMP}.GatherMM=gather_mm:num_batch_axes",
]


def specs():
    """Apple's shipping spec list (guide §8.5), minus GatedDeltaUpdate."""
    import coreai_torch
    import coreai_torch.composite_ops  # a subpackage `import coreai_torch` does not load

    c = coreai_torch.composite_ops
    return [
        coreai_torch.ExternalizeSpec(c.RMSNormImpl, "rms_norm", ["axes", "eps"]),
        coreai_torch.ExternalizeSpec(c.RoPE, "rope", ["scale", "base", "dims", "interleaved"]),
        coreai_torch.ExternalizeSpec(c.SDPA, "scaled_dot_product_attention", ["scale", "is_causal", "window_size"]),
        coreai_torch.ExternalizeSpec(c.GatherMM, "gather_mm", ["num_batch_axes"]),
    ]


def declarations(text):
    """The composite declarations of a module, as sorted IR text."""
    return sorted(re.findall(r'#coreai\.composite_declaration<"[^"]+" = \{[^<>]*\}>', text))


def assert_close(got, want, what):
    for k, ref in want.items():
        err = np.abs(got[k].astype(np.float64) - ref).max()
        assert err <= 1e-5 * max(np.abs(ref).max(), 1.0), f"{what}: {k} off by {err}"


def run(module, inputs, tmp_path):
    out = tmp_path / "out.npz"
    r = coreai_run(module, "--inputs", inputs, "--outputs", out)
    assert r.returncode == 0, r.stderr
    return load(out)


def test_coreai_torch_classes_convert_with_coreai_torchs_declarations(tmp_path):
    src = tmp_path / "block.py"
    src.write_text(BLOCK)
    aten = tmp_path / "aten.mlir"
    r = export(src, aten, *FLAGS, inputs_out=tmp_path / "in.npz", expected_out=tmp_path / "expected.npz")
    assert r.returncode == 0, r.stderr
    ours = lower(aten, tmp_path / "coreai.mlir", "coreai-pipeline")
    # One graph per call site: two rms_norm (the wrapper's inner impl), three
    # rope, two attention, one gather_mm.
    counts = {n: len(re.findall(rf'composite_declaration<"{n}"', ours))
              for n in ("rms_norm", "rope", "scaled_dot_product_attention", "gather_mm")}
    assert counts == {"rms_norm": 2, "rope": 3, "scaled_dot_product_attention": 2, "gather_mm": 1}, counts

    warnings.filterwarnings("ignore")
    import coreai_torch
    import torch

    ns = {}
    exec(compile(BLOCK, "block.py", "exec"), ns)
    model, args = ns["factory"]()
    conv = coreai_torch.TorchConverter().add_pytorch_module(
        model, export_fn=lambda m: torch.export.export(m, args).run_decompositions(coreai_torch.get_decomp_table()),
        externalize_modules=specs())
    theirs = str(conv.to_coreai())
    assert declarations(ours) == declarations(theirs)
    assert 'op_attrs = {base = 1.000000e+04 : f32, dims = 4 : si64, interleaved = true' in ours
    assert 'input_names = ["query", "key", "value"], op_attrs = {is_causal = true, scale = 2.500000e-01 : f32' in ours

    want = load(tmp_path / "expected.npz")
    inputs = load(tmp_path / "in.npz")
    assert_close(run(aten, tmp_path / "in.npz", tmp_path), want, "coreai-run aten")
    assert_close(run(tmp_path / "coreai.mlir", tmp_path / "in.npz", tmp_path), want, "coreai-run coreai")
    assert_close(run_coreai_core(ours, inputs, tmp_path), want, "coreai-core")


def test_externalize_spec_objects_are_accepted(tmp_path):
    """coreai-torch's ExternalizeSpec objects (and bare classes) give the
    same functions as the command-line strings."""
    warnings.filterwarnings("ignore")
    sys.path.insert(0, str(IMPORTER))
    import coreai_torch

    from coreai_export.externalize import Externalize, externalized
    from coreai_export.exporting import export_module
    from coreai_export.importer import import_program

    def convert(spec_list):
        ns = {}
        exec(compile(BLOCK, "block.py", "exec"), ns)
        model, args = ns["factory"]()
        with externalized(model, spec_list, args) as marked:
            ep = export_module(model, args, "none")
            functions = marked.functions(ep, "none")
        return import_program(ep, "main", functions).text

    from_objects = convert(specs())
    from_strings = convert([Externalize.parse(f) for f in FLAGS[1::2]])
    assert declarations(from_objects) == declarations(from_strings) and declarations(from_objects)
    plain = convert([coreai_torch.composite_ops.GatherMM])
    assert "func.func @gmm(" in plain and "composite_decl" not in plain


DECODE = '''
import torch
from coreai_torch.composite_ops import SDPA


class Decode(torch.nn.Module):
    """A fixed query chunk attending to a key/value cache of dynamic length."""
    def __init__(self):
        super().__init__()
        self.sdpa = SDPA(is_causal=True)

    def forward(self, q, kv):
        return self.sdpa(q, kv[0], kv[1])


def factory(t=12):
    g = torch.Generator().manual_seed(t)
    return Decode(), (torch.randn(1, 4, 3, 8, generator=g), torch.randn(2, 1, 2, t, 8, generator=g))
'''


def test_static_query_dynamic_key_length_keeps_the_sdpa_composite(tmp_path):
    """coreai-torch issue #1 (guide §8.7d): the submodule's re-export sees
    `T_k >= T_q` from the lower-right causal mask; exported with Dim.AUTO it
    keeps its own range instead of violating the caller's."""
    src = tmp_path / "decode.py"
    src.write_text(DECODE)
    aten = tmp_path / "aten.mlir"
    r = export(src, aten, FLAGS[4], FLAGS[5], "--dynamic-dims", "kv:3=3:64",
               inputs_out=tmp_path / "in.npz", expected_out=tmp_path / "expected.npz")
    assert r.returncode == 0, r.stderr
    text = lower(aten, tmp_path / "coreai.mlir", "coreai-pipeline")
    assert re.search(r'coreai\.graph private noinline @sdpa\(%\w+: tensor<1x4x3x8xf32> \{coreai\.name = "query"\}, '
                     r'%\w+: tensor<1x2x\?x8xf32> \{coreai\.dims = \[1, 2, "\w+", 8\], coreai\.name = "key"\}', text), text
    assert ('composite_declaration<"scaled_dot_product_attention" = {input_names = ["query", "key", "value"], '
            'op_attrs = {is_causal = true, version = 1 : si64, window_size = 0 : si64}') in text
    assert "coreai.invoke @sdpa(" in text

    assert_close(run(tmp_path / "coreai.mlir", tmp_path / "in.npz", tmp_path), load(tmp_path / "expected.npz"),
                 "coreai-run, T_k = 12")
    import torch

    ns = {}
    exec(compile(DECODE, "decode.py", "exec"), ns)
    for t in (3, 40):
        model, (q, kv) = ns["factory"](t)
        with torch.no_grad():
            want = {"output": model(q, kv).numpy()}
        inputs = {"q": q.numpy(), "kv": kv.numpy()}
        np.savez(tmp_path / f"in{t}.npz", **inputs)
        assert_close(run(tmp_path / "coreai.mlir", tmp_path / f"in{t}.npz", tmp_path), want, f"coreai-run, T_k = {t}")
        (tmp_path / f"core{t}").mkdir()
        assert_close(run_coreai_core(text, inputs, tmp_path / f"core{t}"), want, f"coreai-core, T_k = {t}")
