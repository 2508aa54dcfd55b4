#!/usr/bin/env python3
"""The model-zoo table of docs/testing.md from a zoo run's results.

    COREAI_ZOO_RESULTS=zoo.jsonl .venv/bin/python -m pytest -q -n auto test/zoo
    .venv/bin/python test/zoo/table.py zoo.jsonl             # prints the table
    .venv/bin/python test/zoo/table.py zoo.jsonl --doc docs/testing.md   # replaces it between the markers

The results are JSON lines, one per case (conftest.py's `record`): model,
column (f32, ane, gpu, f16, dynamic, coreai-torch), ok, stage, message,
max_error. Columns of the table: our f32 asset (both runtimes), our ane /
gpu / f16 assets, the dynamic-shape asset at each size, coreai-torch
0.4.3's asset in coreai-core's runtime. A cell is `ok` (within the
tolerance in both runtimes), the stage and a shortened first error (`as
f32` when it is the f32 asset's), `n/a` for a model without a dynamic case
(models.py says why), `-` when the run had no such case (a run with -k).
Models with the same row share one.
"""

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

BEGIN, END = "<!-- zoo-table: test/zoo/table.py -->", "<!-- /zoo-table -->"
COLUMNS = ["f32", "ane", "gpu", "f16", "dynamic", "coreai-torch"]


def short(message):
    """A failure's first error, shortened for a table cell."""
    m = re.search(r"have no decomposition here: ([^;]+)", message)
    if m:
        ops = [op.replace("aten.", "").replace(".default", "") for op in m.group(1).split(", ")]
        return "no decomposition: " + ", ".join(ops)
    m = re.search(r"unsupported (?:ATen )?ops: ([^;]+?)(?:\.? Use |;|$)", message)
    if m:
        return "unsupported: " + m.group(1).replace("aten.", "").replace(".default", "")
    m = re.search(r"cannot (lower|decompose) '(?:aten::|aten\.)?([\w.]+)': (.*)", message)
    if m:
        reason = re.sub(r" \([^)]*\)", "", m.group(3).split(";")[0])
        return f"cannot {m.group(1)} {m.group(2).replace('.default', '')}: {reason}"
    m = re.search(r"Constraints violated \(([^)]*)\)", message)
    if m:
        return f"torch.export: constraints violated ({m.group(1)})"
    m = re.search(r"(\d+) elements out of tolerance \(max error ([^)]+)\)", message)
    if m:
        where = message.split(":", 1)[0]
        return f"{where}: {m.group(1)} elements off"
    text = message.split(";")[0].strip()
    return text if len(text) <= 70 else text[:67] + "..."


def cell(result):
    if result is None:
        return "-"
    if result["ok"]:
        return "ok"
    return f"{result['stage']}: {short(result['message'])}".replace("|", "\\|")


def cells(name, latest):
    """The row of model `name`: (f32, ane / gpu / f16, dynamic, coreai-torch)."""
    import models

    info = models.build_info(name)
    f32 = cell(latest.get((name, "f32")))
    variants = [cell(latest.get((name, v))) for v in ("ane", "gpu", "f16")]
    if f32 != "ok" and all(c == f32 for c in variants):
        targets = "as f32"
    else:
        targets = " / ".join(variants)
    if info.dynamic is None:
        dynamic = "n/a"
    else:
        dynamic = cell(latest.get((name, "dynamic")))
        if dynamic == "ok":
            dynamic = f"ok ({info.dynamic.what})"
        elif dynamic == f32 and f32 != "-":
            dynamic = "as f32"
    return f32, targets, dynamic, cell(latest.get((name, "coreai-torch")))


def rows(results):
    """One row per distinct result, naming every model that has it, in the
    order of models.MODELS."""
    import models

    latest = {(r["model"], r["column"]): r for r in results}
    groups = {}
    for name in models.MODELS:
        groups.setdefault(cells(name, latest), []).append(name)
    return [f"| {', '.join(names)} | {' | '.join(row)} |" for row, names in groups.items()]


def table(results):
    head = ["| models | ours f32 | ours ane / gpu / f16 | dynamic | coreai-torch 0.4.3 |", "|---|---|---|---|---|"]
    return "\n".join(head + rows(results))


def load(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", help="the JSON lines a run wrote to $COREAI_ZOO_RESULTS")
    p.add_argument("--doc", "--readme", dest="doc", metavar="FILE",
                   help=f"replace the table between {BEGIN} and {END} in FILE (docs/testing.md)")
    ns = p.parse_args(argv)
    text = table(load(ns.results))
    if not ns.doc:
        print(text)
        return 0
    doc = Path(ns.doc)
    body = doc.read_text()
    if BEGIN not in body or END not in body:
        print(f"{doc}: no {BEGIN} ... {END} markers", file=sys.stderr)
        return 1
    start, end = body.index(BEGIN) + len(BEGIN), body.index(END)
    doc.write_text(body[:start] + "\n" + text + "\n" + body[end:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
