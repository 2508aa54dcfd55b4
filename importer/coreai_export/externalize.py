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

Limits, each an error that says so: forward arguments must be tensors
(keyword arguments included); outputs a tensor or a tuple of tensors; call
sites need static shapes; a matching module inside another one is left to
its parent.
"""

import contextlib
import inspect
import itertools
import re
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
        if isinstance(self.target, type):
            return isinstance(module, self.target)
        return self.target in (cls.__name__, f"{cls.__module__}.{cls.__qualname__}")

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
    patched: object = None  # the forward that calls the site's custom op


@dataclass
class Function:
    """One externalized call site, ready for the importer."""

    name: str  # the function's symbol
    path: str  # the module path in the model
    program: object  # the submodule's decomposed ExportedProgram
    spec: Externalize
    attrs: dict = field(default_factory=dict)  # op_attrs of the declaration


class Marked:
    """The model with its matching submodules' forwards patched (a context
    manager: the forwards are restored on exit)."""

    def __init__(self, model, specs, inputs):
        self.model = model
        self.inputs = inputs
        self.specs = list(specs)
        self.sites = {}  # op name -> _Site
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
        unused = [s.target for s in self.specs if not any(x.spec is s for x in self.sites.values())]
        if unused:
            names = ", ".join(getattr(t, "__name__", str(t)) for t in unused)
            self.__exit__(None, None, None)
            raise ExportFailure(f"--externalize: no submodule of the model is a {names}")
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
        params = list(inspect.signature(forward).parameters.values())
        if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params):
            raise ExportFailure(
                f"--externalize {path}: forward() takes *args/**kwargs or keyword-only "
                "arguments; externalized submodules take tensors by position"
            )
        op = re.sub(r"\W", "_", path) or "module"
        site = _Site(path, module, spec, forward)
        self.sites[op] = site
        library, qualified = self.library, f"{self.namespace}::{op}"

        def patched(*args, **kwargs):
            if kwargs:
                args = args + tuple(kwargs[p.name] for p in params[len(args):] if p.name in kwargs)
            for i, a in enumerate(args):
                if not isinstance(a, torch.Tensor):
                    raise ExportFailure(
                        f"--externalize {path}: argument {i} of forward() is a "
                        f"{type(a).__name__}; only tensors can cross the boundary (keep scalars "
                        "as module attributes and list them as composite attributes)"
                    )
            if not hasattr(getattr(torch.ops, self.namespace), op):
                _define(library, op, forward, args, path)
            return getattr(getattr(torch.ops, self.namespace), op)(*args)

        site.patched = patched
        module.forward = patched

    def functions(self, ep, decompositions):
        """The externalized call sites of `ep` (the whole model's program), in
        program order, each with its submodule exported on its own."""
        counts, found = {}, []
        for node in ep.graph_module.graph.nodes:
            target = node.target
            if node.op != "call_function" or getattr(target, "namespace", None) != self.namespace:
                continue
            site = self.sites[target._opname]
            k = counts.get(site.path, 0)
            counts[site.path] = k + 1
            name = site.path if k == 0 else f"{site.path}_{k}"
            program = self._export_site(site, node, decompositions)
            found.append((node.name, Function(name, site.path, program, site.spec, _attrs(site))))
        return dict(found)

    def _export_site(self, site, node, decompositions):
        inputs = []
        for a in node.args:
            val = a.meta.get("val") if isinstance(a, torch.fx.Node) else None
            if not isinstance(val, torch.Tensor) or not all(isinstance(d, int) for d in val.shape):
                raise ExportFailure(
                    f"--externalize {site.path}: the call site {node.name} has a dynamic or "
                    "non-tensor argument; externalized call sites need static shapes"
                )
            inputs.append(torch.zeros(tuple(val.shape), dtype=val.dtype))
        site.module.__dict__.pop("forward", None)  # the original forward, for this export
        try:
            with torch.no_grad():
                ep = torch.export.export(site.module, tuple(inputs))
        except Exception as e:
            raise ExportFailure(
                f"--externalize {site.path}: the submodule failed to export on its own: "
                f"{type(e).__name__}: {e}"
            ) from e
        finally:
            site.module.forward = site.patched
        return decompose(ep, decompositions)


def _define(library, op, forward, args, path):
    """Defines `op` (the forward's tensors → its outputs) from a real call."""
    probe = forward(*args)
    outs = probe if isinstance(probe, tuple) else (probe,)
    if not outs or not all(isinstance(o, torch.Tensor) for o in outs):
        raise ExportFailure(
            f"--externalize {path}: forward() must return a tensor or a tuple of tensors"
        )
    params = ", ".join(f"Tensor a{i}" for i in range(len(args)))
    returns = "Tensor" if not isinstance(probe, tuple) else "(" + ", ".join(["Tensor"] * len(outs)) + ")"
    library.define(f"{op}({params}) -> {returns}")
    library.impl(op, forward, "CompositeExplicitAutograd")
    torch.library.register_fake(f"{library.ns}::{op}", forward, lib=library)


def _attrs(site) -> dict:
    """The declaration's op_attrs: the named module attributes, then version."""
    attrs = {}
    for name in site.spec.composite_attrs:
        if not hasattr(site.module, name):
            raise ExportFailure(
                f"--externalize {site.path}: {type(site.module).__name__} has no attribute {name!r}"
            )
        attrs[name] = getattr(site.module, name)
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
