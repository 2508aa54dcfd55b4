#!/usr/bin/env python3
"""Loads an .aimodel in coreai-core's runtime, prints its summary as JSON and,
with --inputs, runs a function and saves its outputs (a state is bound
from the input of its name, and its value after the call saved under it).

    runasset.py ASSET [--function main] [--inputs IN.npz --outputs OUT.npz] [--also OTHER]

Run it in a child process: a file the loader rejects can abort the process
(std::bad_cast, LLVM ERROR). The summary JSON holds is_valid and every field
of AIModelAssetSummary (lists as lists, the rest as strings); with --also,
a second line holds OTHER's (printed before running ASSET).
"""
import argparse
import asyncio
import json
import sys
import warnings

import numpy as np


def summary(path):
    from coreai.authoring.asset import AIModelAsset

    asset = AIModelAsset.load(path)
    s = asset.summary()
    out = {"is_valid": bool(AIModelAsset.is_valid(path))}
    for key in ("_compatibility_version", "function_names", "compute_types", "storage_types",
                "operation_distribution"):
        v = getattr(s, key, None)
        out[key] = [str(x) for x in v] if isinstance(v, (list, tuple)) else (None if v is None else str(v))
    return asset, out


async def run(asset, function, inputs):
    from coreai.runtime import NDArray

    async with asset.executable() as model:
        fn = model.load_function(function)
        if asyncio.iscoroutine(fn):
            fn = await fn
        # A state (a handle argument) is bound with `state=` from the input
        # of its name; its value after the call is an output of that name.
        states = {k: NDArray(np.ascontiguousarray(inputs[k])) for k in fn.desc.state_names if k in inputs}
        feed = {k: NDArray(np.ascontiguousarray(v)) for k, v in inputs.items() if k not in states}
        out = await fn(inputs=feed, state=states)
        return {**{k: v.numpy() for k, v in out.items()}, **{k: v.numpy() for k, v in states.items()}}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("asset")
    p.add_argument("--function", default="main")
    p.add_argument("--inputs")
    p.add_argument("--outputs")
    p.add_argument("--also")
    args = p.parse_args(argv)
    warnings.simplefilter("ignore")
    asset, info = summary(args.asset)
    print(json.dumps(info))
    if args.also:
        print(json.dumps(summary(args.also)[1]), flush=True)
    if args.inputs:
        with np.load(args.inputs) as z:
            inputs = {k: z[k] for k in z.files}
        outputs = asyncio.run(run(asset, args.function, inputs))
        np.savez(args.outputs, **outputs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
