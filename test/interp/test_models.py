"""Whole models: torch.export with coreai-torch's decomposition table, run by
the executor at the aten level (imported by the project's importer,
coreai_export, weights as module constants) and, after
coreai-torch's conversion, at the coreai level; compared with PyTorch eager
and with coreai-core's interpreter on inputs that straddle zero and exceed
10."""

import pytest
import torch

from conftest import assert_same
from coreai_export.importer import import_program

coreai_torch = pytest.importorskip("coreai_torch")


class ConvLinear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1, stride=2)
        self.bn = torch.nn.BatchNorm2d(8)
        self.fc = torch.nn.Linear(8, 5)
        self.ln = torch.nn.LayerNorm(5)

    def forward(self, x, y):
        h = torch.relu(self.bn(self.conv(x)))
        h = torch.nn.functional.max_pool2d(h, 2).mean(dim=(2, 3))
        return torch.softmax(self.ln(self.fc(h)) * y, dim=-1), (h.sum(-1) / 3).floor()


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(16, 48)
        self.emb = torch.nn.Embedding(10, 16)

    def forward(self, ids):
        x = self.emb(ids)
        q, k, v = self.qkv(x).view(2, 6, 3, 4, 4).permute(2, 0, 3, 1, 4).unbind(0)
        o = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return torch.nn.functional.gelu(o.transpose(1, 2).reshape(2, 6, 16)).cumsum(1)


class Composites(torch.nn.Module):
    """The ops coreai-torch's decomposition table keeps whole."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 8, 3)
        self.norm = torch.nn.InstanceNorm2d(8, affine=True)

    def forward(self, x):
        h = torch.nn.functional.pad(x, (1, 1, 2, 2), mode="reflect")
        h = torch.nn.functional.hardswish(self.norm(self.conv(h)))
        h = torch.nn.functional.pixel_shuffle(h, 2)
        h = torch.nn.functional.interpolate(h, scale_factor=2.0, mode="nearest")
        return torch.nn.functional.silu(torch.nn.functional.pad(h, (1, 0, 0, 2), mode="replicate"))


def models():
    torch.manual_seed(0)
    conv = ConvLinear().eval()
    with torch.no_grad():
        conv.bn.running_mean.uniform_(-1, 1)
        conv.bn.running_var.uniform_(0.5, 2)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(2, 3, 12, 10, generator=g) * 8
    y = torch.randn(2, 5, generator=g) * 12
    ids = torch.randint(0, 10, (2, 6), generator=g)
    z = torch.randn(1, 4, 6, 5, generator=g) * 4
    return [("conv_linear", conv, (x, y)), ("attention", Attention().eval(), (ids,)), ("composites", Composites().eval(), (z,))]


def export(model, args):
    return torch.export.export(model, args).run_decompositions(coreai_torch.get_decomp_table())


def aten_module(model, args):
    """The aten-dialect module of `model` and its inputs by argument name
    (the models mutate no buffer: the arguments are the user inputs)."""
    prog = import_program(export(model, args))
    assert len(prog.arg_names) == len(args), prog.arg_names
    return prog.text, {n: a.numpy() for n, a in zip(prog.arg_names, args)}


@pytest.mark.parametrize("name,model,args", models(), ids=[m[0] for m in models()])
def test_model_at_aten_level_matches_pytorch(runner, name, model, args):
    text, feed = aten_module(model, args)
    got = runner.run(text, feed)
    with torch.no_grad():
        expected = model(*args)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for g, e in zip(got, expected):
        assert_same(g, e.numpy(), exact=False, rtol=1e-4, atol=1e-5)


def test_model_at_coreai_level_matches_coreai_core_and_pytorch(runner, tmp_path):
    from test_coreai_vs_coreai_core import run_coreai_core, run_ours

    name, model, args = models()[0]
    program = coreai_torch.TorchConverter().add_exported_program(export(model, args)).to_coreai()
    text = str(program)
    feed = {"x": args[0].numpy(), "y": args[1].numpy()}
    got = run_ours(runner, text, feed)
    reference = run_coreai_core(text, feed, tmp_path)
    with torch.no_grad():
        expected = model(*args)
    assert set(got) == set(reference)
    for k in reference:
        assert_same(got[k], reference[k], exact=False, rtol=1e-5, atol=1e-6)
    for g, e in zip(got.values(), expected):
        assert_same(g, e.numpy(), exact=False, rtol=1e-4, atol=1e-5)


def test_resnet18_at_aten_level_matches_pytorch(runner):
    torchvision = pytest.importorskip("torchvision")
    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None).eval()
    x = torch.randn(1, 3, 32, 32) * 3
    text, feed = aten_module(model, (x,))
    (got,) = runner.run(text, feed)
    with torch.no_grad():
        expected = model(x).numpy()
    assert_same(got, expected, exact=False, rtol=1e-4, atol=1e-4)


def library_model(name):
    torch.manual_seed(0)
    if name == "mobilenet_v3_small":
        torchvision = pytest.importorskip("torchvision")
        return torchvision.models.mobilenet_v3_small(weights=None).eval(), (torch.randn(1, 3, 32, 32) * 4,)
    if name == "transformer_layer":
        return torch.nn.TransformerEncoderLayer(32, 4, 64, batch_first=True).eval(), (torch.randn(2, 7, 32) * 3,)
    return torch.nn.GRU(8, 16, batch_first=True).eval(), (torch.randn(2, 5, 8) * 3,)


@pytest.mark.parametrize("name", ["mobilenet_v3_small", "transformer_layer", "gru"])
def test_library_model_at_aten_level_matches_pytorch(runner, name):
    model, args = library_model(name)
    text, feed = aten_module(model, args)
    got = runner.run(text, feed)
    with torch.no_grad():
        expected = model(*args)
    expected = expected if isinstance(expected, tuple) else (expected,)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert_same(g, e.numpy(), exact=False, rtol=1e-4, atol=1e-4)
