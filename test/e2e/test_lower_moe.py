"""Mixture-of-Experts as transformers 5.x writes it: `aten.histc` (the
router's expert counts), `transformers::grouped_mm_fallback` (the fp32
experts product under torch.export) and `aten._grouped_mm`, then tiny
random-weight Mixtral and Qwen3-MoE models (the `grouped_mm` experts
implementation, top-1 and top-2 routing) and a MoE block with a dynamic
token count: exported, converted with coreai-pipeline, run in coreai-run
and in coreai-core's interpreter, compared with eager PyTorch.

Tolerances: histc counts are compared exactly. The grouped products
reassociate each row's dot products (coreai's batch matmul against
PyTorch's per-expert `mm`): 1e-5 absolute and relative on values of order
1-10; the models' logits (two layers of such products, attention and
norms) the same. The measured errors are printed by coreai-run on failure.
"""

import numpy as np
import pytest

from test_lower_complex_symbolic import check_both, convert, eager, export
from toolchain import assert_coreai_run_matches, load, run_coreai_core

HISTC = '''
class M(torch.nn.Module):
    def forward(self, x):
        return (torch.histc(x, bins=4, min=0, max=3), torch.histc(x, bins=5, min=-1.5, max=2.25),
                torch.histc(x, bins=7, min=0.1, max=0.8), torch.histc(x * 3, bins=3, min=-2, max=2))
def factory():
    return M(), (torch.tensor([0.0, 3.0, 3.0, -0.0, 1.0, 1.0, 1.0, 2.9999998, 3.0000002, -1e-7, 0.1, 0.2, 0.3,
                               0.4, 0.5, 0.6, 0.7, 0.8, 2.25, -1.5, float("nan"), float("inf"), -float("inf"),
                               0.75, 1.5, 100.0, -100.0, 0.30000001, 0.7, 2.0]),)
'''

# offs is an input: the expert boundaries are data, as in the model.
GROUPED = '''
import transformers.integrations.moe  # registers transformers::grouped_mm_fallback
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(5)
        self.w = torch.nn.Parameter(torch.randn(4, 8, 6))
    def forward(self, x, offs):
        return torch.ops.transformers.grouped_mm_fallback(x, self.w, offs)
def factory():
    torch.manual_seed(6)
    return M(), (torch.randn(10, 8) * 3, torch.tensor([2, 5, 9, 10], dtype=torch.int32))
'''

# Offsets: the exporter's example, then empty experts (repeated offsets),
# every row in one expert (first, last), rows past offs[-1] (with an inf
# there, which the fallback never reads), no rows at all.
OFFSETS = {
    "example": [2, 5, 9, 10],
    "empty_experts": [0, 3, 3, 10],
    "all_in_first": [10, 10, 10, 10],
    "all_in_last": [0, 0, 0, 10],
    "rows_past_end": [1, 1, 4, 7],
    "no_rows": [0, 0, 0, 0],
}

# aten._grouped_mm in f32 (PyTorch's CPU kernel): rows past offs[-1] are
# left uninitialized there, so every row is covered here.
ATEN_GROUPED = '''
class M(torch.nn.Module):
    def forward(self, x, w, offs, a, b):
        return torch._grouped_mm(x, w, offs=offs), torch._grouped_mm(a, b)
def factory():
    torch.manual_seed(7)
    return M(), (torch.randn(12, 8) * 2, torch.randn(3, 8, 4), torch.tensor([4, 4, 12], dtype=torch.int32),
                 torch.randn(3, 5, 8), torch.randn(3, 8, 4))
'''

MODEL = '''
import transformers
class Wrap(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m
    def forward(self, ids):
        return self.m(input_ids=ids, use_cache=False).logits
def factory():
    torch.manual_seed(0)
    cfg = transformers.{config}
    m = transformers.AutoModelForCausalLM.from_config(cfg).eval()
    return Wrap(m), (torch.randint(0, 128, (1, 9)),)
'''

CONFIGS = {
    "mixtral": "MixtralConfig(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2, "
               "num_attention_heads=4, num_key_value_heads=2, num_local_experts=4, num_experts_per_tok={k}, "
               "max_position_embeddings=64)",
    "qwen3_moe": "Qwen3MoeConfig(vocab_size=128, hidden_size=64, intermediate_size=128, moe_intermediate_size=32, "
                 "num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=16, num_experts=4, "
                 "num_experts_per_tok={k}, max_position_embeddings=64)",
}

