#!/usr/bin/env python3
"""Import time of resnet18 (random weights, 1x3x224x224) against torch.export
alone, measured in the same run.

    .venv/bin/python bench/import-resnet18.py [--repeat N]

Baseline: torch.export.export + run_decompositions(coreai table), i.e. what
any converter must pay. Measured on top: coreai_export's import (FX graph ->
MLIR text with dense_resource weights) and writing the file.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "importer"))

import torch  # noqa: E402
import torchvision  # noqa: E402

from coreai_export import export_module, import_program  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ns = ap.parse_args()
    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None).eval()
    inputs = (torch.randn(1, 3, 224, 224),)
    export_s, import_s, write_s = [], [], []
    for _ in range(ns.repeat):
        t0 = time.perf_counter()
        ep = export_module(model, inputs, "coreai")
        t1 = time.perf_counter()
        prog = import_program(ep)
        t2 = time.perf_counter()
        with tempfile.NamedTemporaryFile("w", suffix=".mlir") as f:
            f.write(prog.text)
            f.flush()
            size = os.path.getsize(f.name)
        t3 = time.perf_counter()
        export_s.append(t1 - t0)
        import_s.append(t2 - t1)
        write_s.append(t3 - t2)
    e, i, w = (statistics.median(x) for x in (export_s, import_s, write_s))
    print(f"resnet18 1x3x224x224, median of {ns.repeat}")
    print(f"  torch.export + run_decompositions (baseline): {e:8.3f} s")
    print(f"  coreai_export import (FX -> MLIR text):       {i:8.3f} s  ({i / e:.1%} of baseline)")
    print(f"  write {size / 1e6:.1f} MB:                          {w:8.3f} s")
    print(f"  end to end / baseline:                         {(e + i + w) / e:8.3f}x")


if __name__ == "__main__":
    main()
