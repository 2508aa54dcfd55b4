#!/usr/bin/env python3
"""LLM bundles (`coreai_export.llm`) against eager PyTorch, in one run. A
benchmark, not a test (test/e2e/test_llm.py holds the assertions).

    .venv/bin/python bench/llm.py [--families llama,qwen2,...] [--scale 500M] [--json FILE]

Part 1, per family (the zoo's transformers decoders, test/zoo/models.py:
random weights, hidden 64, 2 layers), 8 prompts of 8 tokens, 32 new tokens
each, in coreai-core's runtime (and the first 2 prompts in coreai-run,
which runs slower):
  - `f32`: tokens of the f32 bundle equal to `model.generate(do_sample=False)`
    (no end-of-sequence stop);
  - `f16+int4`: the f16 bundle with int4-block32 weights. `forced vs deq.`:
    teacher-forced greedy choices (the bundle fed eager's tokens, so one
    difference does not cascade) equal to eager's with the dequantized
    weights (test_compression's formula): the compiler's own error.
    `forced vs orig.`: the same against the original model's tokens: what
    4-bit weights cost on these random-weight models, whose logits are
    nearly flat. `free vs orig.`: free-running tokens equal at the same
    position as the original's. `trained`: the same two against the model
    trained first (300 Adam steps on a synthetic language,
    `models.train_peaked`), whose logits are peaked as a deployed model's
    are.

Part 2 (`--scale`): a transformers Llama of that many parameters
(bench/scale.py's configurations, random weights): the wall time and peak
RSS (this process and its children, sampled every 20 ms) of
`convert_causal_lm(precision="f16")`, and greedy decode tokens per second
of the bundle in coreai-run (one `--serve` process per session: the asset
read once) and in coreai-core's runtime, against eager PyTorch with
transformers' DynamicCache on this CPU (torch's default threads).
"""

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "test" / "zoo"))
sys.path.insert(0, str(REPO / "importer"))
sys.path.insert(0, str(REPO / "bench"))

import models  # noqa: E402
from coreai_export import llm  # noqa: E402

FAMILIES = ("llama", "qwen2", "qwen3", "mistral", "gemma2", "gemma3", "phi3", "mixtral", "qwen3_moe")
PROMPTS, NEW = 8, 32
RUN_PROMPTS = 8  # coreai-run keeps one --serve process per session


def greedy(model, prompt, n):
    with torch.no_grad():
        ids = model.generate(torch.tensor([prompt]), attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
                             max_new_tokens=n, do_sample=False, eos_token_id=None)
    return ids[0, len(prompt):].tolist()


def dequantized_model(name):
    sys.path.insert(0, str(REPO / "test" / "e2e"))
    sys.path.insert(0, str(REPO / "test"))
    from test_compression import dequantized

    model = models.build(name)[0].model.eval()
    with torch.no_grad():
        for _, p in model.named_parameters():
            if p.dim() == 2 and p.numel() > 1024:
                p.copy_(torch.from_numpy(dequantized(p.numpy(), 4, 32)))
    return model


def family_row(name, work, compiler):
    model = models.build(name)[0].model.eval()
    prompts = [models.ids(8, seed=s)[0].tolist() for s in range(PROMPTS)]
    original = [greedy(model, p, NEW) for p in prompts]
    f32 = llm.convert_causal_lm(model, work / f"{name}-f32", max_context=64, target="cpu", precision="f32",
                                compiler=compiler)
    q = llm.convert_causal_lm(model, work / f"{name}-int4", max_context=64, target="gpu", precision="f16",
                              compress="int4-block32", compiler=compiler)
    reference = dequantized_model(name)
    deq = [greedy(reference, p, NEW) for p in prompts]
    trained = models.build(name)[0].model
    models.train_peaked(trained, steps=300, seed=1)
    trained_tokens = [greedy(trained, p, NEW) for p in prompts]
    t = llm.convert_causal_lm(trained, work / f"{name}-trained-int4", max_context=64, target="gpu",
                              precision="f16", compress="int4-block32", compiler=compiler)
    row = {"family": name}
    for runtime, count in (("coreai-core", PROMPTS), ("coreai-run", RUN_PROMPTS)):
        equal = forced_deq = forced_orig = free = 0
        for p, want, want_deq in list(zip(prompts, original, deq))[:count]:
            equal += sum(a == b for a, b in zip(llm.generate(f32, p, NEW, runtime), want))
            with llm.Session(q, runtime) as s:
                forced_deq += sum(a == b for a, b in zip(s.follow(p, want_deq), want_deq))
            with llm.Session(q, runtime) as s:
                forced_orig += sum(a == b for a, b in zip(s.follow(p, want), want))
            free += sum(a == b for a, b in zip(llm.generate(q, p, NEW, runtime), want))
        trained_forced = trained_free = 0
        for p, want in list(zip(prompts, trained_tokens))[:count]:
            with llm.Session(t, runtime) as s:
                trained_forced += sum(a == b for a, b in zip(s.follow(p, want), want))
            trained_free += sum(a == b for a, b in zip(llm.generate(t, p, NEW, runtime), want))
        total = count * NEW
        row[runtime] = {"f32 equal": equal / total, "forced vs deq": forced_deq / total,
                        "forced vs orig": forced_orig / total, "free vs orig": free / total,
                        "trained forced": trained_forced / total, "trained free": trained_free / total}
    return row


