"""Seeds the fuzz corpora from the project's tests (run from the repo root,
after `cargo build`): fuzz/corpus/parse_bytecode gets every test module that
coreai-opt reads, as bytecode without its magic number; fuzz/corpus/run_module
gets every test module with a `@main` whose arguments are static tensors,
packed with `.npz` inputs of matching dtype and shape; fuzz/corpus/read_asset
gets the `main.mlirb` (without its magic number) of the asset coreai-compile
writes for every test module it compiles; fuzz/corpus/weights_file gets
safetensors files for the module of fuzz_targets/weights_file.rs.
parse_text and pipeline read test/ directly (see docs/fuzzing.md).

usage: .venv/bin/python fuzz/seed.py [BUILD_DIR]"""

import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "target", "debug")
DTYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i64": np.int64,
          "si64": np.int64, "i32": np.int32, "si32": np.int32, "i1": np.bool_,
          "i8": np.int8, "si8": np.int8, "ui8": np.uint8}


def modules():
    for root, _, files in os.walk(os.path.join(REPO, "test")):
        for name in sorted(files):
            path = os.path.join(root, name)
            if name.endswith(".mlir") and "// -----" not in open(path, errors="replace").read():
                yield path


def array(type_text):
    m = re.fullmatch(r"tensor<((?:\d+x)*)(\w+)>", type_text)
    if not m or m.group(2) not in DTYPES:
        return None
    shape = [int(d) for d in m.group(1).split("x") if d]
    rng = np.random.default_rng(len(type_text))
    return (rng.standard_normal(shape) * 3).astype(DTYPES[m.group(2)])


# The module of fuzz_targets/weights_file.rs: key -> (element bytes, count).
WEIGHTS_MODULE = {"a": (4, 6), "b": (8, 4), "c": (1, 3), "d": (2, 5), "e": (8, 2), "f": (4, 0)}


def weights_seeds(out):
    """Files that fit the weights_file module, and a few that almost do."""
    sys.path.insert(0, os.path.join(REPO, "importer"))
    from coreai_export.importer import write_safetensors

    blobs = [(k, w, bytes(range(n * w))) for k, (w, n) in WEIGHTS_MODULE.items()]
    seeds = {"valid": blobs,
             "missing-key": [b for b in blobs if b[0] != "c"],
             "short-blob": [(k, w, d[:-1] if k == "b" else d) for k, w, d in blobs]}
    for name, resources in seeds.items():
        write_safetensors(os.path.join(out, name + ".st"), resources)
    return len(seeds)


def main():
    out_bc = os.path.join(REPO, "fuzz", "corpus", "parse_bytecode")
    out_run = os.path.join(REPO, "fuzz", "corpus", "run_module")
    out_asset = os.path.join(REPO, "fuzz", "corpus", "read_asset")
    out_weights = os.path.join(REPO, "fuzz", "corpus", "weights_file")
    for d in (out_bc, out_run, out_asset, out_weights):
        os.makedirs(d, exist_ok=True)
    n_weights = weights_seeds(out_weights)
    n_bc = n_run = n_asset = 0
    work = tempfile.mkdtemp()
    for path in modules():
        stem = os.path.relpath(path, REPO).replace(os.sep, "_")
        asset = os.path.join(work, stem + ".aimodel")
        r = subprocess.run([os.path.join(BUILD, "coreai-compile"), path, "-o", asset], capture_output=True)
        if r.returncode == 0:
            with open(os.path.join(asset, "main.mlirb"), "rb") as f:
                open(os.path.join(out_asset, stem + ".bc"), "wb").write(f.read()[4:])
            n_asset += 1
        r = subprocess.run([os.path.join(BUILD, "coreai-opt"), path, "--emit-bytecode"],
                           capture_output=True)
        if r.returncode == 0:
            open(os.path.join(out_bc, stem + ".bc"), "wb").write(r.stdout[4:])
            n_bc += 1
        r = subprocess.run([os.path.join(BUILD, "coreai-run"), path, "--print-signature"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            continue
        args = json.loads(r.stdout)["arguments"]
        arrays = {a["name"]: array(a["type"]) for a in args}
        if any(v is None for v in arrays.values()):
            continue
        npz = io.BytesIO()
        np.savez(npz, **arrays)
        text = open(path, "rb").read()
        open(os.path.join(out_run, stem + ".run"), "wb").write(
            struct.pack("<I", len(text)) + text + npz.getvalue())
        n_run += 1
    shutil.rmtree(work)
    print(f"parse_bytecode: {n_bc} seeds, run_module: {n_run} seeds, read_asset: {n_asset} seeds, "
          f"weights_file: {n_weights} seeds")


if __name__ == "__main__":
    main()
