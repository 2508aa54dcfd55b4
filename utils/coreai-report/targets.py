"""The corpus through `coreai-compile --target T --compile-to target` (text
IR): per model and target, what the target's passes left and the error
against eager PyTorch in coreai-run and coreai-core's interpreter.

    .venv/bin/python utils/coreai-report/targets.py [--fast] [--target gpu|ane] [MODEL ...]

prints a Markdown table (`--fast`: without the slow torchvision models).
test/e2e/test_targets.py runs the same evaluation on a few models.

Columns: `rank-2 matmul operands` (operands of `batch_matmul` ops of rank 2:
0 on the ane target), `reshapes` (`reshape`, `expand_dims` and `shrink_dims`
ops: what breaks a rank-4 chain on the ane target), `f16 share` (float-valued ops computing in f16, as
utils/coreai-report/f16.py counts them), `rounding left` (float
`coreai.round` and float `floor_divide` by a constant 1: 0 on the gpu
target). Tolerance: ane 3e-2 x max|eager| (f16 compute), gpu the f32
tolerance of utils/coreai-report/report.py; integer outputs exactly.
"""

import importlib.util
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _load(name, file):
    spec = importlib.util.spec_from_file_location(name, HERE / file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


report = _load("coreai_report", "report.py")
f16 = _load("coreai_f16", "f16.py")

COREAI_COMPILE = report.BUILD / "coreai-compile"
ANE_TOLERANCE = 3e-2
# Models coreai-compile cannot take alone (a custom op needs a user lowering).
NOT_COMPILED = {"custom_op": "its custom op needs a user lowering (examples/custom_op)"}

SSA = r"%[\w#.$-]+"
CONSTANT_ONE = re.compile(rf"^\s*({SSA}) = coreai\.constant dense<1\.0+e\+00> : tensor<[\dx]*f(?:16|32|64)>")
FLOOR_DIVIDE = re.compile(rf"coreai\.(?:decomposable\.broadcasting_)?floor_divide ({SSA}), ({SSA}) :.*f(?:16|32|64)>\s*$")
FLOAT_ROUND = re.compile(r"coreai\.round .*-> tensor<[\dx?]*(?:f16|f32|bf16|f64)>")
RESHAPE = re.compile(rf"^\s*{SSA} = coreai\.(?:reshape|expand_dims|shrink_dims) ", re.M)
MATMUL = re.compile(r"coreai\.(?:decomposable\.broadcasting_)?batch_matmul .*: \((tensor<[^>]*>), (tensor<[^>]*>)\)")


def rank(tensor_type):
    body = tensor_type[len("tensor<"):-1]
    return body.count("x")


def rank2_matmul_operands(text):
    """Operands of rank 2 of the batch matmuls in coreai IR `text`."""
    return sum(rank(t) == 2 for m in MATMUL.finditer(text) for t in m.groups())


def reshapes(text):
    """Reshape ops (`reshape`, `expand_dims`, `shrink_dims`) in `text`."""
    return len(RESHAPE.findall(text))


def rounding_left(text):
    """Float `coreai.round` ops and float `floor_divide(x, 1)` in `text`."""
    ones, left = set(), 0
    for line in text.splitlines():
        if "coreai.graph" in line:
            ones = set()
        if m := CONSTANT_ONE.match(line):
            ones.add(m.group(1))
        elif (m := FLOOR_DIVIDE.search(line)) and m.group(2) in ones:
            left += 1
        elif FLOAT_ROUND.search(line):
            left += 1
    return left


@dataclass
class TargetResult:
    model: str
    target: str
    error: str = ""
    rank2_operands: int = 0
    rounding_left: int = 0
    reshapes: int = 0
    float_ops: int = 0
    f16_ops: int = 0
    coreai_run: dict = field(default_factory=dict)
    coreai_core: dict = field(default_factory=dict)

    @property
    def share(self):
        return self.f16_ops / self.float_ops if self.float_ops else None


def compile_target(module, out, target, *flags):
    """coreai-compile MODULE --target TARGET --compile-to target -o OUT."""
    return subprocess.run([str(COREAI_COMPILE), str(module), "--target", target, "--compile-to", "target",
                           "-o", str(out), *map(str, flags)], capture_output=True, text=True)


# An argument of `@main`: its element type and name.
MAIN_ARG = re.compile(r'%\w+: tensor<(?:[\d?]+x)*([a-z]+\d+)>(?: \{coreai\.name = "([^"]+)"\})?')
NUMPY = {"f16": "float16", "f32": "float32", "si16": "int16", "si32": "int32", "si64": "int64"}


def inputs_as_arguments(text, inputs, work):
    """The inputs file converted to `@main`'s argument types (the Neural
    Engine's f16 and si16 inputs of `--io f16`): floats rounded to nearest,
    integers checked to fit."""
    import numpy as np

    head = next(line for line in text.splitlines() if "coreai.graph @main(" in line)
    types = {name: NUMPY.get(element) for element, name in MAIN_ARG.findall(head.partition(") ->")[0]) if name}
    feeds = report.load(inputs)
    for name, v in feeds.items():
        want = types.get(name)
        if want and v.dtype != want:
            cast = v.astype(want)
            assert cast.dtype.kind == "f" or np.array_equal(cast.astype(v.dtype), v), f"{name} does not fit {want}"
            feeds[name] = cast
    out = Path(work) / "inputs.as-arguments.npz"
    np.savez(out, **feeds)
    return out


def tolerance(name, target):
    if target == "ane":
        return ANE_TOLERANCE
    return report.TOLERANCE.get(name, (report.ATOL,))[0]


def evaluate(name, spec, work, target):
    """Exports model `name`, compiles it for `target` and runs the target
    stage's text IR in both oracles, in `work`."""
    work = Path(work)
    r = TargetResult(model=name, target=target)
    if name in NOT_COMPILED:
        r.error = NOT_COMPILED[name]
        return r
    module, inputs, expected = report.export(name, spec, work)
    out = work / f"{name}.{target}.mlir"
    p = compile_target(module, out, target)
    if p.returncode != 0:
        r.error = report.first_error(p.stderr)
        return r
    text = out.read_text()
    r.rank2_operands = rank2_matmul_operands(text)
    r.rounding_left = rounding_left(text)
    r.reshapes = reshapes(text)
    r.f16_ops, f32_ops = f16.float_op_counts(text)
    r.float_ops = r.f16_ops + f32_ops
    want = report.load(expected)
    inputs = inputs_as_arguments(text, inputs, work)
    for oracle, runner in [("coreai_run", report.run_coreai_run), ("coreai_core", report.run_coreai_core)]:
        outputs, message = runner(out, inputs, work)
        if outputs is None:
            verdict = {"max_error": None, "ok": False, "message": message}
        else:
            verdict = report.compare(outputs, want, tolerance(name, target))
            verdict["relative"] = f16.relative_error(outputs, want)
        setattr(r, oracle, verdict)
    return r


def main(argv=None):
    import tempfile
    argv = sys.argv[1:] if argv is None else argv
    fast = "--fast" in argv
    targets = ["gpu", "ane"]
    if "--target" in argv:
        i = argv.index("--target")
        targets = [argv[i + 1]]
        argv = argv[:i] + argv[i + 2:]
    names = [a for a in argv if not a.startswith("--")]
    corpus, _ = report.corpus()
    print("| model | target | rank-2 matmul operands | reshapes | f16 share | rounding left | error coreai-run "
          "| error coreai-core |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name, spec, slow in corpus:
        if (names and name not in names) or (fast and slow):
            continue
        for target in targets:
            with tempfile.TemporaryDirectory() as tmp:
                r = evaluate(name, spec, tmp, target)
            if r.error:
                print(f"| {name} | {target} | - | - | - | - | fails: {r.error[:60]} | - |")
            else:
                share = f"{100 * r.share:.0f}%" if r.float_ops else "(no float ops)"
                print(f"| {name} | {target} | {r.rank2_operands} | {r.reshapes} | {share} | {r.rounding_left} | "
                      f"{f16.describe(r.coreai_run)} | {f16.describe(r.coreai_core)} |")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
