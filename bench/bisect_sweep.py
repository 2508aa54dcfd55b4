#!/usr/bin/env python3
"""coreai-bisect over the corpus: a miscompile planted at each position of
coreai-pipeline, on every corpus model, must be found to the exact pass and
rewrite, with a reproducer of at most a quarter of the model's ops, in at
most ceil(log2 n) + 1 executor runs for n rewrites of the guilty pass.

    .venv/bin/python bench/bisect_sweep.py [MODEL ...] [--slow] [--ops N] [--markdown] [--keep DIR]

For each model (import, then `decompose,legalize-aten-to-coreai`: the
model's op count, the reproducer's yardstick as in test/e2e/test_bisect.py)
and each position P of `test-plant-miscompile{op=OP nth=K}` in coreai-pipeline
(after legalization, after externalize-composites, after canonicalize,cse
and at the very end), the planted op OP is one of the N most frequent ops
the plant matches there, K is the first and the last match. The reference is
the clean pipeline's outputs in the executor (coreai-bisect runs without
--expected, against the input module's own outputs). A case whose
planted module still matches the reference (the skipped op is the
identity on these inputs), or does not end (a skipped loop increment), is
counted as "no effect" and not bisected.
Otherwise coreai-bisect must print pass=#P test-plant-miscompile
rewrite=#K/n, and the case is checked as above. What the tool must find is
known independently of it (the position and K are chosen here).

A sweep, not a test (it takes minutes per model with the debug build);
test/e2e/test_bisect.py is the test. Prints one line per case that fails
and a table per model.
"""

import argparse
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "test"))
sys.path.insert(0, str(REPO / "test" / "e2e"))
sys.path.insert(0, str(REPO / "importer"))
from toolchain import BUILD, COREAI_OPT, COREAI_RUN, export_corpus_model  # noqa: E402

BISECT = BUILD / "coreai-bisect"
PASSES = ["decompose", "legalize-aten-to-coreai", "externalize-composites", "fp16-stabilize",
          "canonicalize", "cse", "core-optimize"]
# Plant positions: the number of pipeline passes before the plant.
POSITIONS = {"after legalize": 2, "after externalize": 3, "after cse": 6, "end": 7}
TOL = ["--atol", "1e-4", "--rtol", "1e-4"]
RUN_SECONDS = 30
OP_RE = re.compile(r'^\s*(?:%[^=]+= )?"?([a-z_]+\.[\w.]+)"?[ (<{]', re.M)
# Not counted, as in bench/optimize.py's count_ops (and core-optimize's
# figures): constants, graph outputs and the structural ops (graphs,
# functions, region terminators). The same rule for the model and the
# reproducer: a reproducer of one op is 1, whatever it needs around it.
NOT_COUNTED = {"coreai.constant", "arith.constant", "coreai.output", "func.return", "coreai.graph",
               "func.func", "coreai.yield", "coreai.condition", "builtin.module"}


def op_count(path):
    return sum(op not in NOT_COUNTED for op in OP_RE.findall(Path(path).read_text().split("{-#")[0]))


def opt(module, passes, out, *extra):
    r = subprocess.run([str(COREAI_OPT), str(module), f"--pass-pipeline=builtin.module({','.join(passes)})",
                        "-o", str(out), *extra], capture_output=True, text=True)
    return r


def matches(aten, prefix, candidates):
    """{op: [location name of each plant match, in order]} in the module
    after the passes `prefix`, run with the plant in one coreai-opt (as
    coreai-bisect runs them: no `--mlir-print-debuginfo`, whose global
    printing flag changes what core-optimize's graph de-duplication merges)."""
    found = {}
    for op in candidates:
        r = opt(aten, prefix + [f"test-plant-miscompile{{op={op} nth=1000000000 trace-rewrites=true}}"], "/dev/null")
        names = [m.group(1) if m else None for m in
                 (re.search(r' at loc\("([^"]+)"', line) for line in r.stderr.splitlines()
                  if line.startswith("rewrite "))]
        if names:
            found[op] = names
    return found


def plant_for(op, k, names):
    """The plant of match k: by its location name when no other match has
    that name (a real faulty pattern is wrong because of the op), else by
    number."""
    name = names[k - 1]
    if name and names.count(name) == 1:
        return f"test-plant-miscompile{{op={op} loc={name}}}", "loc"
    return f"test-plant-miscompile{{op={op} nth={k}}}", "nth"


