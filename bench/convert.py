#!/usr/bin/env python3
"""Conversion time: `coreai-opt --pass-pipeline='builtin.module(coreai-pipeline)'`
against coreai-torch 0.4.3's `TorchConverter().add_exported_program(ep).to_coreai()`,
on the same ExportedProgram, in the same run. A benchmark, not a test.

    .venv/bin/python bench/convert.py [--repeat N] [--models resnet18,mobilenet_v3_small,llama_block]
        [--coreai-opt PATH] [--format bytecode|text] [--decompositions coreai|none]

Per model: torch.export once (`--decompositions`, default coreai: the table
coreai-torch needs), coreai_export's import of that program to MLIR once (not
timed; `--format bytecode`, the default, then writes it as MLIR bytecode, whose
resources are raw bytes rather than hex text), then the median of N runs of
each converter:
  - ours: the coreai-opt process on the imported file (read, decompose,
    legalize-aten-to-coreai, canonicalize, cse, write the result in the same
    format), wall time; the release build when there is one;
  - coreai-torch: add_exported_program (its validation) + to_coreai() in
    RELEASE mode (its IR building and its built-in optimization), in process.
The work differs: to_coreai() also optimizes the program; coreai-opt also
reads and writes the module (with its weights). The `(passes)` columns use
coreai-opt's own --mlir-timing report: the pipeline's passes without the I/O. A model that does not convert prints why.
"""

import argparse
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from contextlib import redirect_stdout

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools", "coreai-export"))
sys.path.insert(0, os.path.join(REPO, "test", "e2e"))

import torch  # noqa: E402

from coreai_export import export_module, import_program  # noqa: E402

MODELS = {
    "resnet18": "whole:resnet18",
    "mobilenet_v3_small": "whole:mobilenet_v3_small",
    "llama_block": "transformer:llama_block",
}


def factory(spec):
    import importlib
    mod, fac = spec.split(":")
    out = getattr(importlib.import_module(f"models.{mod}"), fac)()
    return out[0].eval(), out[1]


def default_coreai_opt():
    for profile in ("release", "debug"):
        path = os.path.join(REPO, "target", profile, "coreai-opt")
        if os.path.exists(path):
            return path
    sys.exit("coreai-opt is not built: cargo build --release -p coreai-opt")


PASS_ROWS = ("decompose", "legalize-aten-to-coreai", "Canonicalizer", "CSE")


def pass_seconds(timing_report):
    """The wall time of the pipeline's passes in a --mlir-timing report
    (without reading and writing the module)."""
    total = 0.0
    for line in timing_report.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[-1] in PASS_ROWS:
            total += float(parts[0])
    return total


def time_ours(coreai_opt, path, repeat, bytecode):
    times, passes, error = [], [], ""
    extra = ["--emit-bytecode", "--mlir-timing"] if bytecode else ["--mlir-timing"]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.mlir")
        for _ in range(repeat):
            t0 = time.perf_counter()
            r = subprocess.run([coreai_opt, path, "--pass-pipeline=builtin.module(coreai-pipeline)", "-o", out, *extra],
                               capture_output=True, text=True)
            times.append(time.perf_counter() - t0)
            passes.append(pass_seconds(r.stderr))
            if r.returncode != 0:
                lines = [l for l in r.stderr.splitlines() if "error:" in l]
                error = (lines[0] if lines else r.stderr.strip()[-300:]).split("error:", 1)[-1].strip()
                break
    return statistics.median(times), statistics.median(passes), error


def time_theirs(ep, repeat):
    from coreai_torch import TorchConverter
    times = []
    try:
        for _ in range(repeat):
            t0 = time.perf_counter()
            with warnings.catch_warnings(), redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                TorchConverter(mode=TorchConverter.Mode.RELEASE).add_exported_program(ep).to_coreai()
            times.append(time.perf_counter() - t0)
    except Exception as e:  # the converter's own message is the result
        return None, f"{type(e).__name__}: {str(e).strip().splitlines()[0][:200]}"
    return statistics.median(times), ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--coreai-opt", default=None, help="default: target/release/coreai-opt, else target/debug")
    ap.add_argument("--format", default="bytecode", choices=["bytecode", "text"],
                    help="the form coreai-opt reads and writes")
    ap.add_argument("--decompositions", default="coreai", choices=["coreai", "none"],
                    help="table of the shared ExportedProgram (coreai-torch needs coreai)")
    ns = ap.parse_args()
    ns.coreai_opt = ns.coreai_opt or default_coreai_opt()
    torch.set_num_threads(2)
    print(f"coreai-opt: {ns.coreai_opt} ({ns.format}); median of {ns.repeat}; ExportedProgram table: {ns.decompositions}")
    print(f"{'model':<20} {'coreai-opt':>11} {'(passes)':>10} {'coreai-torch':>13} {'speed-up':>9} {'(passes)':>9}")
    for name in ns.models.split(","):
        model, inputs = factory(MODELS[name])
        ep = export_module(model, inputs, ns.decompositions)
        with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
            f.write(import_program(ep).text)
            path = f.name
        bytecode = ns.format == "bytecode"
        if bytecode:
            subprocess.run([ns.coreai_opt, path, "--emit-bytecode", "-o", path + ".mlirbc"], check=True)
            os.unlink(path)
            path += ".mlirbc"
        try:
            ours, ours_passes, our_error = time_ours(ns.coreai_opt, path, ns.repeat, bytecode)
        finally:
            os.unlink(path)
        theirs, their_error = time_theirs(ep, ns.repeat)
        if our_error or their_error:
            print(f"{name:<20} {'-' if our_error else f'{ours:10.3f}s':>11} "
                  f"{'-' if their_error else f'{theirs:12.3f}s':>13} {'-':>7}")
            if our_error:
                print(f"  coreai-opt fails: {our_error}")
            if their_error:
                print(f"  coreai-torch fails: {their_error}")
            continue
        print(f"{name:<20} {ours:10.3f}s {ours_passes:9.4f}s {theirs:12.3f}s {theirs / ours:8.1f}x "
              f"{theirs / max(ours_passes, 1e-9):8.1f}x")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
