"""coreai-gate: the conversion guide's four numerics gates (§10.2) for a
model factory, in one command, with a JSON report and an exit status for CI.

    python -m coreai_export.gate (--model pkg.module:factory | --module-file file.py:factory)
        [--pass-pipeline 'builtin.module(coreai-pipeline)'] [--required-composites NAME,...]
        [--shapes factory,square,asymmetric] [--values factory,straddle,large,fp16-edge]
        [--llm [--llm-steps N] [--llm-target T] [--llm-precision P] [--llm-compress SPEC]]
        [--compress SPEC ... [--compress-tolerance F]] [--json report.json] [--keep DIR]

`factory()` returns `(nn.Module, (inputs...))`, as for `python -m
coreai_export`. For every shape variant the model is exported (torch.export,
`--decompositions`, `--externalize`), imported, and converted with
`coreai-opt --pass-pipeline=...`; every value set is then run through:

A  eager PyTorch vs the converted program, in coreai-run AND in coreai-core's
   interpreter (a child process: it can die on an op);
B  the exported program (`ep.module()`) vs eager PyTorch;
C  the converted program in coreai-run (the CPU reference) vs the same
   program under `--simulate-fp16` (every value rounded through fp16) and
   `--simulate-fp16=ane` (also: results beyond ±2^15 are infinite);
D  (`--llm`, opt-in) greedy decoding. For a KV-cache causal LM (what
   `coreai_export.llm.convert_causal_lm` takes: a transformers model, or the
   factory's module's `.model`): the model converted to an LLM bundle
   (`--llm-target cpu|gpu|ane`, `--llm-precision f32|f16`,
   `--llm-compress SPEC`), each row of input 0 a prompt, run in both
   runtimes (coreai-core's and coreai-run, each in a child process) through
   the bundle's own functions and state: teacher-forced (fed eager's
   tokens), the choice and the logits of every step against eager's (one
   full forward, no cache), and free-running, the tokens against eager's
   greedy ones. Reported: token agreement (teacher-forced and free-running)
   and each step's logit error relative to max|eager|. Passes, in f32
   without compression, when every token equals eager's and every step's
   error is within `--tolerance`; otherwise when teacher-forced agreement is
   at least `--llm-agreement` (default 0.9). Any other model: the
   converted program run over a window of the prompt's length (in
   coreai-run, plain and `--simulate-fp16`) against an fp32 eager
   reference, token for token.

E  (`--compress SPEC`, opt-in, repeatable) weight compression. The factory
   shapes' program compiled to an asset with `coreai-compile --compress SPEC
   --explain`, whose remarks give one line per weight (its compressed form and
   error; with a pass's `calibration=`, the error at its layers' outputs),
   run in coreai-run and coreai-core's runtime on every value set: each output
   within `--compress-tolerance` (default 0.1) x max|eager| of eager fp32, and
   the two runtimes within `--tolerance` of each other. Reported: the weight
   table, the asset's size against the uncompressed asset, output errors.

`--required-composites` checks that the converted IR of every variant
declares each named composite (`#coreai.composite_declaration<"NAME"`).

Shapes. `factory`: the factory's inputs. `square` and `asymmetric` change
the sizes the model lets change: each size (> 1) of the inputs is tried
alone on a new value in eager PyTorch; the sizes eager accepts are then set,
all together and consistently across inputs, to one common size (`square`:
the largest of them, else the first size the model fixes that eager
accepts, else 8) or to distinct primes no other size uses (`asymmetric`: a
transposition shows). A variant eager rejects or
that equals an earlier one is left out (the report says so).

Values (float inputs; integer and boolean inputs keep the factory's values,
resampled from them when the shape changes, so indices stay valid):
`factory` the factory's own (factory shape only), `straddle` uniform in
[-3, 3) (non-integral, both signs), `large` ±[12, 22] (above §9.1's
threshold: exp overflows fp16 at 11.09), `fp16-edge` ±[256, 1024] (their
squares overflow fp16) mixed with ±6.1e-5 (the smallest normal fp16) and
±6e-8 (subnormal). Seeded (`--seed`), deterministic.

Tolerances. A, B: a float output is within 1e-4 × max|eager| (the corpus
test's, `utils/coreai-report/report.py`; `--tolerance`), NaN equals NaN,
infinities must match; integers and booleans exactly. C: 3e-2 × max|cpu|
(`--fp16-tolerance`). D: exact tokens.

Exit status: 0 every gate passes, 1 a gate failed (the report says which and
why; a model that fails to export or convert fails its gate), 2 bad input
(one message: bad factory, bad pipeline, missing tool).
"""

import argparse
import asyncio
import copy
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHAPES = ("factory", "square", "asymmetric")
VALUES = ("factory", "straddle", "large", "fp16-edge")
TOLERANCE = 1e-4
FP16_TOLERANCE = 3e-2
COMPRESS_TOLERANCE = 0.1
PRIMES = (3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47)

USAGE = """\
python -m coreai_export.gate (--model PKG.MODULE:FACTORY | --module-file FILE.py:FACTORY)
        [--pass-pipeline PIPELINE] [--decompositions coreai|default|none] [--externalize SPEC ...]
        [--required-composites NAME,...] [--shapes LIST] [--values LIST] [--seed N]
        [--llm [--llm-steps N]] [--compress SPEC ... [--compress-tolerance F]]
        [--tolerance F] [--fp16-tolerance F] [--no-coreai-core]
        [--json REPORT.json] [--keep DIR] [--build-dir DIR]"""


class BadInput(Exception):
    """Exit 2: the command cannot run (the message says why)."""


