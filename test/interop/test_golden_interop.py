"""coreai-core 1.0.0b3 accepts what coreai-opt prints and writes.

For every golden file (test/golden, produced by coreai-torch and printed by
coreai-core): coreai-opt's textual output parses and verifies in coreai-core
and prints back identically to the golden, and coreai-opt's bytecode (v6)
loads in coreai-core. Bytecode is loaded in a subprocess because a property
mismatch aborts the reading process.
"""
import glob
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/: oracle.py
import oracle  # noqa: E402

try:
    import pytest

    parametrize = pytest.mark.parametrize
except ImportError:  # runnable as a plain script where pytest is missing
    def parametrize(*_a, **_k):
        return lambda f: f

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPT = os.path.join(os.environ.get("COREAI_BUILD_DIR", os.path.join(REPO, "target", "debug")), "coreai-opt")
GOLDEN = sorted(glob.glob(os.path.join(REPO, "test", "golden", "*.mlir")))


def _strip(text):
    return "\n".join(l for l in text.splitlines() if l.strip() and not l.startswith("//"))


def _core_print(text):
    from coreai.authoring.context import Context
    from coreai._compiler import ir

    with Context() as c:
        m = ir.Module.parse(text, c._mlir_context)
        assert m.operation.verify()
        return str(m)


@parametrize("path", GOLDEN, ids=os.path.basename)
def test_text_roundtrip_in_coreai_core(path):
    ours = subprocess.run([OPT, path], check=True, capture_output=True, text=True).stdout
    original = open(path).read()
    assert _strip(_core_print(ours)) == _strip(_core_print(original))


LOAD_BYTECODE = r"""
import sys
from coreai.authoring.context import Context
from coreai._compiler import ir
with Context() as c:
    m = ir.Module.parse(open(sys.argv[1], "rb").read(), c._mlir_context)
    assert m.operation.verify()
    print(m)
"""


@parametrize("path", GOLDEN, ids=os.path.basename)
def test_bytecode_loads_in_coreai_core(path, tmp_path):
    bc = tmp_path / "m.mlirbc"
    subprocess.run([OPT, path, "--emit-bytecode", "--emit-bytecode-version=6", "-o", str(bc)], check=True)
    r = oracle.run_script([sys.executable, "-c", LOAD_BYTECODE, str(bc)])
    assert r.returncode == 0, r.stderr[-2000:]
    assert _strip(r.stdout) == _strip(_core_print(open(path).read()))


if __name__ == "__main__":
    import pathlib
    import tempfile

    failed = 0
    for path in GOLDEN:
        for test in (test_text_roundtrip_in_coreai_core, test_bytecode_loads_in_coreai_core):
            try:
                if test is test_text_roundtrip_in_coreai_core:
                    test(path)
                else:
                    with tempfile.TemporaryDirectory() as d:
                        test(path, pathlib.Path(d))
                print(f"PASS {test.__name__}[{os.path.basename(path)}]")
            except Exception as e:  # report every failure, then exit non-zero
                failed += 1
                print(f"FAIL {test.__name__}[{os.path.basename(path)}]: {e}")
    print(f"{2 * len(GOLDEN) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
