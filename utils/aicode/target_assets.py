#!/usr/bin/env python3
"""`--target ane` / `--target gpu` assets (aicode, the default format)
loaded and run in coreai-core's runtime against eager PyTorch.

    PYTHONPATH=importer:test/e2e .venv/bin/python utils/aicode/target_assets.py [--slow] [--target ane|gpu] [NAME ...]

For each corpus model and target: `coreai-compile MODULE --target T -o
M.aimodel`, then coreai-core's runtime loads the asset as it is and runs it
(utils/aicode/runasset.py, in the oracle worker of test/oracle.py: a file it
cannot read aborts that process, not this one, and a death with coreai-core's
signature is rerun once), and coreai-run runs it too. Tolerance (issue 16): ane
3e-2 x max|eager| (f16 compute), gpu the f32 tolerance of
utils/coreai-report/report.py; integer outputs exactly. One line per model
and target: `ok`, `wrong` (the message), the compiler's first error, or the
runtime's failure.
"""

import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "target" / "debug"
sys.path.insert(0, str(REPO / "utils" / "coreai-report"))
sys.path.insert(0, str(REPO / "test"))
sys.path.insert(0, str(REPO / "test" / "e2e"))
import oracle  # noqa: E402
import report  # noqa: E402

ANE_TOLERANCE = 3e-2


def tolerance(name, target):
    if target == "ane":
        return ANE_TOLERANCE
    return report.TOLERANCE.get(name, (report.ATOL,))[0]


def last_line(stderr, code):
    lines = [line for line in stderr.splitlines() if line.strip()]
    return (lines[-1][:160] if lines else "") + f" (exit {code})"


def check(name, spec, work, target):
    """(coreai-core's verdict, coreai-run's verdict) of model `name`'s
    asset for `target`."""
    work = Path(work)
    module, inputs, expected = report.export(name, spec, work)
    asset = work / f"{name}.{target}.aimodel"
    r = subprocess.run([str(BUILD / "coreai-compile"), module, "--target", target, "-o", asset],
                       capture_output=True, text=True)
    if r.returncode:
        return "compile: " + report.first_error(r.stderr), "-"
    want = report.load(expected)
    verdicts = []
    core_out, run_out = work / "core.npz", work / "run.npz"
    # The Neural Engine's asset takes f16 (and si16 index) inputs, its
    # default `--io f16`: both runtimes convert the f32 test vectors.
    cast = ["--cast-inputs"] if target == "ane" else []
    runs = [("coreai-core", lambda: oracle.runasset(asset, "--inputs", inputs, "--outputs", core_out, *cast),
             core_out),
            ("coreai-run", lambda: subprocess.run([str(BUILD / "coreai-run"), str(asset), "--inputs", str(inputs),
                                                   "--outputs", str(run_out), *cast], capture_output=True, text=True),
             run_out)]
    for who, run, out in runs:
        p = run()
        if p.returncode:
            verdicts.append(f"{who} failed: {last_line(p.stderr, p.returncode)}")
            continue
        v = report.compare(report.load(out), want, tolerance(name, target))
        verdicts.append("ok" if v["ok"] else "wrong: " + v["message"])
    return tuple(verdicts)


def main(argv):
    warnings.simplefilter("ignore")
    from models import CORPUS

    slow = "--slow" in argv
    targets = ["ane", "gpu"]
    if "--target" in argv:
        targets = [argv[argv.index("--target") + 1]]
    names = [a for i, a in enumerate(argv) if not a.startswith("--") and (i == 0 or argv[i - 1] != "--target")]
    for name, spec, is_slow in CORPUS:
        if (names and name not in names) or (is_slow and not slow and not names) or name == "custom_op":
            continue
        for target in targets:
            with tempfile.TemporaryDirectory() as tmp:
                try:
                    core, run = check(name, spec, tmp, target)
                except Exception as e:  # noqa: BLE001
                    core, run = f"error: {str(e)[:120]}", "-"
            print(f"{name:24s} {target}  coreai-core: {core}  |  coreai-run: {run}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
