#!/usr/bin/env python3
"""Chunked prefill on the Neural Engine form (`coreai_export.llm`,
`target="ane"`): a prompt through `prompt_opt` for every chunk but the last
against `extend` for every chunk, in one run. A benchmark, not a test
(test/e2e/test_llm.py holds the assertions).

    .venv/bin/python bench/ane_prefill.py [--size 60M] [--prompt 128] [--chunk 64] [--runs 3] [--runtimes coreai-run,coreai-core]

A transformers Llama of `--size` parameters (bench/scale.py's
configurations, random weights) converted with `target="ane"` (f16,
`max_context` 256, query lengths 1 and `--chunk`). Per runtime (coreai-run,
coreai-core's), the median wall time of feeding the prompt to a new
session after a first turn of a chunk and one token (which loads the
functions): `Session.step(prompt)` (every chunk's logits: `extend` only)
against `Session.step(prompt, last_only=True)` (what `generate` calls:
`prompt_opt` for every chunk but the last). The runs alternate.
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "importer"))
sys.path.insert(0, str(REPO / "bench"))

from coreai_export import llm  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", default="60M")
    p.add_argument("--prompt", type=int, default=128)
    p.add_argument("--chunk", type=int, default=64)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--runtimes", default="coreai-run,coreai-core", help="comma-separated (default both)")
    p.add_argument("--compiler", default=str(REPO / "target" / "release" / "coreai-compile"))
    p.add_argument("--coreai-run", default=str(REPO / "target" / "release" / "coreai-run"))
    args = p.parse_args()
    import scale
    import transformers

    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**scale.config_for(args.size))).eval()
    prompt = [(7 * i) % 1000 + 1 for i in range(args.prompt)]
    with tempfile.TemporaryDirectory(prefix="ane-prefill-") as work:
        start = time.perf_counter()
        bundle = llm.convert_causal_lm(model, Path(work) / "b", max_context=256, target="ane", precision="f16",
                                       compiler=args.compiler, query_lengths=(1, args.chunk))
        print(f"{args.size} Llama, Neural Engine form, f16: converted in {time.perf_counter() - start:.1f} s; "
              f"prompt {args.prompt} tokens in chunks of {args.chunk}")
        print("| runtime | extend for every chunk (s) | prompt_opt but the last (s) | ratio |")
        print("|---|---:|---:|---:|")
        for runtime in args.runtimes.split(","):
            times = {False: [], True: []}
            for _ in range(args.runs):
                for last_only in (False, True):
                    with llm.Session(bundle, runtime, coreai_run=args.coreai_run) as s:
                        # A first turn of a chunk and a token loads every
                        # function the timed turn runs.
                        s.step(prompt[:args.chunk + 1], last_only=last_only)
                        start = time.perf_counter()
                        s.step(prompt, last_only=last_only)
                        times[last_only].append(time.perf_counter() - start)
            full, opt = (statistics.median(times[k]) for k in (False, True))
            print(f"| {runtime} | {full:.2f} | {opt:.2f} | {full / opt:.2f}x |")



if __name__ == "__main__":
    main()