# The MoE block alone with a dynamic token count (the whole model's causal
# mask does not convert with a dynamic sequence yet: index.Tensor with
# broadcast index shapes of a dynamic size declines).
BLOCK = '''
import transformers
from transformers.models.mixtral.modeling_mixtral import MixtralSparseMoeBlock
def factory():
    torch.manual_seed(3)
    cfg = transformers.MixtralConfig(hidden_size=64, intermediate_size=96, num_local_experts=4, num_experts_per_tok=2)
    cfg._experts_implementation = "grouped_mm"
    m = MixtralSparseMoeBlock(cfg).eval()
    with torch.no_grad():
        for p in m.parameters():
            p.normal_(0, 0.1)
    return m, (torch.randn(1, 8, 64),)
'''


def test_histc_edges_match_pytorch_exactly(tmp_path):
    aten = export(tmp_path, HISTC)
    assert "aten::histc.default" in aten.read_text()
    core, text = convert(tmp_path, aten)
    inputs, expected = load(tmp_path / "in.npz"), load(tmp_path / "expected.npz")
    assert_coreai_run_matches(core, tmp_path / "in.npz", tmp_path / "expected.npz", 0, 0)
    # coreai-core's interpreter evaluates ((x - lo) * 7) / w of output_2
    # as (x - lo) * (7 / w) (measured: 0.7 lands in bin 5, not 6), which
    # PyTorch's f32 kernel does not; the integer-bounded histograms (the
    # MoE router's form, whose bins are far from rounding) agree exactly.
    ours = run_coreai_core(text, inputs, tmp_path)
    for key in ("output_0", "output_1", "output_3"):
        np.testing.assert_array_equal(ours[key], expected[key], err_msg=key)


@pytest.fixture(scope="module")
def grouped(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("grouped_mm_fallback")
    aten = export(tmp, GROUPED)
    assert "transformers::grouped_mm_fallback.default" in aten.read_text()
    core, text = convert(tmp, aten)
    assert "coreai.invoke @gather_mm" in text
    return core, text, load(tmp / "in.npz")


@pytest.mark.parametrize("case", sorted(OFFSETS))
def test_grouped_mm_fallback_matches_pytorch(grouped, case, tmp_path):
    core, text, example = grouped
    x = example["x"].copy()
    offs = np.array(OFFSETS[case], dtype=np.int32)
    if case == "rows_past_end":
        x[8, 3] = np.inf
    inputs = {"x": x, "offs": offs}
    check_both(tmp_path, core, text, inputs, eager(GROUPED, inputs), 1e-5)


def test_aten_grouped_mm_matches_pytorch(tmp_path):
    aten = export(tmp_path, ATEN_GROUPED)
    assert "aten::_grouped_mm.default" in aten.read_text()
    core, text = convert(tmp_path, aten)
    assert "coreai.invoke @gather_mm" in text
    check_both(tmp_path, core, text, load(tmp_path / "in.npz"), load(tmp_path / "expected.npz"), 1e-5)


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("model", sorted(CONFIGS))
def test_moe_model_logits_match_eager(model, k, tmp_path):
    source = MODEL.replace("{config}", CONFIGS[model].replace("{k}", str(k)))
    aten = export(tmp_path, source)
    imported = aten.read_text()
    assert imported.count("transformers::grouped_mm_fallback.default") == 4  # 2 layers × (up, down)
    assert "aten::histc.default" in imported
    core, text = convert(tmp_path, aten)
    assert text.count("coreai.invoke @gather_mm") == 4
    check_both(tmp_path, core, text, load(tmp_path / "in.npz"), load(tmp_path / "expected.npz"), 1e-5)


@pytest.fixture(scope="module")
def dynamic_block(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("moe_block_dynamic")
    aten = export(tmp, BLOCK, "hidden_states:1=2:32")
    assert "tensor<1x?x64xf32>" in aten.read_text()
    core, text = convert(tmp, aten)
    assert "coreai.invoke @gather_mm" in text
    return core, text


@pytest.mark.parametrize("tokens", [2, 5, 17])
def test_moe_block_with_dynamic_tokens_matches_eager(dynamic_block, tokens, tmp_path):
    core, text = dynamic_block
    rng = np.random.default_rng(tokens)
    inputs = {"hidden_states": rng.normal(size=(1, tokens, 64)).astype(np.float32)}
    check_both(tmp_path, core, text, inputs, eager(BLOCK, inputs), 1e-5)
