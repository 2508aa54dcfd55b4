#!/usr/bin/env python3
"""Corpus conversion report: PyTorch → coreai_export → coreai-pipeline →
coreai-run and coreai-core's interpreter, against eager PyTorch.

    .venv/bin/python utils/coreai-report/report.py [MODEL ...] [--no-slow]
        [--decompositions none|coreai] [--json report.json] [--keep DIR]

Per model: ATen ops in the imported module, coreai ops out, the conversion
time of `coreai-opt --pass-pipeline='builtin.module(coreai-pipeline)'`, and
the max |error| against eager PyTorch of each oracle (coreai-run, coreai-core),
or the reason it fails (the pass's first error). A model calling a user's
`torch.library` op converts with the program that registers its lowering
(`USER_LOWERINGS`; build it with `cargo build --example custom_op`). The functions are shared
with test/e2e/test_convert_corpus.py.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("COREAI_BUILD_DIR", REPO / "target" / "debug"))
COREAI_OPT = BUILD / "coreai-opt"
COREAI_RUN = BUILD / "coreai-run"
PIPELINE = "builtin.module(coreai-pipeline)"
# Models whose custom ops need a user lowering: the program that registers it
# and runs coreai-pipeline (examples/custom_op/main.rs, the library used from Rust).
USER_LOWERINGS = {"custom_op": BUILD / "examples" / "custom_op"}
sys.path.insert(0, str(REPO / "importer"))
sys.path.insert(0, str(REPO / "test" / "e2e"))
sys.path.insert(0, str(REPO / "test"))

OP_RE = re.compile(r'^\s*(?:%[^=]+= )?((?:aten|coreai)\.[\w.]+)(?: "([^"]+)")?')
STRUCTURAL = {"aten.yield", "coreai.yield", "coreai.output", "coreai.graph", "coreai.condition"}

# Tolerance of a float output: |ours - eager| <= ATOL x max|eager| (NaN equals
# NaN, infinities must match); integers and booleans exactly.
ATOL = 1e-4
# Models that need more, with the reason (the factor replaces ATOL).
TOLERANCE = {
    "fp16_mlp": (2e-3, "float16 end to end: eager PyTorch computes matmuls and GELU in f32 and rounds "
                       "once; coreai rounds every op to f16. One f16 ulp at max|eager| = 0.22 is 5.5e-4 x "
                       "max|eager|; the errors are 1-2 ulps"),
    "fp16_conv": (2e-3, "float16 end to end (see fp16_mlp): 1 f16 ulp at max|eager| = 0.31 is 3.9e-4 x max|eager|"),
}


@dataclass
class Result:
    model: str
    aten_ops: int = 0
    coreai_ops: int = 0
    seconds: float = 0.0
    error: str = ""  # the conversion's first error; empty when it converted
    coreai_run: dict = field(default_factory=dict)  # {"max_error": float, "ok": bool, "message": str}
    coreai_core: dict = field(default_factory=dict)

    @property
    def converted(self):
        return not self.error

    @property
    def matches(self):
        return self.converted and self.coreai_run.get("ok") and self.coreai_core.get("ok")


def corpus():
    from models import CORPUS, EXPORT_FLAGS
    return CORPUS, EXPORT_FLAGS


def export(name, spec, out_dir, decompositions="none"):
    """Imports a corpus model in-process; returns (module, inputs.npz, expected.npz)."""
    from coreai_export.cli import build_parser, run
    _, flags = corpus()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    mod, fac = spec.split(":")
    module, inputs, expected = out_dir / f"{name}.mlir", out_dir / f"{name}.in.npz", out_dir / f"{name}.exp.npz"
    ns = build_parser().parse_args(
        ["--model", f"models.{mod}:{fac}", "-o", str(module), "--decompositions", decompositions,
         "--inputs-out", str(inputs), "--expected-out", str(expected), *flags.get(name, [])]
    )
    run(ns)
    return module, inputs, expected


def op_counts(text):
    """Ops by name; `aten.operator "ns::x.y"` counts as ns::x.y."""
    counts = Counter()
    for line in text.splitlines():
        m = OP_RE.match(line)
        if m and m.group(1) not in STRUCTURAL:
            counts[m.group(2) if m.group(1) == "aten.operator" else m.group(1)] += 1
    return counts


def first_error(stderr):
    for line in stderr.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    return stderr.strip().splitlines()[-1] if stderr.strip() else "failed without a message"


def convert(module, out, converter=None):
    """Runs coreai-pipeline (in `converter`, when given, instead of
    coreai-opt); returns (seconds, error or '')."""
    command = [str(converter), str(module), "-o", str(out)] if converter else \
        [str(COREAI_OPT), str(module), f"--pass-pipeline={PIPELINE}", "-o", str(out)]
    start = time.perf_counter()
    r = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    return seconds, "" if r.returncode == 0 else first_error(r.stderr)


def load(npz):
    with np.load(npz) as z:
        return {k: z[k] for k in z.files}


def compare(outputs, expected, factor=None):
    """Max |error| over the outputs and whether each is within tolerance."""
    factor = factor or ATOL
    worst, ok, message = 0.0, True, ""
    for name, want in expected.items():
        if name not in outputs:
            return {"max_error": None, "ok": False, "message": f"missing output {name}"}
        got = np.asarray(outputs[name])
        if got.shape != want.shape:
            return {"max_error": None, "ok": False, "message": f"{name}: shape {got.shape} != {want.shape}"}
        if want.dtype.kind in "fc":
            finite = np.abs(want[np.isfinite(want)])
            tolerance = factor * (float(finite.max()) if finite.size else 0.0)
            a, b = got.astype(np.float64), want.astype(np.float64)
            same = (a == b) | (np.isnan(a) & np.isnan(b))
            diff = np.where(same, 0.0, np.abs(a - b))
            err = float(np.nanmax(diff)) if diff.size else 0.0
            bad = ~same & ~(diff <= tolerance)
        else:
            bad = got != want
            err = float(np.count_nonzero(bad))
        worst = max(worst, err)
        if np.any(bad):
            ok = False
            message = message or f"{name}: {int(np.count_nonzero(bad))} elements out of tolerance (max error {err:.3g})"
    return {"max_error": worst, "ok": ok, "message": message}


def run_coreai_run(module, inputs, work, cast_inputs=False, simulate=None):
    """coreai-run; `cast_inputs`: the inputs converted to the argument types
    (an asset compiled with the Neural Engine's f16/si16 inputs);
    `simulate`: `--simulate-fp16=SIMULATE` (`ane`: the Neural Engine's
    intermediate range)."""
    out = Path(work) / "coreai-run.out.npz"
    r = subprocess.run([str(COREAI_RUN), str(module), "--inputs", str(inputs), "--outputs", str(out)]
                       + (["--cast-inputs"] if cast_inputs else [])
                       + ([f"--simulate-fp16={simulate}"] if simulate else []),
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, first_error(r.stderr) if "error" in r.stderr else (r.stdout + r.stderr).strip()[-300:]
    return load(out), ""


def run_coreai_core(module, inputs, work, expect_death=False):
    """coreai-core 1.0.0b3's interpreter, in the oracle worker
    (test/oracle.py): it can crash the interpreter (a native abort), which
    takes the worker, never this process; a death is rerun once unless
    `expect_death`."""
    import oracle

    try:
        out = oracle.interpret(Path(module).read_text(), load(inputs), Path(work), expect_death=expect_death)
    except oracle.OracleError as e:
        lines = [line for line in str(e).strip().splitlines() if line.strip() and "Loading function" not in line]
        return None, lines[-1][:300] if lines else "coreai-core raised"
    except oracle.OracleDied as e:
        return None, f"the interpreter died ({e.signal_name}): {e.message[:300]}"
    if isinstance(out, oracle.OracleDied):
        return None, f"the interpreter died ({out.signal_name})"
    return out, ""


def evaluate(name, spec, work, decompositions="none", core_may_die=False):
    """Exports, converts and runs one model in `work`; `core_may_die`: the
    model is one coreai-core's interpreter is known to die on (not rerun)."""
    work = Path(work)
    module, inputs, expected = export(name, spec, work, decompositions)
    result = Result(model=name)
    result.aten_ops = sum(op_counts(module.read_text()).values())
    out = work / f"{name}.coreai.mlir"
    result.seconds, result.error = convert(module, out, USER_LOWERINGS.get(name))
    if result.error:
        return result
    text = out.read_text()
    result.coreai_ops = sum(op_counts(text).values())
    want = load(expected)
    factor = TOLERANCE.get(name, (None,))[0]
    for oracle, runner in [("coreai_run", run_coreai_run),
                           ("coreai_core", lambda *a: run_coreai_core(*a, expect_death=core_may_die))]:
        outputs, message = runner(out, inputs, work)
        verdict = compare(outputs, want, factor) if outputs is not None else {"max_error": None, "ok": False, "message": message}
        setattr(result, oracle, verdict)
    return result


def describe(oracle):
    if not oracle:
        return "-"
    if oracle["max_error"] is None:
        return "fails: " + oracle["message"]
    text = f"{oracle['max_error']:.2e}"
    return text if oracle["ok"] else text + " (out of tolerance)"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("models", nargs="*", help="corpus model names (default: all)")
    p.add_argument("--no-slow", action="store_true", help="skip the torchvision models")
    p.add_argument("--decompositions", default="none", choices=["none", "coreai"],
                   help="import setting (default none: the pipeline's decompose does the work)")
    p.add_argument("--json", help="also write the results as JSON")
    p.add_argument("--keep", help="keep the modules in this directory")
    ns = p.parse_args(argv)
    import torch
    torch.set_num_threads(1)
    cases, _ = corpus()
    selected = [(n, s) for n, s, slow in cases if (not ns.models or n in ns.models) and not (ns.no_slow and slow)]
    unknown = set(ns.models) - {n for n, _, _ in cases}
    if unknown:
        p.error(f"unknown models: {', '.join(sorted(unknown))}")
    work = Path(ns.keep) if ns.keep else Path(tempfile.mkdtemp(prefix="coreai-report-"))
    results = []
    print(f"{'model':<22} {'aten':>5} {'coreai':>6} {'time':>7}  {'coreai-run':<22} {'coreai-core':<22}")
    for name, spec in selected:
        r = evaluate(name, spec, work / name, ns.decompositions)
        results.append(r)
        if r.error:
            print(f"{name:<22} {r.aten_ops:>5} {'-':>6} {r.seconds:>6.2f}s  NOT CONVERTED: {r.error}")
        else:
            print(f"{name:<22} {r.aten_ops:>5} {r.coreai_ops:>6} {r.seconds:>6.2f}s  "
                  f"{describe(r.coreai_run):<22} {describe(r.coreai_core):<22}")
        sys.stdout.flush()
    converted = sum(r.converted for r in results)
    matching = sum(bool(r.matches) for r in results)
    print(f"\n{len(results)} models: {converted} convert, {matching} match eager PyTorch in both oracles")
    if ns.json:
        Path(ns.json).write_text(json.dumps([asdict(r) for r in results], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
