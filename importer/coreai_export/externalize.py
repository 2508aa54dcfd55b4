"""Externalization: a submodule keeps its boundary through conversion.

Each call of a matching submodule becomes a `func.call` of its own private
function, which `legalize-aten-to-coreai` turns into a `coreai.invoke` of a
`noinline` `coreai.graph`. With a composite name the graph is also private
and carries a `#coreai.composite_declaration` whose `op_attrs` are the
module attributes named in the spec (plus `version = 1`), so a compiler can
match it to an optimised kernel.

    --externalize RMSNorm=rms_norm:eps      composite op rms_norm, op_attrs {eps}
    --externalize Attention                 a plain boundary, no declaration

How: each matching submodule's forward is patched to call a custom op of a
private `torch.library` namespace (whose implementation is the original
forward), so the whole-model export keeps one opaque node per call site;
then each submodule is exported on its own, at that call site's input
shapes, with the same decomposition table. Unlike coreai-torch, the
submodule's parameters and buffers are graph ARGUMENTS (first, as the
declaration's `input_names` say) passed from the caller, so the
declaration and the graph agree; each call site gets its own function,
named after the module path (`norm`, `act`, `act_1` ...), the same on
every run. The model is restored afterwards.

The target is a class, a class name, or a dotted name that imports to a
class (`coreai_torch.composite_ops.RMSNormImpl`: coreai-torch's own module
classes convert unchanged, with coreai-torch's declarations); convert()
also takes coreai-torch's `ExternalizeSpec` objects. Optional forward
arguments left None are not inputs, and None attributes are left out of
op_attrs, as in coreai-torch. A size that is dynamic at the call site stays
dynamic in the function (the submodule is exported with `Dim.AUTO`, so its
own guards set its range: a static query with a dynamic key length
converts, unlike coreai-torch's issue #1). Parameters and buffers read by a
compression op (`torch.ops.coreai.*`) stay constants of the function, so
they keep their sub-byte storage types.

Failures: a spec no submodule matches is an error naming it and the model's
submodule classes (coreai-torch only warns, guide §8.7a); a matched
submodule that forward() never calls is a one-line warning naming its path
(guide §8.7b: the graph holds no computation of it, so nothing is lost, but
the user learns that the spec did nothing there); a composite name that is
not one of coreai-torch's documented composites is a one-line warning (a
typo would otherwise give a declaration no compiler matches; custom names
are legitimate). Limits, each an error
that says so: forward arguments must be tensors or None (keyword arguments
included); outputs a tensor or a tuple of tensors; a dim dynamic at the call
site must stay dynamic in the submodule; a matching module inside another
one is left to its parent.
"""

import contextlib
import importlib
import inspect
import itertools
import re
import sys
from dataclasses import dataclass, field

import torch

from .exporting import ExportFailure, decompose
from .importer import float_attr

_NAMESPACES = itertools.count()  # torch.library namespaces are per process


@dataclass(frozen=True)
class Externalize:
    """Which submodules to externalize: `target` is a class, or a class name
    (`RMSNorm`, or qualified `pkg.mod.RMSNorm`). With `composite_op_name`, a
    composite op whose declaration lists `composite_attrs` (module attribute
    names) as op_attrs."""

    target: object
    composite_op_name: str | None = None
    composite_attrs: tuple = ()

    def __post_init__(self):
        if self.composite_attrs and not self.composite_op_name:
            raise ExportFailure(
                f"externalize {self.target}: composite attributes need a composite op name"
            )

    def matches(self, module) -> bool:
        cls = type(module)
        target = self.resolved()
        if isinstance(target, type):
            return isinstance(module, target)
        return target in (cls.__name__, f"{cls.__module__}.{cls.__qualname__}")

    def resolved(self):
        """The target class: `target` itself, or the class a dotted name
        imports to (`coreai_torch.composite_ops.RMSNormImpl`, whose class
        lives in a private module), or the name when it imports to nothing."""
        if isinstance(self.target, type) or "." not in self.target:
            return self.target
        module, _, attr = self.target.rpartition(".")
        try:
            found = getattr(importlib.import_module(module), attr, None)
        except Exception:  # not an importable module: match by name
            return self.target
        return found if isinstance(found, type) else self.target

    def label(self) -> str:
        t = self.target
        return t.__name__ if isinstance(t, type) else str(t)

    @staticmethod
    def of(spec) -> "Externalize":
        """An Externalize from what `convert(externalize=...)` takes: an
        Externalize, its command-line string, a class (a plain boundary), or
        coreai-torch's `ExternalizeSpec(target_class, composite_op_name,
        composite_attrs)`."""
        if isinstance(spec, Externalize):
            return spec
        if isinstance(spec, str):
            return Externalize.parse(spec)
        if isinstance(spec, type):
            return Externalize(spec)
        if hasattr(spec, "target_class") and hasattr(spec, "composite_op_name"):
            return Externalize(spec.target_class, spec.composite_op_name,
                               tuple(getattr(spec, "composite_attrs", None) or ()))
        raise ExportFailure(
            f"externalize {spec!r}: expected a class, 'CLASS[=COMPOSITE[:ATTR,...]]', "
            "an Externalize or a coreai_torch.ExternalizeSpec"
        )

    @staticmethod
    def parse(text: str) -> "Externalize":
        """`CLASS[=COMPOSITE[:ATTR,ATTR...]]` (the command line form)."""
        target, _, rest = text.partition("=")
        name, _, attrs = rest.partition(":")
        if not re.fullmatch(r"[A-Za-z_][\w.]*", target) or (rest and not re.fullmatch(r"\w+", name)):
            raise ExportFailure(
                f"--externalize {text!r}: expected CLASS or CLASS=COMPOSITE[:ATTR,...]"
            )
        return Externalize(target, name or None, tuple(a for a in attrs.split(",") if a))