class PeakRSS:
    """Peak summed RSS of this process and its descendants, sampled."""

    def __init__(self):
        import psutil

        self.me, self.peak, self.stop = psutil.Process(), 0, False

    def __enter__(self):
        def sample():
            while not self.stop:
                try:
                    procs = [self.me, *self.me.children(recursive=True)]
                    self.peak = max(self.peak, sum(p.memory_info().rss for p in procs if p.is_running()))
                except Exception:  # noqa: BLE001 - a child that just ended
                    pass
                time.sleep(0.02)
        self.thread = threading.Thread(target=sample, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop = True
        self.thread.join()


def scale_row(size, work, compiler):
    import scale
    import transformers

    config = scale.config_for(size)
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**config)).eval()
    params = sum(p.numel() for p in model.parameters())
    with PeakRSS() as rss:
        start = time.perf_counter()
        bundle = llm.convert_causal_lm(model, work / "scale", max_context=128, target="gpu", precision="f16",
                                       compiler=compiler)
        seconds = time.perf_counter() - start
    prompt, n = list(range(1, 9)), 8
    rates = {}
    for runtime in ("coreai-run", "coreai-core"):
        with llm.Session(bundle, runtime) as s:
            s.step(prompt)
            start = time.perf_counter()
            for t in range(n):
                s.step([t + 1])
            rates[runtime] = n / (time.perf_counter() - start)
    from transformers.cache_utils import DynamicCache

    cache = DynamicCache(config=model.config)
    with torch.no_grad():
        model(input_ids=torch.tensor([prompt]), cache=cache, use_cache=True)
        start = time.perf_counter()
        for t in range(n):
            model(input_ids=torch.tensor([[t + 1]]), position_ids=torch.tensor([[len(prompt) + t]]), cache=cache,
                  use_cache=True)
        rates["eager"] = n / (time.perf_counter() - start)
    return {"size": size, "parameters": params, "convert seconds": seconds, "peak RSS GB": rss.peak / 1e9,
            "f32 weight GB": params * 4 / 1e9, "decode tokens/s": rates}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--families", default=",".join(FAMILIES))
    p.add_argument("--scale", default="", help="a size for part 2 (e.g. 500M); empty: skip")
    p.add_argument("--compiler", default=str(REPO / "target" / "release" / "coreai-compile"))
    p.add_argument("--json")
    ns = p.parse_args()
    out = {"families": [], "scale": None}
    with tempfile.TemporaryDirectory(prefix="bench-llm-") as tmp:
        work = Path(tmp)
        if ns.families:
            print("| model | runtime | f32 tokens equal | f16+int4 forced vs deq. | forced vs orig. | free vs orig. "
                  "| trained: forced vs orig. | trained: free vs orig. |")
            print("|---|---|---:|---:|---:|---:|---:|---:|")
            for name in ns.families.split(","):
                row = family_row(name, work, ns.compiler)
                out["families"].append(row)
                for runtime in ("coreai-core", "coreai-run"):
                    r = row[runtime]
                    print(f"| {name} | {runtime} | {r['f32 equal']:.1%} | {r['forced vs deq']:.1%} | "
                          f"{r['forced vs orig']:.1%} | {r['free vs orig']:.1%} | {r['trained forced']:.1%} | "
                          f"{r['trained free']:.1%} |", flush=True)
        if ns.scale:
            r = scale_row(ns.scale, work, ns.compiler)
            out["scale"] = r
            rates = r["decode tokens/s"]
            print(f"\n{r['size']} ({r['parameters'] / 1e6:.0f}M parameters, {r['f32 weight GB']:.2f} GB f32): "
                  f"convert_causal_lm f16 {r['convert seconds']:.1f} s, peak RSS {r['peak RSS GB']:.2f} GB; "
                  f"decode tokens/s: coreai-run {rates['coreai-run']:.2f}, coreai-core {rates['coreai-core']:.2f}, "
                  f"eager PyTorch {rates['eager']:.2f}")
    if ns.json:
        Path(ns.json).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
