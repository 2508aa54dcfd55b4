#!/usr/bin/env python3
"""Every corpus model compressed with each preset: the asset's size, and its
outputs in coreai-run and in coreai-core's runtime against eager PyTorch
(the uncompressed model). A report for docs/compression.md, not a test (the
tests are test/e2e/test_compression.py).

    PYTHONPATH=importer:test/e2e .venv/bin/python utils/compression_corpus.py \
        [--presets int8,int4-block32,palettize4] [NAME ...]

One line per model: the dense asset's size, then per preset the asset's
size, the relative error `max|out - eager| / max|eager|` (the worst float
output, matched by name) in coreai-core's runtime, and `same` when
coreai-run's outputs agree with the runtime's to 1e-5 of their scale (else
coreai-run's own error), or the failure. A model with no weight
the passes select (none above 1024 elements read by a matmul, convolution,
gather or transpose) says `no weights`.
"""

import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "utils" / "coreai-report"))
sys.path.insert(0, str(REPO / "test" / "e2e"))
import report  # noqa: E402
from models import CORPUS  # noqa: E402

COMPILE = REPO / "target" / "debug" / "coreai-compile"
RUN = REPO / "target" / "debug" / "coreai-run"
RUNASSET = REPO / "utils" / "aicode" / "runasset.py"


def size(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def relative_error(got, want):
    """max over the float outputs (matched by name) of max|got - want| / max|want|."""
    worst = 0.0
    for name, w in want.items():
        if w.dtype.kind != "f" or not np.isfinite(w).all():
            continue
        g = np.asarray(got[name], np.float64)
        worst = max(worst, float(np.abs(g - w).max() / max(np.abs(w).max(), 1e-30)))
    return worst


def one(name, spec, work, presets):
    module, inputs, expected = report.export(name, spec, work)
    want = report.load(expected)
    dense = work / "dense.aimodel"
    r = subprocess.run([str(COMPILE), str(module), "-o", str(dense)], capture_output=True, text=True)
    if r.returncode:
        return f"dense: {report.first_error(r.stderr)}"
    cells = [f"dense {size(dense) / 1024:.0f} KiB"]
    for preset in presets:
        asset = work / f"{preset}.aimodel"
        r = subprocess.run([str(COMPILE), str(module), "-o", str(asset), "--compress", preset],
                           capture_output=True, text=True)
        if r.returncode:
            cells.append(f"{preset}: {report.first_error(r.stderr)[:100]}")
            continue
        if size(asset) == size(dense):
            cells.append(f"{preset}: no weights")
            continue
        core_out, ours_out = work / f"{preset}.core.npz", work / f"{preset}.ours.npz"
        r = subprocess.run([sys.executable, str(RUNASSET), str(asset), "--inputs", str(inputs), "--outputs",
                            str(core_out)], capture_output=True, text=True)
        if r.returncode:
            lines = [line for line in r.stderr.splitlines() if line.strip()]
            cells.append(f"{preset}: runtime: {(lines[-1] if lines else '')[:100]}")
            continue
        r = subprocess.run([str(RUN), str(asset), "--inputs", str(inputs), "--outputs", str(ours_out)],
                           capture_output=True, text=True)
        if r.returncode:
            cells.append(f"{preset}: coreai-run: {report.first_error(r.stderr)[:100]}")
            continue
        core, ours = report.load(core_out), report.load(ours_out)
        err = relative_error(core, want)
        agree = relative_error(core, ours) <= 1e-5
        cells.append(f"{preset} {size(asset) / 1024:.0f} KiB err {err:.2e} "
                     + ("same" if agree else f"coreai-run err {relative_error(ours, want):.2e}"))
    return " | ".join(cells)


def main(argv):
    warnings.simplefilter("ignore")
    presets = ["int8", "int4-block32", "palettize4"]
    names = []
    for a in argv:
        if a.startswith("--presets="):
            presets = a.split("=", 1)[1].split(",")
        elif not a.startswith("--"):
            names.append(a)
    for name, spec, slow in CORPUS:
        if (names and name not in names) or (slow and not names) or name == "custom_op":
            continue
        with tempfile.TemporaryDirectory() as tmp:
            try:
                line = one(name, spec, Path(tmp), presets)
            except Exception as e:  # noqa: BLE001
                line = f"export: {str(e)[:120]}"
        print(f"{name:24s} {line}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