@dataclass
class _Site:
    path: str
    module: torch.nn.Module
    spec: Externalize
    forward: object  # the original bound forward
    params: list  # its positional parameters (inspect.Parameter)
    patched: object = None  # the forward that calls the site's custom ops
    ops: dict = field(default_factory=dict)  # op name -> names of the tensors it takes


@dataclass
class Function:
    """One externalized call site, ready for the importer."""

    name: str  # the function's symbol
    path: str  # the module path in the model
    program: object  # the submodule's decomposed ExportedProgram
    spec: Externalize
    attrs: dict = field(default_factory=dict)  # op_attrs of the declaration
    baked: frozenset = frozenset()  # parameters/buffers kept as constants of the function


# The composite names coreai-torch 0.4.3 documents (docs/api/composite-ops/:
# module-class and ATen-derived), the names a Core AI compiler matches.
KNOWN_COMPOSITES = (
    "batch_norm", "gated_delta_update", "gather_mm", "group_norm", "hard_sigmoid", "instance_norm",
    "layer_norm", "linalg_vector_norm", "log_softmax", "pixel_shuffle", "rms_norm", "rope",
    "scaled_dot_product_attention",
)


def warn(message):
    """One line on stderr (the conversion goes on)."""
    print(f"coreai_export: warning: {message}", file=sys.stderr)


