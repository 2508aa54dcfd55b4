"""The zoo's steps: one export per model shared by its tests, the assets
compiled from it, the two runtimes, and the comparison with eager PyTorch.

Export once, compile several times: `convert()` is `import_model` (torch.export
with the importer's decomposition setting, then the import to aten MLIR)
followed by `compile_asset` (coreai-compile to an .aimodel). The zoo calls
the two halves the way `convert()` does with its defaults (the
decomposition setting is read from `convert`'s signature, so the zoo follows
the default if it changes): the imported program of a model is made once
per test session and every asset of the model (cpu f32, ane, gpu, f16) is
compiled from it.

Sharing across pytest-xdist workers: `shared(kind, name, make)` keeps what
`make()` returns in a pickle in a directory every worker of the session
sees, under a file lock, so the first test of a model exports it and the
others (on either worker) load the result.

Runtimes: coreai-run (this project's executor, which takes the asset
directly) and coreai-core's runtime (`oracle.runasset`: the asset loaded as
it is and run in the oracle worker, test/oracle.py). Tolerance: report.py's
(utils/coreai-report): float outputs within 1e-4 x max|eager| per output,
integers exactly; the f16 precision within 3e-2 x max|eager| (the
tolerance of test/e2e/test_cast_to_f16.py and test_asset.py's f16 asset),
the ane and gpu targets as utils/coreai-report/targets.py (ane 3e-2, gpu the
f32 tolerance).
"""

import fcntl
import importlib.util
import inspect
import os
import pickle
import re
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

import models
import oracle

REPO = Path(__file__).resolve().parents[2]


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, REPO / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


targets = _load("coreai_targets", "utils/coreai-report/targets.py")
report = targets.report

F16_TOLERANCE = 3e-2
# variant -> (convert() keyword arguments, tolerance factor)
VARIANTS = {
    "f32": ({}, report.ATOL),
    # convert()'s default precision for the Neural Engine: f16.
    "ane": ({"target": "ane"}, targets.tolerance("", "ane")),
    "gpu": ({"target": "gpu"}, targets.tolerance("", "gpu")),
    "f16": ({"precision": "f16"}, F16_TOLERANCE),
}


def default_decompositions():
    """The decomposition setting of a default `convert()` call."""
    from coreai_export import convert

    return inspect.signature(convert).parameters["decompositions"].default


# ---------------------------------------------------------------- sharing

def cache_dir(tmp_path_factory):
    """A directory every test process of this session sees: the parent of
    the workers' base temporary directories under pytest-xdist, the session's
    own one without it."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    path = root / "zoo-shared"
    path.mkdir(exist_ok=True)
    return path


def shared(directory, key, make):
    """`make()`'s result, made once per session across processes (pickled
    in `directory` under an exclusive lock on KEY.lock)."""
    directory = Path(directory)
    data = directory / f"{key}.pkl"
    with open(directory / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if data.exists():
                return pickle.loads(data.read_bytes())
            value = make()
            data.write_bytes(pickle.dumps(value))
            return value
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


# ---------------------------------------------------------------- results

@dataclass
class Outcome:
    """One case's result: `stage` is where it stopped ("export", "convert",
    "coreai-run", "coreai-core", or "match" when both runtimes ran), `ok`
    whether every runtime matched eager PyTorch."""

    stage: str
    ok: bool = False
    message: str = ""
    max_error: float | None = None
    details: dict = field(default_factory=dict)

    def summary(self):
        if self.ok:
            return "ok"
        return f"{self.stage}: {self.message}"


def first_line(error):
    """The first error of a diagnostic: the text after `error:` on the first
    line that has one (report.first_error), else the first non-empty line."""
    text = str(error)
    if "error:" in text:
        return report.first_error(text)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


def eager(model, inputs):
    """Eager PyTorch's outputs of `model(*inputs)` as a list of arrays."""
    with torch.no_grad():
        out = model(*inputs)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o.detach().numpy() for o in outs]


def varying(outputs):
    """Whether every float output takes more than one value: a constant
    output (a zero head) would match anything that computes it."""
    return all(np.ptp(o) > 0 for o in outputs if o.dtype.kind == "f")


