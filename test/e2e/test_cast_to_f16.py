"""cast-to-f16 end to end.

Every corpus model through coreai-pipeline then cast-to-f16 (the evaluation
of utils/coreai-report/f16.py): at least 70% of its float-valued ops compute
in f16, and it matches eager fp32 within 3e-2 x max|eager| per float output
(integers and bools exactly) in coreai-run (dtype-exact, no simulation) and
in coreai-core's interpreter. The torchvision models are marked slow like in
test_convert_corpus.py.

calibration= on a model built for it: exactly the ops whose values leave the
f16 range (the square reaching 3.6e5 and the division reading it) move to
f32; without calibration the converted model overflows to inf, so the
oracle is shown to catch it.
"""

import importlib.util
import os
import re
from pathlib import Path

import numpy as np
import pytest

from models import CORPUS
from toolchain import coreai_opt, coreai_run, export_source, load, run_coreai_core

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("coreai_f16", REPO / "utils" / "coreai-report" / "f16.py")
f16 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(f16)

MIN_SHARE = 0.70

# Models coreai-core's interpreter cannot run at all (test_convert_corpus.py).
CORE_GAPS = {"while_loop_counter": "the interpreter died (SIGILL)"}

CASES = [pytest.param(n, s, marks=[pytest.mark.slow] if slow else [], id=n) for n, s, slow in CORPUS]


@pytest.mark.parametrize("name,spec", CASES)
def test_corpus_model_in_f16(name, spec, tmp_path):
    r = f16.evaluate(name, spec, tmp_path)
    assert not r.error, r.error
    assert r.coreai_run["ok"], r.coreai_run
    if not r.float_ops:
        # Integer-only after coreai-pipeline: nothing to convert.
        assert r.coreai_core.get("ok") or name in CORE_GAPS, r.coreai_core
        return
    assert r.share >= MIN_SHARE, f"{name}: {r.f16_ops}/{r.float_ops} float-valued ops in f16"
    if name in CORE_GAPS:
        assert CORE_GAPS[name] in r.coreai_core["message"], r.coreai_core
    else:
        assert r.coreai_core["ok"], r.coreai_core


def test_float_op_counting():
    text = """
    %0 = coreai.cast %arg0 : tensor<4xf32> to tensor<4xf16>
    %1 = coreai.constant dense<1.0> : tensor<f16>
    %2 = coreai.exp %0 : tensor<4xf16> -> tensor<4xf16>
    %3 = coreai.reduce_sum %a, %b : (tensor<64xf32>, tensor<1xsi32>) -> tensor<1xf32>
    %4 = coreai.decomposable.broadcasting_greater %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
    %5 = coreai.softmax %x, %d : (tensor<2x4xf16>, tensor<si32>) -> tensor<2x4xf16>
    %6 = coreai.gather_nd %0 at %10 : (tensor<5x6xf16>, tensor<3x1xsi32>) to tensor<3x6xf16>
    """
    assert f16.float_op_counts(text) == (3, 1)


OVERFLOW = """
import torch

class M(torch.nn.Module):
    def forward(self, x):
        a = x * 300.0
        s = a * a  # SQUARE: reaches 3.6e5, beyond f16's 65504
        q = s / 1000.0  # DIVIDE: reads the square
        return q - a

def factory():
    return M(), (torch.linspace(-2, 2, 64).reshape(4, 16),)
"""


def _line(marker):
    return next(i for i, l in enumerate(OVERFLOW.splitlines(), start=1) if marker in l)


