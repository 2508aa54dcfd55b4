"""Loading a model factory, torch.export, and the decomposition step."""

import importlib
import importlib.util
import contextlib
import contextvars
import inspect
import io
import os
import re
import sys

import torch

from . import progress
from .decompositions import compiler_support, decomposition_table, fallback_decompositions, imports_as_exported


class ExportFailure(Exception):
    """A user-facing failure: the message says what, where and what to do."""


def load_factory(spec: str, from_file: bool):
    """`pkg.module:factory` or `path/to/file.py:factory` -> the callable."""
    target, sep, attr = spec.rpartition(":")
    if not sep or not target or not attr:
        form = "path/to/file.py:factory" if from_file else "pkg.module:factory"
        raise ExportFailure(f"{spec!r} is not of the form {form}")
    try:
        if from_file:
            if not os.path.isfile(target):
                raise ExportFailure(f"{target}: no such file")
            name = "coreai_export_model_" + os.path.splitext(os.path.basename(target))[0]
            mod_spec = importlib.util.spec_from_file_location(name, target)
            module = importlib.util.module_from_spec(mod_spec)
            sys.modules[name] = module
            mod_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(target)
    except ExportFailure:
        raise
    except Exception as e:  # the user's module raised while importing
        raise ExportFailure(f"importing {target} failed: {type(e).__name__}: {e}") from e
    factory = getattr(module, attr, None)
    if factory is None or not callable(factory):
        raise ExportFailure(f"{target} has no callable {attr!r}")
    # Custom Metal kernels defined at the module's top level (TorchMetalKernel
    # objects) are known to the importer without registration.
    from .metal import register_module_kernels

    register_module_kernels(vars(module))
    return factory


def call_factory(factory):
    """factory() -> (module in eval mode, example inputs tuple)."""
    try:
        made = factory()
    except Exception as e:
        raise ExportFailure(f"the model factory raised {type(e).__name__}: {e}") from e
    if not isinstance(made, tuple) or len(made) < 2 or not isinstance(made[0], torch.nn.Module):
        raise ExportFailure(
            "the model factory must return (nn.Module, example_inputs_tuple, ...); "
            f"it returned {type(made).__name__}"
        )
    model, inputs = made[0], made[1]
    if not isinstance(inputs, tuple):
        # torch.export takes a tuple of positional arguments; wrapping a lone
        # value would guess what the user meant (a list of two tensors is one
        # argument or two?).
        raise ExportFailure(
            "the model factory must return (nn.Module, example_inputs_tuple, ...); its "
            f"example inputs are a {type(inputs).__name__}, not a tuple: write (x,) for one input"
        )
    return model.eval(), inputs


