#!/usr/bin/env python3
"""core-optimize against Apple's optimizer, per corpus model: op counts and
(with --timing) pass time.

    .venv/bin/python bench/optimize.py [MODEL ...] [--no-slow] [--keep DIR] [--timing N] [--executor N] [--markdown]

For each model: import (`--decompositions none`), convert with
`decompose,legalize-aten-to-coreai,fp16-stabilize,canonicalize,cse`
(coreai-pipeline without core-optimize), then count the ops (every op but
`coreai.constant`, `coreai.output` and the structural ones) of
  - that module ("base"),
  - Apple's `coreai-pre-compilation-rewrite` + `symbol-dce` run on the same
    text in coreai-core's PassManager ("apple"),
  - `core-optimize` run on the same module ("ours"; base + core-optimize is
    coreai-pipeline).
`--timing N`: also the in-process time of core-optimize (`--mlir-timing`,
the median of N runs of `core-optimize` alone on the base module) against
the wall time of Apple's `PassManager.run` call on the same IR (median of N),
and their ratio. `--executor N`: also the executor's run time on the
module before and after core-optimize (`coreai-run --bench N`, the median
of N runs after a first, on the model's inputs) and their ratio; set
COREAI_BUILD_DIR=target/release for a release coreai-run. A benchmark,
not a test: it asserts nothing.
"""

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "utils" / "coreai-report"))
import report  # noqa: E402

BASE = "builtin.module(decompose,legalize-aten-to-coreai,fp16-stabilize,canonicalize,cse)"
OURS = "builtin.module(core-optimize)"
APPLE = "builtin.module(coreai-pre-compilation-rewrite,symbol-dce)"
NOT_COUNTED = {"coreai.constant", "coreai.output"}
OP_RE = re.compile(r'^\s*(?:%[^=]+= )?"?((?:coreai|coreaix|func|arith)\.[\w.]+)')


def count_ops(text):
    """Ops outside coreai.constant/coreai.output and the graph ops themselves."""
    n = 0
    for line in text.splitlines():
        m = OP_RE.match(line)
        if m and m.group(1) not in NOT_COUNTED | {"coreai.graph", "func.func", "coreai.yield",
                                                  "coreai.condition"}:
            n += 1
    return n


def apple(text, repeat=1):
    """Apple's rewrite + symbol-dce on `text`: (printed module, seconds per run)."""
    warnings.simplefilter("ignore")
    from coreai._compiler import ir
    from coreai._compiler.passmanager import PassManager
    from coreai.authoring.context import Context

    times, out = [], ""
    with Context() as c:
        for _ in range(repeat):
            module = ir.Module.parse(text, c._mlir_context)  # noqa: SLF001
            pm = PassManager.parse(APPLE, c._mlir_context)  # noqa: SLF001
            start = time.perf_counter()
            pm.run(module.operation)
            times.append(time.perf_counter() - start)
            out = str(module)
    return out, statistics.median(times)


def opt(module, pipeline, out, timing=False):
    cmd = [str(report.COREAI_OPT), str(module), f"--pass-pipeline={pipeline}", "-o", str(out)]
    if timing:
        cmd.append("--mlir-timing")
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(report.first_error(r.stderr))
    return r.stderr


def pass_seconds(timing_text, name="core-optimize"):
    for line in timing_text.splitlines():
        if line.strip().endswith(name) and "CoreOptimize" not in line:
            return float(line.split()[0])
    raise RuntimeError(f"no '{name}' line in --mlir-timing output")


BENCH_RE = re.compile(r"bench: median ([\d.]+) ms")


def run_ms(module, inputs, n):
    """coreai-run's median time per run of `module` on `inputs` (ms)."""
    r = subprocess.run([str(report.COREAI_RUN), str(module), "--inputs", str(inputs), "--bench", str(n)],
                       capture_output=True, text=True)
    m = BENCH_RE.search(r.stderr)
    if r.returncode != 0 or not m:
        raise RuntimeError(report.first_error(r.stderr))
    return float(m.group(1))