def test_calibration_moves_exactly_the_overflowing_ops(tmp_path):
    aten = export_source(tmp_path, OVERFLOW)
    coreai = tmp_path / "coreai.mlir"
    # Locations kept, so each remark names its line of the model source.
    r = coreai_opt(aten, "--pass-pipeline=builtin.module(coreai-pipeline)", "--mlir-print-debuginfo", "-o", coreai)
    assert r.returncode == 0, r.stderr
    inputs, expected = tmp_path / "in.npz", tmp_path / "expected.npz"
    want = load(expected)["output"] if "output" in load(expected) else next(iter(load(expected).values()))

    # Without calibration every op converts and the square overflows.
    plain = tmp_path / "plain.mlir"
    r = coreai_opt(coreai, "--pass-pipeline=builtin.module(cast-to-f16)", "-o", plain)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "plain.out.npz"
    r = coreai_run(plain, "--inputs", inputs, "--outputs", out)
    assert r.returncode == 0, r.stderr
    got = next(iter(load(out).values()))
    assert not np.all(np.isfinite(got)) or np.max(np.abs(got - want)) > 3e-2 * np.max(np.abs(want))

    calibrated = tmp_path / "calibrated.mlir"
    r = coreai_opt(coreai, f"--pass-pipeline=builtin.module(cast-to-f16{{calibration={inputs} remarks=true}})",
                   "-o", calibrated)
    assert r.returncode == 0, r.stderr
    remarks = [l for l in r.stderr.splitlines() if l.startswith("cast-to-f16:")]
    kept = [l for l in remarks if "kept f32" in l]
    converted = [l for l in remarks if "' f16" in l]
    assert kept and converted, r.stderr
    # Every kept op is kept by calibration, for an out-of-range value, and
    # sits on the square's or the division's source line.
    lines = {_line("SQUARE"), _line("DIVIDE")}
    kept_lines = set()
    for l in kept:
        assert "calibration:" in l and "beyond f16's 65504" in l, l
        m = re.search(r'm\.py":(\d+)', l)
        assert m, l
        kept_lines.add(int(m.group(1)))
    assert kept_lines == lines, (kept_lines, lines, remarks)
    # And every op on another line converts.
    for l in converted:
        m = re.search(r'm\.py":(\d+)', l)
        assert not m or int(m.group(1)) not in lines, l

    out = tmp_path / "calibrated.out.npz"
    r = coreai_run(calibrated, "--inputs", inputs, "--outputs", out)
    assert r.returncode == 0, r.stderr
    got = next(iter(load(out).values()))
    assert np.all(np.isfinite(got))
    assert np.max(np.abs(got - want)) <= 3e-2 * np.max(np.abs(want))
    core = next(iter(run_coreai_core(calibrated.read_text(), load(inputs), tmp_path).values()))
    assert np.max(np.abs(core - want)) <= 3e-2 * np.max(np.abs(want))


def test_calibration_names_a_missing_input(tmp_path):
    aten = export_source(tmp_path, OVERFLOW)
    coreai = tmp_path / "coreai.mlir"
    assert coreai_opt(aten, "--pass-pipeline=builtin.module(coreai-pipeline)", "-o", coreai).returncode == 0
    empty = tmp_path / "empty.npz"
    np.savez(empty, y=np.zeros(3, np.float32))
    out = tmp_path / "out.mlir"
    r = coreai_opt(coreai, f"--pass-pipeline=builtin.module(cast-to-f16{{calibration={empty}}})", "-o", out)
    assert r.returncode != 0
    assert "calibration with" in r.stderr and "is missing from the file" in r.stderr, r.stderr
    assert not out.exists()


UNDERFLOW = """
import torch

class M(torch.nn.Module):
    def forward(self, x):
        t = x * 1e-6  # TINY: f16 subnormals, ~3% of each value lost
        b = t * 1e4  # BACK: reads the tiny values
        return b + x, t  # t's second use keeps core-optimize from merging the scales

def factory():
    return M(), (torch.linspace(-2, 2, 64).reshape(4, 16),)
"""


def test_calibration_keeps_ops_losing_precision(tmp_path):
    aten = export_source(tmp_path, UNDERFLOW)
    coreai = tmp_path / "coreai.mlir"
    r = coreai_opt(aten, "--pass-pipeline=builtin.module(coreai-pipeline)", "--mlir-print-debuginfo", "-o", coreai)
    assert r.returncode == 0, r.stderr
    inputs = tmp_path / "in.npz"
    out = tmp_path / "calibrated.mlir"
    r = coreai_opt(coreai, f"--pass-pipeline=builtin.module(cast-to-f16{{calibration={inputs} remarks=true}})",
                   "-o", out)
    assert r.returncode == 0, r.stderr
    kept = [l for l in r.stderr.splitlines() if l.startswith("cast-to-f16:") and "kept f32" in l]
    lines = {next(i for i, l in enumerate(UNDERFLOW.splitlines(), start=1) if m in l) for m in ("TINY", "BACK")}
    got = set()
    for l in kept:
        assert "relative precision in f16" in l, l
        got.add(int(re.search(r'm\.py":(\d+)', l).group(1)))
    assert got == lines, (got, lines, r.stderr)