def build_parser():
    p = argparse.ArgumentParser(prog="coreai-gate", usage=USAGE, description=__doc__.split("\n\n")[0])
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", metavar="PKG.MODULE:FACTORY")
    src.add_argument("--module-file", metavar="FILE.py:FACTORY")
    p.add_argument("--pass-pipeline", default="builtin.module(coreai-pipeline)",
                   help="the conversion (default builtin.module(coreai-pipeline))")
    p.add_argument("--decompositions", default="coreai", choices=["coreai", "default", "none"],
                   help="import setting, as python -m coreai_export (default coreai)")
    p.add_argument("--externalize", action="append", default=[], metavar="CLASS[=COMPOSITE[:ATTR,...]]",
                   help="as python -m coreai_export (repeatable)")
    p.add_argument("--required-composites", default="", metavar="NAME,...",
                   help="composites the converted IR must declare")
    p.add_argument("--shapes", default=",".join(SHAPES), metavar="LIST", help=f"subset of {','.join(SHAPES)}")
    p.add_argument("--values", default=",".join(VALUES), metavar="LIST", help=f"subset of {','.join(VALUES)}")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--llm", action="store_true",
                   help="gate D: input 0 are token ids (batch, T), output 0 logits (..., vocab)")
    p.add_argument("--llm-steps", type=int, default=8, metavar="N", help="tokens to generate (default 8)")
    p.add_argument("--llm-target", choices=["cpu", "gpu", "ane"], default="cpu",
                   help="gate D on a causal LM: the bundle's target (default cpu)")
    p.add_argument("--llm-precision", choices=["f32", "f16"], default="f32",
                   help="gate D on a causal LM: the bundle's precision (default f32)")
    p.add_argument("--llm-compress", metavar="SPEC", help="gate D on a causal LM: weight compression")
    p.add_argument("--llm-agreement", type=float, default=0.9, metavar="F",
                   help="gate D, f16 or compressed: the teacher-forced token agreement required (default 0.9)")
    p.add_argument("--compress", action="append", default=[], metavar="SPEC",
                   help="gate E: the factory shapes compiled with this weight compression (a preset or passes, "
                        "as coreai-compile --compress; repeatable): the weight table, asset size, output error")
    p.add_argument("--compress-tolerance", type=float, default=COMPRESS_TOLERANCE, metavar="F",
                   help=f"gate E: output error bound, x max|eager| (default {COMPRESS_TOLERANCE:g})")
    p.add_argument("--tolerance", type=float, default=TOLERANCE, metavar="F",
                   help="gates A and B: |err| <= F x max|eager| (default 1e-4)")
    p.add_argument("--fp16-tolerance", type=float, default=FP16_TOLERANCE, metavar="F",
                   help="gate C: |err| <= F x max|cpu| (default 3e-2)")
    p.add_argument("--no-coreai-core", action="store_true", help="gate A in coreai-run only")
    p.add_argument("--json", metavar="REPORT.json", help="write the report as JSON")
    p.add_argument("--keep", metavar="DIR", help="keep the modules and inputs in DIR")
    p.add_argument("--build-dir", metavar="DIR",
                   help="where coreai-opt and coreai-run are (default $COREAI_BUILD_DIR, PATH, "
                   "target/release, target/debug)")
    return p


def _split(text, allowed, flag):
    items = [s.strip() for s in text.split(",") if s.strip()]
    bad = [s for s in items if allowed is not None and s not in allowed]
    if bad:
        raise BadInput(f"{flag}: unknown {', '.join(bad)} (choose from {','.join(allowed)})")
    if allowed is not None and not items:
        raise BadInput(f"{flag}: empty")
    return items


def find_tool(name, build_dir=None):
    dirs = [build_dir] if build_dir else [os.environ.get("COREAI_BUILD_DIR")]
    candidates = [Path(d) / name for d in dirs if d]
    if not build_dir:
        from .convert import installed_tool_dirs

        candidates += [d / name for d in installed_tool_dirs()]
        which = shutil.which(name)
        candidates += [Path(which)] if which else []
        candidates += [REPO / "target" / "release" / name, REPO / "target" / "debug" / name]
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return str(c)
    where = build_dir or "$COREAI_BUILD_DIR, PATH, target/release or target/debug"
    raise BadInput(f"{name} not found in {where} (cargo build)")


def _first_error(stderr):
    for line in stderr.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    lines = stderr.strip().splitlines()
    return lines[-1] if lines else "failed without a message"


# ---------------------------------------------------------------- inputs


def _to_numpy(t):
    import torch

    t = t.detach().cpu()
    if t.dtype == torch.bfloat16:
        t = t.float()
    a = t.numpy()
    return a if a.flags.c_contiguous else a.copy(order="C")


def _draw(kind, shape, dtype, gen):
    """A float tensor of value set `kind`."""
    import torch

    u = torch.rand(shape, generator=gen, dtype=torch.float64)
    sign = torch.where(torch.rand(shape, generator=gen) < 0.5, -1.0, 1.0).double()
    if kind == "straddle":
        v = u * 6.0 - 3.0
    elif kind == "large":
        v = sign * (12.0 + 10.0 * u)
    elif kind == "fp16-edge":
        pick = torch.randint(0, 4, shape, generator=gen)
        big = 256.0 + 768.0 * u
        v = sign * torch.where(pick < 2, big, torch.where(pick == 2, torch.full_like(u, 6.1e-5),
                                                          torch.full_like(u, 6e-8)))
    else:
        raise AssertionError(kind)
    return v.to(dtype)


