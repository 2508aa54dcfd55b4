"""The corpus's dynamic-sequence models (llama_block_dynamic_seq: a decoder
block with causal GQA attention and RoPE from arange(s);
vit_tiny_dynamic_seq: vit_tiny's encoder over a token sequence), exported
with a dynamic sequence length (models.EXPORT_FLAGS), converted once with
coreai-pipeline and run at lengths other than the example's in coreai-run
and in coreai-core's interpreter, compared with eager PyTorch."""

import importlib

import numpy as np
import pytest
import torch

from models import CORPUS
from test_lower_complex_symbolic import check_both, convert
from toolchain import export_corpus_model

MODELS = {
    # name → the input's name and shape at sequence length s.
    "llama_block_dynamic_seq": ("x", lambda s: (2, s, 64)),
    "vit_tiny_dynamic_seq": ("tokens", lambda s: (2, s, 32)),
}


@pytest.fixture(scope="module", params=sorted(MODELS))
def converted(request, tmp_path_factory):
    name = request.param
    tmp = tmp_path_factory.mktemp(name)
    module, _, _ = export_corpus_model(name, tmp, decompositions="none")
    assert "x?x" in module.read_text()
    return (name, *convert(tmp, module))


def eager(name, inputs):
    spec = next(s for n, s, _ in CORPUS if n == name)
    mod, fac = spec.split(":")
    model, _ = getattr(importlib.import_module(f"models.{mod}"), fac)()
    with torch.no_grad():
        out = model(*[torch.from_numpy(v) for v in inputs.values()])
    if isinstance(out, torch.Tensor):
        return {"output": out.numpy()}
    return {f"output_{i}": o.numpy() for i, o in enumerate(out)}


@pytest.mark.parametrize("length", [1, 6, 23])
def test_dynamic_sequence_model_matches_eager_in_both_executors(converted, length, tmp_path):
    name, core, text = converted
    arg, shape = MODELS[name]
    inputs = {arg: np.random.default_rng(length).normal(size=shape(length)).astype(np.float32)}
    check_both(tmp_path, core, text, inputs, eager(name, inputs), 1e-4)