class Marked:
    """The model with its matching submodules' forwards patched (a context
    manager: the forwards are restored on exit)."""

    def __init__(self, model, specs, inputs):
        self.model = model
        self.inputs = inputs
        self.specs = [Externalize.of(s) for s in specs]
        self.sites = {}  # site op prefix -> _Site
        self.ops = {}  # op name -> (_Site, tensor names)
        self.namespace = f"coreai_ext{next(_NAMESPACES)}"
        self.library = None

    def __enter__(self):
        self.library = torch.library.Library(self.namespace, "DEF")
        taken = []
        for path, module in self.model.named_modules():
            if not path or any(path.startswith(p + ".") for p in taken):
                continue
            spec = next((s for s in self.specs if s.matches(module)), None)
            if spec is not None:
                taken.append(path)
                self._patch(path, module, spec)
        unused = [s for s in self.specs if not any(x.spec is s for x in self.sites.values())]
        if unused:
            names = ", ".join(s.label() for s in unused)
            known = sorted({type(m).__name__ for p, m in self.model.named_modules() if p})
            self.__exit__(None, None, None)
            raise ExportFailure(
                f"--externalize: no submodule of the model is a {names}; the model's submodule "
                f"classes are: {', '.join(known) or '(none)'}"
            )
        for s in self.specs:
            if s.composite_op_name and s.composite_op_name not in KNOWN_COMPOSITES:
                warn(f"--externalize {s.label()}: {s.composite_op_name!r} is not one of coreai-torch's "
                     f"composites ({', '.join(KNOWN_COMPOSITES)}); a compiler matches it only if it knows it")
        if not self.sites:
            return self
        # One eager run defines each site's op from its real outputs; the
        # buffers it mutates (states) get their values back.
        buffers = [(b, b.detach().clone()) for b in self.model.buffers()]
        try:
            with torch.no_grad():
                self.model(*self.inputs)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        finally:
            with torch.no_grad():
                for b, saved in buffers:
                    b.copy_(saved)
        return self

    def __exit__(self, *exc):
        for site in self.sites.values():
            site.module.__dict__.pop("forward", None)
        if self.library is not None:
            self.library._destroy()
            self.library = None
        return False

    def _patch(self, path, module, spec):
        forward = module.forward
        signature = inspect.signature(forward)
        params = list(signature.parameters.values())
        if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params):
            raise ExportFailure(
                f"--externalize {path}: forward() takes *args/**kwargs or keyword-only "
                "arguments; externalized submodules take tensors by position"
            )
        prefix = re.sub(r"\W", "_", path) or "module"
        site = _Site(path, module, spec, forward, params)
        self.sites[prefix] = site
        library = self.library

        def patched(*args, **kwargs):
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as e:
                raise ExportFailure(f"--externalize {path}: forward() called with {e}") from e
            bound.apply_defaults()
            # Optional arguments left None are not inputs (coreai-torch's rule:
            # they are absent from the declaration's input_names).
            names, tensors = [], []
            for i, p in enumerate(params):
                a = bound.arguments.get(p.name)
                if a is None:
                    continue
                if not isinstance(a, torch.Tensor):
                    raise ExportFailure(
                        f"--externalize {path}: argument {i} of forward() is a "
                        f"{type(a).__name__}; only tensors can cross the boundary (keep scalars "
                        "as module attributes and list them as composite attributes)"
                    )
                names.append(p.name)
                tensors.append(a)
            names = tuple(names)
            op = next((o for o, n in site.ops.items() if n == names), None)
            if op is None:
                op = prefix if not site.ops else f"{prefix}__v{len(site.ops)}"
                site.ops[op] = names
                self.ops[op] = (site, names)
                _define(library, op, forward, names, tensors, path)
            return getattr(getattr(torch.ops, self.namespace), op)(*tensors)

        site.patched = patched
        module.forward = patched

    def functions(self, ep, decompositions):
        """The externalized call sites of `ep` (the whole model's program), in
        program order, each with its submodule exported on its own. A matched
        submodule that no call site reaches gets a one-line warning."""
        counts, found = {}, []
        for node in ep.graph_module.graph.nodes:
            target = node.target
            if node.op != "call_function" or getattr(target, "namespace", None) != self.namespace:
                continue
            site, names = self.ops[target._opname]
            k = counts.get(site.path, 0)
            counts[site.path] = k + 1
            name = site.path if k == 0 else f"{site.path}_{k}"
            program = self._export_site(site, names, node, decompositions)
            found.append((node.name, Function(name, site.path, program, site.spec, _attrs(site),
                                              _compression_operands(program))))
        for site in self.sites.values():
            if site.path not in counts:
                warn(f"--externalize: submodule '{site.path}' ({type(site.module).__name__}) is "
                     "never called by forward(); nothing to externalize there")
        return dict(found)

    def _export_site(self, site, names, node, decompositions):
        inputs, shapes = {}, {}
        for name, a in zip(names, node.args):
            val = a.meta.get("val") if isinstance(a, torch.fx.Node) else None
            if not isinstance(val, torch.Tensor):
                raise ExportFailure(
                    f"--externalize {site.path}: the call site {node.name} has a non-tensor "
                    f"argument {name!r}"
                )
            sizes, dynamic = [], {}
            for d, s in enumerate(val.shape):
                if isinstance(s, int):
                    sizes.append(s)
                else:
                    sizes.append(_hint(s))
                    # AUTO: the submodule's export derives its own range (its
                    # guards may narrow the caller's; coreai-torch rebuilds the
                    # caller's Dim and fails, its issue #1).
                    dynamic[d] = torch.export.Dim.AUTO
            inputs[name] = torch.zeros(tuple(sizes), dtype=val.dtype)
            shapes[name] = dynamic or None
        site.module.__dict__.pop("forward", None)  # the original forward, for this export
        try:
            with torch.no_grad():
                ep = torch.export.export(site.module, (), inputs,
                                         dynamic_shapes=shapes if any(shapes.values()) else None)
        except Exception as e:
            raise ExportFailure(
                f"--externalize {site.path}: the submodule failed to export on its own: "
                f"{type(e).__name__}: {e}"
            ) from e
        finally:
            site.module.forward = site.patched
        _check_same_dynamism(site, node, names, ep)
        return decompose(ep, decompositions)