def _resample(t, shape, gen):
    """An integer/boolean tensor of `shape` drawn from the values of `t`."""
    import torch

    flat = t.reshape(-1)
    if tuple(shape) == tuple(t.shape) or flat.numel() == 0:
        return t.clone() if tuple(shape) == tuple(t.shape) else torch.zeros(shape, dtype=t.dtype)
    idx = torch.randint(0, flat.numel(), tuple(shape), generator=gen)
    return flat[idx]


def make_inputs(base, shapes, kind, seed):
    """The inputs of one (shape variant, value set): `base` the factory's
    inputs, `shapes` the variant's shapes (None: non-tensor kept)."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    out = []
    for t, shape in zip(base, shapes):
        if not isinstance(t, torch.Tensor):
            out.append(t)
        elif t.is_floating_point():
            out.append(t.clone() if kind == "factory" else _draw(kind, shape, t.dtype, gen))
        else:
            out.append(_resample(t, shape, gen))
    return tuple(out)


def _eager(model, inputs):
    """Eager outputs (flat list of tensors), on a copy (states stay put), or
    the exception."""
    import torch
    from torch.utils._pytree import tree_flatten

    m = copy.deepcopy(model)
    with torch.no_grad():
        out = m(*inputs)
    flat, _ = tree_flatten(out)
    return flat, m


def _eager_ok(model, inputs):
    try:
        _eager(model, inputs)
        return True
    except Exception:  # noqa: BLE001 - any failure means eager rejects the shape
        return False


def shape_variants(model, base, wanted, seed):
    """[(name, shapes or None, note)]: the shape variants to run."""
    import torch

    base_shapes = [tuple(t.shape) if isinstance(t, torch.Tensor) else None for t in base]
    sizes = sorted({d for s in base_shapes if s for d in s if d > 1})
    fresh = [p for p in PRIMES if p not in sizes]

    def mapped(mapping):
        return [tuple(mapping.get(d, d) for d in s) if s is not None else None for s in base_shapes]

    def accepts(shapes):
        return _eager_ok(model, make_inputs(base, shapes, "straddle", seed))

    free = [s for s in sizes if accepts(mapped({s: fresh[0]}))]
    fixed = [s for s in sizes if s not in free]
    out, seen = [], []
    for name in wanted:
        if name == "factory":
            shapes, note = base_shapes, ""
        elif not free:
            out.append((name, None, "no input size can change (eager rejects every other size)"))
            continue
        elif name == "square":
            # One common size: the largest free one, else one the weights fix, else 8.
            tries = [n for n in dict.fromkeys([max(free), *sorted(fixed, reverse=True), 8])
                     if any(s != n for s in free)]
            n = next((n for n in tries if accepts(mapped({s: n for s in free}))), tries[0] if tries else 8)
            shapes, note = mapped({s: n for s in free}), f"free sizes {free} -> {n}"
        else:
            mapping = dict(zip(free, fresh))
            shapes, note = mapped(mapping), "free sizes " + ", ".join(f"{a} -> {b}" for a, b in mapping.items())
        if shapes in seen:
            out.append((name, None, "the same shapes as an earlier variant"))
            continue
        if name != "factory" and not accepts(shapes):
            out.append((name, None, f"eager PyTorch rejects these shapes ({note})"))
            continue
        seen.append(shapes)
        out.append((name, shapes, note))
    return out


# ---------------------------------------------------------------- comparing


def compare(got, want, factor):
    """[{name, ok, max_error, tolerance, message}] per output of `want`."""
    import numpy as np

    rows = []
    for name, w in want.items():
        w = np.asarray(w)
        if name not in got:
            rows.append({"output": name, "ok": False, "max_error": None, "tolerance": None,
                         "message": f"missing output {name}"})
            continue
        g = np.asarray(got[name])
        if g.shape != w.shape:
            rows.append({"output": name, "ok": False, "max_error": None, "tolerance": None,
                         "message": f"shape {list(g.shape)} != {list(w.shape)}"})
            continue
        if w.dtype.kind in "fc" or g.dtype.kind in "fc":
            a, b = g.astype(np.float64), w.astype(np.float64)
            finite = np.abs(b[np.isfinite(b)])
            tol = factor * (float(finite.max()) if finite.size else 0.0)
            same = (a == b) | (np.isnan(a) & np.isnan(b))
            diff = np.where(same, 0.0, np.abs(a - b))
            bad = ~same & ~(diff <= tol)
            err = float(np.nanmax(np.where(np.isnan(diff), np.inf, diff))) if diff.size else 0.0
        else:
            bad = g != w
            err, tol = float(np.count_nonzero(bad)), 0.0
        n = int(np.count_nonzero(bad))
        msg = f"{n} of {bad.size} elements beyond {tol:.3g} (max error {err:.3g})" if n else ""
        rows.append({"output": name, "ok": n == 0, "max_error": err, "tolerance": tol, "message": msg})
    return rows


# ---------------------------------------------------------------- tools


class Tools:
    def __init__(self, build_dir, work):
        self.opt = find_tool("coreai-opt", build_dir)
        self.run_ = find_tool("coreai-run", build_dir)
        self.compile = find_tool("coreai-compile", build_dir)
        self.work = work

    def check_pipeline(self, pipeline):
        empty = self.work / "empty.mlir"
        empty.write_text("module {}\n")
        r = subprocess.run([self.opt, str(empty), f"--pass-pipeline={pipeline}", "-o", os.devnull],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise BadInput(f"--pass-pipeline {pipeline!r}: {_first_error(r.stderr)}")

    def convert(self, module, out, pipeline):
        r = subprocess.run([self.opt, str(module), f"--pass-pipeline={pipeline}", "-o", str(out)],
                           capture_output=True, text=True)
        return "" if r.returncode == 0 else _first_error(r.stderr)

    def run(self, module, inputs, out, *flags):
        """coreai-run; (outputs dict, '') or (None, error)."""
        import numpy as np

        r = subprocess.run([self.run_, str(module), "--inputs", str(inputs), "--outputs", str(out), *flags],
                           capture_output=True, text=True)
        if r.returncode != 0:
            return None, _first_error(r.stderr or r.stdout)
        with np.load(out) as z:
            return {k: z[k] for k in z.files}, ""


def run_coreai_core(module, input_files, outs):
    """coreai-core's interpreter on `module` (or an `.aimodel` asset) for
    each inputs file, in a child process; [(outputs, '') or (None, error)]."""
    import numpy as np

    r = run_core_child(["--core-worker", str(module), *(f"{i}={o}" for i, o in zip(input_files, outs))])
    if r.returncode < 0:
        why = f"coreai-core's interpreter died ({signal.Signals(-r.returncode).name})"
        return [(None, why)] * len(outs)
    if r.returncode != 0:
        lines = [line for line in r.stderr.strip().splitlines() if line.strip()]
        why = "coreai-core: " + (lines[-1][:300] if lines else f"exit status {r.returncode}")
        return [(None, why)] * len(outs)
    results = []
    for o in outs:
        with np.load(o) as z:
            results.append(({k: z[k] for k in z.files}, ""))
    return results


def run_core_child(args):
    """`python -m coreai_export.gate ARGS` (a coreai-core worker) in a child
    process. A worker ends without finalizing the interpreter
    (`llm.exit_without_finalizing`), where coreai-core's runtime would
    otherwise abort it at random after its work is done; any death is the
    check's result."""
    command = [sys.executable, "-m", "coreai_export.gate", *args]
    return subprocess.run(command, capture_output=True, text=True, env=_worker_env())


