#!/usr/bin/env python3
"""Compares our aicode writer with coreai-core's conversion of the same IR.

    compare.py IN.mlir [WORKDIR]

Compiles IN with `coreai-compile --compile-to target` (the IR both sides
convert), writes our asset (`--format aicode`) and coreai-core's
(`save_asset` of that IR), decodes both main.mlirb files (every attribute
index replaced by the decoded attribute, so files numbering entries
differently compare equal when their contents are) and prints the first
differing lines, or `same`. Exit 0 when the decoded IR is the same.
"""
import difflib
import io
import re
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
import aicode_codec  # noqa: E402
import mlirbc  # noqa: E402

aicode_codec.install(mlirbc)
COMPILE = REPO / "target" / "debug" / "coreai-compile"

# Properties that are optional (written `idx << 1 | 1`, 0 when absent), by op.
OPTIONAL = {"aicode.serialization.asset": {0, 1}, "aicode.dataflow.graph_v1": {1}}


def decoded_ir(path, locs=False):
    """(IR lines with attributes decoded, resources, dialect names) of an
    aicode bytecode file; with `locs`, every op's and block argument's
    location too."""
    bc = mlirbc.Bytecode(Path(path).read_bytes())
    out = io.StringIO()
    bc.dump_ir(out, show_locs=locs)
    lines, op = [], None
    for line in out.getvalue().splitlines():
        m = re.match(r"\s*(aicode\.[\w.]+) mask", line)
        if m:
            op = m.group(1)
        m = re.match(r"(\s*)props#\d+=varints=\[(.*)\]", line)
        if m:
            values = [int(x) for x in m.group(2).split(",")] if m.group(2).strip() else []
            decoded = [("absent" if v == 0 else bc.attr(v >> 1)) if i in OPTIONAL.get(op, ()) else bc.attr(v)
                       for i, v in enumerate(values)]
            line = m.group(1) + "props=" + " | ".join(decoded)
        lines.append(line)
    resources = [(g, k, bytes(d)) for g, k, _, _, d in bc.resources]
    return "\n".join(lines), resources, [d for d, _ in bc.dialects]


def core_save_asset(text, path):
    from coreai._compiler import ir
    from coreai.authoring.asset import AIProgram
    from coreai.authoring.context import Context

    with Context() as c:
        AIProgram._from_mlir_module(ir.Module.parse(text, c._mlir_context)).save_asset(Path(path))  # noqa: SLF001


def compare(src, work):
    work = Path(work)
    ir = subprocess.run([str(COMPILE), str(src), "--compile-to", "target"], capture_output=True, text=True,
                        check=True).stdout
    ours = work / "ours.aimodel"
    r = subprocess.run([str(COMPILE), str(src), "-o", str(ours), "--format", "aicode"], capture_output=True,
                       text=True)
    if r.returncode:
        return False, r.stderr
    theirs = work / "theirs.aimodel"
    core_save_asset(ir, theirs)
    a, b = decoded_ir(ours / "main.mlirb"), decoded_ir(theirs / "main.mlirb")
    if a == b:
        return True, "same"
    if a[0] != b[0]:
        diff = difflib.unified_diff(b[0].splitlines(), a[0].splitlines(), "coreai-core", "ours", lineterm="", n=3)
        return False, "\n".join(list(diff)[:80])
    return False, f"resources or dialects differ: {[(g, k, len(d)) for g, k, d in a[1]]} vs " \
                  f"{[(g, k, len(d)) for g, k, d in b[1]]}; {a[2]} vs {b[2]}"


def main(argv):
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as tmp:
        same, text = compare(argv[0], argv[1] if len(argv) > 1 else tmp)
    print(text)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


def linear_program(w):
    """coreai IR of one linear layer `y = x @ w` (x: [2, in]) with `w`
    ([in, out], f32) inline: the smallest program a weight pass rewrites."""
    i, o = w.shape
    return f"""module {{
  coreai.graph @main(%x: tensor<2x{i}xf32> {{coreai.name = "x"}}) -> (tensor<2x{o}xf32> {{coreai.name = "y"}}) {{
    %w = coreai.constant dense<"0x{w.tobytes().hex().upper()}"> : tensor<{i}x{o}xf32>
    %0 = coreai.decomposable.broadcasting_batch_matmul %x, %w : (tensor<2x{i}xf32>, tensor<{i}x{o}xf32>) -> tensor<2x{o}xf32>
    coreai.output %0 : tensor<2x{o}xf32>
  }}
}}"""
