"""PyTorch → coreai_export → legalize-aten-to-coreai, checked end to end
against eager PyTorch by both executors: coreai-run and coreai-core's
interpreter. Only models whose ops the legalizer lowers today."""

import numpy as np

from toolchain import assert_coreai_run_matches, export_source, load, lower, run_coreai_core

MODEL = '''
import torch
class M(torch.nn.Module):
    def forward(self, x, y, z):
        return (x + y) * z + x.abs(), torch.add(x, y, alpha=3)
def factory():
    torch.manual_seed(0)
    return M(), (torch.randn(2, 3) * 20, torch.randn(3) * 20, torch.randn(2, 1))
'''


def test_broadcasting_add_mul_abs_match_pytorch_in_both_executors(tmp_path):
    aten = export_source(tmp_path, MODEL)
    core = tmp_path / "coreai.mlir"
    lower(aten, core, "legalize-aten-to-coreai")
    text = core.read_text()
    assert "aten." not in text and "func." not in text

    expected = load(tmp_path / "expected.npz")
    inputs = load(tmp_path / "in.npz")

    # `alpha * other + self`: PyTorch's CPU kernel fuses it into one rounding,
    # the lowering rounds twice, so allow an ulp of the result.
    assert_coreai_run_matches(core, tmp_path / "in.npz", tmp_path / "expected.npz", 1e-5, 2e-7)

    ours = run_coreai_core(text, inputs, tmp_path)
    for name, want in expected.items():
        np.testing.assert_allclose(ours[name], want, rtol=2e-7, atol=1e-5)
    # The alpha = 1 output has no second rounding: bit-identical.
    np.testing.assert_array_equal(ours["output_0"], expected["output_0"])