def sweep(name, n_ops, work, keep=None):
    aten, inputs, _ = export_corpus_model(name, work / name)
    legal = work / f"{name}.legal.mlir"
    r = opt(aten, PASSES[:2], legal)
    if r.returncode:
        return {"error": r.stderr.strip().splitlines()[0]}
    model_ops = op_count(legal)
    # The reference is the clean pipeline's output in the executor (as
    # coreai-bisect's own reference without --expected), not eager PyTorch:
    # an f16 model differs from eager by more than the f32 tolerance
    # before any pass runs.
    clean, reference = work / f"{name}.clean.mlir", work / f"{name}.ref.npz"
    if opt(aten, PASSES, clean).returncode or subprocess.run(
            [str(COREAI_RUN), str(clean), "--inputs", str(inputs), "--outputs", str(reference)],
            capture_output=True, timeout=RUN_SECONDS).returncode:
        return {"error": "the clean pipeline does not convert or run"}
    rows = []
    for where, before in POSITIONS.items():
        prefix_out = work / f"{name}.{before}.mlir"
        if opt(aten, PASSES[:before], prefix_out).returncode:
            continue
        text = prefix_out.read_text().split("{-#")[0]
        ranked = [op for op, _ in Counter(OP_RE.findall(text)).most_common()
                  if op.startswith("coreai.") and op not in ("coreai.constant", "coreai.output",
                                                              "coreai.graph", "coreai.invoke")]
        found = matches(aten, PASSES[:before], ranked[:3 * n_ops])
        for op in list(found)[:n_ops]:
            n = len(found[op])
            for k in sorted({1, n}):
                planted_pass, keyed = plant_for(op, k, found[op])
                passes = PASSES[:before] + [planted_pass] + PASSES[before:]
                planted = work / f"{name}.planted.mlir"
                if opt(aten, passes, planted).returncode:
                    rows.append(dict(where=where, op=op, k=k, n=n, keyed=keyed, status="pipeline failed"))
                    continue
                try:
                    r = subprocess.run([str(COREAI_RUN), str(planted), "--inputs", str(inputs),
                                        "--compare", str(reference), *TOL], capture_output=True, text=True,
                                       timeout=RUN_SECONDS)
                except subprocess.TimeoutExpired:
                    # e.g. a skipped loop increment: the planted module never ends.
                    rows.append(dict(where=where, op=op, k=k, n=n, keyed=keyed, status="planted module hangs"))
                    continue
                if r.returncode == 0:
                    rows.append(dict(where=where, op=op, k=k, n=n, keyed=keyed, status="no effect"))
                    continue
                repro = work / f"{name}.repro"
                subprocess.run(["rm", "-rf", str(repro)])
                r = subprocess.run([str(BISECT), str(aten), f"--pass-pipeline=builtin.module({','.join(passes)})",
                                    "--inputs", str(inputs), *TOL, "-o", str(repro)],
                                   capture_output=True, text=True)
                result = [line for line in r.stdout.splitlines() if line.startswith("coreai-bisect: RESULT")]
                runs = re.search(r"step 2: .*\((\d+) executor runs; ceil\(log2 (\d+)\) = (\d+)\)", r.stdout)
                want = f"pass=#{before + 1} test-plant-miscompile rewrite=#{k}/{n} "
                row = dict(where=where, op=op, k=k, n=n, keyed=keyed, status="bisected",
                           found=r.returncode == 1 and len(result) == 1 and want in result[0],
                           runs=int(runs.group(1)) if runs else None,
                           bound=int(runs.group(3)) + 1 if runs else None,
                           repro_ops=op_count(repro / "repro.mlir") if (repro / "repro.mlir").exists() else None)
                if not row["found"]:
                    row["why"] = result[0] if result else (r.stdout + r.stderr).strip()[-200:]
                elif row["repro_ops"] is None or row["repro_ops"] > model_ops / 4:
                    row["why"] = f"reproducer of {row['repro_ops']} ops, over a quarter of {model_ops}"
                if keep and "why" in row:
                    dest = keep / f"{name}.{before}.{op}.{k}"
                    subprocess.run(["rm", "-rf", str(dest)])
                    subprocess.run(["cp", "-r", str(repro), str(dest)], capture_output=True)
                    dest.mkdir(parents=True, exist_ok=True)
                    (dest / "bisect.log").write_text(r.stdout + r.stderr)
                rows.append(row)
    return {"model_ops": model_ops, "rows": rows}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="*")
    ap.add_argument("--slow", action="store_true", help="include the slow corpus models")
    ap.add_argument("--ops", type=int, default=1, help="planted ops per position (most frequent first)")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--keep", type=Path, help="copy the reproducer (and the log) of each miss here")
    args = ap.parse_args()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    from models import CORPUS
    names = args.models or [n for n, _, slow in CORPUS if args.slow or not slow]
    totals = Counter()
    lines = ["| model | ops | cases (by loc) | no effect | pass and rewrite found | runs within log2 n + 1 "
             "| reproducer ops (max) | reproducer within 1/4 |",
             "|---|---|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            res = sweep(name, args.ops, Path(tmp), args.keep)
            if "error" in res:
                print(f"{name}: not swept: {res['error']}", flush=True)
                continue
            rows, ops = res["rows"], res["model_ops"]
            b = [r for r in rows if r["status"] == "bisected"]
            for r in rows:
                if r["status"] in ("pipeline failed", "planted module hangs") or "why" in r:
                    print(f"{name}: {r['where']}: {r['op']} #{r['k']}/{r['n']} ({r['keyed']}): "
                          f"{r.get('why', r['status'])}", flush=True)
            found = sum(r["found"] for r in b)
            in_runs = sum(1 for r in b if r["runs"] is not None and r["runs"] <= r["bound"])
            sizes = [r["repro_ops"] for r in b if r["repro_ops"] is not None]
            quarter = sum(1 for s in sizes if s <= ops / 4)
            totals.update(cases=len(rows), loc=sum(r["keyed"] == "loc" for r in rows),
                          no_effect=len(rows) - len(b), bisected=len(b),
                          found=found, in_runs=in_runs, quarter=quarter)
            lines.append(f"| {name} | {ops} | {len(rows)} ({sum(r['keyed'] == 'loc' for r in rows)}) | "
                         f"{len(rows) - len(b)} | {found}/{len(b)} | {in_runs}/{len(b)} | "
                         f"{max(sizes) if sizes else '-'} | {quarter}/{len(b)} |")
            print(lines[-1], flush=True)
    lines.append(f"| **total** | | {totals['cases']} ({totals['loc']}) | {totals['no_effect']} | "
                 f"{totals['found']}/{totals['bisected']} | {totals['in_runs']}/{totals['bisected']} | | "
                 f"{totals['quarter']}/{totals['bisected']} |")
    print("\n".join(lines) if args.markdown else lines[-1])
    return 0 if totals["found"] == totals["bisected"] else 1


if __name__ == "__main__":
    sys.exit(main())