def _hint(s) -> int:
    """The example value of a symbolic size."""
    node = s.node
    hint = node.hint if node.hint is not None else node.shape_env.size_hint(node.expr)
    return int(hint)


def _check_same_dynamism(site, node, names, ep):
    """A size dynamic at the call site must stay dynamic in the submodule's
    program (AUTO specializes a dim the submodule's code fixes)."""
    from torch.export.graph_signature import InputKind

    placeholders = {p.name: p for p in ep.graph_module.graph.nodes if p.op == "placeholder"}
    user = [s for s in ep.graph_signature.input_specs if s.kind == InputKind.USER_INPUT]
    for name, a, spec in zip(names, node.args, user):
        outer = a.meta["val"].shape
        inner = placeholders[spec.arg.name].meta["val"].shape
        for d, (o, i) in enumerate(zip(outer, inner)):
            if not isinstance(o, int) and isinstance(i, int):
                raise ExportFailure(
                    f"--externalize {site.path}: dim {d} of {name!r} is dynamic at the call site "
                    f"{node.name} but the submodule's code fixes it to {i}"
                )


def _compression_operands(program) -> frozenset:
    """Parameters and buffers read by a compression op (coreai-torch's
    `torch.ops.coreai.*`: lut_to_dense, constexpr_blockwise_shift_scale,
    sparse_to_dense, ...): they stay constants inside the function, so the
    lowering stores them in their sub-byte types (as a graph argument the
    caller would hold them in their PyTorch storage type, uint8/int8)."""
    from torch.export.graph_signature import InputKind

    kinds = (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR)
    targets = {s.arg.name: s.target for s in program.graph_signature.input_specs if s.kind in kinds}
    baked = set()
    for n in program.graph_module.graph.nodes:
        if n.op == "placeholder" and n.name in targets and any(
            u.op == "call_function" and getattr(u.target, "namespace", None) in ("coreai", "coreaix")
            for u in n.users
        ):
            baked.add(targets[n.name])
    return frozenset(baked)


def _define(library, op, forward, names, args, path):
    """Defines `op` (the forward's tensor arguments `names` → its outputs)
    from a real call."""

    def impl(*tensors):
        return forward(**dict(zip(names, tensors)))

    probe = impl(*args)
    outs = probe if isinstance(probe, tuple) else (probe,)
    if not outs or not all(isinstance(o, torch.Tensor) for o in outs):
        raise ExportFailure(
            f"--externalize {path}: forward() must return a tensor or a tuple of tensors"
        )
    params = ", ".join(f"Tensor a{i}" for i in range(len(args)))
    returns = "Tensor" if not isinstance(probe, tuple) else "(" + ", ".join(["Tensor"] * len(outs)) + ")"
    library.define(f"{op}({params}) -> {returns}")
    library.impl(op, impl, "CompositeExplicitAutograd")
    torch.library.register_fake(f"{library.ns}::{op}", impl, lib=library)


def _attrs(site) -> dict:
    """The declaration's op_attrs: the named module attributes, then version."""
    attrs = {}
    for name in site.spec.composite_attrs:
        if not hasattr(site.module, name):
            raise ExportFailure(
                f"--externalize {site.path}: {type(site.module).__name__} has no attribute {name!r}"
            )
        value = getattr(site.module, name)
        if value is not None:  # coreai-torch drops None attributes (RoPE dims, SDPA scale)
            attrs[name] = value
    if site.spec.composite_op_name:
        attrs["version"] = 1
    return attrs


def declaration(function, input_names, output_names) -> str:
    """`#coreai.composite_declaration<...>` text (coreai-torch's value types:
    bool, int → si64, float → f32, str, list, dict)."""
    body = {
        "input_names": list(input_names),
        "op_attrs": function.attrs,
        "output_names": list(output_names),
    }
    return f'#coreai.composite_declaration<"{function.spec.composite_op_name}" = {_attr(body)}>'


def _attr(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return f"{v} : si64"
    if isinstance(v, float):
        return float_attr(v, "f32")
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_attr(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {_attr(x)}" for k, x in sorted(v.items())) + "}"
    raise ExportFailure(f"a composite attribute of type {type(v).__name__} cannot be declared: {v!r}")


@contextlib.contextmanager
def externalized(model, specs, inputs):
    """`with externalized(model, specs, example_inputs) as marked:` export
    inside, then `marked.functions(ep, decompositions)`."""
    with Marked(model, specs, inputs) as marked:
        yield marked
