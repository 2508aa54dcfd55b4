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
    format to a new file), wall time; the release build when there is one.
    `(replace)` is the same run when the output file exists already: on ext4
    replacing a file by a rename makes the kernel allocate and start writing
    back the new file's blocks and evict the old file, tens of ms for 45 MB;
  - coreai-torch: add_exported_program (its validation) + to_coreai() in
    RELEASE mode (its IR building and its built-in optimization), in process.
WARM-UP: each converter runs once untimed first, then its N timed runs
back to back. On a virtual machine the first process after idle time or
after other work runs 1.5-6x slower (the virtual CPU waking up: 31 ms
instead of 5 ms for llama_block after 2 s of sleep), and coreai-torch's
first conversion includes its lazy initialization; interleaving the two
converters would measure that, not the converters.
The work differs: to_coreai() also optimizes the program; coreai-opt also
reads and writes the module (with its weights). The timed coreai-opt runs are
plain; one more run per repetition with --mlir-timing splits the process
into its phases (medians): parse, the pipeline's passes, output (writing the
module), and the rest of the process (start-up, teardown, replacing the
output file: process wall time minus the timing report's total). The
`(passes)` speed-up compares the passes alone. The `cpu` columns are CPU
time (user + system, all threads) of the same runs, less sensitive to other
load on the machine than wall time. A model that does not convert
prints why.
"""

import argparse
import io
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from contextlib import redirect_stdout

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "importer"))
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


def phases(timing_report):
    """(parse, passes, output, total) seconds of a --mlir-timing report."""
    parse = passes = output = total = 0.0
    for line in timing_report.splitlines():
        parts = line.split()
        if line.strip().startswith("Total Execution Time:"):
            total = float(parts[3])
        elif len(parts) >= 3 and parts[-1] in PASS_ROWS:
            passes += float(parts[0])
        elif len(parts) >= 3 and parts[-1] == "Parser":
            parse = float(parts[0])
        elif len(parts) >= 3 and parts[-1] == "Output":
            output = float(parts[0])
    return parse, passes, output, total


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_timed(cmd):
    """(wall seconds, CPU seconds of the process, result) of one run."""
    cpu0, t0 = children_cpu(), time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    return time.perf_counter() - t0, children_cpu() - cpu0, r


def time_ours(coreai_opt, path, repeat, bytecode):
    """Median process wall time of plain runs writing a new file and of plain
    runs replacing an existing one, and the median phases (parse, passes,
    output, rest) of as many runs with --mlir-timing."""
    fresh, cpu, replace, split = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.mlir")
        cmd = [coreai_opt, path, "--pass-pipeline=builtin.module(coreai-pipeline)", "-o", out]
        cmd += ["--emit-bytecode"] if bytecode else []
        run_timed(cmd)  # warm-up, not timed (see WARM-UP)
        os.unlink(out)
        for _ in range(repeat):
            wall, seconds, r = run_timed(cmd)
            if r.returncode != 0:
                lines = [l for l in r.stderr.splitlines() if "error:" in l]
                error = (lines[0] if lines else r.stderr.strip()[-300:]).split("error:", 1)[-1].strip()
                return None, None, None, None, error
            fresh.append(wall)
            cpu.append(seconds)
            replace.append(run_timed(cmd)[0])
            os.unlink(out)
            wall, _, r = run_timed(cmd + ["--mlir-timing"])
            os.unlink(out)
            parse, passes, output, total = phases(r.stderr)
            split.append((parse, passes, output, wall - total))
    return (statistics.median(fresh), statistics.median(cpu), statistics.median(replace),
            [statistics.median(p) for p in zip(*split)], "")


def ms(seconds):
    return f"{seconds * 1e3:6.1f}ms"


def time_theirs(ep, repeat):
    from coreai_torch import TorchConverter
    times, cpu = [], []
    try:
        for i in range(repeat + 1):
            cpu0, t0 = time.process_time(), time.perf_counter()
            with warnings.catch_warnings(), redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                TorchConverter(mode=TorchConverter.Mode.RELEASE).add_exported_program(ep).to_coreai()
            if i > 0:  # the first run is the warm-up (see WARM-UP)
                times.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - cpu0)
    except Exception as e:  # the converter's own message is the result
        return None, None, f"{type(e).__name__}: {str(e).strip().splitlines()[0][:200]}"
    return statistics.median(times), statistics.median(cpu), ""


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
    print(f"{'model':<20} {'coreai-opt':>11} {'parse':>7} {'passes':>7} {'output':>7} {'rest':>7} "
          f"{'(replace)':>10} {'coreai-torch':>13} {'speed-up':>9} {'(passes)':>9} "
          f"{'cpu: ours':>10} {'theirs':>8} {'speed-up':>9}")
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
            ours, ours_cpu, replacing, split, our_error = time_ours(ns.coreai_opt, path, ns.repeat, bytecode)
        finally:
            os.unlink(path)
        theirs, theirs_cpu, their_error = time_theirs(ep, ns.repeat)
        if our_error or their_error:
            print(f"{name:<20} {'-' if our_error else f'{ours:10.3f}s':>11} "
                  f"{'-' if their_error else f'{theirs:12.3f}s':>13} {'-':>7}")
            if our_error:
                print(f"  coreai-opt fails: {our_error}")
            if their_error:
                print(f"  coreai-torch fails: {their_error}")
            continue
        parse, passes, output, rest = split
        print(f"{name:<20} {ours:10.3f}s {ms(parse)} {ms(passes)} {ms(output)} {ms(rest)} "
              f"{replacing:9.3f}s {theirs:12.3f}s {theirs / ours:8.1f}x {theirs / max(passes, 1e-9):8.1f}x "
              f"{ours_cpu:9.3f}s {theirs_cpu:7.3f}s {theirs_cpu / max(ours_cpu, 1e-9):8.1f}x")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
