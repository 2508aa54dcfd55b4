"""ExportedProgram -> aten-dialect MLIR text.

One `func.func` whose arguments are the user inputs followed by the mutated
buffers (states), and whose results are the user outputs followed by the
states' new values; every argument and result carries `coreai.name`.
Parameters, constant buffers and lifted constants become
`arith.constant dense_resource<...>` whose bytes sit in the module's
`dialect_resources` section (hex, with the 4-byte little-endian alignment
prefix MLIR's text form requires), or, written with
`ImportedProgram.write(path, weights=True)`, in a safetensors file beside it
that the module's `coreai.weights` attribute names (no hex to write and lex).

Each FX node becomes one op named after its target: a generated
`aten.<name>.<overload>` when the dialect defines that overload and every
SymInt argument is a concrete integer, `aten.cond`/`aten.while_loop` for the
higher-order ops, `aten.<operator>` for Python operators on symbolic sizes,
and `aten.operator "ns::name.overload"` for anything else. `getitem` emits
nothing: it names one result of a multi-result op.

Locations: the innermost frames of the node's `stack_trace` as a callsite
chain, named with the `nn_module_stack` path of the module that ran it.
"""

import functools
import json
import math
import operator
import os
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.fx

from . import metal, progress
from ._aten_ops import OPS

DTYPES = {
    torch.float32: "f32",
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.float64: "f64",
    torch.int64: "i64",
    torch.int32: "i32",
    torch.int16: "i16",
    torch.int8: "i8",
    torch.uint8: "ui8",
    torch.bool: "i1",
    torch.complex64: "complex<f32>",
    torch.complex128: "complex<f64>",
}

# dtypes that only appear as arguments (coreai-torch's compression ops take
# `input_dtype=torch.int4`): sub-byte integers and float8, as MLIR types.
DTYPE_ARGS = {
    **DTYPES,
    **{getattr(torch, f"int{n}"): f"si{n}" for n in range(1, 8)},
    **{getattr(torch, f"uint{n}"): f"ui{n}" for n in range(1, 8)},
    torch.float8_e4m3fn: "f8E4M3FN",
    torch.float8_e5m2: "f8E5M2",
    torch.float8_e8m0fnu: "f8E8M0FNU",
}

# Python operators torch.export records on symbolic values; the dialect
# defines `aten.<name>` for each (dialects/aten/AtenStructuralOps.td).
PY_BINARY = {
    "add", "sub", "mul", "floordiv", "truediv", "mod", "pow",
    "eq", "ne", "lt", "le", "gt", "ge", "sym_min", "sym_max",
}
PY_UNARY = {"neg", "ceil", "floor", "trunc", "round", "sym_float", "sym_int", "sym_not", "sym_sqrt"}


class ImportError_(Exception):
    """The graph has something the importer cannot represent."""


def mlir_type_of(val) -> str:
    if isinstance(val, torch.Tensor):
        if val.dtype not in DTYPES:
            raise ImportError_(f"dtype {val.dtype} has no MLIR element type here")
        dims = []
        for s in val.shape:
            dims.append(str(int(s)) if isinstance(s, int) or _is_concrete(s) else "?")
        return "tensor<" + "".join(d + "x" for d in dims) + DTYPES[val.dtype] + ">"
    if isinstance(val, (torch.SymBool, bool)):
        return "i1"
    if isinstance(val, (torch.SymInt, int)):
        return "i64"
    if isinstance(val, (torch.SymFloat, float)):
        return "f64"
    raise ImportError_(f"value {type(val).__name__} has no MLIR type here")


def _is_concrete(s) -> bool:
    if isinstance(s, torch.SymInt):
        try:
            return s.node.is_constant() or s.node.maybe_as_int() is not None
        except AttributeError:
            return False
    return True