def causal_lm(model):
    """The KV-cache causal LM in `model` (itself, or a wrapper's `.model`),
    or None."""
    from .llm import Unsupported, describe

    for candidate in (model, getattr(model, "model", None)):
        if candidate is None:
            continue
        try:
            describe(candidate)
            return candidate
        except (Unsupported, TypeError, AttributeError, ValueError):
            continue
    return None


def _worker_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[1]), env.get("PYTHONPATH", "")])
    return env


def llm_worker(bundle, runtime, coreai_run, request, out):
    """Gate D's runs of an LLM bundle in one runtime, in a child process (a
    runtime can abort): per prompt, the teacher-forced choices and logits,
    then the free-running tokens."""
    import numpy as np

    from . import llm

    warnings.filterwarnings("ignore")
    spec = json.loads(Path(request).read_text())
    arrays = {}
    for i, (prompt, continuation) in enumerate(zip(spec["prompts"], spec["continuations"])):
        with llm.Session(bundle, runtime, coreai_run) as s:
            step, logits = s.step, []

            def recording(tokens, step=step, logits=logits, **kw):
                result = step(tokens, **kw)
                logits.append(np.asarray(result, dtype=np.float32)[-1])
                return result

            s.step = recording
            arrays[f"forced_{i}"] = np.asarray(s.follow(prompt, continuation), dtype=np.int64)
            arrays[f"logits_{i}"] = np.stack(logits)
        with llm.Session(bundle, runtime, coreai_run) as s:
            arrays[f"free_{i}"] = np.asarray(s.generate(prompt, len(continuation)), dtype=np.int64)
    np.savez(out, **arrays)
    return 0


def core_worker(module, pairs):
    import numpy as np

    warnings.filterwarnings("ignore")
    from coreai._compiler import ir
    from coreai.authoring.asset import AIModelAsset, AIProgram
    from coreai.authoring.context import Context
    from coreai.runtime import NDArray

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(module)
        if path.suffix != ".aimodel":
            # A module: coreai-core's own writer makes its asset.
            path = Path(tmp) / "m.aimodel"
            with Context() as c:
                program = AIProgram._from_mlir_module(  # noqa: SLF001
                    ir.Module.parse(Path(module).read_text(), c._mlir_context))  # noqa: SLF001
                program.save_asset(path)

        async def go():
            asset = AIModelAsset.load(path)
            async with asset.executable() as model:
                fn = model.load_function("main")
                if asyncio.iscoroutine(fn):
                    fn = await fn
                for pair in pairs:
                    inp, out = pair.split("=", 1)
                    with np.load(inp) as z:
                        inputs = {k: NDArray(np.ascontiguousarray(z[k])) for k in z.files}
                    res = await fn(inputs=inputs)
                    np.savez(out, **{k: np.asarray(v.numpy()).copy() for k, v in res.items()})

        asyncio.run(go())
    return 0


# ---------------------------------------------------------------- the gates


WEIGHT_REMARK = re.compile(r"^(quantize|palettize|sparsify)-weights: (.*?): (\[[0-9, ]*\]) (.*)$")
ERROR_IN_REMARK = re.compile(r"(relative|output) error ([0-9.]+(?:e[-+]?[0-9]+)?)")


def weight_remarks(stderr):
    """The compression passes' remarks (one per weight): [{pass, name (the
    location's first name: the parameter or op), location, shape, form,
    error, measured (relative|output|None), dense, remark}]."""
    out = []
    for line in stderr.splitlines():
        m = WEIGHT_REMARK.match(line.strip())
        if not m:
            continue
        e = ERROR_IN_REMARK.search(m.group(4))
        name = re.match(r'loc\("([^"]*)"', m.group(2))
        out.append({"pass": f"{m.group(1)}-weights", "name": name.group(1) if name else m.group(2),
                    "location": m.group(2), "shape": json.loads(m.group(3)),
                    "form": m.group(4).split(", ")[0], "error": float(e.group(2)) if e else None,
                    "measured": e.group(1) if e else None, "dense": m.group(4).startswith("kept dense"),
                    "remark": line.strip()})
    return out


