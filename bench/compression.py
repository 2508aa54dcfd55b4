#!/usr/bin/env python3
"""Weight compression: our `quantize-weights`, `palettize-weights` and
`sparsify-weights` against Apple's coreai-opt 0.3.0 `quantize_weights`,
`palettize_weights` and `sparsify_weights` (one k-means worker: with its
default 4 forked workers it deadlocked here),
on the same coreai IR, in one run. A benchmark, not a test.

    .venv/bin/python bench/compression.py [--size 60M] [--opt PATH] [--repeat N] [--json FILE]

The IR is coreai-torch 0.4.3's `to_coreai()` of a `transformers` Llama of
`--size` parameters (bench/scale.py's configurations; random weights,
nothing downloaded), written once as text and once as bytecode (by
`coreai-opt --emit-bytecode`, outside the timings). For each preset:
  - Apple: `quantize_weights(program, ...)` in this process on the
    AIProgram (its default `in_place=False` copies the program first; the
    copy is part of what a user pays);
  - ours: `coreai-opt --pass-pipeline='builtin.module(quantize-weights{...})'`
    (release build), twice: on the text file with `--mlir-timing`, for the
    pass alone on weights in memory (as Apple's are); and on the bytecode
    file, writing bytecode, for the whole process (its weights stay in the
    mapped file until the pass reads them) and its peak RSS against the
    f32 weight bytes. The text run's output is what is checked.
Quantized outputs are checked equal weight by weight (codes, scales, zero
points), sparsified ones too (sparse types, kept values, masks), palettized
ones by their error: the sum over weights of the squared reconstruction
error, ours against Apple's.
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "test"))
sys.path.insert(0, str(REPO / "test" / "e2e"))

PRESETS = [
    ("int8", "quantize-weights{dtype=int8 granularity=per-channel}",
     dict(dtype="int8", granularity="per_channel")),
    ("int4-block32", "quantize-weights{dtype=int4 granularity=per-block block-size=32}",
     dict(dtype="int4", granularity="per_block", block_size=32)),
    ("palettize4", "palettize-weights{n-bits=4}", dict(n_bits=4, granularity="per_tensor")),
    ("palettize4-group32", "palettize-weights{n-bits=4 granularity=per-grouped-channel group-size=32}",
     dict(n_bits=4, granularity="per_grouped_channel", group_size=32)),
    ("sparse50", "sparsify-weights{target-sparsity=0.5}", dict(target_sparsity=0.5)),
    ("sparse-2:4", "sparsify-weights{n-m=2:4}", dict(target_sparsity=None, n_m_ratio=(2, 4))),
]


def main():
    warnings.simplefilter("ignore")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="60M")
    ap.add_argument("--opt", default=str(REPO / "target" / "release" / "coreai-opt"))
    ap.add_argument("--repeat", type=int, default=1, help="time each side this many times, keep the best")
    ap.add_argument("--json")
    ns = ap.parse_args()

    import torch
    import transformers
    import coreai_torch
    from scale import config_for
    from coreai_opt.coreai_utils import CompressionGranularity, DType, palettize_weights, quantize_weights
    from coreai_opt.coreai_utils.passes.weight_sparsification import sparsify_weights
    from test_compression import compressed_weights, palettized_weights, same_bits, sparse_weights

    torch.manual_seed(0)
    cfg = transformers.LlamaConfig(**config_for(ns.size), max_position_embeddings=2048, tie_word_embeddings=False)

    from toolchain import zoo

    model = zoo().Logits(transformers.LlamaForCausalLM(cfg)).eval()
    params = sum(p.numel() for p in model.parameters())
    ids = torch.randint(0, cfg.vocab_size, (1, 16))
    with torch.no_grad():
        ep = torch.export.export(model, (ids,)).run_decompositions(coreai_torch.get_decomp_table())
    program = coreai_torch.TorchConverter(mode=coreai_torch.TorchConverter.Mode.RELEASE) \
        .add_exported_program(ep).to_coreai()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        text = Path(tmp) / "llama.mlir"
        text.write_text(str(program._module._mlir_module))  # noqa: SLF001
        src = Path(tmp) / "llama.mlirb"
        subprocess.run([ns.opt, str(text), "--emit-bytecode", "-o", str(src)], check=True)
        for name, ours_pass, apple_options in PRESETS:
            kw = dict(apple_options)
            palettize, sparsify = "n_bits" in kw, "target_sparsity" in kw
            if not sparsify:
                kw["granularity"] = CompressionGranularity(kw["granularity"])
            # Each side's best of --repeat runs (this machine's timings vary
            # by up to 2x between runs).
            apple_s = math.inf
            for _ in range(ns.repeat):
                t = time.perf_counter()
                if sparsify:
                    apple = sparsify_weights(program, **kw)
                elif palettize:
                    apple = palettize_weights(program, lut_dtype=None, num_kmeans_workers=1, **kw)
                else:
                    kw["dtype"] = DType(kw["dtype"])
                    apple = quantize_weights(program, **kw)
                apple_s = min(apple_s, time.perf_counter() - t)
            # The pass on weights in memory (parsed from the text), as
            # Apple's passes run on an AIProgram's.
            out = Path(tmp) / f"{name}.mlir"
            pass_name = ours_pass.split("{")[0]
            pass_s = math.inf
            for _ in range(ns.repeat):
                r = subprocess.run([ns.opt, str(text), "-o", str(out), "--mlir-timing",
                                    f"--pass-pipeline=builtin.module({ours_pass})"], capture_output=True, text=True)
                if r.returncode:
                    raise SystemExit(r.stderr)
                m = re.search(r"([0-9.]+) \(\s*[0-9.]+%\)\s+" + pass_name, r.stderr)
                pass_s = min(pass_s, float(m.group(1)) if m else math.nan)
            # The whole process, file to file.
            outb = Path(tmp) / f"{name}.mlirb"
            process_s, peak_kb = math.inf, 0
            for _ in range(ns.repeat):
                t = time.perf_counter()
                r = subprocess.run(["/usr/bin/time", "-f", "%M", ns.opt, str(src), "-o", str(outb), "--emit-bytecode",
                                    "--mlir-timing", f"--pass-pipeline=builtin.module({ours_pass})"],
                                   capture_output=True, text=True)
                process_s = min(process_s, time.perf_counter() - t)
                if r.returncode:
                    raise SystemExit(r.stderr)
                peak_kb = max(peak_kb, int(r.stderr.strip().splitlines()[-1]))
            outb.unlink()
            from coreai._compiler import ir
            from coreai.authoring.context import Context
            with Context() as c:
                module = ir.Module.parse(out.read_text(), c._mlir_context).operation  # noqa: SLF001
                if sparsify:
                    theirs = sparse_weights(apple._module._mlir_module.operation)  # noqa: SLF001
                    ours = sparse_weights(module)
                    equal = len(ours) == len(theirs) and all(
                        a[0] == b[0] and same_bits(b[1], a[1]) and np.array_equal(a[2], b[2])
                        for a, b in zip(theirs, ours))
                    check = "same values and masks" if equal else "DIFFERENT values"
                elif palettize:
                    theirs = palettized_weights(apple._module._mlir_module.operation)  # noqa: SLF001
                    ours = palettized_weights(module)
                    apple_sse = sum(((o - d) ** 2).sum() for o, d in theirs)
                    our_sse = sum(((o - d) ** 2).sum() for (o, _), (_, d) in zip(theirs, ours))
                    check = f"error {our_sse / apple_sse:.3f}x Apple's"
                else:
                    theirs = compressed_weights(apple._module._mlir_module.operation)  # noqa: SLF001
                    ours = compressed_weights(module)
                    equal = len(ours) == len(theirs) and all(
                        a[0] == b[0] and all(same_bits(y, x) for x, y in zip(a[1:], b[1:]))
                        for a, b in zip(theirs, ours))
                    check = "same values" if equal else "DIFFERENT values"
            out.unlink()
            rows.append(dict(preset=name, weights=len(ours), apple_s=apple_s, ours_pass_s=pass_s,
                             ours_process_s=process_s, ours_peak_gb=peak_kb / 2**20,
                             weights_gb=params * 4 / 2**30, check=check))
    print(f"Llama {ns.size}: {params / 1e6:.1f}M parameters ({params * 4 / 2**30:.2f} GiB f32)")
    print("| preset | weights | Apple | ours: pass / process | speed-up (pass, process) | "
          "our peak RSS | check |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for r in rows:
        print(f"| {r['preset']} | {r['weights']} | {r['apple_s']:.2f} s | {r['ours_pass_s']:.2f} s / "
              f"{r['ours_process_s']:.2f} s | {r['apple_s'] / r['ours_pass_s']:.1f}x, "
              f"{r['apple_s'] / r['ours_process_s']:.1f}x | {r['ours_peak_gb']:.2f} GiB "
              f"({r['ours_peak_gb'] / r['weights_gb']:.2f}x f32 weights) | {r['check']} |")
    if ns.json:
        Path(ns.json).write_text(json.dumps(dict(size=ns.size, params=params, rows=rows), indent=1))


if __name__ == "__main__":
    main()
