#!/usr/bin/env python3
"""coreai-run per call: a process per call (the asset read each time)
against requests to one `coreai-run --serve` process (read once), the same
call in one run. A benchmark, not a test (test/coreai-run/serve.mlir holds
the assertions).

    .venv/bin/python bench/coreai_run_serve.py [--model llama] [--calls 20] [--coreai-run PATH]

The call: one decode step (`extend_64_1`) of the zoo model's Neural Engine
LLM bundle (test/zoo/models.py: random weights, hidden 64, 2 layers),
built in a temporary directory.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "test"))
sys.path.insert(0, str(REPO / "importer"))


def main():
    warnings.simplefilter("ignore")
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="llama")
    p.add_argument("--calls", type=int, default=20)
    p.add_argument("--coreai-run", default=str(REPO / "target" / "debug" / "coreai-run"))
    args = p.parse_args()
    import toolchain
    from coreai_export import llm, llm_ane

    model = toolchain.zoo().build(args.model)[0].model.eval()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        bundle = llm.convert_causal_lm(model, tmp / "bundle", max_context=64, target="ane",
                                       compiler=str(Path(args.coreai_run).with_name("coreai-compile")))
        meta = json.loads((bundle / "metadata.json").read_text())
        shape = meta["neural_engine"]["cache_shape"]
        tables = np.load(bundle / "rope.npz")
        t = 3
        feed = {"input_ids": np.array([[5]]), "position_ids": np.array([[t]]),
                "causal_mask": llm_ane.causal_mask(t, 1, 64),
                "key_cache": np.zeros(shape, np.float16), "value_cache": np.zeros(shape, np.float16),
                **{n: llm_ane.rows(tables[n], t, 1) for n in tables.files}}
        request, out = tmp / "in.npz", tmp / "out.npz"
        np.savez(request, **feed)
        asset = str(bundle / "model.aimodel")
        start = time.perf_counter()
        for _ in range(args.calls):
            subprocess.run([args.coreai_run, asset, "--entry", "extend_64_1", "--cast-inputs", "--inputs",
                            str(request), "--outputs", str(out)], check=True, capture_output=True)
        each = (time.perf_counter() - start) / args.calls
        server = subprocess.Popen([args.coreai_run, asset, "--serve", "--cast-inputs"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        start = time.perf_counter()
        for _ in range(args.calls):
            server.stdin.write(f"extend_64_1\t{request}\t{out}\n")
            server.stdin.flush()
            assert server.stdout.readline().strip() == "ok"
        served = (time.perf_counter() - start) / args.calls
        server.stdin.close()
        server.wait()
    print(f"{args.model}: {args.calls} decode calls: a process each {each * 1e3:.1f} ms per call, "
          f"one --serve process {served * 1e3:.1f} ms per call ({each / served:.1f}x)")


if __name__ == "__main__":
    main()
