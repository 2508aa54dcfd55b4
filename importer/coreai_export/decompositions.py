"""The three decomposition settings of the importer, and the fallback of
the `none` setting.

`coreai` is coreai-torch 0.4.3's `get_decomp_table()`: torch.export's
default decompositions minus the twelve composites it lowers whole
(coreai_torch/_decomp.py `_COMPOSITE_OPS`). The list is repeated here so
that importing a model does not need coreai-torch; test/e2e checks it
against the installed coreai-torch.

`none` imports the exported graph as is, and the compiler's `decompose`
pass does the rest in Rust. An ATen op the compiler has neither a
decomposition nor a lowering for (`coreai-compile --print-aten-support`)
but PyTorch can decompose is decomposed here instead, with PyTorch's own
decomposition, and reported as a remark on stderr: the default never
refuses an op PyTorch can decompose (`fallback_decompositions`).
"""

import functools
import subprocess
import sys

import torch

# coreai_torch/_decomp.py `_COMPOSITE_OPS`, in its order.
PRESERVED_OPS = (
    "hardsigmoid.default",
    "hardswish.default",
    "instance_norm.default",
    "pixel_shuffle.default",
    "reflection_pad1d.default",
    "reflection_pad2d.default",
    "reflection_pad3d.default",
    "replication_pad1d.default",
    "replication_pad2d.default",
    "replication_pad3d.default",
    "scaled_dot_product_attention.default",
    "silu.default",
)

SETTINGS = ("coreai", "default", "none")


def decomposition_table(setting: str) -> dict:
    """The table `ExportedProgram.run_decompositions` gets for `setting`."""
    if setting == "none":
        return {}
    table = torch.export.default_decompositions()
    if setting == "default":
        return table
    if setting != "coreai":
        raise ValueError(f"unknown decomposition setting {setting!r}; use one of {', '.join(SETTINGS)}")
    for key in PRESERVED_OPS:
        name, overload = key.split(".")
        table.pop(getattr(getattr(torch.ops.aten, name), overload), None)
    return table


@functools.lru_cache(maxsize=None)
def compiler_support(compiler):
    """The ATen overloads (`name.overload`) `compiler` decomposes or lowers
    (`coreai-compile --print-aten-support`); None when it cannot say."""
    try:
        r = subprocess.run([compiler, "--print-aten-support"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if r.returncode != 0:
        return None
    return frozenset(line.split("\t")[0] for line in r.stdout.splitlines() if line.strip())


def _aten_calls(ep):
    """Every ATen OpOverload call of the program, nested graphs (cond and
    while_loop bodies) included: (op, node) in graph order."""
    for module in ep.graph_module.modules():
        graph = getattr(module, "graph", None)
        if graph is None:
            continue
        for node in graph.nodes:
            if node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload) \
                    and node.target.namespace == "aten":
                yield node.target, node


def _key(op):
    return f"{op._opname}.{op._overloadname}"


def imports_as_exported(ep, supported):
    """Whether `ep`, torch.export's training IR, can be imported without
    `run_decompositions({})` (which retraces the whole program: 2 s for a
    250M-parameter Llama): every call is an ATen op the compiler lowers
    (`supported`) that mutates nothing, or a plain Python function
    (`operator.getitem`, SymInt arithmetic); no other library's op and no
    higher-order op (control flow, grad-mode regions), whose forms
    run_decompositions normalizes. Functional ATen ops mean the same
    before and after the retrace, so either program is the model."""
    for node in ep.graph.nodes:
        if node.op != "call_function":
            continue
        target = node.target
        if isinstance(target, torch._ops.OpOverload):
            if target.namespace != "aten" or _key(target) not in supported or target._schema.is_mutable:
                return False
        elif isinstance(target, torch._ops.OperatorBase) or getattr(target, "__module__", "").startswith("torch"):
            return False
    return True


def _where(node):
    """`file:line` of the user code that called the op, from its stack trace."""
    trace = node.meta.get("stack_trace") or ""
    for line in reversed(trace.strip().splitlines()):
        line = line.strip()
        if line.startswith('File "'):
            parts = line.split('"')
            rest = parts[2] if len(parts) > 2 else ""
            lineno = rest.split("line ")[1].split(",")[0] if "line " in rest else "0"
            return f"{parts[1]}:{lineno}"
    return node.name


def fallback_decompositions(ep, supported, report=sys.stderr):
    """Decomposes, with PyTorch's own decompositions, every ATen op of `ep`
    that is not in `supported` (the compiler's `--print-aten-support` keys)
    and that PyTorch can decompose, until none is left (the decompositions
    may emit such ops again). One remark per op on `report`. Ops without a
    PyTorch decomposition stay: the compiler names them."""
    table = torch.export.default_decompositions()
    done = set()
    for _ in range(8):
        todo = {}
        for op, node in _aten_calls(ep):
            if _key(op) not in supported and op in table and op not in todo:
                todo[op] = node
        if not todo:
            return ep
        for op, node in sorted(todo.items(), key=lambda kv: _key(kv[0])):
            if op not in done:
                report.write(f"{_where(node)}: remark: aten.{_key(op)} has no decomposition or lowering in the "
                             "compiler; it is decomposed at import with PyTorch's decomposition\n")
                done.add(op)
        ep = ep.run_decompositions({op: table[op] for op in todo})
    return ep
