#!/usr/bin/env python3
"""Which corpus models compile with `coreai-compile --format aicode` to an
asset coreai-core's runtime loads and runs like eager PyTorch, and the write
time of our asset against coreai-core's save_asset of the same IR.

    PYTHONPATH=importer:test/e2e .venv/bin/python utils/aicode/corpus.py [--slow] [NAME ...]

One line per model: `ok`, `wrong` (runs, outside the corpus tolerance), the
runtime's failure, or the compiler's error (the first op it does not cover);
then `ir=same` when the decoded IR of our main.mlirb equals that of
coreai-core's save_asset of the same IR (utils/aicode/compare.py), else
`ir=differs`.
Timings (one run, for a report, not a benchmark): `coreai-compile(IR→asset)`
is a whole `coreai-compile --format aicode` process given the compiled coreai
IR (start-up, parsing, the pipeline re-run on optimized IR, the aicode
conversion, the asset write); `save_asset` is coreai-core's in-process
`save_asset` of that IR (parsing, convert-to-versioned, write).
"""

import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "utils" / "coreai-report"))
sys.path.insert(0, str(REPO / "test" / "e2e"))
sys.path.insert(0, str(REPO / "utils" / "aicode"))
import report  # noqa: E402
from compare import decoded_ir  # noqa: E402
from models import CORPUS  # noqa: E402

COMPILE = REPO / "target" / "debug" / "coreai-compile"
RUNASSET = REPO / "utils" / "aicode" / "runasset.py"


def core_save_asset(text, path):
    from coreai._compiler import ir
    from coreai.authoring.asset import AIProgram
    from coreai.authoring.context import Context

    with Context() as c:
        AIProgram._from_mlir_module(ir.Module.parse(text, c._mlir_context)).save_asset(Path(path))  # noqa: SLF001


def one(name, spec, work):
    module, inputs, expected = report.export(name, spec, work)
    ir = work / "ir.mlir"
    r = subprocess.run([str(COMPILE), str(module), "--compile-to", "target", "-o", str(ir)],
                       capture_output=True, text=True)
    if r.returncode:
        return "pipeline: " + report.first_error(r.stderr), None
    asset = work / "ours.aimodel"
    start = time.perf_counter()
    r = subprocess.run([str(COMPILE), str(ir), "-o", str(asset), "--format", "aicode"],
                       capture_output=True, text=True)
    ours = time.perf_counter() - start
    if r.returncode:
        return "writer: " + report.first_error(r.stderr), None
    # The asset run and compared: compiled from the module, so that it holds
    # exactly the IR in ir.mlir (compiling ir.mlir again re-runs the
    # pipeline, which moves constants).
    asset = work / "module.aimodel"
    r = subprocess.run([str(COMPILE), str(module), "-o", str(asset), "--format", "aicode"],
                       capture_output=True, text=True)
    if r.returncode:
        return "writer: " + report.first_error(r.stderr), None
    start = time.perf_counter()
    same = ""
    try:
        core_save_asset(ir.read_text(), work / "core.aimodel")
        core = time.perf_counter() - start
        same = " ir=" + ("same" if decoded_ir(asset / "main.mlirb") == decoded_ir(work / "core.aimodel" / "main.mlirb")
                         else "differs")
    except Exception as e:  # noqa: BLE001
        core = f"failed: {str(e)[:80]}"
    out = work / "out.npz"
    r = subprocess.run([sys.executable, str(RUNASSET), str(asset), "--inputs", str(inputs), "--outputs", str(out)],
                       capture_output=True, text=True)
    if r.returncode:
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        return "runtime: " + (lines[-1][:160] if lines else f"exit {r.returncode}") + f" (exit {r.returncode})" + same, \
            (ours, core)
    factor = report.TOLERANCE.get(name, (None,))[0]
    verdict = report.compare(report.load(out), report.load(expected), factor)
    return ("ok" if verdict["ok"] else "wrong: " + verdict["message"]) + same, (ours, core)


def main(argv):
    warnings.simplefilter("ignore")
    slow = "--slow" in argv
    names = [a for a in argv if not a.startswith("--")]
    for name, spec, is_slow in CORPUS:
        if (names and name not in names) or (is_slow and not slow and not names) or name == "custom_op":
            continue
        with tempfile.TemporaryDirectory() as tmp:
            try:
                verdict, times = one(name, spec, Path(tmp))
            except Exception as e:  # noqa: BLE001
                verdict, times = f"export: {str(e)[:120]}", None
        t = "" if not times else f"  coreai-compile(IR→asset) {times[0]:.2f}s  save_asset " + (
            f"{times[1]:.2f}s" if isinstance(times[1], float) else times[1])
        print(f"{name:24s} {verdict}{t}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
