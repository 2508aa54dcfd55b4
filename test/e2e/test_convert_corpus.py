"""Every corpus model end to end: PyTorch → coreai_export (--decompositions
none) → coreai-opt coreai-pipeline → coreai IR, run by coreai-run AND by
coreai-core's interpreter, against eager PyTorch.

Tolerance (utils/coreai-report/report.py): float outputs within
1e-4 x max|eager| per output (NaN equals NaN, infinities must match),
integers and booleans exactly; report.TOLERANCE lists the models that need
more, each with its reason.

custom_op calls a user's torch.library op: it converts with the program that
registers its lowering (examples/custom_op/main.rs, report.USER_LOWERINGS) and,
without it, coreai-opt must name the op as unsupported.

NOT_CONVERTED lists the models the pipeline does not convert yet, with the
pass's first error: a model outside it must convert and match, a model in it
must still fail with that error (remove it when it converts). CORE_GAPS lists
converted models coreai-core's interpreter cannot run, with its failure: a
model there must match in coreai-run and still fail in coreai-core.
"""

import importlib.util
import os

import pytest

from models import CORPUS

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location("coreai_report", os.path.join(REPO, "utils", "coreai-report", "report.py"))
report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(report)

NOT_CONVERTED = {}

CORE_GAPS = {
    # coreai-core 1.0.0b3's interpreter dies on any coreai.while, coreai-torch's
    # own output included (test/golden/control_while.mlir): SIGILL.
    "while_loop_counter": "the interpreter died (SIGILL)",
}

CASES = [pytest.param(n, s, marks=[pytest.mark.slow] if slow else [], id=n) for n, s, slow in CORPUS]


def test_the_lists_name_corpus_models():
    names = {n for n, _, _ in CORPUS}
    assert set(NOT_CONVERTED) <= names and set(CORE_GAPS) <= names and set(report.TOLERANCE) <= names


@pytest.mark.parametrize("name,spec", CASES)
def test_model_converts_and_matches_pytorch(name, spec, tmp_path):
    r = report.evaluate(name, spec, tmp_path, core_may_die=name in CORE_GAPS)
    if name in NOT_CONVERTED:
        assert not r.converted, f"{name} converts now: remove it from NOT_CONVERTED"
        assert NOT_CONVERTED[name] in r.error, r.error
        return
    assert r.converted, r.error
    assert r.coreai_run["ok"], r.coreai_run
    if name in CORE_GAPS:
        assert not r.coreai_core["ok"], f"{name} runs in coreai-core now: remove it from CORE_GAPS"
        assert CORE_GAPS[name] in r.coreai_core["message"], r.coreai_core
    else:
        assert r.coreai_core["ok"], r.coreai_core


def test_a_custom_op_without_its_lowering_is_named(tmp_path):
    spec = next(s for n, s, _ in CORPUS if n == "custom_op")
    module, _, _ = report.export("custom_op", spec, tmp_path)
    _, error = report.convert(module, tmp_path / "out.mlir")
    assert "unsupported ops: coreai_test::scaled_add.default" in error, error
    assert not (tmp_path / "out.mlir").exists(), "no partial output file"
