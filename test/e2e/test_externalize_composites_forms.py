"""externalize-composites on the forms people write by hand (beside the
Hugging Face forms of test_externalize_composites.py): RoPE as
`cat(x₁·c − x₂·s, x₁·s + x₂·c)` of the halves (GPT-NeoX/GPT-J-style
code), interleaved RoPE as `x.reshape(..., d/2, 2)[..., 0]`/`[..., 1]` (or
`unbind`) stacked and flattened, attention with
`masked_fill(triu(ones, 1), -inf)` (a registered buffer or computed in
forward; `/ √d` or `· 1/√d`), and `nn.MultiheadAttention` (batch_first or
not, attn_mask, key_padding_mask, need_weights False or True). Each module
is exported, converted, the composite counted in the output IR (with the
declaration it must have), and the outputs compared with eager PyTorch in
coreai-run and in coreai-core 1.0.0b3's interpreter, before and after the
pass; near misses keep no composite (or declare what they compute).

Inputs are torch.randn times 3; tolerance atol 1e-5 · max|ref| (the
composite bodies are the matched ops, so the after-stage equals the
before-stage).
"""

import re

import pytest

from test_externalize_composites import AFTER, BEFORE, assert_close, composites, run
from toolchain import export_source, load, lower, run_coreai_core