def measure(name, spec, work, repeat, executor=0):
    if name in report.USER_LOWERINGS:
        return None
    module, inputs, _ = report.export(name, spec, work)
    base = work / f"{name}.base.mlir"
    opt(module, BASE, base)
    base_text = base.read_text()
    apple_text, apple_s = apple(base_text, repeat or 1)
    ours = work / f"{name}.ours.mlir"
    opt(base, OURS, ours)
    row = {"model": name, "base": count_ops(base_text), "apple": count_ops(apple_text),
           "ours": count_ops(ours.read_text())}
    (work / f"{name}.apple.mlir").write_text(apple_text)
    if repeat:
        runs = [pass_seconds(opt(base, "builtin.module(core-optimize)", work / "t.mlir", True))
                for _ in range(repeat)]
        row["ours_s"], row["apple_s"] = statistics.median(runs), apple_s
    if executor:
        row["run_base_ms"], row["run_ours_ms"] = run_ms(base, inputs, executor), run_ms(ours, inputs, executor)
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="*")
    ap.add_argument("--no-slow", action="store_true")
    ap.add_argument("--keep", type=Path, help="keep the modules in DIR")
    ap.add_argument("--timing", type=int, default=0, metavar="N")
    ap.add_argument("--executor", type=int, default=0, metavar="N")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)
    corpus_list, _ = report.corpus()
    corpus = {name: spec for name, spec, _ in corpus_list}
    names = args.models or [n for n, _, slow in corpus_list if not (args.no_slow and slow)]
    tmp = tempfile.TemporaryDirectory()
    work = args.keep or Path(tmp.name)
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for name in names:
        try:
            row = measure(name, corpus[name], work, args.timing, args.executor)
        except Exception as e:  # noqa: BLE001 - a benchmark reports and goes on
            print(f"{name}: {e}", file=sys.stderr)
            continue
        if row is None:
            continue
        rows.append(row)
        timing = ""
        if args.timing:
            timing = f" {row['ours_s'] * 1e3:9.2f} {row['apple_s'] * 1e3:9.2f} {row['apple_s'] / row['ours_s']:7.1f}x"
        if args.executor:
            timing += f" {row['run_base_ms']:9.2f} {row['run_ours_ms']:9.2f} {row['run_base_ms'] / row['run_ours_ms']:6.2f}x"
        if not args.markdown:
            print(f"{name:28} {row['base']:6} {row['apple']:6} {row['ours']:6}{timing}", flush=True)
    total = {k: sum(r[k] for r in rows) for k in ("base", "apple", "ours")}
    if args.markdown:
        head = "| model | before | Apple rewrite + symbol-dce | core-optimize |"
        head += " core-optimize ms | Apple ms | ratio |" if args.timing else ""
        head += " coreai-run before, ms | after, ms | speed-up |" if args.executor else ""
        print(head)
        print("|" + "---|" * (head.count("|") - 1))
        for r in rows:
            t = f" {r['ours_s'] * 1e3:.2f} | {r['apple_s'] * 1e3:.2f} | {r['apple_s'] / r['ours_s']:.1f}x |" \
                if args.timing else ""
            if args.executor:
                t += f" {r['run_base_ms']:.2f} | {r['run_ours_ms']:.2f} | {r['run_base_ms'] / r['run_ours_ms']:.2f}x |"
            print(f"| {r['model']} | {r['base']} | {r['apple']} | {r['ours']} |{t}")
        blanks = 3 * (bool(args.timing) + bool(args.executor))
        print(f"| **total** | {total['base']} | {total['apple']} | {total['ours']} |" + " |" * blanks)
    else:
        print(f"{'total':28} {total['base']:6} {total['apple']:6} {total['ours']:6}")
    worse = [r["model"] for r in rows if r["ours"] > r["apple"]]
    if worse:
        print("more ops than Apple's rewrite: " + ", ".join(worse), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
