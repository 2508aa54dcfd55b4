#!/usr/bin/env python3
"""Refresh utils/aten-ods/corpus-ops.txt: every aten overload the corpus
(test/e2e/models) exports to under each decomposition setting.

    PYTHONPATH=importer .venv/bin/python utils/aten-ods/collect_corpus_ops.py

then rerun generate.py.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "test", "e2e"))
sys.path.insert(0, os.path.join(REPO, "importer"))

import torch  # noqa: E402

from coreai_export.exporting import call_factory, export_module, load_factory, parse_dynamic_dims  # noqa: E402
from models import CORPUS, EXPORT_FLAGS  # noqa: E402


def targets(gm, out):
    for n in gm.graph.nodes:
        if n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload):
            if n.target.namespace == "aten":
                out.add(f"aten.{n.target._opname}.{n.target._overloadname}")
        if n.op == "get_attr":
            sub = getattr(gm, n.target)
            if isinstance(sub, torch.fx.GraphModule):
                targets(sub, out)


def main():
    found = set()
    for name, spec, _slow in CORPUS:
        mod, fac = spec.split(":")
        factory = load_factory(f"models.{mod}:{fac}", from_file=False)
        flags = EXPORT_FLAGS.get(name, [])
        for setting in ("coreai", "default", "none"):
            model, inputs = call_factory(factory)
            shapes = None
            if "--dynamic-dims" in flags:
                shapes = parse_dynamic_dims(flags[flags.index("--dynamic-dims") + 1], model, inputs)
            ep = export_module(model, inputs, setting, shapes)
            targets(ep.graph_module, found)
        print(f"{name}: {len(found)} overloads so far", file=sys.stderr)
    with open(os.path.join(HERE, "corpus-ops.txt"), "w") as f:
        f.write("# aten overloads the corpus exports to (any decomposition setting).\n")
        f.write("# Written by utils/aten-ods/collect_corpus_ops.py; read by generate.py.\n")
        f.write("\n".join(sorted(found)) + "\n")


if __name__ == "__main__":
    main()
