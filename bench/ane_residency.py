#!/usr/bin/env python3
"""Neural Engine residency of the model zoo: every `transformers` and `timm`
model of test/zoo/models.py (small random-weight configurations), imported
with `convert(target="ane")`'s settings and compiled with
`coreai-compile --target ane --explain`; the `ane-residency` report's
summary per model: ops counted, ops resident, and the ops leaving the
Neural Engine by rule (docs/targets.md). A measurement, not a test.

    .venv/bin/python bench/ane_residency.py [--models llama,vit] [--markdown]
"""

import argparse
import re
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "test"))
sys.path.insert(0, str(REPO / "importer"))

SUMMARY = re.compile(r"ane-residency: (\d+) of (\d+) ops Neural-Engine-resident(?: \((\d+) leave it: ([^)]*)\))?")


def residency(name, work, compiler):
    """(resident, total, {rule: count}) of zoo model `name`, or an error text."""
    import toolchain
    from coreai_export.convert import import_model
    from coreai_export.exporting import experts_for_target

    zoo = toolchain.zoo()
    model, inputs, _ = zoo.build(name)
    module = work / f"{name}.mlir"
    with experts_for_target(model, "ane"):
        import_model(model, inputs, "none", None, ()).write(module, weights=True)
    r = subprocess.run([str(compiler), str(module), "--target", "ane", "--explain", "-o", str(work / f"{name}.aimodel")],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return (r.stderr.strip().splitlines() or ["failed"])[-1][:160]
    m = SUMMARY.search(r.stderr)
    if not m:
        return "no residency summary"
    rules = {}
    for item in (m.group(4) or "").split(", "):
        if item:
            rule, n = item.rsplit(": ", 1)
            rules[rule] = int(n)
    return int(m.group(1)), int(m.group(2)), rules


def main():
    warnings.simplefilter("ignore")
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="", help="comma-separated zoo names (default: all)")
    p.add_argument("--compiler", default=str(REPO / "target" / "release" / "coreai-compile"))
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = p.parse_args()
    import toolchain

    zoo = toolchain.zoo()
    names = args.models.split(",") if args.models else list(zoo.MODELS)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            try:
                got = residency(name, Path(tmp), args.compiler)
            except Exception as e:  # a model that does not import is reported, not fatal
                got = f"{type(e).__name__}: {str(e)[:120]}"
            rows.append((name, zoo.build_info(name).source, got))
            if not args.markdown:
                print(name, got, flush=True)
    if args.markdown:
        print("| model | source | resident / ops | leaving, by rule |")
        print("|---|---|---:|---|")
        for name, source, got in rows:
            if isinstance(got, str):
                print(f"| {name} | {source} | — | {got} |")
            else:
                resident, total, rules = got
                share = f"{resident} / {total} ({100 * resident / total:.1f}%)" if total else "0 / 0"
                print(f"| {name} | {source} | {share} | {', '.join(f'{k} {v}' for k, v in rules.items())} |")


if __name__ == "__main__":
    main()
