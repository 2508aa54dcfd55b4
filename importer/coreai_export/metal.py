"""Custom Metal kernels, as coreai-torch's `TorchMetalKernel` describes them.

A kernel is a `torch.library` custom op in the namespace
`coreai_metal_kernels`, `name(*inputs, threads_per_grid, threads_per_thread_group,
*result_shapes)`, whose eager definition is the user's PyTorch reference
(`torch_defn`); the three trailing kinds of arguments are `uint32` tensors.
Users write kernels with coreai-torch's `TorchMetalKernel`, or without
coreai-torch with `MetalKernel` here (the same constructor and call):

    from coreai_export.metal import MetalKernel, MetalParameter
    add = MetalKernel("my_add", ["a", "b"], ["out"], src="out[gid] = a[gid] + b[gid];",
                      torch_defn=lambda_with_annotations,
                      metal_params=[MetalParameter("gid", "uint", "thread_position_in_grid")])
    y = add(a, b, threads_per_grid=(12, 1, 1), threads_per_thread_group=(12, 1, 1),
            result_shapes=[[3, 4]])

The importer needs the kernel object behind an op: `MetalKernel`s register
themselves; `TorchMetalKernel`s are registered with `register_metal_kernels`
(the counterpart of `TorchConverter.register_custom_kernels`), or found by
the command line among the globals of the model's module. A call imports as

    aten.operator "coreai_metal_kernels::my_add.default"(%a, %b)
        {metal_kernel = {name, input_names, result_names, source, helper_source,
                         metal_params, template_dtypes, scalars, threads_per_grid,
                         threads_per_thread_group, result_shapes}}

with the tensor inputs as operands (the dispatch tensors are constants,
read at import), the scalar inputs' values in `scalars` (typed as their
annotation: `f64`, `i64` or a bool), and the op's results typed by the
kernel's fake (the eager definition). `legalize-aten-to-coreai` lowers it to
`coreai.metal4_kernel` exactly as coreai-torch does.
"""

import inspect
from collections import Counter
from typing import NamedTuple, get_args, get_origin

import torch

NAMESPACE = "coreai_metal_kernels"
_SCALARS = {int: "int", float: "float", bool: "bool"}
_THREADS = 3

# Kernels by name (the op is coreai_metal_kernels::<name>.default).
_KERNELS = {}


class MetalParameter(NamedTuple):
    """A Metal kernel parameter other than the tensors: `uint gid
    [[thread_position_in_grid]]` is MetalParameter("gid", "uint",
    "thread_position_in_grid") (coreai.authoring.MetalParameter's fields)."""

    name: str
    dtype: str
    attr: str


