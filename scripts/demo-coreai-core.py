"""The coreai-core half of `make demo`: runs the program of an asset written
by coreai-compile in coreai-core 1.0.0b3's runtime and compares the outputs
with eager PyTorch's (expected.npz).

coreai-core's runtime reads only its own versioned serialization of a program
(dialect `aicode`), which coreai-compile does not write yet. So the asset's
main.mlirb is parsed by coreai-core's MLIR, printed without locations (its
serializer rejects the importer's named call-site locations: "location type
not allowed in translateLocation"), re-parsed, saved by coreai-core's
`save_asset`, and that asset is loaded and run.

usage: demo-coreai-core.py ASSET INPUTS.npz EXPECTED.npz WORKDIR
"""

import asyncio
import sys
import warnings
from pathlib import Path

import numpy as np


def main(asset, inputs, expected, work):
    warnings.simplefilter("ignore")
    from coreai._compiler import ir
    from coreai.authoring.asset import AIModelAsset, AIProgram
    from coreai.authoring.context import Context
    from coreai.runtime import NDArray

    resaved = Path(work) / "coreai-core.aimodel"
    with Context() as c:
        text = str(ir.Module.parse((Path(asset) / "main.mlirb").read_bytes(), c._mlir_context))
    with Context() as c:
        module = ir.Module.parse(text, c._mlir_context)
        AIProgram._from_mlir_module(module).save_asset(resaved)  # noqa: SLF001
    with np.load(inputs) as z:
        feeds = {k: NDArray(np.ascontiguousarray(z[k])) for k in z.files}

    async def run():
        async with AIModelAsset.load(resaved).executable() as model:
            fn = model.load_function("main")
            if asyncio.iscoroutine(fn):
                fn = await fn
            out = await fn(inputs=feeds)
            return {k: v.numpy() for k, v in out.items()}

    got = asyncio.run(run())
    ok = True
    with np.load(expected) as z:
        for name in z.files:
            err = float(np.max(np.abs(got[name].astype(np.float64) - z[name].astype(np.float64))))
            good = err <= 1e-5 + 1e-4 * float(np.max(np.abs(z[name])))
            ok &= good
            print(f"coreai-core: {name}: max abs error {err:.3g} {'ok' if good else 'OUT OF TOLERANCE'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