def _tree_bytes(path):
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())


class Gate:
    def __init__(self, ns, work, tools):
        self.ns, self.work, self.tools = ns, work, tools
        self.checks = {g: [] for g in "ABCD"}
        self.checks["composites"] = []
        if ns.compress:
            self.checks["E"] = []
        self.variants = []
        self.cases = []

    def check(self, gate, ok, message="", **fields):
        entry = {"ok": bool(ok), **fields, "message": message}
        self.checks[gate].append(entry)
        label = " ".join(f"{k}={v}" for k, v in fields.items() if k in ("compress", "variant", "values", "executor", "step"))
        print(f"  gate {gate} {'pass' if ok else 'FAIL'} {label}{': ' + message if message else ''}", flush=True)

    def rows_check(self, gate, rows, **fields):
        bad = [r for r in rows if not r["ok"]]
        worst = max((r["max_error"] for r in rows if r["max_error"] is not None), default=0.0)
        msg = "; ".join(f"{r['output']}: {r['message']}" for r in bad)
        self.check(gate, not bad, msg, max_error=worst, outputs=rows, **fields)

    def save_case(self, prog, ep, model, inputs, stem):
        """Writes STEM.in.npz and STEM.exp.npz (eager), returns (in, exp,
        eager user outputs)."""
        import numpy as np
        import torch

        n_user = len(ep.graph_signature.user_inputs)
        arrays = [_to_numpy(t) for t in inputs if isinstance(t, torch.Tensor)]
        state = {k: v for k, v in ep.state_dict.items()}
        state.update(getattr(ep, "constants", {}) or {})
        for name in prog.arg_names[n_user:]:
            arrays.append(_to_numpy(state[name]))
        np.savez(f"{stem}.in.npz", **dict(zip(prog.arg_names, arrays)))
        flat, after = _eager(model, inputs)
        outs = [_to_numpy(t) if isinstance(t, torch.Tensor) else np.asarray(t) for t in flat]
        bufs = dict(after.named_buffers())
        for name in prog.result_names[len(outs):]:
            outs.append(_to_numpy(bufs[name]))
        expected = dict(zip(prog.result_names, outs))
        np.savez(f"{stem}.exp.npz", **expected)
        return Path(f"{stem}.in.npz"), Path(f"{stem}.exp.npz"), expected, flat

    def gate_b(self, ep, inputs, eager_flat, variant, values):
        import torch
        from torch.utils._pytree import tree_flatten

        try:
            runner = copy.deepcopy(ep).module()
            with torch.no_grad():
                flat, _ = tree_flatten(runner(*inputs))
        except Exception as e:  # noqa: BLE001
            self.check("B", False, f"the exported program does not run: {type(e).__name__}: {e}",
                       variant=variant, values=values)
            return
        got = {f"output_{i}": _to_numpy(t) for i, t in enumerate(flat) if isinstance(t, torch.Tensor)}
        want = {f"output_{i}": _to_numpy(t) for i, t in enumerate(eager_flat) if isinstance(t, torch.Tensor)}
        if len(flat) != len(eager_flat):
            self.check("B", False, f"{len(flat)} outputs, eager has {len(eager_flat)}", variant=variant,
                       values=values)
            return
        self.rows_check("B", compare(got, want, self.ns.tolerance), variant=variant, values=values)

    def run_variant(self, model, base, name, shapes, value_sets, composites):
        stem = self.work / name
        cases = []
        for kind in value_sets:
            if kind == "factory" and name != "factory":
                continue
            cases.append((kind, make_inputs(base, shapes, kind, self.ns.seed)))
        if not cases:  # --values factory on another shape: its values are not defined
            cases.append(("straddle", make_inputs(base, shapes, "straddle", self.ns.seed)))
        from .exporting import ExportFailure, export_module
        from .externalize import Externalize, externalized
        from .importer import ImportError_, import_program

        aten = Path(f"{stem}.aten.mlir")
        specs = [Externalize.parse(t) for t in self.ns.externalize]
        marked_model = copy.deepcopy(model)
        saved = []
        try:
            # Gate B runs inside the externalization: the exported program
            # calls the externalized submodules through ops that exist only
            # there.
            with externalized(marked_model, specs, cases[0][1]) as marked:
                ep = export_module(marked_model, cases[0][1], self.ns.decompositions, None)
                functions = marked.functions(ep, self.ns.decompositions)
                try:
                    prog = import_program(ep, "main", functions)
                except ImportError_ as e:
                    raise ExportFailure(f"import failed: {e}") from e
                aten.write_text(prog.text)
                for kind, inputs in cases:
                    fin, _, expected, eager_flat = self.save_case(prog, ep, model, inputs, f"{stem}.{kind}")
                    self.gate_b(ep, inputs, eager_flat, name, kind)
                    saved.append((kind, fin, expected))
                if name == "factory":
                    self.cases = saved
        except ExportFailure as e:
            first = str(e).splitlines()[0]
            self.check("B", False, f"does not export: {first}", variant=name)
            self.check("A", False, "not converted: the model does not export", variant=name)
            return None
        converted = Path(f"{stem}.coreai.mlir")
        error = self.tools.convert(aten, converted, self.ns.pass_pipeline)
        if error:
            self.check("A", False, f"conversion failed: {error}", variant=name)
            return None
        text = converted.read_text()
        for c in composites:
            ok = f'composite_declaration<"{c}"' in text
            self.check("composites", ok, "" if ok else f"missing composite: {c}", variant=name, composite=c)
        runs = []
        for kind, fin, expected in saved:
            case = f"{stem}.{kind}"
            got, why = self.tools.run(converted, fin, f"{case}.cpu.npz")
            if got is None:
                self.check("A", False, f"coreai-run: {why}", variant=name, values=kind, executor="coreai-run")
            else:
                self.rows_check("A", compare(got, expected, self.ns.tolerance), variant=name, values=kind,
                                executor="coreai-run")
            runs.append((kind, fin, expected, got, case))
            for mode in ("ieee", "ane"):
                if got is None:
                    break
                half, why = self.tools.run(converted, fin, f"{case}.{mode}.npz", f"--simulate-fp16={mode}")
                label = "simulate-fp16" if mode == "ieee" else "simulate-fp16=ane"
                if half is None:
                    self.check("C", False, f"coreai-run --{label}: {why}", variant=name, values=kind, executor=label)
                else:
                    self.rows_check("C", compare(half, got, self.ns.fp16_tolerance), variant=name, values=kind,
                                    executor=label)
        if runs and not self.ns.no_coreai_core:
            results = run_coreai_core(converted, [r[1] for r in runs], [f"{r[4]}.core.npz" for r in runs])
            for (kind, _, expected, _, _), (got, why) in zip(runs, results):
                if got is None:
                    self.check("A", False, why, variant=name, values=kind, executor="coreai-core")
                else:
                    self.rows_check("A", compare(got, expected, self.ns.tolerance), variant=name, values=kind,
                                    executor="coreai-core")
        return converted, prog, ep

    def gate_e(self, aten):
        """Gate E: for each `--compress SPEC`, the factory shapes' program
        compiled to an asset with that compression (`coreai-compile
        --compress SPEC --explain`: one remark per weight, its form and
        error), run in coreai-run and coreai-core's runtime. Checks: the
        two runtimes agree within `--tolerance` x max|eager| (the asset
        computes what its program says), and each output is within
        `--compress-tolerance` x max|eager| of eager fp32 (what the
        compression costs). Reported: the weight table, asset sizes, output
        errors."""
        import numpy as np

        dense = self.work / "dense.aimodel"
        r = subprocess.run([self.tools.compile, str(aten), "-o", str(dense)], capture_output=True, text=True)
        dense_bytes = _tree_bytes(dense) if r.returncode == 0 else None
        for i, spec in enumerate(self.ns.compress):
            asset = self.work / f"compressed{i}.aimodel"
            r = subprocess.run([self.tools.compile, str(aten), "-o", str(asset), "--compress", spec, "--explain"],
                               capture_output=True, text=True)
            if r.returncode != 0:
                self.check("E", False, f"coreai-compile --compress: {_first_error(r.stderr)}", compress=spec)
                continue
            weights = weight_remarks(r.stderr)
            size = _tree_bytes(asset)
            ratio = f", {size / dense_bytes:.1%} of the uncompressed asset" if dense_bytes else ""
            print(f"coreai-gate: E {spec}: {len(weights)} weights; asset {size} bytes{ratio}", flush=True)
            for w in weights:
                error = "" if w["error"] is None else f"  {w['measured']} error {w['error']:.3g}"
                print(f"    {w['name']} {w['shape']}: {w['form']}{error}", flush=True)
            runs = {}
            for kind, fin, expected in self.cases:
                got, why = self.tools.run(asset, fin, self.work / f"e{i}.{kind}.cpu.npz")
                runs[(kind, "coreai-run")] = (got, why)
            if not self.ns.no_coreai_core:
                outs = [self.work / f"e{i}.{kind}.core.npz" for kind, _, _ in self.cases]
                for (kind, _, _), res in zip(self.cases, run_coreai_core(asset, [c[1] for c in self.cases], outs)):
                    runs[(kind, "coreai-core")] = res
            for kind, _, expected in self.cases:
                scale = max((float(np.abs(np.asarray(v, dtype=np.float64)).max(initial=0.0))
                             for v in expected.values() if np.asarray(v).dtype.kind == "f"), default=0.0)
                base = runs.get((kind, "coreai-run"), (None, ""))[0]
                for executor in ("coreai-run", "coreai-core"):
                    if (kind, executor) not in runs:
                        continue
                    got, why = runs[(kind, executor)]
                    fields = {"compress": spec, "values": kind, "executor": executor}
                    if got is None:
                        self.check("E", False, f"{executor}: {why}", **fields)
                        continue
                    rows = compare(got, expected, self.ns.compress_tolerance)
                    worst = max((r["max_error"] for r in rows if r["max_error"] is not None), default=0.0)
                    bad = [f"{r['output']}: {r['message']}" for r in rows if not r["ok"]]
                    if executor == "coreai-core" and base is not None:
                        # The same asset in both runtimes: the same numbers.
                        gap = max((float(np.abs(np.asarray(got[k], np.float64) - np.asarray(base[k], np.float64)).max())
                                   for k in expected if k in got and k in base and np.asarray(base[k]).dtype.kind == "f"),
                                  default=0.0)
                        if gap > self.ns.tolerance * scale:
                            bad.append(f"coreai-core and coreai-run differ by {gap:.3g} "
                                       f"(> {self.ns.tolerance:g} x max|eager|)")
                    self.check("E", not bad, "; ".join(bad), **fields, max_error=worst,
                               relative_error=worst / scale if scale else worst, weights=weights,
                               asset_bytes=size, uncompressed_bytes=dense_bytes)

    def gate_d_bundle(self, lm, ids):
        """Gate D on a KV-cache causal LM: its LLM bundle in both runtimes
        against eager (see the module's docstring)."""
        import numpy as np
        import torch

        from . import llm

        steps = self.ns.llm_steps
        prompts = [row.tolist() for row in ids]
        lm = lm.eval()
        want, eager_logits = [], []
        with torch.no_grad():
            for prompt in prompts:
                seq = list(prompt)
                for _ in range(steps):
                    logits = lm(input_ids=torch.tensor([seq])).logits[0, -1].double()
                    seq.append(int(torch.argmax(logits)))
                full = lm(input_ids=torch.tensor([seq[:-1]])).logits[0].float().numpy()
                want.append(seq[len(prompt):])
                eager_logits.append(full[len(prompt) - 1:])
        exact = self.ns.llm_precision == "f32" and not self.ns.llm_compress
        bundle = self.work / "llm-bundle"
        try:
            llm.convert_causal_lm(lm, bundle, max_context=max(map(len, prompts)) + steps + 2,
                                  target=self.ns.llm_target, precision=self.ns.llm_precision,
                                  compress=self.ns.llm_compress, compiler=str(self.tools.compile))
        except Exception as e:  # noqa: BLE001 - every failure to convert fails the gate, with its message
            self.check("D", False, f"convert_causal_lm: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
            return
        request = self.work / "llm-request.json"
        request.write_text(json.dumps({"prompts": prompts, "continuations": want}))
        for runtime in ("coreai-core", "coreai-run"):
            out = self.work / f"llm-{runtime}.npz"
            p = run_core_child(["--llm-worker", str(bundle), runtime, str(self.tools.run_), str(request), str(out)])
            if p.returncode != 0:
                tail = (p.stderr.strip().splitlines() or [f"exit status {p.returncode}"])[-1]
                self.check("D", False, f"{runtime}: {tail}", executor=runtime)
                continue
            with np.load(out) as z:
                got = {k: z[k] for k in z.files}
            forced = free = total = 0
            errors, diverge = [], None
            for i, (prompt, reference) in enumerate(zip(prompts, want)):
                choices, tokens = got[f"forced_{i}"].tolist(), got[f"free_{i}"].tolist()
                forced += sum(a == b for a, b in zip(choices, reference))
                free += sum(a == b for a, b in zip(tokens, reference))
                total += steps
                if diverge is None and tokens != reference:
                    diverge = (i, next(j for j, (a, b) in enumerate(zip(tokens, reference)) if a != b))
                scale = float(np.abs(eager_logits[i]).max()) or 1.0
                errors += [float(np.abs(got[f"logits_{i}"][j] - eager_logits[i][j]).max()) / scale
                           for j in range(steps)]
            worst = max(errors) if errors else 0.0
            if exact:
                ok = diverge is None and worst <= self.ns.tolerance
                msg = "" if ok else (f"prompt {diverge[0]} step {diverge[1]}: tokens differ from eager's"
                                     if diverge is not None else
                                     f"logit error {worst:.3g} x max|eager| > {self.ns.tolerance:g}")
            else:
                ok = forced >= self.ns.llm_agreement * total
                msg = "" if ok else f"teacher-forced agreement {forced}/{total} < {self.ns.llm_agreement:g}"
            self.check("D", ok, msg, executor=runtime, bundle=f"{self.ns.llm_target} {self.ns.llm_precision}"
                       + (f" {self.ns.llm_compress}" if self.ns.llm_compress else ""),
                       forced_agreement=forced / total, free_agreement=free / total, step_logit_error=errors,
                       max_logit_error=worst)
            print(f"coreai-gate: D {runtime}: teacher-forced {forced}/{total}, free-running {free}/{total} tokens "
                  f"equal eager's; step logit error <= {worst:.3g} x max|eager|", flush=True)

    def gate_d(self, model, base, converted, prog, ep):
        """Greedy decoding over a window of the prompt's length: each step
        runs the last T tokens and appends the argmax of the last position's
        logits."""
        import numpy as np
        import torch

        ids = base[0] if base else None
        if not isinstance(ids, torch.Tensor) or ids.is_floating_point() or ids.dim() != 2:
            self.check("D", False, "--llm needs input 0 to be integer token ids of shape (batch, T)")
            return
        ref_model = copy.deepcopy(model).float()
        ref_base = tuple(t.float() if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in base)

        def next_token(logits):
            last = logits[:, -1, :] if logits.ndim == 3 else logits
            return np.argmax(last.astype(np.float64), axis=-1)

        def reference():
            seq, toks = ids.clone(), []
            for _ in range(self.ns.llm_steps):
                flat, _ = _eager(ref_model, (seq[:, -ids.shape[1]:], *ref_base[1:]))
                t = next_token(_to_numpy(flat[0]))
                toks.append(t.tolist())
                seq = torch.cat([seq, torch.from_numpy(t).to(ids.dtype)[:, None]], dim=1)
            return toks

        want = reference()
        names = prog.arg_names
        fin, _, _, _ = self.save_case(prog, ep, model, base, self.work / "llm.prompt")
        with np.load(fin) as z:
            prompt = {k: z[k] for k in z.files}
        step_in = self.work / "llm.in.npz"
        for mode, flags in (("coreai-run", ()), ("simulate-fp16", ("--simulate-fp16",))):
            seq, toks, error = ids.clone(), [], ""
            for step in range(self.ns.llm_steps):
                arrays = dict(prompt)
                arrays[names[0]] = _to_numpy(seq[:, -ids.shape[1]:])
                np.savez(step_in, **arrays)
                got, why = self.tools.run(converted, step_in, self.work / "llm.out.npz", *flags)
                if got is None:
                    error = why
                    break
                t = next_token(got[prog.result_names[0]])
                toks.append(t.tolist())
                seq = torch.cat([seq, torch.from_numpy(t).to(ids.dtype)[:, None]], dim=1)
            if error:
                self.check("D", False, f"coreai-run: {error}", executor=mode)
                continue
            diverge = next((i for i, (a, b) in enumerate(zip(toks, want)) if a != b), None)
            msg = "" if diverge is None else f"step {diverge}: tokens {toks[diverge]}, fp32 eager {want[diverge]}"
            self.check("D", diverge is None, msg, executor=mode, tokens=toks, reference=want)


def run(ns):
    import torch

    from .exporting import ExportFailure, call_factory, load_factory

    shapes = _split(ns.shapes, SHAPES, "--shapes")
    values = _split(ns.values, VALUES, "--values")
    composites = _split(ns.required_composites, None, "--required-composites")
    if ns.llm_steps < 1:
        raise BadInput("--llm-steps must be at least 1")
    try:
        factory = load_factory(ns.model or ns.module_file, from_file=bool(ns.module_file))
        model, base = call_factory(factory)
        from .externalize import Externalize
        for t in ns.externalize:
            Externalize.parse(t)
    except ExportFailure as e:
        raise BadInput(str(e).splitlines()[0]) from e
    work = Path(ns.keep) if ns.keep else Path(tempfile.mkdtemp(prefix="coreai-gate-"))
    try:
        work.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BadInput(f"--keep {ns.keep}: {e.strerror}") from e
    try:
        tools = Tools(ns.build_dir, work)
        tools.check_pipeline(ns.pass_pipeline)
        gate = Gate(ns, work, tools)
        torch.manual_seed(ns.seed)
        factory_result = None
        for name, variant_shapes, note in shape_variants(model, base, shapes, ns.seed):
            entry = {"name": name, "note": note}
            if variant_shapes is None:
                entry["skipped"] = True
                print(f"coreai-gate: shapes {name}: left out: {note}", flush=True)
                gate.variants.append(entry)
                continue
            entry["shapes"] = [list(s) if s is not None else None for s in variant_shapes]
            gate.variants.append(entry)
            print(f"coreai-gate: shapes {name}: {entry['shapes']}" + (f" ({note})" if note else ""), flush=True)
            result = gate.run_variant(model, base, name, variant_shapes, values, composites)
            if name == "factory":
                factory_result = result
        if ns.compress:
            if factory_result is None:
                gate.check("E", False, "needs the factory shapes converted (--shapes factory)")
            else:
                gate.gate_e(work / "factory.aten.mlir")
        lm = causal_lm(model) if ns.llm else None
        ids = base[0] if base else None
        if lm is not None and isinstance(ids, torch.Tensor) and not ids.is_floating_point() and ids.dim() == 2:
            gate.gate_d_bundle(lm, ids)
        elif ns.llm:
            if factory_result is None:
                gate.check("D", False, "needs the factory shapes converted (--shapes factory)")
            else:
                gate.gate_d(model, base, *factory_result)
    finally:
        if not ns.keep:
            shutil.rmtree(work, ignore_errors=True)
    return gate


def summary(gate, ns):
    report = {"model": ns.model or ns.module_file, "pass_pipeline": ns.pass_pipeline,
              "tolerances": {"A": f"{ns.tolerance:g} x max|eager|", "B": f"{ns.tolerance:g} x max|eager|",
                             "C": f"{ns.fp16_tolerance:g} x max|cpu|",
                             "D": (f"exact tokens, logits {ns.tolerance:g} x max|eager|"
                                   if ns.llm_precision == "f32" and not ns.llm_compress else
                                   f"teacher-forced agreement >= {ns.llm_agreement:g}"),
                             "E": (f"{ns.compress_tolerance:g} x max|eager|; runtimes agree within "
                                   f"{ns.tolerance:g} x max|eager|")},
              "variants": gate.variants, "gates": {}}
    verdicts = []
    for g, checks in gate.checks.items():
        if g == "D" and not ns.llm or g == "composites" and not checks:
            status = "skipped"
        elif not checks:
            status = "fail"  # nothing ran: no variant converted
        else:
            status = "pass" if all(c["ok"] for c in checks) else "fail"
        failures = [c for c in checks if not c["ok"]]
        report["gates"][g] = {"status": status, "checks": checks}
        verdicts.append(f"{g}:{status}")
        if status == "fail":
            first = failures[0] if failures else {"message": "no check ran (no variant converted)"}
            where = " ".join(f"{k}={first[k]}" for k in ("compress", "variant", "values", "executor") if k in first)
            count = f" ({len(failures)} of {len(checks)} checks)" if checks else ""
            print(f"coreai-gate: gate {g} failed{count}{' ' + where if where else ''}: {first['message']}")
    ok = all(v.endswith(":pass") or v.endswith(":skipped") for v in verdicts)
    report["ok"] = ok
    print(f"coreai-gate: RESULT {'pass' if ok else 'fail'} {' '.join(verdicts)}")
    return report, ok


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["--core-worker"], ["--llm-worker"]):
        from .llm import exit_without_finalizing

        worker = core_worker(argv[1], argv[2:]) if argv[0] == "--core-worker" else llm_worker(*argv[1:])
        exit_without_finalizing(worker)
    ns = build_parser().parse_args(argv)
    try:
        if ns.json and not os.path.isdir(os.path.dirname(os.path.abspath(ns.json))):
            raise BadInput(f"--json {ns.json}: directory {os.path.dirname(ns.json) or '.'} does not exist")
        gate = run(ns)
    except BadInput as e:
        print(f"coreai-gate: error: {e}", file=sys.stderr)
        return 2
    report, ok = summary(gate, ns)
    if ns.json:
        Path(ns.json).write_text(json.dumps(report, indent=1, default=float) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