class MetalKernel:
    """A custom Metal kernel and its `torch.library` op, without coreai-torch:
    `TorchMetalKernel`'s constructor and call, validated the same way."""

    def __init__(self, name, input_names, result_names, src, torch_defn, metal_params=None,
                 helper_src=None, template_dtypes=None):
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"Kernel name must be a non-empty string, got {name!r}")
        if not result_names:
            raise ValueError("result_names must contain at least one entry")
        for label, names in (("input", input_names), ("result", result_names)):
            dup = sorted(n for n, c in Counter(names).items() if c > 1)
            if dup:
                raise ValueError(f"Duplicate {label} names: {dup}")
        overlap = sorted(set(input_names) & set(result_names))
        if overlap:
            raise ValueError(f"Names appear in both input_names and result_names: {overlap}")
        templates = dict(template_dtypes or {})
        missing = set(templates) - set(input_names)
        if missing:
            raise ValueError(f"Inputs {missing} not specified as part of the kernel's input names")
        if len(set(templates.values())) != len(templates):
            raise ValueError("Each template string must be unique")
        sig = inspect.signature(torch_defn, eval_str=True)
        params = list(sig.parameters.values())
        for p in params:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TypeError(f"custom kernels do not support variadic parameters, got '{p.name}'")
            if p.annotation is not torch.Tensor and p.annotation not in _SCALARS:
                raise TypeError("custom kernels only support `torch.Tensor`, `float`, `bool` "
                                f"and `int` inputs, got {p.annotation}")
        if len(params) != len(input_names):
            raise ValueError(f"torch function should have {len(input_names)} parameters "
                             f"(the input names), got {len(params)}")
        ret = sig.return_annotation
        if ret is torch.Tensor:
            if len(result_names) != 1:
                raise ValueError("torch_defn returns a single torch.Tensor, but result_names "
                                 f"has {len(result_names)} entries")
        elif get_origin(ret) not in (tuple, list) or any(a is not torch.Tensor for a in get_args(ret)):
            raise TypeError("Metal kernels return torch.Tensor, list[torch.Tensor] or "
                            f"tuple[torch.Tensor, ...]; torch_defn returns {ret}")
        self.name = name
        self.input_names = list(input_names)
        self.result_names = list(result_names)
        self.src = src
        self.helpers = helper_src or ""
        self.metal_parameters = [MetalParameter(p.name, p.dtype, p.attr) for p in metal_params or []]
        self.dtype_templates = templates
        self.torch_custom_op = self._custom_op(torch_defn, sig)
        _KERNELS[name] = self

    def __deepcopy__(self, memo):
        return self

    @property
    def result_shape_params(self):
        return [f"result_shape_{n}" for n in self.result_names]

    def _custom_op(self, torch_defn, sig):
        extra = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=torch.Tensor)
                 for n in ["threads_per_grid", "threads_per_thread_group", *self.result_shape_params]]
        count = len(sig.parameters)

        def wrapper(*args):
            return torch_defn(*args[:count])

        wrapper.__name__ = self.name
        wrapper.__signature__ = sig.replace(parameters=[*sig.parameters.values(), *extra])
        op = torch.library.custom_op(f"{NAMESPACE}::{self.name}", mutates_args=())(wrapper)

        @op.register_fake
        def _(*args):
            res = wrapper(*args)
            if isinstance(res, (list, tuple)):
                return type(res)(torch.empty_like(r) for r in res)
            return torch.empty_like(res)

        return op

    def __call__(self, *args, threads_per_grid, threads_per_thread_group, result_shapes):
        for label, t in (("threads_per_grid", threads_per_grid),
                         ("threads_per_thread_group", threads_per_thread_group)):
            if len(t) != _THREADS:
                raise ValueError(f"{label} must be a 3-tuple, got {tuple(t)!r}")
        if len(result_shapes) != len(self.result_names):
            raise ValueError(f"result_shapes must contain one shape per result name "
                             f"({len(self.result_names)}), got {len(result_shapes)}")
        u32 = lambda v: torch.tensor(list(v), dtype=torch.uint32)  # noqa: E731
        return self.torch_custom_op(*args, u32(threads_per_grid), u32(threads_per_thread_group),
                                    *[u32(s) for s in result_shapes])


def shared():
    """A `copy.deepcopy` memo that keeps the known kernels (their ops cannot
    be copied; a model holding one is copied with it shared)."""
    return {id(k): k for k in _KERNELS.values()}


def is_kernel(obj) -> bool:
    """A MetalKernel or a coreai-torch TorchMetalKernel (duck-typed: its
    custom op, its names, its source)."""
    return all(hasattr(obj, a) for a in ("torch_custom_op", "input_names", "result_names", "src",
                                          "metal_parameters", "dtype_templates"))


def register_metal_kernels(kernels):
    """Makes `kernels` (TorchMetalKernel or MetalKernel objects) known to the
    importer, like coreai-torch's `TorchConverter.register_custom_kernels`."""
    for k in kernels:
        if not is_kernel(k):
            raise TypeError(f"{k!r} is not a TorchMetalKernel or MetalKernel")
        _KERNELS[k.name] = k


def register_module_kernels(namespace: dict):
    """Registers every kernel object among a module's globals (what the
    command line does with --module-file/--model)."""
    register_metal_kernels([v for v in namespace.values() if is_kernel(v)])


def kernel(opname: str):
    from .importer import ImportError_

    k = _KERNELS.get(opname)
    if k is None:
        raise ImportError_(
            f"{NAMESPACE}::{opname}: no Metal kernel of that name is known; pass its TorchMetalKernel to "
            "coreai_export.metal.register_metal_kernels([...]) (or define it at the top level of the "
            "model's module), or define it with coreai_export.metal.MetalKernel")
    return k


# A dispatch tensor is a lifted constant, copied (clone, lift_fresh_copy,
# detach) on its way to the kernel call.
_COPIES = {"clone", "lift_fresh_copy", "detach", "detach_", "alias", "_to_copy"}


def placeholder_constants(ep):
    """The tensors behind the program's lifted constants and buffers, by
    placeholder name."""
    from torch.export.graph_signature import InputKind

    values = {**ep.state_dict, **(getattr(ep, "constants", {}) or {})}
    return {spec.arg.name: values[spec.target] for spec in ep.graph_signature.input_specs
            if spec.kind in (InputKind.CONSTANT_TENSOR, InputKind.BUFFER) and spec.target in values}


def _is_metal(node) -> bool:
    t = node.target
    return node.op == "call_function" and isinstance(t, torch._ops.OpOverload) and t.namespace == NAMESPACE


def _dispatch_args(node):
    k = kernel(node.target._opname)
    return node.args[len(k.input_names):]