def _concrete_int(v):
    """An int for a Python int or a constant SymInt, else None."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    if isinstance(v, torch.SymInt):
        m = v.node.maybe_as_int()
        return int(m) if m is not None else None
    return None


def f64(x: float) -> str:
    return float_attr(x, "f64")


def float_attr(x: float, ty: str) -> str:
    """A float attribute of type `ty` (f64 or f32): decimal, hex bits for NaN
    and the infinities."""
    if math.isnan(x) or math.isinf(x):
        bits = np.float64(x).view(np.uint64) if ty == "f64" else np.float32(x).view(np.uint32)
        return "0x" + bits.item().to_bytes(bits.nbytes, "big").hex().upper() + f" : {ty}"
    r = repr(float(x))
    mant, e, exp = r.partition("e")
    if "." not in mant:
        mant += ".0"
    return mant + e + exp + f" : {ty}"


def mlir_str(s: str) -> str:
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 32 or ord(ch) > 126:
            out.append("".join(f"\\{b:02X}" for b in ch.encode()))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def torch_enum_name(v) -> str:
    """torch.strided -> strided, torch.contiguous_format -> contiguous_format."""
    return str(v).split(".")[-1] if not isinstance(v, torch.device) else str(v)


def _scalar_attr(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return f"{v} : i64"
    if isinstance(v, float):
        return f64(v)
    raise ImportError_(f"{v!r} is not a Python scalar")


class NotTyped(Exception):
    """The node cannot use the typed op (a symbolic value in an attribute
    slot, or a value of an unexpected kind); it becomes aten.operator."""


def attr_for(kind: str, v) -> str:
    """The attribute text of schema type `kind` holding Python value `v`."""
    base, is_list = kind.removesuffix("[]"), kind.endswith("[]")
    if is_list:
        if isinstance(v, (int, float)) and not isinstance(v, bool) and base in ("int", "SymInt"):
            v = [v]  # int[1] accepts a bare int
        if not isinstance(v, (list, tuple)):
            raise NotTyped()
        if base in ("int", "SymInt"):
            ints = [_concrete_int(x) for x in v]
            if any(i is None for i in ints):
                raise NotTyped()
            return "[" + ", ".join(str(i) for i in ints) + "]"
        if base == "float":
            return "[" + ", ".join(f64(float(x)) for x in v) + "]"
        if base == "bool":
            return "array<i1" + (": " + ", ".join("true" if x else "false" for x in v) if v else "") + ">"
        if base in ("str", "Dimname"):
            return "[" + ", ".join(mlir_str(str(x)) for x in v) + "]"
        if base == "Scalar":
            return "[" + ", ".join(_scalar_attr(x) for x in v) + "]"
        raise NotTyped()
    if base == "Scalar":
        if isinstance(v, (torch.SymInt, torch.SymFloat, torch.SymBool, torch.fx.Node)):
            raise NotTyped()
        return _scalar_attr(v)
    if base in ("int", "SymInt"):
        i = _concrete_int(v)
        if i is None:
            raise NotTyped()
        return f"{i} : i64"
    if base in ("float",):
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise NotTyped()
        return f64(float(v))
    if base in ("bool", "SymBool"):
        if not isinstance(v, bool):
            raise NotTyped()
        return "true" if v else "false"
    if base in ("str", "Dimname"):
        return mlir_str(str(v))
    if base == "ScalarType":
        if v not in DTYPES:
            raise NotTyped()
        return DTYPES[v]
    if base in ("Layout", "MemoryFormat", "Device"):
        return mlir_str(torch_enum_name(v))
    if base == "Generator":
        raise NotTyped()  # only None is representable, and None is omitted
    raise NotTyped()


def generic_attr(v):
    """Best-effort attribute for aten.operator; None when not representable."""
    if v is None:
        return None
    if isinstance(v, (bool, int, float)):
        return _scalar_attr(v)
    if isinstance(v, str):
        return mlir_str(v)
    if isinstance(v, torch.dtype):
        if v not in DTYPE_ARGS:
            raise ImportError_(f"the dtype argument {v} has no MLIR type here")
        return DTYPE_ARGS[v]
    if isinstance(v, (torch.layout, torch.memory_format, torch.device)):
        return mlir_str(torch_enum_name(v))
    if isinstance(v, (list, tuple)):
        items = [generic_attr(x) for x in v]
        if any(i is None for i in items):
            return None
        return "[" + ", ".join(items) + "]"
    return None


def resource_name(fqn: str, used: set) -> str:
    name = re.sub(r"[^A-Za-z0-9_.]", "_", fqn)
    if not re.match(r"[A-Za-z_]", name):
        name = "_" + name
    base, i = name, 1
    while name in used:
        name = f"{base}_{i}"
        i += 1
    used.add(name)
    return name


def tensor_bytes(t: torch.Tensor) -> memoryview:
    """The bytes of `t`, as a view of its storage when it is contiguous on
    the CPU (a weight is not copied on its way to the weights file)."""
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    if t.is_complex():
        t = torch.view_as_real(t)
    return memoryview(t.reshape(-1).numpy()).cast("B")


# --------------------------------------------------------------- locations

_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def location(node: torch.fx.Node) -> str:
    frames = _FRAME.findall(node.meta.get("stack_trace") or "")
    # Innermost last in a Python traceback; keep the user's frames (not torch's).
    # FX's generated code (`<eval_with_key>.N`) is neither: its numbering
    # depends on how many graphs the process compiled before.
    user = [
        f
        for f in frames
        if f"{os.sep}torch{os.sep}" not in f[0] and not f[0].startswith(("torch/", "<eval_with_key>"))
    ]
    user = user[-3:]
    if user:
        loc = None
        for path, line, _fn in user:  # outermost first
            here = f"{mlir_str(path)}:{line}:0"
            loc = here if loc is None else f"callsite({here} at {loc})"
    else:
        loc = f"{mlir_str(node.name)}"
        return f"loc({loc})"
    stack = node.meta.get("nn_module_stack") or {}
    path = ""
    if stack:
        path = list(stack.values())[-1][0]
        path = re.sub(r"^L\['self'\]\.?", "", path)
        if path.startswith("_empty"):
            path = ""
    name = (path + ":" if path else "") + node.name
    return f"loc({mlir_str(name)}({loc}))"


# ----------------------------------------------------------------- import


@dataclass
class ImportedProgram:
    """An imported module: `body` is its text after the opening `module {`
    line, without the weights, which `resources` holds as (name, alignment,
    bytes: a memoryview of the tensor's storage)."""

    body: str
    arg_names: list
    result_names: list
    stats: dict = field(default_factory=dict)
    resources: list = field(default_factory=list)

    def __getstate__(self):
        """Pickled with its weights as bytes (a memoryview of a tensor's
        storage does not pickle)."""
        state = dict(self.__dict__)
        state["resources"] = [(name, align, bytes(data)) for name, align, data in self.resources]
        return state

    @functools.cached_property
    def text(self) -> str:
        """The module, weights included as hex (self-contained)."""
        return "module {\n" + self.body + hex_resources(self.resources)

    def write(self, path, weights: bool = False, weights_file: bool = True):
        """Writes the module to `path`; with `weights`, the weights go to the
        safetensors file `path` with suffix `.safetensors` instead of hex
        (`coreai.weights` names it, relative to `path`), whose path it
        returns (None without). `weights_file=False` names that file but
        does not write it: for a compiler given the weights as memory."""
        path = Path(path)
        if not (weights and self.resources):
            path.write_text(self.text)
            return None
        side = path.with_suffix(".safetensors")
        if weights_file:
            write_safetensors(side, self.resources)
        path.write_text(f"module attributes {{coreai.weights = {mlir_str(side.name)}}} {{\n" + self.body)
        return side


def hex_resources(resources) -> str:
    """The `dialect_resources` section of `resources`, or nothing."""
    if not resources:
        return ""
    parts = ["", "{-#", "  dialect_resources: {", "    builtin: {"]
    for i, (name, align, data) in enumerate(resources):
        sep = "," if i + 1 < len(resources) else ""
        parts.append(f'      {name}: "0x{align.to_bytes(4, "little").hex()}{data.hex()}"{sep}')
    parts += ["    }", "  }", "#-}", ""]
    return "\n".join(parts)


def write_safetensors(path, resources) -> None:
    """`resources` as a safetensors file: each blob a U8 tensor of its bytes
    under its resource name (the module's types say what they are)."""
    header, offset = {}, 0
    for name, _, data in resources:
        header[name] = {"dtype": "U8", "shape": [len(data)], "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
    head = json.dumps(header, separators=(",", ":")).encode()
    head += b" " * (-len(head) % 8)  # the data starts 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(head)))
        f.write(head)
        for _, _, data in resources:
            f.write(data)


class _Emitter:
    def __init__(self, ep, entry, functions=None, parent=None):
        self.ep = ep
        self.entry = entry
        # Externalized call sites: FX node name -> externalize.Function.
        self.functions = functions or {}
        self.site_constants = {}  # parameter FQN -> (SSA ref, type) in the entry
        # One resource table per module: a function's emitter shares its parent's.
        self.resources = parent.resources if parent else []  # (name, alignment, bytes)
        self.used_resources = parent.used_resources if parent else set()
        self.stats = {"typed": 0, "generic": 0, "python": 0, "hop": 0}
        self.generic_targets = set()
        # Regions are numbered in emission order so that their argument
        # names are unique in the enclosing scope and the same on every run.
        self.n_regions = 0

    # values ------------------------------------------------------------
    def ref(self, env, n):
        if not isinstance(n, torch.fx.Node):
            raise ImportError_(f"expected a graph value, got {n!r}")
        return env[n]

    def val_type(self, n):
        return mlir_type_of(n.meta["val"])

    # constants ---------------------------------------------------------
    def constant(self, lines, name, fqn, t, indent):
        t = t.detach()
        if isinstance(t, torch.nn.Parameter):
            t = t.data
        rname = resource_name(fqn, self.used_resources)
        self.resources.append((rname, max(t.element_size(), 1), tensor_bytes(t)))
        ty = mlir_type_of(t)
        lines.append(f"{indent}%{name} = arith.constant dense_resource<{rname}> : {ty} loc({mlir_str(fqn)})")

    # graph -------------------------------------------------------------
    def graph_body(self, gm, env, lines, indent, terminator):
        dropped = runtime_checks(gm) | getattr(self, "metal_dispatch", set())
        for node in gm.graph.nodes:
            if node.op == "placeholder" or node in dropped:
                continue
            if node.op == "get_attr":
                obj = getattr(gm, node.target)
                if isinstance(obj, torch.Tensor):
                    self.constant(lines, self.ssa(node), node.target, obj, indent)
                    env[node] = "%" + self.ssa(node)
                else:
                    env[node] = obj  # a subgraph for cond / while_loop
                continue
            if node.op == "output":
                outs = node.args[0]
                outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
                return terminator(outs)
            if node.op == "call_function":
                self.call(node, env, lines, indent)
                continue
            raise ImportError_(f"node {node.name}: unsupported FX op {node.op}")

    def ssa(self, node):
        return self.ssa_text(node.name)

    def ssa_text(self, name):
        return re.sub(r"[^A-Za-z0-9_$.]", "_", name)

    def result_decl(self, node, count):
        name = self.ssa(node)
        if count == 1:
            return f"%{name}", [f"%{name}"]
        return f"%{name}:{count}", [f"%{name}#{i}" for i in range(count)]

    def results_of(self, node):
        val = node.meta.get("val")
        if isinstance(val, (list, tuple)):
            return [v for v in val]
        if val is None:
            return []
        return [val]

    def bind(self, node, env, refs, vals):
        if len(refs) == 1 and not isinstance(node.meta.get("val"), (list, tuple)):
            env[node] = refs[0]
        else:
            env[node] = refs

    def call(self, node, env, lines, indent):
        target = node.target
        loc = location(node)
        if target is operator.getitem:
            src, idx = node.args
            env[node] = env[src][idx]
            return
        if node.name in self.functions:
            return self.call_site(node, self.functions[node.name], env, lines, indent, loc)
        if isinstance(target, torch._ops.HigherOrderOperator):
            self.stats["hop"] += 1
            if target.name() == "cond":
                return self.cond(node, env, lines, indent, loc)
            if target.name() == "while_loop":
                return self.while_loop(node, env, lines, indent, loc)
        if isinstance(target, torch._ops.OpOverload):
            ns = target.namespace
            key = f"{target._opname}.{target._overloadname}"
            if ns == metal.NAMESPACE:
                return self.metal_kernel(node, f"{ns}::{key}", env, lines, indent, loc)
            if ns == "aten" and key in OPS:
                try:
                    return self.typed(node, key, env, lines, indent, loc)
                except NotTyped:
                    pass
            return self.generic(node, f"{ns}::{key}", env, lines, indent, loc)
        name = getattr(target, "__name__", None)
        args = node.args
        if name == "round" and len(args) == 2 and args[1] is None:
            args = args[:1]  # round(x, None) is round(x): an int, half to even
        if name in PY_BINARY | PY_UNARY and len(args) == (2 if name in PY_BINARY else 1) and not node.kwargs:
            self.stats["python"] += 1
            operands = [self.operand_value(a, lines, indent) for a in args]
            types = [t for _, t in operands]
            res_ty = mlir_type_of(node.meta["val"])
            decl, refs = self.result_decl(node, 1)
            lines.append(
                f"{indent}{decl} = aten.{name} {', '.join(r for r, _ in operands)} : "
                f"({', '.join(types)}) -> {res_ty} {loc}"
            )
            env[node] = refs[0]
            return
        qual = getattr(target, "__module__", "") or ""
        qual = (qual.replace("_operator", "operator") + "::" if qual else "") + str(name or target)
        return self.generic(node, qual, env, lines, indent, loc)

    def operand_value(self, a, lines, indent, env=None):
        """(ssa ref, type) for a node or a Python scalar (materialized)."""
        env = env if env is not None else self.env
        if isinstance(a, torch.fx.Node):
            return env[a], mlir_type_of(a.meta["val"])
        self.n_cst = getattr(self, "n_cst", 0) + 1
        tmp = f"%cst_{self.n_cst}"
        if isinstance(a, bool):
            lines.append(f"{indent}{tmp} = arith.constant {'true' if a else 'false'}")
            return tmp, "i1"
        if isinstance(a, int):
            lines.append(f"{indent}{tmp} = arith.constant {a} : i64")
            return tmp, "i64"
        if isinstance(a, float):
            lines.append(f"{indent}{tmp} = arith.constant {f64(a)}")
            return tmp, "f64"
        raise ImportError_(f"operand {a!r} has no MLIR form")

    def wrapped_number(self, v, lines, indent):
        """A Python scalar in a Tensor slot (torch.export writes `x * 2.5` as
        mul.Tensor(x, 2.5)): a 0-d f64/i64/i1 constant marked
        `aten.wrapped_number`, which is how ATen itself wraps it, so type
        promotion treats it as a scalar, not as a tensor operand."""
        if isinstance(v, bool):
            lit, ty = ("true" if v else "false"), "tensor<i1>"
        elif isinstance(v, int):
            lit, ty = str(v), "tensor<i64>"
        elif isinstance(v, float):
            lit, ty = f64(v).removesuffix(" : f64"), "tensor<f64>"
        else:
            raise NotTyped()
        self.n_cst = getattr(self, "n_cst", 0) + 1
        ref = f"%scalar_{self.n_cst}"
        lines.append(f"{indent}{ref} = arith.constant {{aten.wrapped_number}} dense<{lit}> : {ty}")
        return ref, ty

    def typed(self, node, key, env, lines, indent, loc):
        sig, has_segments = OPS[key]
        schema = node.target._schema
        bound = {}
        for i, a in enumerate(node.args):
            bound[schema.arguments[i].name] = a
        bound.update(node.kwargs)
        operands, types, attrs, segments = [], [], [], []
        for sname, oname, kind, optional in sig:
            default = next((a.default_value for a in schema.arguments if a.name == sname), None)
            has_default = next((a.has_default_value() for a in schema.arguments if a.name == sname), False)
            if sname in bound:
                v = bound[sname]
            elif has_default:
                v = default
            elif optional:
                v = None
            else:
                raise ImportError_(f"node {node.name}: {key} misses argument {sname}")
            if kind == "Tensor":
                if not isinstance(v, torch.fx.Node):
                    ref, ty = self.wrapped_number(v, lines, indent)
                    operands.append(ref)
                    types.append(ty)
                    segments.append(1)
                    continue
                if not isinstance(v.meta.get("val"), torch.Tensor):
                    # A symbolic size (`x * (x.shape[0] / 2)`): ATen wraps
                    # it like a Python number; the typed op needs a tensor,
                    # the generic op takes the scalar as it is.
                    raise NotTyped()
                operands.append(env[v])
                types.append(mlir_type_of(v.meta["val"]))
                segments.append(1)
            elif kind == "Tensor?":
                if v is None:
                    segments.append(0)
                else:
                    if not isinstance(v, torch.fx.Node):
                        raise NotTyped()
                    operands.append(env[v])
                    types.append(mlir_type_of(v.meta["val"]))
                    segments.append(1)
            elif kind in ("Tensor[]", "Tensor?[]"):
                present = []
                n = 0
                for x in v:
                    if x is None:
                        present.append("false")
                        continue
                    if not isinstance(x, torch.fx.Node):
                        raise NotTyped()
                    present.append("true")
                    operands.append(env[x])
                    types.append(mlir_type_of(x.meta["val"]))
                    n += 1
                segments.append(n)
                if kind == "Tensor?[]":
                    attrs.append(f"{oname}_present = array<i1" + (": " + ", ".join(present) if present else "") + ">")
            else:
                if v is None:
                    if not optional:
                        raise NotTyped()
                    continue
                if isinstance(v, torch.fx.Node):
                    raise NotTyped()
                attrs.append(f"{oname} = {attr_for(kind, v)}")
        if has_segments:
            attrs.append("operandSegmentSizes = array<i32: " + ", ".join(str(s) for s in segments) + ">")
        res = self.results_of(node)
        res_types = [mlir_type_of(v) for v in res]
        self.stats["typed"] += 1
        self.emit(node, f"aten.{key}", operands, types, attrs, res_types, env, lines, indent, loc, generic_name=None)

    def emit(self, node, opname, operands, types, attrs, res_types, env, lines, indent, loc, generic_name):
        head = ""
        if res_types:
            decl, refs = self.result_decl(node, len(res_types))
            head = decl + " = "
            if isinstance(node.meta.get("val"), (list, tuple)):
                env[node] = refs
            else:
                env[node] = refs[0]
        ad = (" {" + ", ".join(attrs) + "}") if attrs else ""
        rt = res_types[0] if len(res_types) == 1 else "(" + ", ".join(res_types) + ")"
        if generic_name is not None:
            lines.append(
                f"{indent}{head}aten.operator {mlir_str(generic_name)}({', '.join(operands)}){ad} : "
                f"({', '.join(types)}) -> {rt} {loc}"
            )
        else:
            ops = (" " + ", ".join(operands)) if operands else ""
            lines.append(f"{indent}{head}{opname}{ops}{ad} : ({', '.join(types)}) -> {rt} {loc}")

    def generic(self, node, qual, env, lines, indent, loc):
        """aten.operator: graph values (and every element of a list holding
        one, constants materialized) are operands; `operand_groups` gives how
        many operands each such argument took, `operand_args` its name. The
        other arguments are attributes under their schema names."""
        self.stats["generic"] += 1
        self.generic_targets.add(qual)
        operands, types, attrs, groups, group_names = [], [], [], [], []
        try:
            schema = node.target._schema.arguments
        except AttributeError:
            schema = []
        names = [a.name for a in schema] or [f"arg{i}" for i in range(len(node.args))]
        items = list(zip(names, node.args)) + list(node.kwargs.items())
        # Defaulted arguments the node leaves out (`alpha = 1`), as the typed
        # form has them.
        bound = {name for name, _ in items}
        items += [(a.name, a.default_value) for a in schema
                  if a.name not in bound and a.has_default_value() and a.default_value is not None
                  and not isinstance(a.default_value, torch.Tensor)]
        for name, v in items:
            flat = list(v) if isinstance(v, (list, tuple)) else [v]
            if any(isinstance(x, torch.fx.Node) for x in flat):
                for x in flat:
                    ref, ty = self.operand_value(x, lines, indent, env)
                    operands.append(ref)
                    types.append(ty)
                groups.append(len(flat))
                group_names.append(name)
                continue
            a = generic_attr(v)
            if a is not None:
                attrs.append(f"{re.sub(r'[^A-Za-z0-9_]', '_', name)} = {a}")
        if groups:
            attrs.append("operand_args = [" + ", ".join(mlir_str(n) for n in group_names) + "]")
            attrs.append("operand_groups = array<i64: " + ", ".join(str(g) for g in groups) + ">")
        res = self.results_of(node)
        res_types = [mlir_type_of(v) for v in res]
        self.emit(node, None, operands, types, attrs, res_types, env, lines, indent, loc, generic_name=qual)

    def metal_kernel(self, node, qual, env, lines, indent, loc):
        """A custom Metal kernel call (coreai_export.metal): aten.operator
        with its tensor inputs as operands and the kernel in `metal_kernel`."""
        self.stats["generic"] += 1
        self.generic_targets.add(qual)
        _, operands, attr = metal.attribute(node, metal.placeholder_constants(self.ep), node.name)
        refs = [self.operand_value(a, lines, indent, env) for a in operands]
        res_types = [mlir_type_of(v) for v in self.results_of(node)]
        self.emit(node, None, [r for r, _ in refs], [t for _, t in refs], [attr], res_types, env, lines,
                  indent, loc, generic_name=qual)

    # higher-order ops --------------------------------------------------
    def region(self, gm, arg_nodes_types, indent):
        """Region text of subgraph `gm` taking values of `arg_nodes_types`."""
        env = {}
        lines = []
        phs = [n for n in gm.graph.nodes if n.op == "placeholder"]
        args = []
        self.n_regions += 1
        for i, ph in enumerate(phs):
            nm = f"%{self.ssa(ph)}_r{self.n_regions}"
            env[ph] = nm
            args.append(f"{nm}: {arg_nodes_types[i]}")
        inner = indent + "  "
        out_refs = []

        def term(outs):
            refs = [env[o] for o in outs]
            tys = [mlir_type_of(o.meta["val"]) for o in outs]
            lines.append(f"{inner}aten.yield {', '.join(refs)} : {', '.join(tys)}")
            out_refs.extend(tys)

        self.graph_body(gm, env, lines, inner, term)
        return "{\n" + f"{indent}^bb0({', '.join(args)}):\n" + "\n".join(lines) + f"\n{indent}}}", out_refs

    def cond(self, node, env, lines, indent, loc):
        pred, true_gm, false_gm, inputs = node.args
        true_gm, false_gm = env[true_gm], env[false_gm]
        in_refs = [env[x] for x in inputs]
        in_tys = [mlir_type_of(x.meta["val"]) for x in inputs]
        tr, _ = self.region(true_gm, in_tys, indent)
        fr, _ = self.region(false_gm, in_tys, indent)
        res_types = [mlir_type_of(v) for v in self.results_of(node)]
        decl, refs = self.result_decl(node, len(res_types))
        env[node] = refs
        pref, pty = self.operand_value(pred, lines, indent, env)
        lines.append(
            f"{indent}{decl} = aten.cond {pref} ({', '.join(in_refs)}) : {pty}, "
            f"({', '.join(in_tys)}) -> ({', '.join(res_types)}) {tr}, {fr} {loc}"
        )

    def while_loop(self, node, env, lines, indent, loc):
        cond_gm, body_gm, carried, additional = node.args
        cond_gm, body_gm = env[cond_gm], env[body_gm]
        c_refs = [env[x] for x in carried]
        c_tys = [mlir_type_of(x.meta["val"]) for x in carried]
        a_refs = [env[x] for x in additional]
        a_tys = [mlir_type_of(x.meta["val"]) for x in additional]
        cr, _ = self.region(cond_gm, c_tys + a_tys, indent)
        br, _ = self.region(body_gm, c_tys + a_tys, indent)
        res_types = [mlir_type_of(v) for v in self.results_of(node)]
        decl, refs = self.result_decl(node, len(res_types))
        env[node] = refs
        def group(refs, tys):
            return f"{', '.join(refs)} : {', '.join(tys)}" if refs else ""

        lines.append(
            f"{indent}{decl} = aten.while_loop ({group(c_refs, c_tys)}) ({group(a_refs, a_tys)}) "
            f"-> {', '.join(res_types)} cond {cr} body {br} {loc}"
        )

    def call_site(self, node, function, env, lines, indent, loc):
        """An externalized submodule's call: `func.call @fn(params..., args...)`,
        the submodule's parameters and buffers as constants of the caller
        (except those the function keeps: `function.baked`)."""
        from torch.export.graph_signature import InputKind

        sub = function.program
        operands, types = [], []
        for spec in sub.graph_signature.input_specs:
            if spec.kind == InputKind.USER_INPUT or spec.target in function.baked:
                continue
            fqn = f"{function.path}.{spec.target}"
            if fqn not in self.site_constants:  # not a parameter of the entry
                t = sub.state_dict.get(spec.target)
                if t is None:
                    t = (getattr(sub, "constants", {}) or {}).get(spec.target)
                nm = self.ssa_text(fqn) + f"_{len(self.site_constants)}"
                self.constant(lines, nm, fqn, t, indent)
                if indent != "    ":  # inside a region: does not dominate the rest
                    operands.append(f"%{nm}")
                    types.append(mlir_type_of(t))
                    continue
                self.site_constants[fqn] = (f"%{nm}", mlir_type_of(t))
            ref, ty = self.site_constants[fqn]
            operands.append(ref)
            types.append(ty)
        for a in node.args:
            operands.append(env[a])
            types.append(mlir_type_of(a.meta["val"]))
        outs = self.results_of(node)
        decl, refs = self.result_decl(node, len(outs))
        res = ", ".join(mlir_type_of(v) for v in outs)
        lines.append(
            f"{indent}{decl} = func.call @{mlir_symbol(function.name)}({', '.join(operands)}) : "
            f"({', '.join(types)}) -> ({res}) {loc}"
        )
        self.bind(node, env, refs, outs)

    # entry -------------------------------------------------------------
    def program(self, function=None, input_names=None, output_names=None):
        """The entry function, or with `function` (externalize.Function) that
        externalized submodule: parameters and buffers become its leading
        arguments (those read by a compression op stay constants, in their
        narrow types), and it is `coreai.noinline` with its declaration.
        `input_names`: the names of the user inputs in forward order (a
        mutated one names its state), instead of torch.export's placeholder
        names; `output_names`: the names of the user outputs."""
        from torch.export.graph_signature import InputKind, OutputKind

        ep = self.ep
        gm = ep.graph_module
        sig = ep.graph_signature
        state = ep.state_dict
        consts = getattr(ep, "constants", {}) or {}
        placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        mutated = {
            spec.target
            for spec in sig.output_specs
            if spec.kind == OutputKind.BUFFER_MUTATION
        }
        # A mutated user input (`x.mul_(2)`) is a state as in coreai-torch:
        # named after its placeholder, after the mutated buffers.
        mutated_inputs = {
            spec.target
            for spec in sig.output_specs
            if spec.kind == OutputKind.USER_INPUT_MUTATION
        }
        user_specs = [s for s in sig.input_specs if s.kind == InputKind.USER_INPUT]
        renamed = {}
        if input_names is not None:
            if len(input_names) != len(user_specs):
                raise ImportError_(f"input_names gives {len(input_names)} names for {len(user_specs)} inputs "
                                   f"({', '.join(s.arg.name for s in user_specs)})")
            renamed = {s.arg.name: n for s, n in zip(user_specs, input_names)}
        env, lines = {}, []
        self.env = env
        # The constants only a Metal kernel's dispatch arguments read become
        # its attributes, not values.
        self.metal_dispatch = metal.dispatch_nodes(gm, metal.placeholder_constants(ep))
        indent = "    "
        user_args, state_args, input_states = [], [], []
        for ph, spec in zip(placeholders, sig.input_specs):
            nm = self.ssa(ph)
            if ph in self.metal_dispatch:
                continue
            if spec.kind == InputKind.USER_INPUT and spec.arg.name in mutated_inputs:
                val = ph.meta.get("val")
                if not isinstance(val, torch.Tensor):
                    raise ImportError_(f"mutated input {ph.name} is not a tensor")
                input_states.append((nm, spec.arg.name, mlir_type_of(val), val))
                env[ph] = f"%{nm}"
            elif spec.kind == InputKind.USER_INPUT:
                val = ph.meta.get("val")
                if not isinstance(val, torch.Tensor):
                    raise ImportError_(
                        f"input {ph.name} is a {type(val).__name__}, not a tensor: "
                        "pass it as a tensor or bake it into the module"
                    )
                user_args.append((nm, ph.name, mlir_type_of(val), val))
                env[ph] = f"%{nm}"
            elif spec.kind == InputKind.BUFFER and spec.target in mutated:
                val = ph.meta.get("val")
                state_args.append((nm, spec.target, mlir_type_of(val), val))
                env[ph] = f"%{nm}"
            elif function is not None and spec.target not in function.baked and spec.kind in (
                InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR
            ):
                val = ph.meta.get("val")
                user_args.append((nm, spec.target, mlir_type_of(val), val))
                env[ph] = f"%{nm}"
            elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
                t = state.get(spec.target) if spec.target in state else consts.get(spec.target)
                if t is None:
                    raise ImportError_(f"no value for {spec.kind.name.lower()} {spec.target}")
                if not isinstance(t, torch.Tensor):
                    raise ImportError_(f"constant {spec.target} is a {type(t).__name__}, not a tensor")
                self.constant(lines, nm, spec.target, t, indent)
                env[ph] = f"%{nm}"
                self.site_constants[spec.target] = (f"%{nm}", mlir_type_of(t))
            else:
                raise ImportError_(
                    f"input {ph.name} of kind {spec.kind.name} (custom objects, tokens) "
                    "cannot be imported; remove it from the model"
                )
        results = {}

        def term(outs):
            results["outs"] = outs

        self.graph_body(gm, env, lines, indent, term)
        outs = results["outs"]
        state_args += input_states
        user_res, state_new = [], {}
        n_user = sum(1 for s in sig.output_specs if s.kind == OutputKind.USER_OUTPUT)
        ui = 0
        for o, spec in zip(outs, sig.output_specs):
            if spec.kind in (OutputKind.BUFFER_MUTATION, OutputKind.USER_INPUT_MUTATION):
                state_new[spec.target] = o
            elif spec.kind == OutputKind.USER_OUTPUT:
                name = "output" if n_user == 1 else f"output_{ui}"
                if output_names is not None:
                    if len(output_names) != n_user:
                        raise ImportError_(f"output_names gives {len(output_names)} names for {n_user} outputs")
                    name = output_names[ui]
                ui += 1
                user_res.append((o, name))
            else:
                raise ImportError_(
                    f"output of kind {spec.kind.name} cannot be imported "
                    "(only user outputs, buffer and input mutations)"
                )
        # each state's new value, in the order of the state arguments
        state_res = [(state_new[label], renamed.get(label, label)) for _, label, _, _ in state_args]
        res_refs, res_types, res_names = [], [], []
        for o, name in user_res + state_res:
            if isinstance(o, torch.fx.Node):
                res_refs.append(env[o])
                res_types.append(mlir_type_of(o.meta["val"]))
            else:
                ref, ty = self.operand_value(o, lines, indent, env)
                res_refs.append(ref)
                res_types.append(ty)
            res_names.append(name)
        lines.append(f"{indent}return {', '.join(res_refs)} : {', '.join(res_types)}" if res_refs else f"{indent}return")

        arg_texts = []
        arg_names = []
        user_args = [(nm, renamed.get(label, label), ty, val) for nm, label, ty, val in user_args]
        state_args = [(nm, renamed.get(label, label), ty, val) for nm, label, ty, val in state_args]
        for nm, label, ty, val in user_args:
            arg_texts.append(f"%{nm}: {ty} {{coreai.name = {mlir_str(label)}{self.dims_attr(val)}}}")
            arg_names.append(label)
        for nm, label, ty, val in state_args:
            arg_texts.append(f"%{nm}: {ty} {{coreai.name = {mlir_str(label)}, coreai.state{self.dims_attr(val)}}}")
            arg_names.append(label)
        res_texts = []
        for i, (ty, name) in enumerate(zip(res_types, res_names)):
            extra = ", coreai.state" if i >= len(user_res) else ""
            res_texts.append(f"{ty} {{coreai.name = {mlir_str(name)}{extra}}}")
        fattrs = self.range_attr()
        visibility = ""
        if function is not None:
            if state_args:
                raise ImportError_(
                    f"externalized {function.path} mutates a buffer or an input: not supported"
                )
            fattrs = "coreai.noinline"
            if function.spec.composite_op_name:
                from .externalize import declaration

                visibility = "private "
                fattrs += ", coreai.composite_decl = " + declaration(function, arg_names, res_names)
        head = (
            f"  func.func {visibility}@{mlir_symbol(self.entry)}({', '.join(arg_texts)}) -> ({', '.join(res_texts)})"
            + (f" attributes {{{fattrs}}}" if fattrs else "")
            + " {"
        )
        return head, lines, arg_names, res_names

    def dims_attr(self, val):
        if not isinstance(val, torch.Tensor):
            return ""
        syms = [str(s) for s in val.shape if not _is_concrete(s)]
        if not syms:
            return ""
        return ", coreai.dims = [" + ", ".join(
            mlir_str(str(s)) if not _is_concrete(s) else str(int(s)) for s in val.shape
        ) + "]"

    def range_attr(self):
        rc = getattr(self.ep, "range_constraints", {}) or {}
        items = []
        for sym, vr in rc.items():
            lo, hi = vr.lower, vr.upper
            # torch's IntInfinity (`int_oo`) claims to be finite: test it by
            # identity as well as by sympy's predicate.
            hi_s = str(int(hi)) if _finite(hi) else "-1"
            lo_s = str(int(lo)) if _finite(lo) else "0"
            items.append(f"{mlir_str(str(sym))} = [{lo_s}, {hi_s}]")
        if not items:
            return ""
        return "coreai.range_constraints = {" + ", ".join(sorted(items)) + "}"


# torch.export's run-time checks of symbolic sizes. The range constraints
# (`sym_constrain_range*`) compute nothing: their ranges are in
# `coreai.range_constraints`. An assertion (`torch._check`, the guard of an
# unbacked `.item()` value) is kept, so the aten-level executor fails where
# eager PyTorch fails, unless it reads the memory layout (storage offset,
# strides), which a value-semantics IR does not have.
CONSTRAINTS = {"aten.sym_constrain_range.default", "aten.sym_constrain_range_for_size.default",
               "aten._assert_async.default"}
ASSERTIONS = {"aten._assert_scalar.default", "aten._assert_async.msg"}
LAYOUT_QUERIES = {"aten.sym_storage_offset.default", "aten.sym_stride.int", "aten.sym_is_contiguous.default"}
_SCALARS = (bool, int, float, torch.SymInt, torch.SymBool, torch.SymFloat)


def _target_name(n):
    t = n.target
    if isinstance(t, torch._ops.OpOverload):
        return f"{t.namespace}.{t._opname}.{t._overloadname}"
    return ""


def _reads_layout(node):
    """Whether `node`'s scalar inputs reach a layout query."""
    seen, todo = set(), list(node.all_input_nodes)
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        if _target_name(n) in LAYOUT_QUERIES:
            return True
        if n.op == "call_function" and isinstance(n.meta.get("val"), _SCALARS):
            todo.extend(n.all_input_nodes)
    return False


def runtime_checks(gm):
    """The nodes not imported: the range constraints, the assertions on the
    memory layout, and the scalar computations (sizes, storage offsets,
    comparisons) only they read."""
    dropped = {n for n in gm.graph.nodes if n.op == "call_function"
               and (_target_name(n) in CONSTRAINTS or (_target_name(n) in ASSERTIONS and _reads_layout(n)))}
    changed = bool(dropped)
    while changed:
        changed = False
        for n in reversed(gm.graph.nodes):
            if n in dropped or n.op != "call_function" or not n.users:
                continue
            if isinstance(n.target, torch._ops.HigherOrderOperator):
                continue
            if isinstance(n.meta.get("val"), _SCALARS) and all(u in dropped for u in n.users):
                dropped.add(n)
                changed = True
    return dropped


def _finite(v) -> bool:
    from torch.utils._sympy.numbers import int_oo

    return bool(v.is_finite) and v not in (int_oo, -int_oo)


def mlir_symbol(name: str) -> str:
    """`name` as a symbol reference: bare when it is an identifier, else quoted."""
    return name if re.fullmatch(r"[A-Za-z_][\w$.]*", name) else mlir_str(name)


def import_program(ep, entry: str = "main", functions=None, input_names=None, output_names=None) -> ImportedProgram:
    """The aten-dialect MLIR module of an (already decomposed) ExportedProgram.
    `functions` maps externalized call sites (FX node names) to their
    externalize.Function: each becomes a function of the module.
    `input_names`/`output_names`: the entry's user input names (forward
    order, mutated inputs included) and output names, as coreai-torch's
    `add_pytorch_module` takes them."""
    with progress.step("import to aten MLIR"):
        return _import_program(ep, entry, functions, input_names, output_names)


def _import_program(ep, entry, functions, input_names=None, output_names=None):
    em = _Emitter(ep, entry, functions)
    parts = []
    for function in (functions or {}).values():
        sub = _Emitter(function.program, function.name, parent=em)
        head, body, _, _ = sub.program(function)
        parts += [head, *body, "  }"]
    head, body, arg_names, res_names = em.program(input_names=input_names, output_names=output_names)
    parts += [head, *body, "  }", "}"]
    stats = dict(em.stats, generic_targets=sorted(em.generic_targets))
    return ImportedProgram("\n".join(parts) + "\n", arg_names, res_names, stats, em.resources)
