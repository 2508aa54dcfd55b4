"""PyTorch → coreai_export → legalize-aten-to-coreai, checked end to end
against eager PyTorch by both executors: coreai-run and coreai-core's
interpreter. Only models whose ops the legalizer lowers today."""

import asyncio
import os
import subprocess
import sys
import warnings

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("COREAI_BUILD_DIR", os.path.join(REPO, "target", "debug"))

MODEL = '''
import torch
class M(torch.nn.Module):
    def forward(self, x, y, z):
        return (x + y) * z + x.abs(), torch.add(x, y, alpha=3)
def factory():
    torch.manual_seed(0)
    return M(), (torch.randn(2, 3) * 20, torch.randn(3) * 20, torch.randn(2, 1))
'''


def run_coreai_core(text, inputs, tmp_path):
    warnings.filterwarnings("ignore")
    from coreai._compiler import ir
    from coreai.authoring.asset import AIModelAsset, AIProgram
    from coreai.authoring.context import Context
    from coreai.runtime import NDArray

    path = tmp_path / "m.aimodel"
    with Context() as c:
        AIProgram._from_mlir_module(ir.Module.parse(text, c._mlir_context)).save_asset(path)  # noqa: SLF001

    async def go():
        asset = AIModelAsset.load(path)
        async with asset.executable() as model:
            fn = model.load_function("main")
            if asyncio.iscoroutine(fn):
                fn = await fn
            out = await fn(inputs={k: NDArray(np.ascontiguousarray(v)) for k, v in inputs.items()})
            return {k: v.numpy() for k, v in out.items()}

    return asyncio.run(go())


def test_broadcasting_add_mul_abs_match_pytorch_in_both_executors(tmp_path):
    src = tmp_path / "m.py"
    src.write_text(MODEL)
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "importer"))
    aten = tmp_path / "aten.mlir"
    r = subprocess.run(
        [sys.executable, "-m", "coreai_export", "--module-file", f"{src}:factory", "-o", str(aten),
         "--inputs-out", str(tmp_path / "in.npz"), "--expected-out", str(tmp_path / "expected.npz")],
        capture_output=True, text=True, env=env,
    )
    assert r.returncode == 0, r.stderr
    core = tmp_path / "coreai.mlir"
    r = subprocess.run(
        [os.path.join(BUILD, "coreai-opt"), str(aten), "--pass-pipeline=builtin.module(legalize-aten-to-coreai)",
         "-o", str(core)],
        capture_output=True, text=True,
    )
    assert r.returncode == 0, r.stderr
    text = core.read_text()
    assert "aten." not in text and "func." not in text

    with np.load(tmp_path / "expected.npz") as z:
        expected = {k: z[k] for k in z.files}
    with np.load(tmp_path / "in.npz") as z:
        inputs = {k: z[k] for k in z.files}

    # `alpha * other + self`: PyTorch's CPU kernel fuses it into one rounding,
    # the lowering rounds twice, so allow an ulp of the result.
    r = subprocess.run(
        [os.path.join(BUILD, "coreai-run"), str(core), "--inputs", str(tmp_path / "in.npz"),
         "--compare", str(tmp_path / "expected.npz"), "--atol", "1e-5", "--rtol", "2e-7"],
        capture_output=True, text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr

    ours = run_coreai_core(text, inputs, tmp_path)
    for name, want in expected.items():
        np.testing.assert_allclose(ours[name], want, rtol=2e-7, atol=1e-5)
    # The alpha = 1 output has no second rounding: bit-identical.
    np.testing.assert_array_equal(ours["output_0"], expected["output_0"])
