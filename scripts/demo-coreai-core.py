"""The coreai-core half of `make demo`: loads an asset written by
coreai-compile (main.mlirb in coreai-core's versioned `aicode`
serialization, the default `--format aicode`) in coreai-core 1.0.0b3's
runtime as it is, runs `main` and compares the outputs with eager PyTorch's
(expected.npz).

usage: demo-coreai-core.py ASSET INPUTS.npz EXPECTED.npz
"""

import asyncio
import sys
import warnings
from pathlib import Path

import numpy as np


def main(asset_path, inputs, expected):
    warnings.simplefilter("ignore")
    from coreai.authoring.asset import AIModelAsset
    from coreai.runtime import NDArray

    asset = AIModelAsset.load(Path(asset_path))
    print(f"coreai-core: loaded {asset_path}: functions {asset.summary().function_names}, "
          f"compatibility {asset.summary()._compatibility_version}")  # noqa: SLF001
    with np.load(inputs) as z:
        feeds = {k: NDArray(np.ascontiguousarray(z[k])) for k in z.files}

    async def run():
        async with asset.executable() as model:
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
    sys.exit(main(*sys.argv[1:4]))
