#!/usr/bin/env python3
"""PyTorch module → .aimodel wall time, three ways in the same run. A
benchmark, not a test.

    .venv/bin/python bench/asset.py [--repeat N] [--models llama_block,resnet18]

Per model, each the median of N runs after one untimed warm-up (in process,
same model object, same inputs):
  - torch.export: `torch.export.export(model, inputs).run_decompositions({})`
    (the importer's `--decompositions none` setting) alone;
  - ours: `coreai_export.convert(model, inputs, "m.aimodel")`: that export,
    the import to aten MLIR text, and the coreai-compile process (pipeline,
    bytecode, asset); the release build when there is one;
  - coreai-torch: `TorchConverter(mode=RELEASE).add_pytorch_module(model,
    export_fn=...).to_coreai().save_asset(...)`, whose export_fn runs
    torch.export with coreai-torch's `get_decomp_table()`; that export is
    also timed alone, to give what each converter adds beyond its export;
  - the floor: writing our asset's main.mlirb to a new file and hashing it
    (SHA-256), which any converter does.
The assets differ in what main.mlirb holds (see docs/coreai-compile.md).
"""

import argparse
import hashlib
import io
import os
import statistics
import sys
import tempfile
import time
import warnings
from contextlib import redirect_stdout
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "importer"), str(REPO / "test" / "e2e")]

MODELS = {"llama_block": "transformer:llama_block", "resnet18": "whole:resnet18"}


def factory(spec):
    import importlib
    mod, fac = spec.split(":")
    out = getattr(importlib.import_module(f"models.{mod}"), fac)()
    return out[0].eval(), out[1]


def median_time(fn, repeat):
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--models", default=",".join(MODELS))
    args = ap.parse_args()
    import torch
    from coreai_export import convert

    compiler = next((str(p) for p in (REPO / "target" / "release" / "coreai-compile",
                                      REPO / "target" / "debug" / "coreai-compile") if p.exists()), None)
    print(f"coreai-compile: {compiler}")
    print("| model | torch.export | ours (export + import + coreai-compile) | coreai-torch | ours / export | coreai-torch / ours |")
    print("|---|---|---|---|---|---|")
    rows, beyond, floors = [], [], []
    for name in args.models.split(","):
        model, inputs = factory(MODELS[name])
        with tempfile.TemporaryDirectory() as tmp:
            def export():
                with torch.no_grad():
                    torch.export.export(model, inputs).run_decompositions({})

            def ours():
                convert(model, inputs, Path(tmp) / "ours.aimodel", compiler=compiler)

            def theirs_export():
                from coreai_torch import get_decomp_table
                with torch.no_grad():
                    torch.export.export(model, args=inputs).run_decompositions(get_decomp_table())

            def theirs():
                from coreai_torch import TorchConverter, get_decomp_table
                with warnings.catch_warnings(), redirect_stdout(io.StringIO()):
                    warnings.simplefilter("ignore")
                    program = TorchConverter(mode=TorchConverter.Mode.RELEASE).add_pytorch_module(
                        model, export_fn=lambda m: torch.export.export(m, args=inputs).run_decompositions(
                            get_decomp_table())).to_coreai()
                    program.save_asset(Path(tmp) / "theirs.aimodel")

            def floor():
                # What any converter does last: write the asset's program and
                # hash it (our main.mlirb's bytes, to a new file).
                data = (Path(tmp) / "ours.aimodel" / "main.mlirb").read_bytes()
                out = Path(tmp) / "floor.bin"
                out.unlink(missing_ok=True)
                out.write_bytes(data)
                hashlib.sha256(data).digest()

            e, o, te, t = (median_time(f, args.repeat) for f in (export, ours, theirs_export, theirs))
            w = median_time(floor, args.repeat)
            floors.append(f"| {name} | {w:.3f} s | {w / e:.2f}x |")
        rows.append(f"| {name} | {e:.3f} s | {o:.3f} s | {t:.3f} s | {o / e:.2f}x | {t / o:.2f}x |")
        beyond.append(f"| {name} | {o - e:.3f} s | {t - te:.3f} s (its export: {te:.3f} s) | {(t - te) / (o - e):.2f}x |")
    for row in rows:
        print(row)
    print()
    print("What each adds beyond its own torch.export (the medians' difference):")
    print()
    print("| model | ours | coreai-torch | coreai-torch / ours |")
    print("|---|---|---|---|")
    for row in beyond:
        print(row)
    print()
    print("Writing main.mlirb and its SHA-256 alone, against torch.export:")
    print()
    print("| model | write + hash | / torch.export |")
    print("|---|---|---|")
    for row in floors:
        print(row)
    print(f"load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