def arrays(inputs):
    return [t.numpy() for t in inputs]


@dataclass
class Imported:
    """A model's imported program (or why there is none) and the runs to
    check: [(inputs as arrays, eager outputs)] per size."""

    program: object = None
    error: str = ""
    runs: list = field(default_factory=list)
    seconds: float = 0.0


def import_static(name):
    """The model's program as a default `convert()` imports it, with its
    example inputs and eager outputs."""
    from coreai_export.convert import import_model

    model, inputs, _ = models.build(name)
    result = Imported(runs=[(arrays(inputs), eager(model, inputs))])
    start = time.perf_counter()
    try:
        result.program = import_model(model, inputs, default_decompositions(), None, ())
    except Exception as e:  # noqa: BLE001 - the failure is the case's outcome
        result.error = first_line(e)
    result.seconds = time.perf_counter() - start
    return result


def import_dynamic(name):
    """The model exported with its dynamic dimension (models.Info.dynamic),
    and its runs at each size."""
    from coreai_export.convert import import_model

    model, inputs, info = models.build(name)
    dynamic = info.dynamic
    result = Imported(runs=[(arrays(x), eager(model, x)) for x in dynamic.inputs])
    start = time.perf_counter()
    try:
        result.program = import_model(model, inputs, default_decompositions(), dynamic.shapes(), ())
    except Exception as e:  # noqa: BLE001
        result.error = first_line(e)
    result.seconds = time.perf_counter() - start
    return result


@dataclass
class CoreaiTorch:
    """coreai-torch 0.4.3's asset of the model (saved by coreai-core's
    save_asset), or its first error; the input dtypes its program takes."""

    asset: str = ""
    error: str = ""
    input_names: list = field(default_factory=list)
    input_dtypes: list = field(default_factory=list)
    output_names: list = field(default_factory=list)
    runs: list = field(default_factory=list)
    seconds: float = 0.0


# An argument of coreai-torch's @main: `%arg0: tensor<1x8xsi32> {coreai.name = "x"}`,
# and a result: `tensor<1x8x64xf32> {coreai.name = "getitem_12"}`.
SIGNATURE_ARG = re.compile(r'%\w+: tensor<(?:[\d?]+x)*([a-z]+\d+)> \{coreai\.name = "([^"]+)"')
SIGNATURE_RESULT = re.compile(r'tensor<[^>]*> \{coreai\.name = "([^"]+)"')
DTYPES = {"si32": np.int32, "si64": np.int64, "f32": np.float32, "f16": np.float16, "i1": np.bool_}


def convert_coreai_torch(name, directory):
    """coreai-torch's own path: torch.export, run_decompositions with its
    table, TorchConverter().to_coreai(), then save_asset."""
    import warnings

    import coreai_torch

    model, inputs, _ = models.build(name)
    result = CoreaiTorch(runs=[(arrays(inputs), eager(model, inputs))])
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with torch.no_grad():
                ep = torch.export.export(model, inputs).run_decompositions(coreai_torch.get_decomp_table())
            program = coreai_torch.TorchConverter().add_exported_program(ep).to_coreai()
            text = str(program)
            head = next(line for line in text.splitlines() if "coreai.graph @main(" in line)
            params, _, results = head.partition(") ->")
            args = SIGNATURE_ARG.findall(params)
            result.input_dtypes = [dtype for dtype, _ in args]
            result.input_names = [name for _, name in args]
            result.output_names = SIGNATURE_RESULT.findall(results)
            asset = Path(directory) / f"{name}.coreai-torch.aimodel"
            program.save_asset(asset)
            result.asset = str(asset)
    except Exception as e:  # noqa: BLE001
        lines = [line for line in traceback.format_exception_only(e) if line.strip()]
        result.error = first_line(lines[-1] if lines else e)
    result.seconds = time.perf_counter() - start
    return result


# ---------------------------------------------------------------- compiling and running

def compile_variant(program, out, variant):
    """`compile_asset` of the imported program, as `convert()` with the
    variant's keyword arguments would call it; None or the first error."""
    from coreai_export.convert import compile_asset

    kwargs, _ = VARIANTS[variant]
    try:
        compile_asset([("main", program)], out, **kwargs)
    except Exception as e:  # noqa: BLE001
        return first_line(e)
    return None


