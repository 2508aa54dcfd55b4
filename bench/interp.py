#!/usr/bin/env python3
"""Benchmark of the reference executor (coreai-run) against PyTorch eager
(CPU, 2 threads) and coreai-core's interpreter, on the same inputs, in the
same run. Not a test: it reports times and ratios.

    bench/interp.py --model resnet18            # torchvision model through coreai-torch
    bench/interp.py --model transformer         # nn.TransformerEncoderLayer(256, 4), 128 tokens
    bench/interp.py --model tiny                # a small conv+linear model
    bench/interp.py path/to/*.mlir              # any MLIR files (aten or coreai)
    bench/interp.py --model transformer --threads 1   # every runner on one thread

For --model, the model is exported (torch.export + coreai-torch's
decomposition table); the executor runs it at the aten level (imported by
the project's importer, coreai_export) and, after coreai-torch's
conversion, at the coreai level, as does coreai-core's interpreter; PyTorch eager is the baseline. For MLIR files, inputs are
random (seeded) from the entry's signature; coreai-core runs the files whose
entry is a coreai.graph; there is no PyTorch baseline.

A module the executor cannot run yet (an op not in the ODS, a kernel
missing) is reported as such and the benchmark moves on. Use a release build
of coreai-run for meaningful numbers (cargo build --release -p coreai-run).
"""

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
THREADS = 2

NP_OF_MLIR = {
    "f32": np.float32, "f16": np.float16, "f64": np.float64, "bf16": np.float32,
    "i1": np.bool_, "i8": np.int8, "si8": np.int8, "ui8": np.uint8, "i16": np.int16, "si16": np.int16,
    "i32": np.int32, "si32": np.int32, "ui32": np.uint32, "i64": np.int64, "si64": np.int64, "ui64": np.uint64,
}


def coreai_run_binary(explicit):
    if explicit:
        return Path(explicit)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    for profile in ("release", "debug"):
        p = target / profile / "coreai-run"
        if p.exists():
            if profile == "debug":
                print("note: using a debug build of coreai-run; times are not representative", file=sys.stderr)
            return p
    sys.exit("coreai-run is not built: cargo build --release -p coreai-run")


def random_input(type_text, rng):
    m = re.fullmatch(r"tensor<((?:\d+x)*)([a-z0-9]+)(?:,.*)?>", type_text)
    if not m:
        raise ValueError(f"cannot make an input of type {type_text}")
    shape = [int(d) for d in m.group(1).split("x") if d]
    dt = NP_OF_MLIR[m.group(2)]
    if np.dtype(dt).kind == "f":
        return rng.standard_normal(shape).astype(dt)
    if np.dtype(dt).kind == "b":
        return rng.random(shape) < 0.5
    return rng.integers(0, 8, shape).astype(dt)


def time_ours(binary, mlir, inputs, repeat, tmp, extra=()):
    inp = Path(tmp) / f"{Path(mlir).stem}_in.npz"
    out = Path(tmp) / f"{Path(mlir).stem}_out.npz"
    np.savez(inp, **inputs)
    env = dict(os.environ, RAYON_NUM_THREADS=str(THREADS), MATMUL_NUM_THREADS=str(THREADS))
    p = subprocess.run([str(binary), str(mlir), "--inputs", str(inp), "--outputs", str(out), "--bench", str(repeat), *extra],
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "failed"
    m = re.search(r"median ([0-9.]+) ms", p.stderr)
    with np.load(out) as d:
        outputs = {k: d[k] for k in d.files}
    return float(m.group(1)), outputs


def time_coreai_core(text, inputs, repeat, tmp):
    try:
        from coreai._compiler import ir
        from coreai.authoring.asset import AIModelAsset, AIProgram
        from coreai.authoring.context import Context
        from coreai.runtime import NDArray
    except ImportError as e:
        return None, f"coreai-core unavailable: {e}"
    path = Path(tmp) / "bench.aimodel"
    try:
        with Context() as c:
            AIProgram._from_mlir_module(ir.Module.parse(text, c._mlir_context)).save_asset(path)  # noqa: SLF001
    except Exception as e:  # noqa: BLE001
        return None, f"coreai-core rejected the module: {str(e).splitlines()[0]}"

    async def go():
        asset = AIModelAsset.load(path)
        async with asset.executable() as model:
            fn = model.load_function("main")
            if asyncio.iscoroutine(fn):
                fn = await fn
            feed = {k: NDArray(np.ascontiguousarray(v)) for k, v in inputs.items()}
            out = await fn(inputs=feed)
            times = []
            for _ in range(repeat):
                t = time.perf_counter()
                await fn(inputs=feed)
                times.append((time.perf_counter() - t) * 1e3)
            return statistics.median(times), {k: v.numpy() for k, v in out.items()}

    return asyncio.run(go())


def time_torch(model, args, repeat):
    import torch

    torch.set_num_threads(THREADS)
    with torch.no_grad():
        model(*args)
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            out = model(*args)
            times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times), out