FORMS = '''
import math
import torch
from torch import nn


def half_tables(t, d):
    inv = 1.0 / (10000.0 ** (torch.arange(0, d, 2).float() / d))
    ang = torch.outer(torch.arange(t).float(), inv)
    return ang.cos(), ang.sin()


class CatRope(nn.Module):
    """cat(x1 c - x2 s, x1 s + x2 c) of the halves; partial: the first rd
    dims rotate; swapped: the signs swapped (not RoPE)."""
    def __init__(self, rd=None, swapped=False):
        super().__init__()
        self.rd, self.swapped = rd, swapped

    def forward(self, x, cos, sin):
        d = self.rd or x.shape[-1]
        h = d // 2
        x1, x2 = x[..., :h], x[..., h:d]
        if self.swapped:
            y = torch.cat([x1 * cos + x2 * sin, x1 * sin - x2 * cos], -1)
        else:
            y = torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1)
        return y if d == x.shape[-1] else torch.cat([y, x[..., d:]], -1)


class PairRope(nn.Module):
    """Interleaved pairs (2i, 2i+1) as x.reshape(..., d/2, 2); unbind or
    indexing; partial over the first rd dims."""
    def __init__(self, unbind=False, rd=None):
        super().__init__()
        self.unbind, self.rd = unbind, rd

    def forward(self, x, cos, sin):
        d = self.rd or x.shape[-1]
        xr = x[..., :d].reshape(*x.shape[:-1], -1, 2)
        x0, x1 = xr.unbind(-1) if self.unbind else (xr[..., 0], xr[..., 1])
        y = torch.stack([x0 * cos - x1 * sin, x0 * sin + x1 * cos], -1).flatten(-2)
        return y if d == x.shape[-1] else torch.cat([y, x[..., d:]], -1)


class MaskedFill(nn.Module):
    """scores = q k^T / sqrt(d) (or * 1/sqrt(d)); masked_fill(mask, -inf);
    softmax @ v; the mask triu(ones, diagonal) from a buffer or forward."""
    def __init__(self, t, buffer, divide, diagonal=1):
        super().__init__()
        self.buffer, self.divide, self.diagonal = buffer, divide, diagonal
        if buffer:
            self.register_buffer("mask", torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal))

    def forward(self, q, k, v):
        d, t = q.shape[-1], q.shape[-2]
        if self.buffer:
            mask = self.mask[:t, :t]
        else:
            mask = torch.triu(torch.ones(t, t, dtype=torch.bool), self.diagonal)
        if self.divide:
            s = (q @ k.transpose(-2, -1)) / math.sqrt(d)
        else:
            s = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d))
        s = s.masked_fill(mask, float("-inf"))
        return torch.softmax(s, -1) @ v


class MHA(nn.Module):
    def __init__(self, batch_first, need_weights, attn_mask, padding):
        super().__init__()
        self.m = nn.MultiheadAttention(16, 4, batch_first=batch_first)
        self.need_weights, self.attn_mask, self.padding = need_weights, attn_mask, padding

    def forward(self, x, pad=None):
        t = x.shape[1] if self.m.batch_first else x.shape[0]
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool), 1) if self.attn_mask else None
        o, w = self.m(x, x, x, attn_mask=mask, key_padding_mask=pad, need_weights=self.need_weights)
        return (o, w) if self.need_weights else o


def rope_inputs(width):
    torch.manual_seed(0)
    c, s = half_tables(6, width)
    return torch.randn(2, 4, 6, 8) * 3, c, s


def cat_rope():
    return CatRope().eval(), rope_inputs(8)


def cat_rope_partial():
    return CatRope(rd=4).eval(), rope_inputs(4)


def cat_rope_swapped():
    return CatRope(swapped=True).eval(), rope_inputs(8)


def pair_rope():
    return PairRope().eval(), rope_inputs(8)


def pair_rope_unbind():
    return PairRope(unbind=True).eval(), rope_inputs(8)


def pair_rope_partial():
    return PairRope(rd=4).eval(), rope_inputs(4)


def attention_inputs():
    torch.manual_seed(0)
    return tuple(torch.randn(2, 2, 5, 8) * 3 for _ in range(3))


def masked_fill_buffer_divide():
    return MaskedFill(8, buffer=True, divide=True).eval(), attention_inputs()


def masked_fill_forward_multiply():
    return MaskedFill(5, buffer=False, divide=False).eval(), attention_inputs()


def masked_fill_one_ahead():
    # triu(ones, 2): each query also attends the next key; not causal.
    return MaskedFill(5, buffer=True, divide=True, diagonal=2).eval(), attention_inputs()


def masked_fill_lower():
    # masked_fill(tril(ones, -1)): the upper triangle attends, not causal.
    m = MaskedFill(5, buffer=True, divide=True)
    m.mask = m.mask.transpose(0, 1).contiguous()
    return m.eval(), attention_inputs()


def mha(batch_first, need_weights, attn_mask=False, padding=False):
    torch.manual_seed(0)
    m = MHA(batch_first, need_weights, attn_mask, padding).eval()
    x = torch.randn(2, 5, 16) * 3 if batch_first else torch.randn(5, 2, 16) * 3
    pad = torch.zeros(2, 5, dtype=torch.bool)
    pad[1, 3:] = True
    return m, ((x, pad) if padding else (x,))


def mha_batch_first():
    return mha(True, False)


def mha_seq_first():
    return mha(False, False)


def mha_causal():
    return mha(True, False, attn_mask=True)


def mha_padding():
    return mha(True, False, padding=True)


def mha_weights():
    return mha(True, True)


def mha_weights_seq_first():
    return mha(False, True)


def mha_weights_causal():
    return mha(True, True, attn_mask=True)


def mha_weights_causal_padding():
    return mha(False, True, attn_mask=True, padding=True)
'''

SDPA = "scaled_dot_product_attention"

