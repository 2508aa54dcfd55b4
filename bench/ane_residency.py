#!/usr/bin/env python3
"""Neural Engine residency of the model zoo: every `transformers` and `timm`
model of test/zoo/models.py (small random-weight configurations), imported
with `convert(target="ane")`'s settings and compiled with
`coreai-compile --target ane --explain`; the `ane-residency` report's
summary per model: ops counted, ops resident, and the ops leaving the
Neural Engine by rule (docs/targets.md). With `--layout`, also the target
stage's layout: its 1x1 convolutions from linear layers (`linear-conv1x1`
remarks), its remaining matrix products and its transposes. A
measurement, not a test.

    .venv/bin/python bench/ane_residency.py [--models llama,vit] [--markdown] [--layout]
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


def layout(module, compiler, work):
    """(linear layers as 1x1 convolutions, matrix products, transposes) in
    the ane target stage of `module`, or an error text."""
    out = work / "target.mlir"
    r = subprocess.run([str(compiler), str(module), "--target", "ane", "--explain", "--compile-to", "target",
                        "-o", str(out)], capture_output=True, text=True)
    if r.returncode != 0:
        return (r.stderr.strip().splitlines() or ["failed"])[-1][:160]
    text = out.read_text()
    return (r.stderr.count(" linear-conv1x1: "), len(re.findall(r"= coreai\.\S*matmul ", text)),
            len(re.findall(r"= coreai\.transpose ", text)))


def residency(name, work, compiler, with_layout=False):
    """(resident, total, {rule: count}[, layout]) of zoo model `name`, or an
    error text."""
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
    if with_layout:
        return int(m.group(1)), int(m.group(2)), rules, layout(module, compiler, work)
    return int(m.group(1)), int(m.group(2)), rules


def main():
    warnings.simplefilter("ignore")
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="", help="comma-separated zoo names (default: all)")
    p.add_argument("--compiler", default=str(REPO / "target" / "release" / "coreai-compile"))
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    p.add_argument("--layout", action="store_true",
                   help="also count the target stage's 1x1 convolutions from linear layers, products and transposes")
    args = p.parse_args()
    import toolchain

    zoo = toolchain.zoo()
    names = args.models.split(",") if args.models else list(zoo.MODELS)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            try:
                got = residency(name, Path(tmp), args.compiler, args.layout)
            except Exception as e:  # a model that does not import is reported, not fatal
                got = f"{type(e).__name__}: {str(e)[:120]}"
            rows.append((name, zoo.build_info(name).source, got))
            if not args.markdown:
                print(name, got, flush=True)
    if args.markdown:
        extra = " linear layers as 1x1 conv / products / transposes |" if args.layout else ""
        print("| model | source | resident / ops | leaving, by rule |" + extra)
        print("|---|---|---:|---|" + ("---|" if args.layout else ""))
        for name, source, got in rows:
            if isinstance(got, str):
                print(f"| {name} | {source} | — | {got} |")
            else:
                resident, total, rules = got[:3]
                share = f"{resident} / {total} ({100 * resident / total:.1f}%)" if total else "0 / 0"
                cells = ""
                if args.layout:
                    shape = got[3]
                    cells = f" {shape if isinstance(shape, str) else ' / '.join(map(str, shape))} |"
                print(f"| {name} | {source} | {share} | {', '.join(f'{k} {v}' for k, v in rules.items())} |{cells}")


if __name__ == "__main__":
    main()
