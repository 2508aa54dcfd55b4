#!/usr/bin/env python3
"""Loads an .aimodel in coreai-core's runtime, prints its summary as JSON and,
with --inputs, runs a function and saves its outputs (a state is bound
from the input of its name, and its value after the call saved under it).

    runasset.py ASSET [--function main] [--inputs IN.npz --outputs OUT.npz] [--also OTHER] [--cast-inputs]

Run it in a child process: a file the loader rejects can abort the process
(std::bad_cast, LLVM ERROR). The summary JSON holds is_valid and every field
of AIModelAssetSummary (lists as lists, the rest as strings); with --also,
a second line holds OTHER's (printed before running ASSET).
"""
import argparse
import asyncio
import json
import os
import re
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


def cast_to(v, dtype, name):
    """`v` as `dtype` (--cast-inputs): floats rounded to nearest, integers
    only when every value fits."""
    dtype = np.dtype(dtype)
    if v.dtype == dtype:
        return v
    out = v.astype(dtype)
    if dtype.kind in "iu" and not np.array_equal(out.astype(v.dtype), v):
        raise SystemExit(f"runasset: input {name!r}: a value does not fit {dtype} (--cast-inputs)")
    return out


STATE_TYPE = re.compile(r"(\w+) has an invalid scalar type: \w+, expected: (\w+)")


def described_dtype(desc, name):
    """The dtype the function takes for input or state `name`, or None."""
    try:
        return desc.input_descriptor(name).dtype
    except Exception:  # noqa: BLE001 - not an input the descriptor knows
        return None


async def run(asset, function, inputs, cast_inputs=False):
    from coreai.runtime import NDArray

    async with asset.executable() as model:
        fn = model.load_function(function)
        if asyncio.iscoroutine(fn):
            fn = await fn
        if cast_inputs:
            inputs = {k: cast_to(v, described_dtype(fn.desc, k) or v.dtype, k) for k, v in inputs.items()}
        # A state (a handle argument) is bound with `state=` from the input
        # of its name; its value after the call is an output of that name.
        state_values = {k: inputs[k] for k in fn.desc.state_names if k in inputs}
        feed = {k: NDArray(np.ascontiguousarray(v)) for k, v in inputs.items() if k not in state_values}
        while True:
            states = {k: NDArray(np.ascontiguousarray(v)) for k, v in state_values.items()}
            try:
                out = await fn(inputs=feed, state=states)
                break
            except RuntimeError as e:
                # The descriptor lists no state types: with --cast-inputs a
                # state takes the type the runtime names in its refusal.
                m = STATE_TYPE.search(str(e))
                if not (cast_inputs and m and m.group(1) in state_values
                        and state_values[m.group(1)].dtype != np.dtype(m.group(2))):
                    raise
                state_values[m.group(1)] = cast_to(state_values[m.group(1)], m.group(2), m.group(1))
        return {**{k: v.numpy() for k, v in out.items()}, **{k: v.numpy() for k, v in states.items()}}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("asset")
    p.add_argument("--function", default="main")
    p.add_argument("--inputs")
    p.add_argument("--outputs")
    p.add_argument("--also")
    p.add_argument("--cast-inputs", action="store_true",
                   help="convert each input to its argument's dtype (floats rounded, integers must fit)")
    args = p.parse_args(argv)
    warnings.simplefilter("ignore")
    asset, info = summary(args.asset)
    print(json.dumps(info))
    if args.also:
        print(json.dumps(summary(args.also)[1]), flush=True)
    if args.inputs:
        with np.load(args.inputs) as z:
            inputs = {k: z[k] for k in z.files}
        outputs = asyncio.run(run(asset, args.function, inputs, args.cast_inputs))
        np.savez(args.outputs, **outputs)
    return 0


if __name__ == "__main__":
    # Without finalizing the interpreter: coreai-core's runtime takes the GIL
    # on its own threads after a call, which aborts a finalizing process
    # (coreai_export.llm.exit_without_finalizing says how).
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