def parse_dynamic_dims(spec: str, model: torch.nn.Module, inputs: tuple):
    """`ARG:DIM[=MIN:MAX],...` -> torch.export dynamic_shapes (a tuple).

    ARG is a forward() parameter name or a positional index."""
    params = [
        p.name
        for p in inspect.signature(model.forward).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    shapes = [None] * len(inputs)
    for item in filter(None, (s.strip() for s in spec.split(","))):
        head, _, rng = item.partition("=")
        arg, sep, dim = head.partition(":")
        try:
            idx = int(arg) if arg.isdigit() else params.index(arg)
            d = int(dim)
            lo, hi = (int(v) for v in rng.split(":")) if rng else (None, None)
        except ValueError:
            raise ExportFailure(
                f"--dynamic-dims item {item!r}: expected ARG:DIM or ARG:DIM=MIN:MAX, "
                f"ARG one of {params} or an index, DIM an integer"
            ) from None
        if not sep or idx >= len(inputs) or not isinstance(inputs[idx], torch.Tensor):
            raise ExportFailure(f"--dynamic-dims item {item!r}: no tensor input {arg!r}")
        if not -inputs[idx].dim() <= d < inputs[idx].dim():
            raise ExportFailure(
                f"--dynamic-dims item {item!r}: input {arg!r} has rank {inputs[idx].dim()}"
            )
        d %= inputs[idx].dim()
        name = f"{params[idx] if idx < len(params) else f'arg{idx}'}_dim{d}"
        kw = {}
        if lo is not None:
            kw = {"min": lo, "max": hi}
        shapes[idx] = {**(shapes[idx] or {}), d: torch.export.Dim(name, **kw)}
    return tuple(shapes)


_DERIVED = re.compile(
    r"^\s*(?:(\d+)\s*\*\s*)?([A-Za-z_]\w*)\s*(?:\*\s*(\d+)\s*)?(?:([+-])\s*(\d+)\s*)?$"
)
_HINTS = {"AUTO": "AUTO", "STATIC": "STATIC", "DYNAMIC": "DYNAMIC"}


def parse_dynamic_shapes(text: str, model: torch.nn.Module, inputs: tuple):
    """The JSON form of torch.export's `dynamic_shapes` -> that argument.

        {"dims": {"s": [2, 64], "b": {"min": 1, "max": 8}, "t": null},
         "shapes": {"x": {"0": "b", "1": "s"}, "y": [null, "2*s+1"], "z": {"0": "AUTO"}}}

    `dims` declares the named dims (`Dim(name, min=, max=)`; `null`: no
    range); a name used in several places is one shared `Dim`. `shapes` maps
    forward() parameter names (or is a list in argument order) to a tensor's
    dims: an object keyed by dim index or a list with an entry per dim; an
    entry is `null` (static), a declared name, a derived dim `A*name+B`
    (`2*s`, `s+1`, `2*s-1`), or `"AUTO"` / `"STATIC"` / `"DYNAMIC"`
    (`Dim.AUTO` ...). `@FILE` reads the JSON from FILE."""
    import json

    where = "--dynamic-shapes"
    if text.startswith("@"):
        try:
            with open(text[1:]) as f:
                text = f.read()
        except OSError as e:
            raise ExportFailure(f"{where} {text}: cannot read: {e.strerror}") from None
    try:
        spec = json.loads(text)
    except json.JSONDecodeError as e:
        raise ExportFailure(f"{where}: not JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    if not isinstance(spec, dict) or "shapes" not in spec or set(spec) - {"dims", "shapes"}:
        raise ExportFailure(f'{where}: expected an object {{"dims": {{...}}, "shapes": {{...}}}}')
    Dim = torch.export.Dim
    dims = {}
    for name, rng in (spec.get("dims") or {}).items():
        if not re.fullmatch(r"[A-Za-z_]\w*", name) or name in _HINTS:
            raise ExportFailure(f"{where}: dim name {name!r} is not an identifier (or is a hint name)")
        if rng is None:
            kw = {}
        elif isinstance(rng, list) and len(rng) == 2 and all(type(v) is int for v in rng):
            kw = {"min": rng[0], "max": rng[1]}
        elif isinstance(rng, dict) and set(rng) <= {"min", "max"} and all(type(v) is int for v in rng.values()):
            kw = dict(rng)
        else:
            raise ExportFailure(
                f"{where}: dim {name!r}: expected null, [MIN, MAX] or {{\"min\": MIN, \"max\": MAX}}, got {rng!r}"
            )
        try:
            dims[name] = Dim(name, **kw)
        except Exception as e:
            raise ExportFailure(f"{where}: dim {name!r}: {e}") from None

    def entry(v, at):
        if v is None:
            return Dim.STATIC
        if not isinstance(v, str):
            raise ExportFailure(f"{where}: {at}: expected null or a string, got {v!r}")
        if v in _HINTS:
            return getattr(Dim, v)
        m = _DERIVED.match(v)
        if not m:
            raise ExportFailure(f"{where}: {at}: {v!r} is not a dim name, A*name+B, AUTO, STATIC or DYNAMIC")
        a1, name, a2, sign, b = m.groups()
        if name not in dims:
            raise ExportFailure(f"{where}: {at}: dim {name!r} is not declared in \"dims\" ({sorted(dims)})")
        d = dims[name]
        coeff = int(a1 or 1) * int(a2 or 1)
        if coeff != 1:
            d = coeff * d
        if b and int(b):
            d = d + int(b) if sign == "+" else d - int(b)
        return d

    params = [
        p.name
        for p in inspect.signature(model.forward).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    shapes = spec["shapes"]
    if isinstance(shapes, list):
        if len(shapes) != len(inputs):
            raise ExportFailure(f"{where}: \"shapes\" has {len(shapes)} entries for {len(inputs)} inputs")
        per_arg = dict(enumerate(shapes))
    elif isinstance(shapes, dict):
        per_arg = {}
        for arg, v in shapes.items():
            if arg not in params[: len(inputs)]:
                raise ExportFailure(f"{where}: no input {arg!r} (forward() takes {params[:len(inputs)]})")
            per_arg[params.index(arg)] = v
    else:
        raise ExportFailure(f'{where}: "shapes" must be an object keyed by input name or a list')
    out = [None] * len(inputs)
    for idx, v in per_arg.items():
        arg = params[idx] if idx < len(params) else f"arg{idx}"
        if v is None:
            continue
        t = inputs[idx]
        if not isinstance(t, torch.Tensor):
            raise ExportFailure(f"{where}: input {arg!r} is not a tensor")
        if isinstance(v, list):
            if len(v) != t.dim():
                raise ExportFailure(f"{where}: input {arg!r} has rank {t.dim()}, its list has {len(v)} entries")
            out[idx] = [entry(e, f"{arg}[{i}]") for i, e in enumerate(v)]
        elif isinstance(v, dict):
            one = {}
            for k, e in v.items():
                try:
                    d = int(k)
                except ValueError:
                    raise ExportFailure(f"{where}: input {arg!r}: dim key {k!r} is not an integer") from None
                if not -t.dim() <= d < t.dim():
                    raise ExportFailure(f"{where}: input {arg!r} has rank {t.dim()}, no dim {d}")
                one[d % t.dim()] = entry(e, f"{arg}[{k}]")
            out[idx] = one
        else:
            raise ExportFailure(f"{where}: input {arg!r}: expected an object, a list or null")
    return tuple(out)


EXPORT_ADVICE = """\
What to do: make torch.export.export(model, example_inputs) succeed on its own first.
  - data-dependent control flow (if/while on tensor values): use torch.cond or
    torch._higher_order_ops.while_loop, or move the decision out of the model;
  - data-dependent shapes (nonzero, item(), boolean masks): bound them with
    torch._check / torch._check_is_size, or compute with masks of static shape;
  - unsupported Python (prints of tensors, numpy calls):
    rewrite that code in torch operations;
  - dynamic-shape constraint violations: change --dynamic-dims / --dynamic-shapes
    to the ranges (or the shared and derived dims) torch suggests above.
See https://pytorch.org/docs/stable/export.html for the export programming model."""


@contextlib.contextmanager
def _stderr_held():
    """When torch.export fails it first writes to stderr what its exception
    says again: a warning on the guard it could not decide and the partial
    graph, dozens of lines. Hold what is written to stderr during the export:
    dropped when it fails (the one error says it), written out when it
    succeeds."""
    held = io.StringIO()
    with contextlib.redirect_stderr(held):
        yield
    sys.stderr.write(held.getvalue())


# The experts form a target exports: transformers' mixture-of-experts
# layers (`@use_experts_implementation`) pick theirs by name at run time.
EXPERTS_FOR_TARGET = {"ane": "batched_mm"}


@contextlib.contextmanager
def experts_for_target(model, target):
    """`with experts_for_target(model, target):` export the mixture-of-experts
    layers of `model`'s transformers models in the form `target` computes
    best, then put back the form they had. For the Neural Engine that is
    transformers' own `batched_mm`: each token's top-k expert weights
    gathered by expert id and multiplied as a batch (int16 ids, f16 data),
    where the default `grouped_mm` sorts tokens by expert, counts them
    (`histc`) and scatters them back: integer and boolean arithmetic the
    Neural Engine cannot hold. Both compute the same sum of each token's
    experts' outputs weighted by its router. `model` None (an exported
    program) is left as it is."""
    form = EXPERTS_FOR_TARGET.get(target)
    switched = []
    if form is not None and model is not None:
        for m in model.modules():
            can = getattr(type(m), "_can_set_experts_implementation", None)
            if callable(can) and hasattr(m, "set_experts_implementation") and can():
                before = m.get_experts_implementation()
                if before.get("") == form:
                    continue
                try:
                    m.set_experts_implementation(form)
                except (ValueError, KeyError, RuntimeError, ImportError):
                    continue  # a model that refuses the form keeps its own
                switched.append((m, before))
    try:
        yield
    finally:
        for m, before in reversed(switched):
            m.set_experts_implementation(before)


def export_module(model, inputs, decompositions="coreai", dynamic_shapes=None):
    """torch.export the module and run the decomposition setting on it."""
    with progress.step("torch.export"):
        try:
            with torch.no_grad(), _stderr_held():
                ep = torch.export.export(model, inputs, dynamic_shapes=dynamic_shapes)
        except Exception as e:
            raise ExportFailure(
                f"the model failed to export with torch.export: {type(e).__name__}: {e}\n{EXPORT_ADVICE}"
            ) from e
    before = _symbolic_dims(ep)
    with progress.step(f"run_decompositions({decompositions!r})"):
        ep = decompose(ep, decompositions)
    lost = [(name, d, size) for (name, d), size in _input_dims(ep).items()
            if (name, d) in before and isinstance(size, int)]
    if lost:
        dims = ", ".join(f"{name} dim {d} ({before[name, d]}) became {size}" for name, d, size in lost)
        raise ExportFailure(
            f"run_decompositions({decompositions!r}) specialized dynamic dims: {dims}; the asset would take that "
            "size only. What to do: export with those dims static (or as static_shapes configurations), or "
            "change the model code that needs their value (an int() of a size, a Python loop over it)."
        )
    return ep


def _input_dims(ep):
    """{(user input name, dim): size (an int, or a symbolic SymInt)} of `ep`."""
    from torch.export.graph_signature import InputKind

    from .importer import _is_concrete

    users = {s.arg.name: s.target or s.arg.name for s in ep.graph_signature.input_specs
             if s.kind == InputKind.USER_INPUT}
    out = {}
    for node in ep.graph.nodes:
        val = node.meta.get("val") if node.op == "placeholder" and node.name in users else None
        if isinstance(val, torch.Tensor):
            for d, size in enumerate(val.shape):
                out[users[node.name], d] = int(size) if _is_concrete(size) else size
    return out


def _symbolic_dims(ep):
    """{(user input name, dim): its symbolic size as text} of `ep`."""
    return {key: str(size) for key, size in _input_dims(ep).items() if isinstance(size, torch.SymInt)}


# The coreai-compile binary the import's fallback asks for its ATen support
# (`convert(compiler=...)` sets it around the import); None: find_compiler().
COMPILER = contextvars.ContextVar("coreai_export_compiler", default=None)


def _compiler_support():
    """The compiler's ATen support, or None when no compiler is found (the
    import then leaves every op to it)."""
    from .convert import CompileFailure, find_compiler

    try:
        return compiler_support(COMPILER.get() or find_compiler())
    except CompileFailure:
        return None


def decompose(ep, decompositions):
    """`ep` with the decomposition setting applied; with `none`, the ops the
    compiler cannot handle but PyTorch can decompose are decomposed here
    (decompositions.fallback_decompositions, one remark each), and a
    program the compiler takes as exported is not retraced at all
    (decompositions.imports_as_exported)."""
    try:
        supported = _compiler_support() if decompositions == "none" else None
        if supported is not None and imports_as_exported(ep, supported):
            return ep
        ep = ep.run_decompositions(decomposition_table(decompositions))
        if supported is not None:
            ep = fallback_decompositions(ep, supported)
        return ep
    except ValueError:
        raise
    except Exception as e:
        raise ExportFailure(
            f"run_decompositions({decompositions!r}) failed: {type(e).__name__}: {e}\n"
            "What to do: try --decompositions none to import the exported graph as is."
        ) from e
