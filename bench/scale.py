#!/usr/bin/env python3
"""Conversion at scale: Llama-architecture language models of 60M, 250M and
1B parameters (random weights, nothing downloaded) converted to an
.aimodel asset by `coreai_export.convert` ("ours") and by coreai-torch 0.4.3
("coreai-torch"), each flow in a fresh process. A benchmark, not a test.

    .venv/bin/python bench/scale.py [--sizes 60M,250M,1B] [--flows ours,coreai-torch]
        [--precision f32|f16] [--compress SPEC] [--seq 64] [--compiler PATH] [--timing] [--json FILE]
        [--timeout SECONDS] [--tmpdir DIR]

Models: `transformers.LlamaForCausalLM` built from a `LlamaConfig` (untied
embeddings, transformers' default attention), seeded, in eval mode, wrapped
so forward(input_ids) returns the logits alone (use_cache=False), on
input_ids of shape (1, --seq). The sizes 60M, 250M and 1B have fixed
configurations (CONFIGS, within 2% of their name); any other size (`5M`,
`120M`, `3B`) gets one by formula (`config_for`): a width in multiples of
64 and about 64 channels per layer, within 5% of the size.

Each (size, flow) runs in a worker process of its own (this script with the
hidden `--worker` argument), which imports torch and the converter, builds
the model, then times the flow under torch.no_grad:
  - ours: `convert(model, (ids,), out.aimodel, compiler=..., precision=...)`:
    torch.export, the import to MLIR, the coreai-compile process;
  - coreai-torch: `torch.export.export(model, (ids,))
    .run_decompositions(get_decomp_table())`, then
    `TorchConverter(mode=RELEASE).add_exported_program(ep).to_coreai()`
    and `save_asset` (as bench/convert.py and bench/asset.py call it).
    coreai-torch 0.4.3 has no precision option (neither TorchConverter,
    add_exported_program, to_coreai nor AIProgram.save_asset takes one),
    so with `--precision f16` it converts in f32 and its row says so.
Columns: `export` is torch.export.export alone (timed inside the flow; for
ours by wrapping torch.export.export, which convert calls); `total` is the
flow from the start of the export to the written asset (imports and model
construction excluded); `beyond export` is total - export. `tree peak` is
the largest summed RSS of the worker and all its descendants, sampled by
this process every 20 ms (so it includes the model the worker holds, about
4 bytes per parameter, and counts shared pages once per process);
`coreai-compile peak` is the largest RSS sampled of the coreai-compile
child alone; a child forked from the worker without exec (convert runs
the compiler so on Linux: the weights are shared, not handed over in a
file) counts its USS instead of its RSS, in the tree and in this column:
the memory the compiler adds, beside the weights it shares with the
worker (`sample_tree`). `asset` is the size of the written .aimodel directory.
Per size, the ratios ours / coreai-torch of beyond-export time and of tree
peak RSS. Assets go to a temporary directory (`--tmpdir`) removed after
each flow. A flow that fails (an exception, a non-zero exit, killed when
out of memory or after `--timeout`) gives a row with the error's last line;
the run goes on. `--timing` passes timing=True to convert and prints its
report for each size. `--compress SPEC` (a preset such as int4-block32, or a
compression pass) compresses ours (coreai-torch has no compression; run it
with `--flows ours`): the coreai-compile peak is then that of compressing.
`--json FILE` writes the raw numbers.
"""

import argparse
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FLOWS = ("ours", "coreai-torch")
SAMPLE_SECONDS = 0.02
USS_SECONDS = 0.25
THEIR_F16 = "coreai-torch has no f16 option: f32"

# name -> LlamaConfig fields (the named sizes; others come from config_for).
CONFIGS = {
    "60M": dict(vocab_size=32000, hidden_size=512, intermediate_size=1536, num_hidden_layers=8,
                num_attention_heads=8, num_key_value_heads=8),
    "250M": dict(vocab_size=32000, hidden_size=1024, intermediate_size=2816, num_hidden_layers=16,
                 num_attention_heads=16, num_key_value_heads=8),
    "1B": dict(vocab_size=32000, hidden_size=2048, intermediate_size=5632, num_hidden_layers=20,
               num_attention_heads=32, num_key_value_heads=4),
}


def parse_size(text):
    """`60M`, `1B`, `500K`, `1.5B` -> a parameter count."""
    units = {"K": 1e3, "M": 1e6, "B": 1e9, "G": 1e9}
    t = text.strip().upper()
    if t and t[-1] in units:
        return int(float(t[:-1]) * units[t[-1]])
    return int(float(t))