def save_inputs(path, names, values, dtypes=None):
    feeds = {}
    for i, (n, v) in enumerate(zip(names, values)):
        if dtypes and i < len(dtypes) and dtypes[i] in DTYPES:
            v = v.astype(DTYPES[dtypes[i]])
        feeds[n] = v
    np.savez(path, **feeds)


def run_coreai_run(asset, inputs, work, neural_engine=False):
    """coreai-run on the asset: (outputs by name, '') or (None, why);
    `neural_engine` (the Neural Engine's asset): the inputs converted to the
    asset's argument types, and every op result beyond ±2^15 infinite
    (`--simulate-fp16=ane`, the Neural Engine's intermediate range)."""
    return report.run_coreai_run(asset, inputs, work, cast_inputs=neural_engine,
                                 simulate="ane" if neural_engine else None)


def run_coreai_core(asset, inputs, work, neural_engine=False):
    """coreai-core's runtime on the asset (utils/aicode/runasset.py in the
    oracle worker): (outputs by name, '') or (None, why)."""
    out = Path(work) / "coreai-core.out.npz"
    try:
        r = oracle.runasset(asset, "--inputs", inputs, "--outputs", out, *(["--cast-inputs"] if neural_engine else []))
    except oracle.OracleDied as e:
        return None, f"the runtime died ({e.signal_name}): {e.message.splitlines()[-1][:200]}"
    if r.returncode != 0:
        lines = [line for line in r.stderr.strip().splitlines() if line.strip()]
        return None, (lines[-1][:300] if lines else f"exit status {r.returncode}")
    return report.load(out), ""


RUNTIMES = {"coreai-run": run_coreai_run, "coreai-core": run_coreai_core}


def check_runs(asset, names, outputs, runs, factor, work, runtimes=("coreai-run", "coreai-core"), dtypes=None,
               neural_engine=False):
    """Runs the asset on every (inputs, eager outputs) of `runs` in each
    runtime and compares (report.compare with `factor`), the asset's inputs
    named `names` and its results `outputs` (in eager PyTorch's order); the
    Outcome. `neural_engine`: the asset compiled for the Neural Engine (its
    f16 and si16 inputs converted by the runtimes; coreai-run with
    `--simulate-fp16=ane`)."""
    work = Path(work)
    worst = 0.0
    details = {}
    for i, (inputs, want) in enumerate(runs):
        feeds = work / f"in{i}.npz"
        save_inputs(feeds, names, inputs, dtypes)
        shape = "x".join(map(str, inputs[0].shape))
        for runtime in runtimes:
            got, message = RUNTIMES[runtime](asset, feeds, work, neural_engine)
            if got is None:
                return Outcome(runtime, message=message, details=details)
            if len(outputs) != len(want):
                return Outcome("match", message=f"the asset has {len(outputs)} results, eager PyTorch {len(want)}")
            verdict = report.compare(got, dict(zip(outputs, want)), factor)
            if verdict["max_error"] is None or not verdict["ok"]:
                return Outcome("match", message=f"{runtime} at {shape}: {verdict['message']} (tolerance {factor:g})",
                               details=details)
            rel = relative_error([got[n] for n in outputs], want)
            details[f"{runtime}@{shape}"] = rel
            worst = max(worst, rel)
    return Outcome("match", ok=True, max_error=worst, details=details)


def relative_error(got, want):
    """max |got - eager| / max |eager| over the float outputs (0 for exact
    integer outputs, inf for a mismatching integer output)."""
    worst = 0.0
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        if w.dtype.kind in "fc":
            scale = float(np.abs(w[np.isfinite(w)]).max()) if np.isfinite(w).any() else 0.0
            diff = np.abs(g.astype(np.float64) - w.astype(np.float64))
            diff = diff[~(np.isnan(g) & np.isnan(w))]
            err = float(diff.max()) if diff.size else 0.0
            worst = max(worst, err / scale if scale else err)
        elif g.shape != w.shape or np.any(g != w):
            worst = float("inf")
    return worst