def _source(node, constants):
    """The constant tensor behind a dispatch argument, and the nodes from it
    to the call (the copies and the placeholder)."""
    chain = []
    while isinstance(node, torch.fx.Node):
        chain.append(node)
        if node.op == "call_function" and getattr(node.target, "_opname", None) in _COPIES:
            node = node.args[0]
            continue
        if node.op == "placeholder" and node.name in constants:
            return constants[node.name], chain
        if node.op == "get_attr":
            return getattr(node.graph.owning_module, node.target), chain
        return None, chain
    return None, chain


def dispatch_nodes(gm, constants):
    """The nodes that only feed the dispatch arguments of kernel calls (the
    importer leaves them out: the values become attributes)."""
    feeding = set()
    for n in gm.graph.nodes:
        if _is_metal(n):
            for a in _dispatch_args(n):
                _, chain = _source(a, constants)
                feeding.update(chain)
    skipped = set()
    changed = True
    while changed:
        changed = False
        for n in feeding - skipped:
            if all(_is_metal(u) or u in skipped for u in n.users):
                skipped.add(n)
                changed = True
    return skipped


def _ints(node, constants, what, call):
    from .importer import ImportError_

    t, _ = _source(node, constants)
    if not isinstance(t, torch.Tensor) or t.dim() != 1:
        raise ImportError_(f"{call}: {what} must be a constant 1-D tensor (the kernel's call "
                           "builds it from a Python tuple); a computed value cannot be baked into the kernel")
    return [int(v) for v in t.tolist()]


def attribute(node, constants, location):
    """(kernel, tensor operands (FX nodes), the `metal_kernel` attribute text)
    for a kernel call."""
    from .importer import ImportError_, f64, mlir_str

    opname = node.target._opname
    k = kernel(opname)
    call = f"{NAMESPACE}::{opname} (node {location})"
    schema = node.target._schema.arguments
    n_in = len(k.input_names)
    args = list(node.args) + [node.kwargs[a.name] for a in schema[len(node.args):] if a.name in node.kwargs]
    if len(args) != n_in + 2 + len(k.result_names):
        raise ImportError_(f"{call}: expected {n_in} inputs, 2 thread settings and "
                           f"{len(k.result_names)} result shapes, got {len(args)} arguments")
    operands, scalars = [], []
    for name, a, s in zip(k.input_names, args, schema):
        kind = str(s.type)
        if kind in ("float", "int", "SymInt", "bool"):
            if isinstance(a, torch.fx.Node):
                raise ImportError_(f"{call}: the scalar input '{name}' is a computed value; "
                                   "Metal kernel scalars are baked into the source and must be Python numbers")
            if kind == "bool":
                text = "true" if a else "false"
            elif kind == "float":
                text = f64(float(a))
            else:
                text = f"{int(a)} : i64"
            scalars.append(f"{mlir_str(name)} = {text}")
        elif isinstance(a, torch.fx.Node):
            operands.append(a)
        else:
            raise ImportError_(f"{call}: the tensor input '{name}' is {a!r}, not a graph value")
    disp = args[n_in:]
    grid = _ints(disp[0], constants, "threads_per_grid", call)
    group = _ints(disp[1], constants, "threads_per_thread_group", call)
    shapes = [_ints(d, constants, f"result_shape_{r}", call) for d, r in zip(disp[2:], k.result_names)]
    for what, v in (("threads_per_grid", grid), ("threads_per_thread_group", group)):
        if len(v) != _THREADS:
            raise ImportError_(f"{call}: {what} must have 3 entries, got {v}")

    def strings(xs):
        return "[" + ", ".join(mlir_str(x) for x in xs) + "]"

    def i64s(xs):
        return "array<i64" + (": " + ", ".join(str(x) for x in xs) if xs else "") + ">"

    templates = [[n, k.dtype_templates[n]] for n in k.input_names if n in k.dtype_templates]
    fields = [
        f"name = {mlir_str(k.name)}",
        f"input_names = {strings(k.input_names)}",
        f"result_names = {strings(k.result_names)}",
        f"source = {mlir_str(k.src)}",
        f"helper_source = {mlir_str(k.helpers or '')}",
        "metal_params = [" + ", ".join(strings([p.name, p.dtype, p.attr]) for p in k.metal_parameters) + "]",
        "template_dtypes = [" + ", ".join(strings(t) for t in templates) + "]",
        "scalars = {" + ", ".join(scalars) + "}",
        f"threads_per_grid = {i64s(grid)}",
        f"threads_per_thread_group = {i64s(group)}",
        "result_shapes = [" + ", ".join(i64s(s) for s in shapes) + "]",
    ]
    return k, operands, "metal_kernel = {" + ", ".join(fields) + "}"
