"""The oracle worker (test/oracle.py): a death of coreai-core is rerun once
and counted in the summary line, a second death fails the test with both
messages, and a call known to die is not rerun. Each case runs an inner
pytest session on a one-test file, with the worker's planted abort
(COREAI_TEST_PLANT_ORACLE_ABORT=N: the Swift runtime's message, then
SIGABRT, on the worker's first N calls)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

TEST_DIR = Path(__file__).resolve().parents[1]

CONFTEST = f"""
import sys
sys.path.insert(0, {str(TEST_DIR)!r})
import oracle


def pytest_configure(config):
    config.pluginmanager.register(oracle, "oracle")
"""

INNER = """
import numpy as np
import oracle

ADD = '''module {
  coreai.graph @main(%x: tensor<3xf32> {coreai.name = "x"}) -> (tensor<3xf32> {coreai.name = "y"}) {
    %0 = coreai.add %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    coreai.output %0 : tensor<3xf32>
  }
}
'''


def test_add(tmp_path):
    x = np.array([1.5, -2.0, 0.25], np.float32)
    out = oracle.interpret(ADD, {"x": x}, tmp_path)
    np.testing.assert_array_equal(out["y"], x + x)
"""


def inner_session(tmp_path, planted, *flags):
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_inner.py").write_text(INNER)
    env = dict(os.environ, COREAI_TEST_PLANT_ORACLE_ABORT=str(planted))
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                           *flags, str(tmp_path / "test_inner.py")],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)


@pytest.mark.parametrize("flags", [(), ("-n", "2")], ids=["one-process", "xdist"])
def test_a_planted_oracle_abort_is_rerun_and_counted(tmp_path, flags):
    r = inner_session(tmp_path, 1, *flags)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 passed" in r.stdout, r.stdout
    assert "oracle reruns: 1" in r.stdout, r.stdout
    assert "killed by SIGABRT" in r.stdout and "Swift runtime" in r.stdout, r.stdout


def test_a_second_planted_abort_fails_the_test_with_both_messages(tmp_path):
    r = inner_session(tmp_path, 2)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "1 failed" in r.stdout, r.stdout
    assert "coreai-core died twice on one call (interpret)" in r.stdout, r.stdout
    assert "first: coreai-core's worker died (killed by SIGABRT)" in r.stdout, r.stdout
    assert "rerun: coreai-core's worker died (killed by SIGABRT)" in r.stdout, r.stdout


def test_no_death_no_rerun(tmp_path):
    r = inner_session(tmp_path, 0)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "oracle reruns: 0" in r.stdout, r.stdout


def test_a_call_known_to_die_is_not_rerun(tmp_path, monkeypatch):
    import oracle

    monkeypatch.setenv("COREAI_TEST_PLANT_ORACLE_ABORT", "1")
    monkeypatch.setattr(oracle, "_worker", None)  # a worker of its own, started with the plant
    before = len(oracle.RERUNS)
    died = oracle.interpret("module {}", {}, tmp_path, expect_death=True)
    assert isinstance(died, oracle.OracleDied) and died.signal_name == "SIGABRT", died
    assert len(oracle.RERUNS) == before
