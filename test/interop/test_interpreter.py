"""coreai-core's interpreter gives bit-identical outputs for a golden module
and for coreai-opt's printing of it, on the same random inputs (normal
samples scaled by 12, so they straddle zero and exceed 10 in magnitude).

A golden whose original coreai-core cannot run (state handles, dynamic
shapes, ops its interpreter lacks) is reported as skipped with the reason.
"""
import asyncio
import glob
import os
import pathlib
import re
import subprocess
import sys
import tempfile

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPT = os.path.join(os.environ.get("COREAI_BUILD_DIR", os.path.join(REPO, "target", "debug")), "coreai-opt")
# Hand-built goldens exercise syntax, not numerics; coreai-core's interpreter
# aborts the process on some of them (handbuilt_reduce_scatter), so only the
# coreai-torch goldens run here.
GOLDEN = sorted(p for p in glob.glob(os.path.join(REPO, "test", "golden", "*.mlir"))
                if not os.path.basename(p).startswith("handbuilt_"))
DTYPES = {"f32": np.float32, "f16": np.float16, "si32": np.int32, "si64": np.int64, "i1": np.bool_}


def _inputs(text, seed=0):
    rng = np.random.default_rng(seed)
    sig = re.search(r"coreai.graph @main\((.*?)\) ->", text)
    if not sig:
        return None
    inputs = {}
    for arg in re.finditer(r"%\w+: ([^{]+?) \{[^}]*coreai.name = \"(\w+)\"", sig.group(1)):
        ty, name = arg.groups()
        m = re.fullmatch(r"tensor<((?:\d+x)*)(\w+)>", ty.strip())
        if not m or m.group(2) not in DTYPES:
            return None
        dims = [int(d) for d in m.group(1).split("x") if d]
        dt = DTYPES[m.group(2)]
        if dt is np.bool_:
            inputs[name] = rng.standard_normal(dims) > 0
        elif np.issubdtype(dt, np.integer):
            inputs[name] = rng.integers(0, 3, dims).astype(dt)
        else:
            inputs[name] = (rng.standard_normal(dims) * 12).astype(dt)
    return inputs


async def _run(text, inputs, path):
    from coreai._compiler import ir
    from coreai.authoring.asset import AIModelAsset, AIProgram
    from coreai.authoring.context import Context
    from coreai.runtime import NDArray

    with Context() as c:
        AIProgram._from_mlir_module(ir.Module.parse(text, c._mlir_context)).save_asset(path)
    async with AIModelAsset.load(path).executable() as ex:
        fn = ex.load_function("main")
        out = await fn(inputs={k: NDArray(v) for k, v in inputs.items()})
    return {k: v.numpy() for k, v in out.items()}


def check(path):
    """Returns None when identical, or a skip reason; raises on a mismatch."""
    original = open(path).read()
    inputs = _inputs(original)
    if inputs is None:
        return "main takes non-tensor or unsupported inputs"
    ours = subprocess.run([OPT, path], check=True, capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory() as d:
        try:
            a = asyncio.run(_run(original, inputs, pathlib.Path(d) / "golden.aimodel"))
        except Exception as e:
            return f"coreai-core cannot run the golden: {str(e).splitlines()[0][:120]}"
        b = asyncio.run(_run(ours, inputs, pathlib.Path(d) / "ours.aimodel"))
    assert a.keys() == b.keys()
    for k in a:
        x, y = a[k], b[k]
        assert x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes(), f"output {k} differs"
    return None


def test_interpreter_outputs_identical():
    for path in GOLDEN:
        check(path)


if __name__ == "__main__":
    failed = 0
    for path in GOLDEN:
        name = os.path.basename(path)
        try:
            reason = check(path)
            print(f"{'SKIP' if reason else 'PASS'} {name}{': ' + reason if reason else ''}")
        except Exception as e:
            failed += 1
            print(f"FAIL {name}: {e}")
    sys.exit(1 if failed else 0)