# name → (composite counts after the pass, a declaration fragment it must have).
CASES = {
    "cat_rope": ({"rope": 1}, 'op_attrs = {base = 1.000000e+04 : f32, interleaved = false, scale'),
    "cat_rope_partial": ({"rope": 1}, 'op_attrs = {base = 1.000000e+04 : f32, dims = 4 : si64, interleaved = false'),
    "pair_rope": ({"rope": 1}, 'op_attrs = {base = 1.000000e+04 : f32, interleaved = true, scale'),
    "pair_rope_unbind": ({"rope": 1}, 'op_attrs = {base = 1.000000e+04 : f32, interleaved = true, scale'),
    "pair_rope_partial": ({"rope": 1}, 'op_attrs = {base = 1.000000e+04 : f32, dims = 4 : si64, interleaved = true'),
    # The causal triangle proved from the buffer or the forward's triu:
    # is_causal, no mask input, the default scale 1/sqrt(8) left out.
    "masked_fill_buffer_divide": ({SDPA: 1}, 'input_names = ["query", "key", "value"], op_attrs = {is_causal = true, '
                                             'version = 1 : si64, window_size = 0 : si64}'),
    "masked_fill_forward_multiply": ({SDPA: 1}, 'input_names = ["query", "key", "value"], op_attrs = {is_causal = true, '
                                                'version = 1 : si64, window_size = 0 : si64}'),
    # Not causal (one key ahead attended; the lower triangle masked): the
    # mask stays an input (negated), is_causal = false.
    "masked_fill_one_ahead": ({SDPA: 1}, 'input_names = ["query", "key", "value", "attn_mask"], op_attrs = '
                                               '{is_causal = false, version'),
    "masked_fill_lower": ({SDPA: 1}, 'input_names = ["query", "key", "value", "attn_mask"], op_attrs = '
                                     '{is_causal = false, version'),
    # need_weights=False: PyTorch calls F.scaled_dot_product_attention, which
    # legalization already emits as the composite (coreai-torch's ATen path).
    "mha_batch_first": ({SDPA: 1}, None),
    "mha_seq_first": ({SDPA: 1}, None),
    "mha_causal": ({SDPA: 1}, None),
    "mha_padding": ({SDPA: 1}, None),
    # need_weights=True: 3-D bmm attention, outlined by the pass with [1, B·H, ...] inputs.
    "mha_weights": ({SDPA: 1}, 'tensor<1x8x5x4xf32> {coreai.name = "query"}'),
    "mha_weights_seq_first": ({SDPA: 1}, 'tensor<1x8x5x4xf32> {coreai.name = "query"}'),
    "mha_weights_causal": ({SDPA: 1}, 'input_names = ["query", "key", "value"], op_attrs = {is_causal = true'),
    "mha_weights_causal_padding": ({SDPA: 1}, 'tensor<1x8x5x5xf32> {coreai.name = "attn_mask"}'),
}

NEAR_MISSES = ["cat_rope_swapped"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_hand_written_form_is_its_composite_and_the_numbers_hold(tmp_path, name):
    expected, declared = CASES[name]
    aten = export_source(tmp_path, FORMS, factory=name)
    want = load(tmp_path / "expected.npz")
    inputs = load(tmp_path / "in.npz")
    before = lower(aten, tmp_path / "before.mlir", BEFORE)
    after = lower(aten, tmp_path / "after.mlir", AFTER)
    pipeline = lower(aten, tmp_path / "pipeline.mlir", "coreai-pipeline")

    assert composites(tmp_path / "after.mlir") == expected
    assert set(composites(tmp_path / "pipeline.mlir")) == set(expected)
    if not name.startswith("mha_") or "weights" in name:
        assert not set(expected) & set(composites(tmp_path / "before.mlir")), "found by the pass, not before"
    if declared is not None:
        assert declared in after, after
    for stage, text in (("before", before), ("after", after), ("pipeline", pipeline)):
        assert_close(run(tmp_path / f"{stage}.mlir", tmp_path), want, f"coreai-run {stage}")
        assert_close(run_coreai_core(text, inputs, tmp_path / stage), want, f"coreai-core {stage}")


@pytest.mark.parametrize("name", NEAR_MISSES)
def test_near_miss_keeps_no_composite(tmp_path, name):
    aten = export_source(tmp_path, FORMS, factory=name)
    after = lower(aten, tmp_path / "after.mlir", AFTER)
    assert composites(tmp_path / "after.mlir") == {}
    assert_close(run(tmp_path / "after.mlir", tmp_path), load(tmp_path / "expected.npz"), "coreai-run")
    assert "composite_declaration" not in after


def test_multihead_weights_stay_outside_the_composite(tmp_path):
    """need_weights=True: the averaged weights are an output the composite
    cannot give, so the ops up to the softmax stay in place for them and
    the composite computes its own softmax (one softmax each)."""
    aten = export_source(tmp_path, FORMS, factory="mha_weights")
    after = lower(aten, tmp_path / "after.mlir", AFTER)
    main = after[after.index("coreai.graph @main"):]
    body = after[:after.index("coreai.graph @main")]
    assert len(re.findall(r"= coreai\.softmax ", main)) == 1
    assert len(re.findall(r"= coreai\.softmax ", body)) == 1
    assert "coreai.reduce_mean" in main
