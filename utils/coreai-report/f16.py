"""The corpus through `coreai-pipeline,cast-to-f16`: per model, the share
of float-valued ops computing in f16 and the error against eager fp32 in
coreai-run (dtype-exact, no simulation) and in coreai-core's interpreter.

    .venv/bin/python utils/coreai-report/f16.py [--fast] [MODEL ...]

prints a Markdown table (`--fast`: without the slow torchvision models).
test/e2e/test_cast_to_f16.py runs the same evaluation per model.

Float-valued op: an op other than `coreai.constant` and `coreai.cast` whose
results include a float tensor (the types after the last `->` on its line,
or after ` to ` in the `gather_nd` form);
it computes in f16 when that result type is f16. A model with no
float-valued op after coreai-pipeline (integer-only) is not a float model.
Error: max |out - eager| / max |eager| over the float outputs, integer and
bool outputs exactly (report.compare with the factor TOLERANCE = 3e-2).
"""

import importlib.util
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
_spec = importlib.util.spec_from_file_location("coreai_report", HERE / "report.py")
report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(report)

TOLERANCE = 3e-2
PASS = "cast-to-f16"
OP_LINE = re.compile(r'^\s*(?:%[^=]+= )?((?:coreai)\.[\w.]+)')
NOT_COUNTED = {"coreai.constant", "coreai.cast", "coreai.output", "coreai.yield", "coreai.graph",
               "coreai.condition"}


def float_op_counts(text):
    """(f16 ops, f32 ops) among the float-valued ops of coreai IR `text`."""
    f16 = f32 = 0
    for line in text.splitlines():
        m = OP_LINE.match(line)
        if not m or m.group(1) in NOT_COUNTED:
            continue
        if "->" in line:
            results = line.rsplit("->", 1)[1]
        elif " to " in line:  # `coreai.gather_nd %x at %i : (...) to T`
            results = line.rsplit(" to ", 1)[1]
        else:
            continue
        if "xf16>" in results or "<f16>" in results:
            f16 += 1
        elif "xf32>" in results or "<f32>" in results:
            f32 += 1
    return f16, f32


@dataclass
class F16Result:
    model: str
    error: str = ""
    float_ops: int = 0
    f16_ops: int = 0
    coreai_run: dict = field(default_factory=dict)
    coreai_core: dict = field(default_factory=dict)

    @property
    def share(self):
        return self.f16_ops / self.float_ops if self.float_ops else None


def relative_error(outputs, expected):
    """max |out - eager| / max |eager| over the float outputs (None: none)."""
    import numpy as np
    worst = None
    for name, want in expected.items():
        if want.dtype.kind != "f" or name not in outputs:
            continue
        finite = np.isfinite(want)
        scale = float(np.abs(want[finite]).max()) if finite.any() else 0.0
        got = np.asarray(outputs[name]).astype(np.float64)
        diff = np.abs(got - want.astype(np.float64))
        diff = np.where(np.isnan(got) & np.isnan(want), 0.0, diff)
        err = float(np.max(diff)) / scale if scale else float(np.max(diff))
        worst = err if worst is None else max(worst, err)
    return worst


def evaluate(name, spec, work, options=""):
    """Exports model `name`, converts it with coreai-pipeline then
    cast-to-f16{options} and runs it in both oracles, in `work`."""
    work = Path(work)
    module, inputs, expected = report.export(name, spec, work)
    r = F16Result(model=name)
    f32_out = work / f"{name}.coreai.mlir"
    _, r.error = report.convert(module, f32_out, report.USER_LOWERINGS.get(name))
    if r.error:
        return r
    out = work / f"{name}.f16.mlir"
    p = subprocess.run([str(report.COREAI_OPT), str(f32_out), f"--pass-pipeline=builtin.module({PASS}{options})",
                        "-o", str(out)], capture_output=True, text=True)
    if p.returncode != 0:
        r.error = report.first_error(p.stderr)
        return r
    r.f16_ops, f32_ops = float_op_counts(out.read_text())
    r.float_ops = r.f16_ops + f32_ops
    want = report.load(expected)
    for oracle, runner in [("coreai_run", report.run_coreai_run), ("coreai_core", report.run_coreai_core)]:
        outputs, message = runner(out, inputs, work)
        if outputs is None:
            verdict = {"max_error": None, "ok": False, "message": message}
        else:
            verdict = report.compare(outputs, want, TOLERANCE)
            verdict["relative"] = relative_error(outputs, want)
        setattr(r, oracle, verdict)
    return r


def describe(v):
    if not v:
        return "-"
    if v.get("max_error") is None:
        return "fails: " + v["message"][:60]
    rel = v.get("relative")
    text = f"{rel:.1e}" if rel is not None else "exact"
    return text if v["ok"] else text + " (out of tolerance)"


def main(argv=None):
    import tempfile
    argv = sys.argv[1:] if argv is None else argv
    fast = "--fast" in argv
    names = [a for a in argv if not a.startswith("--")]
    corpus, _ = report.corpus()
    print("| model | float ops | f16 share | error coreai-run | error coreai-core |")
    print("|---|---:|---:|---:|---:|")
    for name, spec, slow in corpus:
        if (names and name not in names) or (fast and slow):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            r = evaluate(name, spec, tmp)
        if r.error:
            print(f"| {name} | - | - | fails: {r.error[:60]} | - |")
        elif not r.float_ops:
            print(f"| {name} | 0 | (no float ops) | {describe(r.coreai_run)} | {describe(r.coreai_core)} |")
        else:
            print(f"| {name} | {r.float_ops} | {100 * r.share:.0f}% | {describe(r.coreai_run)} | "
                  f"{describe(r.coreai_core)} |")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