def build_model(name):
    import torch

    if name == "resnet18":
        import torchvision

        return torchvision.models.resnet18(weights=None).eval(), (torch.randn(1, 3, 224, 224),)
    if name == "transformer":
        class Block(torch.nn.Module):
            def __init__(self):
                super().__init__()
                torch.manual_seed(0)
                self.layer = torch.nn.TransformerEncoderLayer(256, 4, dim_feedforward=1024, batch_first=True)

            def forward(self, x):
                return self.layer(x)

        return Block().eval(), (torch.randn(1, 128, 256),)
    if name == "tiny":
        class Tiny(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = torch.nn.Conv2d(3, 16, 3, padding=1)
                self.fc = torch.nn.Linear(16, 10)

            def forward(self, x):
                return self.fc(torch.relu(self.conv(x)).mean(dim=(2, 3)))

        return Tiny().eval(), (torch.randn(2, 3, 32, 32),)
    sys.exit(f"unknown model {name}")


def max_err(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b))) if a.shape == b.shape else float("nan")


def report(rows):
    print(f"{'module':<34} {'runner':<22} {'median ms':>10} {'ratio':>8}  note")
    for name, runner, ms, ratio, note in rows:
        ms_s = f"{ms:10.3f}" if ms is not None else f"{'-':>10}"
        r_s = f"{ratio:8.2f}" if ratio is not None else f"{'-':>8}"
        print(f"{name:<34} {runner:<22} {ms_s} {r_s}  {note}")


def bench_model(name, binary, repeat, rows, keep=None):
    import coreai_torch
    import torch

    model, args = build_model(name)
    ep = torch.export.export(model, args).run_decompositions(coreai_torch.get_decomp_table())
    program = coreai_torch.TorchConverter().add_exported_program(ep).to_coreai()
    text = str(program)
    base, ref = time_torch(model, args, repeat)
    ref = ref.numpy()
    rows.append((name, f"pytorch eager ({THREADS} thr)", base, 1.0, "baseline"))
    # The entry's signature; composite graphs may be printed before it.
    signature = text.split("@main(", 1)[1].split(")", 1)[0]
    arg_names = re.findall(r'coreai\.name = "([^"]+)"', signature)
    inputs = {n: a.numpy() for n, a in zip(arg_names, args)}
    with tempfile.TemporaryDirectory() as tmp:
        if keep:
            tmp = keep
            Path(tmp).mkdir(parents=True, exist_ok=True)
        sys.path.insert(0, str(ROOT / "importer"))
        from coreai_export.importer import import_program

        prog = import_program(ep)
        aten_mlir = Path(tmp) / f"{name}_aten.mlir"
        aten_mlir.write_text(prog.text)
        aten_inputs = {n: a.numpy() for n, a in zip(prog.arg_names, args)}
        ms, out = time_ours(binary, aten_mlir, aten_inputs, repeat, tmp)
        note = f"max |err| vs torch {max_err(next(iter(out.values())), ref):.2e}" if ms is not None else out
        rows.append((name, "coreai-run (aten)", ms, ms / base if ms else None, note))
        mlir = Path(tmp) / f"{name}.mlir"
        mlir.write_text(text)
        ms, out = time_ours(binary, mlir, inputs, repeat, tmp)
        note = f"max |err| vs torch {max_err(next(iter(out.values())), ref):.2e}" if ms is not None else out
        rows.append((name, "coreai-run (coreai)", ms, ms / base if ms else None, note))
        ms, out = time_coreai_core(text, inputs, repeat, tmp)
        note = f"max |err| vs torch {max_err(next(iter(out.values())), ref):.2e}" if ms is not None else out
        rows.append((name, "coreai-core interp", ms, ms / base if ms else None, note))


def bench_file(path, binary, repeat, rows):
    text = Path(path).read_text()
    sig = subprocess.run([str(binary), str(path), "--print-signature"], capture_output=True, text=True)
    if sig.returncode != 0:
        rows.append((Path(path).name, "coreai-run", None, None, sig.stderr.strip().splitlines()[-1]))
        return
    rng = np.random.default_rng(0)
    try:
        inputs = {a["name"]: random_input(a["type"], rng) for a in json.loads(sig.stdout)["arguments"]}
    except ValueError as e:
        rows.append((Path(path).name, "coreai-run", None, None, str(e)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        ours, out = time_ours(binary, path, inputs, repeat, tmp)
        rows.append((Path(path).name, "coreai-run", ours, 1.0 if ours else None, "baseline" if ours else out))
        if "coreai.graph @main" in text:
            ms, res = time_coreai_core(text, inputs, repeat, tmp)
            note = res if ms is None else (
                "same outputs" if ours and all(np.allclose(res[k], out[k], equal_nan=True) for k in res) else "outputs differ")
            rows.append((Path(path).name, "coreai-core interp", ms, ms / ours if ms and ours else None, note))


def main():
    global THREADS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", help="MLIR files (aten or coreai)")
    ap.add_argument("--model", action="append", default=[], help="resnet18 or tiny (repeatable)")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2,
                    help="threads of PyTorch and of the executor (RAYON_NUM_THREADS, MATMUL_NUM_THREADS); default 2")
    ap.add_argument("--coreai-run", help="path of the coreai-run binary")
    ap.add_argument("--keep", metavar="DIR", help="write the modules and inputs of --model runs to DIR (for profiling)")
    args = ap.parse_args()
    THREADS = args.threads
    if not args.files and not args.model:
        args.model = ["tiny"]
    binary = coreai_run_binary(args.coreai_run)
    rows = []
    for m in args.model:
        bench_model(m, binary, args.repeat, rows, args.keep)
    for f in args.files:
        bench_file(f, binary, args.repeat, rows)
    report(rows)


if __name__ == "__main__":
    main()
