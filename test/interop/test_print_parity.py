"""coreai-opt prints every op exactly as coreai-core 1.0.0b3 does.

Each coreai/coreaix op is written in generic form with operand and result
types coreai-core accepts (utils/coreai-ods/element_types.json); for every
such module coreai-core verifies (125 of the 144 ops; the others need
regions or consistent shapes and are covered by test/golden), coreai-core's
pretty printing is given to coreai-opt, which must accept it and print the
same text.
"""
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPT = os.path.join(os.environ.get("COREAI_BUILD_DIR", os.path.join(REPO, "target", "debug")), "coreai-opt")
sys.path.insert(0, os.path.join(REPO, "utils", "coreai-ods"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import probe_element_types as probe  # noqa: E402
from test_element_type_parity import DATA, baseline  # noqa: E402


def core_printed():
    """(op name, coreai-core's printing) for every op whose baseline verifies."""
    out = []
    with probe.Core() as core:
        for f in ("_coreai_ops_gen.py", "_coreaix_ops_gen.py"):
            for op in probe.ops_from_bindings(os.path.join(probe.bindings_dir(), f)):
                text = probe.build_case(op, baseline(DATA[op["name"]]), "p")
                try:
                    module = core.ir.Module.parse(text, core.ctx._mlir_context)
                except Exception:
                    continue
                if module.operation.verify():
                    out.append((op["name"], str(module)))
    return out


def lines(text):
    return [l.strip() for l in text.splitlines() if l.strip()]


def test_same_printing():
    cases = core_printed()
    assert len(cases) >= 125, len(cases)
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as fh:
        fh.write("\n// -----\n".join(text for _, text in cases))
        path = fh.name
    r = subprocess.run([OPT, path, "--split-input-file", "--output-split-marker=// -----"],
                       capture_output=True, text=True)
    os.unlink(path)
    assert r.returncode == 0, r.stderr[:2000]
    ours = r.stdout.split("// -----")
    assert len(ours) == len(cases), (len(ours), len(cases))
    diffs = [f"{name}:\n  coreai-core: {a}\n  coreai-opt:  {b}"
             for (name, text), mine in zip(cases, ours)
             for a, b in zip(lines(text), lines(mine)) if a != b]
    assert not diffs, "\n".join(diffs[:20])


if __name__ == "__main__":
    test_same_printing()
    print("print parity: PASS")
