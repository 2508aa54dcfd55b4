#!/usr/bin/env python3
"""The aicode reader over the corpus: write → read gives back the writer's input.

    PYTHONPATH=importer:test/e2e .venv/bin/python utils/aicode/roundtrip.py [--slow] [NAME ...]

For each corpus model (PyTorch → exported module): `coreai-compile` writes
the same compiled program as a coreai-format asset and as an aicode asset;
`coreai-opt` prints both (the aicode one through the reader, crates/
coreai-asset/src/aicode/reader.rs); the two prints must be equal but for
what the aicode form does not hold, which coreai-core's own reader
(`convert-from-versioned`) loses the same way: the graph attributes
`__coreai_pure__` and `template_op`, and the signedness of a signless
integer attribute (`serialization.integer` is signed or unsigned, so `8`
comes back `8 : si64`). Then coreai-run runs the aicode
asset against eager PyTorch, and coreai-opt reads coreai-core's own
save_asset of the same compiled IR (the interop proof) and must print the
writer's input too. One line per model: `ok`, or the first check that
failed.
"""

import re
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "target" / "debug"
sys.path.insert(0, str(REPO / "utils" / "coreai-report"))
sys.path.insert(0, str(REPO / "test" / "e2e"))
import report  # noqa: E402

# Graph attributes the aicode serialization does not hold.
NOT_HELD = [
    (re.compile(r' attributes \{__coreai_pure__\}'), ""),
    (re.compile(r'__coreai_pure__, '), ""),
    (re.compile(r', template_op = "[^"]*"'), ""),
    (re.compile(r' attributes \{template_op = "[^"]*"\}'), ""),
]


# Signless and signed integer attributes, told apart by neither side.
SIGNED = [(re.compile(r"(-?\d+) : si64\b"), r"\1"), (re.compile(r" : si(\d+)\b"), r" : i\1")]


def without_unheld(text):
    for pattern, repl in NOT_HELD:
        text = pattern.sub(repl, text)
    return signless(text)


def signless(text):
    for pattern, repl in SIGNED:
        text = pattern.sub(repl, text)
    return text


def tool(name, *args):
    r = subprocess.run([str(BUILD / name), *map(str, args)], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"{name}: {report.first_error(r.stderr)}")
    return r.stdout


def printed(asset, debuginfo=False):
    return tool("coreai-opt", asset, *(["--mlir-print-debuginfo"] if debuginfo else []))


def core_save_asset(text, path):
    from coreai._compiler import ir
    from coreai.authoring.asset import AIProgram
    from coreai.authoring.context import Context

    with Context() as c:
        AIProgram._from_mlir_module(ir.Module.parse(text, c._mlir_context)).save_asset(Path(path))  # noqa: SLF001


def roundtrip(source, work, debuginfo=False):
    """(writer input, read back) of `source` compiled both ways, printed."""
    work = Path(work)
    plain, aicode = work / "plain.aimodel", work / "aicode.aimodel"
    tool("coreai-compile", source, "-o", plain, "--format", "coreai")
    tool("coreai-compile", source, "-o", aicode, "--format", "aicode")
    return without_unheld(printed(plain, debuginfo)), signless(printed(aicode, debuginfo))


def check(name, spec, work):
    work = Path(work)
    module, inputs, expected = report.export(name, spec, work)
    want, got = roundtrip(module, work)
    if want != got:
        return "round trip differs"
    out = work / "out.npz"
    r = subprocess.run([str(BUILD / "coreai-run"), work / "aicode.aimodel", "--inputs", inputs, "--outputs", out],
                       capture_output=True, text=True)
    if r.returncode:
        return "coreai-run: " + report.first_error(r.stderr)
    verdict = report.compare(report.load(out), report.load(expected), report.TOLERANCE.get(name, (None,))[0])
    if not verdict["ok"]:
        return "coreai-run wrong: " + verdict["message"]
    core = work / "core.aimodel"
    core_save_asset(printed(work / "plain.aimodel"), core)
    if signless(printed(core)) != want:
        return "coreai-core's asset reads differently"
    return "ok"


def main(argv):
    warnings.simplefilter("ignore")
    from models import CORPUS

    slow = "--slow" in argv
    names = [a for a in argv if not a.startswith("--")]
    bad = 0
    for name, spec, is_slow in CORPUS:
        if (names and name not in names) or (is_slow and not slow and not names) or name == "custom_op":
            continue
        with tempfile.TemporaryDirectory() as tmp:
            try:
                verdict = check(name, spec, tmp)
            except Exception as e:  # noqa: BLE001
                verdict = f"error: {str(e)[:160]}"
        bad += verdict != "ok"
        print(f"{name:24s} {verdict}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
