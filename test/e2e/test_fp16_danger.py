"""The fp16 danger suite (issue 14, conversion guide §9.1 and §5.6): models
whose f32 results are ordinary numbers but whose usual formulations
overflow or underflow fp16 on the way (`fp16_danger_models.py`).

Each is exported, converted with `coreai-pipeline` (which runs
`fp16-stabilize`) and run in coreai-run with `--simulate-fp16` (every
input, constant and op result rounded through fp16). Every output must be
finite and within 2e-2 × max|ref| of eager fp32 PyTorch.

The oracle is shown to catch the defect: the same models converted without
`fp16-stabilize` overflow (inf/NaN or far off) under the same simulation,
and `fp16-stabilize`'s rewrites are checked in f32 against float64 math in
`test_fp16_stabilize_f32.py`.
"""

import os
import subprocess

import numpy as np
import pytest

import toolchain
from toolchain import BUILD, REPO

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "fp16_danger_models.py")

CASES = ["softplus", "mish", "logsumexp", "logcumsumexp", "log_sigmoid", "softmax", "hand_written",
         "rms_norm", "norms", "attention", "llama_block"]

# coreai-pipeline without fp16-stabilize: what the pipeline did before it.
UNSTABILIZED = "decompose,legalize-aten-to-coreai,canonicalize,cse"

# Models and outputs whose unstabilized form the fp16 simulation shows as
# wrong (mish's naive form survives plain fp16 rounding: tanh(inf) = 1).
OVERFLOWING = {
    "softplus": ["output_0", "output_1", "output_2"],
    "hand_written": ["output_0", "output_1", "output_2", "output_3"],
    "log_sigmoid": ["output_1"],
    "rms_norm": ["output_0", "output_1"],
    "norms": ["output_0", "output_1", "output_2", "output_3", "output_4"],
    "attention": ["output_1"],
    "llama_block": ["output_1"],
}


def export(tmp_path, case):
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "importer"))
    aten = tmp_path / f"{case}.aten.mlir"
    r = toolchain.coreai_export(
        ["--module-file", f"{MODELS}:{case}", "-o", str(aten),
         "--inputs-out", str(tmp_path / "in.npz"), "--expected-out", str(tmp_path / "expected.npz")], env=env)
    assert r.returncode == 0, r.stderr
    return aten


def convert(tmp_path, aten, pipeline):
    out = tmp_path / "m.coreai.mlir"
    r = subprocess.run(
        [os.path.join(BUILD, "coreai-opt"), str(aten), f"--pass-pipeline=builtin.module({pipeline})", "-o", str(out)],
        capture_output=True, text=True,
    )
    assert r.returncode == 0, r.stderr
    return out


def run(tmp_path, module, *flags):
    out = tmp_path / "out.npz"
    r = subprocess.run(
        [os.path.join(BUILD, "coreai-run"), str(module), "--inputs", str(tmp_path / "in.npz"),
         "--outputs", str(out), *flags],
        capture_output=True, text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    with np.load(out) as got, np.load(tmp_path / "expected.npz") as want:
        return {k: got[k] for k in got.files}, {k: want[k] for k in want.files}


def relative_error(got, want):
    """max|got - want| / max|want|, inf when got has inf/NaN."""
    if not np.all(np.isfinite(got)):
        return np.inf
    scale = float(np.max(np.abs(want)))
    return float(np.max(np.abs(got.astype(np.float64) - want))) / scale


@pytest.mark.parametrize("case", CASES)
def test_pipeline_output_stays_in_fp16_range(tmp_path, case):
    aten = export(tmp_path, case)
    got, want = run(tmp_path, convert(tmp_path, aten, "coreai-pipeline"), "--simulate-fp16")
    assert set(got) == set(want)
    for name in sorted(want):
        assert np.all(np.isfinite(want[name])), f"{case} {name}: the reference itself is not finite"
        err = relative_error(got[name], want[name])
        assert err <= 2e-2, f"{case} {name}: error {err:.3g} × max|ref| under --simulate-fp16"


@pytest.mark.parametrize("case", sorted(OVERFLOWING))
def test_unstabilized_form_fails_under_fp16_simulation(tmp_path, case):
    """The oracle catches the defect: without fp16-stabilize the listed
    outputs are non-finite or off by more than 2e-2 × max|ref|, while in
    f32 (no simulation) the same module matches eager."""
    aten = export(tmp_path, case)
    module = convert(tmp_path, aten, UNSTABILIZED)
    got, want = run(tmp_path, module, "--simulate-fp16")
    for name in OVERFLOWING[case]:
        assert relative_error(got[name], want[name]) > 2e-2, f"{case} {name} did not fail"
    got, want = run(tmp_path, module)
    for name in want:
        assert relative_error(got[name], want[name]) <= 1e-5, f"{case} {name} wrong in f32"


def test_ane_range_overflows_softplus_from_10_4(tmp_path):
    """`--simulate-fp16=ane` (op results beyond ±2^15 become infinite, the
    Neural Engine's range in conversion guide §9.1): log(1 + exp(x))
    overflows from x ≈ 10.4 where IEEE fp16 still holds exp(x) < 65504, and
    the stabilized forms do not."""
    aten = export(tmp_path, "hand_written")
    with np.load(tmp_path / "in.npz") as z:
        x = z["x"]
    band = (x > np.log(2.0**15)) & (x < np.log(65504.0))
    assert band.any()
    naive = convert(tmp_path, aten, UNSTABILIZED)
    ieee, want = run(tmp_path, naive, "--simulate-fp16")
    assert np.all(np.isfinite(ieee["output_0"][band]))
    ane, _ = run(tmp_path, naive, "--simulate-fp16=ane")
    assert np.all(np.isinf(ane["output_0"][band]))
    got, want = run(tmp_path, convert(tmp_path, aten, "coreai-pipeline"), "--simulate-fp16=ane")
    for name in want:
        assert relative_error(got[name], want[name]) <= 2e-2, name
