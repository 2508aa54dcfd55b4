#!/usr/bin/env python3
"""core-optimize against Apple's optimizer on the model zoo (test/zoo): op
counts per model, as bench/optimize.py counts them for the corpus.

    .venv/bin/python bench/optimize_zoo.py [MODEL ...] [--keep DIR] [--markdown]

For each zoo model (all of test/zoo/models.py's MODELS without arguments):
import it as a default `convert()` imports it (`pipeline.import_static`),
write the module with its weights inline (the `.text` form: Apple's parser
takes one self-contained text), convert it with bench/optimize.py's BASE
pipeline (`decompose,legalize-aten-to-coreai,fp16-stabilize,canonicalize,cse`)
and count the ops (optimize.count_ops) of
  - that module ("base"),
  - `core-optimize` run on it ("ours"),
  - Apple's `coreai-pre-compilation-rewrite` + `symbol-dce` run on the same
    text in coreai-core's PassManager ("apple"; optimize.apple),
and print one row per model: base, ours, apple, ours - apple. Apple's step
runs in a child process limited in memory and time (`--apple-memory`,
`--apple-timeout`), so a module Apple's parser or passes cannot take (too
large, out of memory, a crash) gives a row that says which failed instead
of stopping the run (t5's text parses, but Apple's rewrite grows past
20 GiB on it). `--keep DIR` keeps each model's NAME.base.mlir,
NAME.ours.mlir and NAME.apple.mlir.
A benchmark, not a test: it asserts nothing.
"""

import argparse
import resource
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import optimize  # noqa: E402

# after optimize (report.py puts test/e2e first, whose models.py is another one)
for p in (REPO / "importer", REPO / "test", REPO / "test" / "zoo"):
    sys.path.insert(0, str(p))


PARSED = "apple-child: parsed"


def apple_child(base, out):
    """The child process's work: optimize.apple on the text of `base`, written
    to `out`. The text is parsed once alone first, so that a failure says
    whether Apple's parser or its passes failed."""
    import warnings

    from coreai._compiler import ir
    from coreai.authoring.context import Context

    warnings.simplefilter("ignore")
    text = Path(base).read_text()
    with Context() as c:
        ir.Module.parse(text, c._mlir_context)  # noqa: SLF001
    print(PARSED, file=sys.stderr, flush=True)
    text, _ = optimize.apple(text)
    Path(out).write_text(text)


def apple_in_child(base, out, memory_gib, timeout):
    """optimize.apple on the module `base` in a child process limited to
    `memory_gib` GiB of address space and `timeout` seconds, its output
    written to `out`: None, or why it failed."""
    def limit():
        size = int(memory_gib * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    try:
        r = subprocess.run([sys.executable, __file__, "--apple-child", str(base), str(out)], capture_output=True,
                           text=True, timeout=timeout, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        return f"Apple's parser and passes took more than {timeout:g} s"
    if r.returncode == 0:
        return None
    step = "passes" if PARSED in r.stderr else "parser"
    lines = [line.strip() for line in r.stderr.split(PARSED)[-1].splitlines()
             if line.strip() and "Warning" not in line]
    why = next((line for line in lines if "ERROR" in line or "error" in line), lines[-1] if lines else "")
    how = f"signal {signal.Signals(-r.returncode).name}" if r.returncode < 0 else f"exit {r.returncode}"
    return (f"Apple's {step} failed on the {Path(base).stat().st_size / 2**20:.1f} MiB text ({how}, "
            f"{memory_gib:g} GiB limit)" + (f": {why}" if why else ""))


def measure(name, work, memory_gib, timeout):
    import pipeline

    imported = pipeline.import_static(name)
    if imported.program is None:
        return {"model": name, "error": f"import: {imported.error}"}
    module = work / f"{name}.mlir"
    module.write_text(imported.program.text)
    base = work / f"{name}.base.mlir"
    optimize.opt(module, optimize.BASE, base)
    base_text = base.read_text()
    ours = work / f"{name}.ours.mlir"
    optimize.opt(base, optimize.OURS, ours)
    row = {"model": name, "base": optimize.count_ops(base_text), "ours": optimize.count_ops(ours.read_text())}
    apple = work / f"{name}.apple.mlir"
    error = apple_in_child(base, apple, memory_gib, timeout)
    if error:
        row["error"] = error
    else:
        row["apple"] = optimize.count_ops(apple.read_text())
    module.unlink()
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="*", help="zoo model names (default: all)")
    ap.add_argument("--keep", type=Path, help="keep the modules in DIR")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--apple-memory", type=float, default=8, metavar="GIB",
                    help="address-space limit of Apple's step (default 8 GiB)")
    ap.add_argument("--apple-timeout", type=float, default=600, metavar="S",
                    help="time limit of Apple's step (default 600 s)")
    ap.add_argument("--apple-child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.apple_child:
        apple_child(*args.apple_child)
        return 0
    import models

    names = args.models or list(models.MODELS)
    tmp = tempfile.TemporaryDirectory()
    work = args.keep or Path(tmp.name)
    work.mkdir(parents=True, exist_ok=True)
    if args.markdown:
        print("| model | base | core-optimize | Apple rewrite + symbol-dce | ours - Apple |")
        print("|---|---|---|---|---|")
    else:
        print(f"{'model':28} {'base':>6} {'ours':>6} {'apple':>6} {'o-a':>5}")
    rows = []
    for name in names:
        try:
            row = measure(name, work, args.apple_memory, args.apple_timeout)
        except Exception as e:  # noqa: BLE001 - a benchmark reports and goes on
            row = {"model": name, "error": optimize.report.first_error(str(e)) or str(e).splitlines()[0]}
        rows.append(row)
        cells = [row.get("base", ""), row.get("ours", ""), row.get("apple", "")]
        diff = row["ours"] - row["apple"] if "apple" in row else ""
        note = row.get("error", "")
        if args.markdown:
            cells[2] = cells[2] if note == "" else note
            print(f"| {name} | " + " | ".join(str(c) for c in [*cells, diff]) + " |", flush=True)
        else:
            print(f"{name:28} {cells[0]:>6} {cells[1]:>6} {cells[2]:>6} {diff:>5}" + (f"  {note}" if note else ""),
                  flush=True)
    done = [r for r in rows if "apple" in r]
    total = {k: sum(r[k] for r in done) for k in ("base", "ours", "apple")}
    diff = total["ours"] - total["apple"]
    if args.markdown:
        print(f"| **total** ({len(done)} models) | {total['base']} | {total['ours']} | {total['apple']} | {diff} |")
    else:
        print(f"{'total (' + str(len(done)) + ' models)':28} {total['base']:6} {total['ours']:6} {total['apple']:6} "
              f"{diff:5}")
    worse = [r["model"] for r in done if r["ours"] > r["apple"]]
    if worse:
        print("more ops than Apple's rewrite: " + ", ".join(worse), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