def count_params(c):
    """LlamaForCausalLM's parameter count for the fields `c` (untied
    embeddings, no biases)."""
    h, v, n_layers, inter = c["hidden_size"], c["vocab_size"], c["num_hidden_layers"], c["intermediate_size"]
    kv = h // c["num_attention_heads"] * c["num_key_value_heads"]
    layer = 2 * h * h + 2 * h * kv + 3 * h * inter + 2 * h
    return 2 * v * h + n_layers * layer + h


def config_for(size):
    """The fields of the named size, else by formula: the width (a multiple
    of 64, heads of 64, a quarter as many kv heads from 4 heads on (so a
    multiple of 4 heads from there), an MLP
    of ~8/3 the width) and layer count whose count is within 5% of `size`
    and whose width per layer is closest to 64 (60M's shape)."""
    if size.upper() in CONFIGS:
        return dict(CONFIGS[size.upper()])
    n = parse_size(size)
    vocab = 32000 if n >= 40e6 else 4096
    best = None
    for h in range(64, 16384 + 1, 64):
        heads = h // 64
        if heads >= 4 and heads % 4:
            continue  # a quarter as many kv heads must divide the heads
        c = dict(vocab_size=vocab, hidden_size=h, intermediate_size=max(64, round(8 * h / 3 / 64) * 64),
                 num_hidden_layers=1, num_attention_heads=heads,
                 num_key_value_heads=heads // 4 if heads >= 4 else heads)
        fixed = count_params({**c, "num_hidden_layers": 0})
        layer = count_params(c) - fixed
        c["num_hidden_layers"] = round((n - fixed) / layer)
        if c["num_hidden_layers"] < 1:
            continue
        err = abs(count_params(c) - n) / n
        if err > 0.05:
            continue
        score = abs(math.log(h / c["num_hidden_layers"] / 64)) + err
        if best is None or score < best[0]:
            best = (score, c)
    if best is None:
        raise SystemExit(f"no Llama configuration within 5% of {size}")
    return best[1]


def default_compiler():
    for profile in ("release", "debug"):
        path = REPO / "target" / profile / "coreai-compile"
        if path.exists():
            return str(path)
    return None


def dir_bytes(path):
    path = Path(path)
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


# ---------------------------------------------------------------- the worker


def worker(spec):
    """Runs one flow as `spec` says and writes its numbers to spec["result"]."""
    import io
    import resource
    import warnings
    from contextlib import nullcontext, redirect_stderr, redirect_stdout

    import psutil
    import torch
    import transformers

    sys.path.insert(0, str(REPO / "importer"))
    flow = spec["flow"]
    if flow == "ours":
        from coreai_export import convert
    else:
        from coreai_torch import TorchConverter, get_decomp_table

    class LogitsOnly(torch.nn.Module):
        """forward(input_ids) -> logits (use_cache=False)."""

        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, input_ids):
            return self.model(input_ids=input_ids, use_cache=False).logits

    torch.manual_seed(0)
    cfg = transformers.LlamaConfig(**spec["config"], max_position_embeddings=max(2048, spec["seq"]),
                                   tie_word_embeddings=False)
    model = LogitsOnly(transformers.LlamaForCausalLM(cfg)).eval()
    ids = torch.randint(0, cfg.vocab_size, (1, spec["seq"]), generator=torch.Generator().manual_seed(0))
    result = {"params": sum(p.numel() for p in model.parameters()),
              "model_rss": psutil.Process().memory_info().rss}

    export_seconds = []
    real_export = torch.export.export

    def timed_export(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return real_export(*args, **kwargs)
        finally:
            export_seconds.append(time.perf_counter() - t0)

    torch.export.export = timed_export
    out = Path(spec["out"])
    report = io.StringIO()
    try:
        with torch.no_grad():
            t0 = time.perf_counter()
            if flow == "ours":
                with redirect_stderr(report) if spec["timing"] else nullcontext():
                    convert(model, (ids,), out, precision=spec["precision"], compiler=spec["compiler"],
                            timing=spec["timing"], compress=spec.get("compress"))
            else:
                with warnings.catch_warnings(), redirect_stdout(io.StringIO()):
                    warnings.simplefilter("ignore")
                    ep = torch.export.export(model, (ids,)).run_decompositions(get_decomp_table())
                    program = TorchConverter(mode=TorchConverter.Mode.RELEASE).add_exported_program(ep).to_coreai()
                    program.save_asset(out)
            result["total"] = time.perf_counter() - t0
    except Exception as e:  # the flow's own message is the result
        lines = [line.strip() for line in str(e).splitlines() if line.strip()]
        result["error"] = f"{type(e).__name__}: {lines[-1]}" if lines else f"{type(e).__name__} (no message)"
    result["export"] = sum(export_seconds)
    result["asset_bytes"] = dir_bytes(out)
    result["timing_report"] = report.getvalue()
    # The kernel's high-water mark of this process alone (KiB on Linux), a
    # check on the sampled figures. (RUSAGE_CHILDREN's is no measure of
    # coreai-compile: a child forked from this process keeps its parent's
    # high-water mark across exec.)
    result["worker_maxrss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    Path(spec["result"]).write_text(json.dumps(result))
    sys.exit(1 if "error" in result else 0)


# ---------------------------------------------------------------- the parent


def sample_tree(proc, compiler_name, timeout):
    """Waits for `proc`, sampling its process tree's memory; (tree peak,
    coreai-compile peak, timed out). A process counts its RSS, except a
    child forked from the worker without exec (the compiler of the memory
    hand-off, coreai_export/inprocess.py), which shares the worker's pages:
    it counts its USS (the memory it has alone; the weights it reads are the
    worker's, counted there), read at most every USS_SECONDS (reading it
    walks the page tables: 60 ms for 4 GB of 4 KiB pages)."""
    import psutil

    root = psutil.Process(proc.pid)
    tree_peak = compile_peak = 0
    uss = {}  # forked compiler pid -> (time read, USS)
    start = time.monotonic()
    while proc.poll() is None:
        try:
            procs = [root] + root.children(recursive=True)
        except psutil.NoSuchProcess:
            break
        total = 0
        for p in procs:
            try:
                compiler = p is not root and p.name() == compiler_name
                # A child forked from the worker without exec (the compiler
                # before it renames itself, too) shares the worker's pages.
                if p is not root and p.ppid() == root.pid and p.exe() == root.exe():
                    read, size = uss.get(p.pid, (None, 0))
                    if read is None or time.monotonic() - read >= USS_SECONDS:
                        size = p.memory_full_info().uss
                        uss[p.pid] = (time.monotonic(), size)
                else:
                    size = p.memory_info().rss
                total += size
                if compiler:
                    compile_peak = max(compile_peak, size)
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                pass
        tree_peak = max(tree_peak, total)
        if timeout and time.monotonic() - start > timeout:
            os.killpg(proc.pid, signal.SIGKILL)  # the worker's own group (start_new_session)
            proc.wait()
            return tree_peak, compile_peak, True
        time.sleep(SAMPLE_SECONDS)
    return tree_peak, compile_peak, False


def last_line(path):
    try:
        lines = [line.strip() for line in Path(path).read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return lines[-1] if lines else ""


def run_flow(size, config, flow, ns):
    """One flow in a fresh worker process; its row as a dict."""
    row = {"size": size, "flow": flow, "config": config, "params": count_params(config),
           "precision": ns.precision if flow == "ours" else "f32"}
    if flow == "coreai-torch" and ns.precision != "f32":
        row["note"] = THEIR_F16
    with tempfile.TemporaryDirectory(prefix="scale-", dir=ns.tmpdir) as tmp:
        spec = {"flow": flow, "config": config, "seq": ns.seq, "precision": ns.precision,
                "compiler": ns.compiler, "timing": ns.timing, "compress": ns.compress,
                "out": str(Path(tmp) / "out.aimodel"),
                "result": str(Path(tmp) / "result.json")}
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(REPO / "importer")] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
        stderr_path = Path(tmp) / "stderr"
        t0 = time.perf_counter()
        with open(stderr_path, "w") as err, open(Path(tmp) / "stdout", "w") as out:
            proc = subprocess.Popen([sys.executable, __file__, "--worker", json.dumps(spec)], stdout=out,
                                    stderr=err, env=env, start_new_session=True)
            try:
                tree_peak, compile_peak, timed_out = sample_tree(proc, Path(ns.compiler or "coreai-compile").name[:15],
                                                                 ns.timeout)
            except BaseException:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                raise
        row["process_seconds"] = time.perf_counter() - t0
        row["tree_peak_rss"] = tree_peak
        if flow == "ours":
            row["compile_peak_rss"] = compile_peak
        result_path = Path(spec["result"])
        if result_path.exists():
            row.update(json.loads(result_path.read_text()))
        if "error" not in row and (timed_out or proc.returncode != 0 or "total" not in row):
            if timed_out:
                row["error"] = f"killed after --timeout {ns.timeout:g} s"
            elif proc.returncode < 0:
                name = signal.Signals(-proc.returncode).name
                row["error"] = f"killed by {name}" + (" (out of memory?)" if name == "SIGKILL" else "")
            else:
                row["error"] = last_line(stderr_path) or f"exit status {proc.returncode}"
    if "total" in row and "error" not in row:
        row["beyond_export"] = row["total"] - row["export"]
    return row


def fmt(value, scale=1.0, digits=2):
    return "-" if value is None else f"{value / scale:.{digits}f}"


def print_table(rows, sizes):
    gb, mb = 1e9, 1e6
    print("| size | flow | params | weights f32 MB | export s | total s | beyond export s | tree peak RSS GB "
          "| coreai-compile peak RSS GB | asset MB | note |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        failed = "error" in r
        note = "; ".join(x for x in (r.get("note"), r.get("error") and f"failed: {r['error']}") if x)
        print(f"| {r['size']} | {r['flow']} | {r['params']:,} | {fmt(r['params'] * 4, mb, 1)} "
              f"| {fmt(None if failed else r.get('export'), 1, 3)} | {fmt(r.get('total'), 1, 3)} "
              f"| {fmt(r.get('beyond_export'), 1, 3)} | {fmt(r.get('tree_peak_rss'), gb)} "
              f"| {fmt(r.get('compile_peak_rss') or None, gb) if r['flow'] == 'ours' else ''} "
              f"| {fmt(None if failed else r.get('asset_bytes'), mb, 1)} | {note} |")
    ratios = []
    for size in sizes:
        by = {r["flow"]: r for r in rows if r["size"] == size}
        ours, theirs = by.get("ours"), by.get("coreai-torch")
        if not ours or not theirs:
            continue
        time_ratio = (fmt(ours["beyond_export"] / theirs["beyond_export"])
                      if "beyond_export" in ours and theirs.get("beyond_export") else "-")
        rss_ratio = (fmt(ours["tree_peak_rss"] / theirs["tree_peak_rss"])
                     if "error" not in ours and "error" not in theirs and theirs["tree_peak_rss"] else "-")
        ratios.append(f"| {size} | {time_ratio} | {rss_ratio} |")
    if ratios:
        print()
        print("| size | beyond export: ours / coreai-torch | tree peak RSS: ours / coreai-torch |")
        print("|---|---|---|")
        print("\n".join(ratios))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="60M,250M,1B", help="60M, 250M, 1B, or any size by formula (5M, 120M)")
    ap.add_argument("--flows", default=",".join(FLOWS), help="ours, coreai-torch, or both (comma-separated)")
    ap.add_argument("--precision", default="f32", choices=["f32", "f16"])
    ap.add_argument("--compress", default=None, help="compress ours: a preset or a compression pass")
    ap.add_argument("--seq", type=int, default=64, help="input_ids length (batch 1)")
    ap.add_argument("--compiler", default=None, help="coreai-compile; default: target/release, else target/debug")
    ap.add_argument("--timing", action="store_true", help="convert(timing=True) for ours; prints its report")
    ap.add_argument("--json", default=None, help="write the raw numbers to this file")
    ap.add_argument("--timeout", type=float, default=None, help="kill a flow after this many seconds")
    ap.add_argument("--tmpdir", default=None, help="where the assets are written (and removed)")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ns = ap.parse_args()
    if ns.worker is not None:
        worker(json.loads(ns.worker))
        return
    ns.compiler = os.path.abspath(ns.compiler) if ns.compiler else default_compiler()
    flows = [f.strip() for f in ns.flows.split(",") if f.strip()]
    for f in flows:
        if f not in FLOWS:
            ap.error(f"unknown flow {f!r}; use {', '.join(FLOWS)}")
    sizes = [s.strip() for s in ns.sizes.split(",") if s.strip()]
    configs = {s: config_for(s) for s in sizes}
    if ns.compress and "coreai-torch" in flows:
        ap.error("--compress is for ours only (coreai-torch has no compression): add --flows ours")
    print(f"coreai-compile: {ns.compiler}; precision {ns.precision}; compress {ns.compress}; "
          f"input_ids (1, {ns.seq}); "
          f"load average {os.getloadavg()[0]:.1f}")
    for s, c in configs.items():
        print(f"  {s}: {count_params(c):,} parameters: " + ", ".join(f"{k}={v}" for k, v in c.items()))
    print()
    rows = []
    for s in sizes:
        for f in flows:
            print(f"running {s} {f} ...", file=sys.stderr, flush=True)
            row = run_flow(s, configs[s], f, ns)
            rows.append(row)
            if "error" in row:
                print(f"  {s} {f} failed: {row['error']}", file=sys.stderr, flush=True)
    print_table(rows, sizes)
    if ns.timing:
        for r in rows:
            if r.get("timing_report"):
                print(f"\nconvert(timing=True), {r['size']}:\n")
                print(r["timing_report"].rstrip())
    if ns.json:
        Path(ns.json).write_text(json.dumps({"compiler": ns.compiler, "precision": ns.precision, "seq": ns.seq,
                                             "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
