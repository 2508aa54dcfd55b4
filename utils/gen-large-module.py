#!/usr/bin/env python3
"""Writes a large MLIR module for determinism tests and benchmarks.

  gen-large-module.py --ops N [--dialect upstream|coreai] [-o FILE]

`upstream` uses only func and arith (so mlir-opt-22 parses it too); `coreai`
mixes aten ops in func.func and coreai ops in coreai.graph. Functions hold 50
ops each; the output is the same for the same arguments.
"""

import argparse
import sys

OPS_PER_FUNC = 50


def upstream_func(i: int, n: int) -> str:
    lines = [f"func.func @f{i}(%a: i32, %b: i32) -> i32 {{"]
    prev = "%a"
    for k in range(n - 1):
        op = ("arith.addi", "arith.muli", "arith.xori", "arith.subi")[k % 4]
        lines.append(f"  %v{k} = {op} {prev}, %b : i32")
        prev = f"%v{k}"
    lines.append(f"  return {prev} : i32")
    lines.append("}")
    return "\n".join(lines)


def coreai_funcs(i: int, n: int) -> str:
    t = "tensor<4x8xf32>"
    lines = [f"func.func @f{i}(%a: {t}) -> {t} {{"]
    prev = "%a"
    for k in range(n - 1):
        if k % 3 == 2:
            lines.append(f"  %v{k} = aten.add.Tensor {prev}, %a {{alpha = 1 : i64}} : ({t}, {t}) -> {t}")
        else:
            lines.append(f"  %v{k} = aten.relu.default {prev} : ({t}) -> {t}")
        prev = f"%v{k}"
    lines.append(f"  return {prev} : {t}")
    lines.append("}")
    lines.append(f"coreai.graph @g{i}(%x: {t} {{coreai.name = \"x\"}}) -> ({t} {{coreai.name = \"y\"}}) {{")
    prev = "%x"
    for k in range(n - 1):
        if k % 3 == 2:
            lines.append(f"  %w{k} = coreai.decomposable.broadcasting_add {prev}, %x : ({t}, {t}) -> {t}")
        else:
            lines.append(f"  %w{k} = coreai.abs {prev} : {t} -> {t}")
        prev = f"%w{k}"
    lines.append(f"  coreai.output {prev} : {t}")
    lines.append("}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, required=True)
    parser.add_argument("--dialect", choices=["upstream", "coreai"], default="upstream")
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args()
    funcs = max(1, args.ops // OPS_PER_FUNC)
    if args.dialect == "upstream":
        body = [upstream_func(i, OPS_PER_FUNC) for i in range(funcs)]
    else:
        body = [coreai_funcs(i, OPS_PER_FUNC // 2) for i in range(funcs)]
    text = "\n".join(body) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
