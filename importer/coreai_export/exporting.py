"""Loading a model factory, torch.export, and the decomposition step."""

import importlib
import importlib.util
import inspect
import os
import sys

import torch

from .decompositions import decomposition_table


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


EXPORT_ADVICE = """\
What to do: make torch.export.export(model, example_inputs) succeed on its own first.
  - data-dependent control flow (if/while on tensor values): use torch.cond or
    torch._higher_order_ops.while_loop, or move the decision out of the model;
  - data-dependent shapes (nonzero, item(), boolean masks): bound them with
    torch._check / torch._check_is_size, or compute with masks of static shape;
  - unsupported Python (prints of tensors, numpy calls, in-place on inputs):
    rewrite that code in torch operations;
  - dynamic-shape constraint violations: change --dynamic-dims to the ranges
    torch suggests above.
See https://pytorch.org/docs/stable/export.html for the export programming model."""


def export_module(model, inputs, decompositions="coreai", dynamic_shapes=None):
    """torch.export the module and run the decomposition setting on it."""
    try:
        with torch.no_grad():
            ep = torch.export.export(model, inputs, dynamic_shapes=dynamic_shapes)
    except Exception as e:
        raise ExportFailure(
            f"the model failed to export with torch.export: {type(e).__name__}: {e}\n{EXPORT_ADVICE}"
        ) from e
    return decompose(ep, decompositions)


def decompose(ep, decompositions):
    try:
        return ep.run_decompositions(decomposition_table(decompositions))
    except ValueError:
        raise
    except Exception as e:
        raise ExportFailure(
            f"run_decompositions({decompositions!r}) failed: {type(e).__name__}: {e}\n"
            "What to do: try --decompositions none to import the exported graph as is."
        ) from e
