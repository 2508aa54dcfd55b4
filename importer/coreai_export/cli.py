"""Command line: python -m coreai_export ... -o model.mlir"""

import argparse
import copy
import logging
import os
import sys
import tempfile

from . import metal, progress

USAGE = """\
python -m coreai_export (--model pkg.module:factory | --module-file path/to/file.py:factory |
                         --exported-program m.pt2 --inputs in.npz)
                        -o model.mlir [--inputs-out in.npz] [--expected-out expected.npz]
                        [--decompositions coreai|default|none] [--dynamic-dims SPEC | --dynamic-shapes JSON] [--entry NAME]
                        [--externalize CLASS[=COMPOSITE[:ATTR,...]] ...]
       python -m coreai_export ... -o model.aimodel [--static-shapes KEY:INPUT=DxD[,INPUT=DxD...] ...]
                        [--target cpu|gpu|ane] [--precision f32|f16] [--io model|f16]"""


def build_parser():
    p = argparse.ArgumentParser(
        prog="coreai_export",
        usage=USAGE,
        description="Export a PyTorch model with torch.export and write it as aten-dialect MLIR "
        "(or, with -o NAME.aimodel, compile it to an asset with coreai-compile).",
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", metavar="PKG.MODULE:FACTORY",
                     help="factory() returns (nn.Module, example_inputs_tuple, ...)")
    src.add_argument("--module-file", metavar="FILE.py:FACTORY", help="as --model, from a file")
    src.add_argument("--exported-program", metavar="M.PT2", help="a torch.export.save()d program")
    p.add_argument("--inputs", metavar="IN.NPZ",
                   help="example inputs of --exported-program, in argument order")
    p.add_argument("-o", "--output", required=True, metavar="MODEL.MLIR",
                   help="the aten MLIR to write, or NAME.aimodel: the asset coreai-compile makes of it")
    p.add_argument("--inputs-out", metavar="IN.NPZ",
                   help="write the example inputs under the entry's argument names")
    p.add_argument("--expected-out", metavar="EXPECTED.NPZ",
                   help="write eager PyTorch's outputs under the entry's result names")
    p.add_argument("--decompositions", default="coreai", choices=["coreai", "default", "none"],
                   help="coreai (default): torch's default table minus the 12 ops coreai-torch "
                   "keeps whole; default: torch's table; none: no decomposition")
    p.add_argument("--dynamic-dims", metavar="SPEC", default="",
                   help="ARG:DIM[=MIN:MAX],... dims exported as dynamic (ARG: forward() "
                   "parameter name or index)")
    p.add_argument("--dynamic-shapes", metavar="JSON", default="",
                   help='torch.export dynamic_shapes as JSON (or @FILE): {"dims": {"s": [2, 64]}, '
                   '"shapes": {"x": {"1": "s"}, "y": {"0": "2*s"}, "z": {"0": "AUTO"}}}; a dim '
                   "name used twice is one shared Dim")
    p.add_argument("--entry", default="main", help="name of the entry function (default main)")
    p.add_argument("--externalize", action="append", default=[], metavar="CLASS[=COMPOSITE[:ATTR,...]]",
                   help="keep each call of a submodule of class CLASS as a call of its own noinline "
                   "function; with COMPOSITE, a private composite op whose declaration lists the "
                   "module attributes ATTR (repeatable)")
    p.add_argument("--timing", action="store_true",
                   help="print, at the end, the wall time of each step (torch.export, run_decompositions, the "
                   "import, the hand-off, coreai-compile) and, for an asset, coreai-compile's --mlir-timing report")
    p.add_argument("--static-shapes", action="append", default=[], metavar="KEY:INPUT=DxD[,INPUT=DxD...]",
                   help="with -o NAME.aimodel: one statically shaped function ENTRY_KEY per configuration "
                   "(repeat for each; e.g. b1:x=1x128), coreai-core's set_static_shape_config; inputs a "
                   "configuration does not name keep their example shape and dynamic dims")
    p.add_argument("--hw-constraints", action="append", default=[], metavar="NAME=BACKING:ALIGNMENTS:INTERLEAVE",
                   help="with -o NAME.aimodel: coreai-compile --hw-constraints, coreai-core's "
                   "set_hardware_constraints on input or output NAME (e.g. x=IOSurface:1x1x32x1:1x1x1; repeatable)")
    p.add_argument("--target", choices=["cpu", "gpu", "ane"],
                   help="with -o NAME.aimodel: coreai-compile --target (default cpu)")
    p.add_argument("--precision", choices=["f32", "f16"],
                   help="with -o NAME.aimodel: coreai-compile --precision (default: its own)")
    p.add_argument("--io", choices=["model", "f16"],
                   help="with -o NAME.aimodel: coreai-compile --io, the asset's input and output types (default: "
                   "f16 for --target ane, whose inputs the Neural Engine takes in f16 and si16; model otherwise)")
    p.add_argument("--compress", metavar="SPEC",
                   help="with -o NAME.aimodel: coreai-compile --compress, weight compression (int8, "
                   "int4-block32, ... or a compression pass with its options; docs/compression.md)")
    return p


def _write_atomic(path, write):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".coreai-export-")
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _savez(path, names, arrays):
    import numpy as np

    def write(tmp):
        with open(tmp, "wb") as f:
            np.savez(f, **dict(zip(names, arrays)))

    _write_atomic(path, write)


def _to_numpy(t):
    import torch

    t = t.detach().cpu()
    if t.dtype == torch.bfloat16:
        t = t.float()
    # C order: a transposed output is a Fortran-ordered view otherwise, and
    # .npz readers (coreai-run) take C-ordered arrays. (np.ascontiguousarray
    # would turn a 0-d result into shape [1].)
    a = t.numpy()
    return a if a.flags.c_contiguous else a.copy(order="C")


def _one_line(e):
    """An exception as `Type: first line`: torch's loader errors carry pages."""
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0]}" if text else type(e).__name__


def check_outputs(ns):
    """Every file to write has an existing directory: checked before the
    (possibly minutes-long) export, so a typo costs nothing."""
    from .exporting import ExportFailure

    for flag, path in (("-o", ns.output), ("--inputs-out", ns.inputs_out),
                       ("--expected-out", ns.expected_out)):
        if path is None:
            continue
        d = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(d):
            raise ExportFailure(f"{flag} {path}: directory {os.path.dirname(path) or '.'} does not exist")
        if os.path.isdir(path) and not (flag == "-o" and _is_asset(path)):
            raise ExportFailure(f"{flag} {path}: is a directory")
    if ns.static_shapes and not _is_asset(ns.output):
        raise ExportFailure("--static-shapes makes several functions: give -o NAME.aimodel (an asset)")
    if _is_asset(ns.output) and (ns.inputs_out or ns.expected_out):
        raise ExportFailure("--inputs-out and --expected-out go with an .mlir output, not an .aimodel")
    if not _is_asset(ns.output) and (ns.target or ns.precision or ns.io or ns.hw_constraints or ns.compress):
        raise ExportFailure("--target, --precision, --io, --hw-constraints and --compress are coreai-compile's: "
                            "give -o NAME.aimodel")


def _is_asset(path):
    return path.endswith(".aimodel") or path.endswith(".aimodel/")


def run(ns):
    import numpy as np
    import torch
    from torch.utils._pytree import tree_flatten

    from .exporting import ExportFailure, call_factory, decompose, export_module, load_factory
    from .externalize import Externalize, externalized
    from .importer import ImportError_, import_program

    if _is_asset(ns.output):
        return run_asset(ns)
    model, functions = None, None
    if ns.exported_program:
        ep, inputs = _load_exported(ns)
        ep = decompose(ep, ns.decompositions)
    else:
        factory = load_factory(ns.model or ns.module_file, from_file=bool(ns.module_file))
        model, inputs = call_factory(factory)
        shapes = _dynamic_shapes(ns, model, inputs)
        # Kernel objects (custom Metal kernels) are shared, not copied.
        eager_model = copy.deepcopy(model, metal.shared()) if ns.expected_out else None
        specs = [Externalize.parse(t) for t in ns.externalize]
        with externalized(model, specs, inputs) as marked:
            ep = export_module(model, inputs, ns.decompositions, shapes)
            functions = marked.functions(ep, ns.decompositions)
    if ns.externalize and model is None:
        raise ExportFailure("--externalize needs the model (--model or --module-file)")
    try:
        prog = import_program(ep, ns.entry, functions)
    except ImportError_ as e:
        raise ExportFailure(f"import failed: {e}") from e

    def write_text(tmp):
        with open(tmp, "w") as f:
            f.write(prog.text)

    _write_atomic(ns.output, write_text)

    sig = ep.graph_signature
    # user inputs by placeholder name (mutated ones are states, after the
    # mutated buffers), buffers by their target
    tensors = [t for t in inputs if isinstance(t, torch.Tensor)]
    user_index = {name: i for i, name in enumerate(sig.user_inputs)}
    mutated_inputs = set(sig.user_inputs_to_mutate.values())
    n_plain = len(sig.user_inputs) - len(mutated_inputs)

    def initial(pos, name):
        if pos < n_plain or name in mutated_inputs:
            return tensors[user_index[name]]
        return ep.state_dict[name]

    if ns.inputs_out:
        arrays = [_to_numpy(initial(i, name)) for i, name in enumerate(prog.arg_names)]
        _save_checked(ns.inputs_out, prog.arg_names, arrays)
    if ns.expected_out:
        runner = ep.module() if model is None else eager_model
        # the call mutates its inputs in place: give it copies, whose new
        # values are the mutated inputs' expected states
        called = [t.clone() if isinstance(t, torch.Tensor) else t for t in inputs]
        with torch.no_grad():
            out = runner(*called)
        called_tensors = [t for t in called if isinstance(t, torch.Tensor)]
        flat, _ = tree_flatten(out)
        arrays = [_to_numpy(t) if isinstance(t, torch.Tensor) else np.asarray(t) for t in flat]
        bufs = dict(runner.named_buffers())
        for name in prog.result_names[len(arrays):]:
            if name in mutated_inputs:
                arrays.append(_to_numpy(called_tensors[user_index[name]]))
            else:
                arrays.append(_to_numpy(bufs[name]))
        _save_checked(ns.expected_out, prog.result_names, arrays)
    return prog, ep


def _load_exported(ns):
    """--exported-program and --inputs -> (ExportedProgram, example inputs)."""
    import numpy as np
    import torch

    from .exporting import ExportFailure

    if not ns.inputs:
        raise ExportFailure("--exported-program needs --inputs IN.NPZ (its example inputs)")
    # torch logs a warning with a whole traceback before raising; the
    # error below says it in one line.
    export_log = logging.getLogger("torch.export")
    level = export_log.level
    export_log.setLevel(logging.ERROR)
    try:
        ep = torch.export.load(ns.exported_program)
    except Exception as e:
        raise ExportFailure(f"{ns.exported_program}: cannot load: {_one_line(e)}") from e
    finally:
        export_log.setLevel(level)
    try:
        with np.load(ns.inputs) as z:
            inputs = tuple(torch.from_numpy(z[k]) for k in z.files)
    except Exception as e:
        raise ExportFailure(f"{ns.inputs}: cannot read the inputs: {_one_line(e)}") from e
    return ep, inputs


def _dynamic_shapes(ns, model, inputs):
    from .exporting import ExportFailure, parse_dynamic_dims, parse_dynamic_shapes

    if ns.dynamic_dims and ns.dynamic_shapes:
        raise ExportFailure("--dynamic-dims and --dynamic-shapes say the same thing: give one")
    if ns.dynamic_dims:
        return parse_dynamic_dims(ns.dynamic_dims, model, inputs)
    if ns.dynamic_shapes:
        return parse_dynamic_shapes(ns.dynamic_shapes, model, inputs)
    return None


def run_asset(ns):
    """-o NAME.aimodel: the program(s) compiled by coreai-compile; with
    --static-shapes, one function ENTRY_KEY per configuration. An
    --exported-program is imported as it is, or with --static-shapes
    re-exported from its module (`ExportedProgram.module()`) per
    configuration. Returns [(function name, ImportedProgram)]."""
    from .convert import CompileFailure, compile_asset, import_model, parse_static_shapes, specialized
    from .exporting import ExportFailure, call_factory, decompose, experts_for_target, load_factory
    from .externalize import Externalize
    from .importer import ImportError_, import_program

    static = parse_static_shapes(ns.static_shapes) if ns.static_shapes else None
    specs = [Externalize.parse(t) for t in ns.externalize]
    if ns.exported_program:
        if specs:
            raise ExportFailure("--externalize needs the model (--model or --module-file)")
        ep, inputs = _load_exported(ns)
        model = ep.module() if static else None
    else:
        factory = load_factory(ns.model or ns.module_file, from_file=bool(ns.module_file))
        model, inputs = call_factory(factory)
    try:
        with experts_for_target(model, ns.target):
            if static:
                programs = specialized(model, inputs, static, decompositions=ns.decompositions,
                                       dynamic_shapes=_dynamic_shapes(ns, model, inputs), externalize=specs,
                                       entry=ns.entry)
            elif model is None:
                programs = [(ns.entry, import_program(decompose(ep, ns.decompositions), "main"))]
            else:
                programs = [(ns.entry, import_model(model, inputs, ns.decompositions,
                                                    _dynamic_shapes(ns, model, inputs), specs))]
    except ImportError_ as e:
        raise ExportFailure(f"import failed: {e}") from e
    try:
        hw = dict(item.split("=", 1) if "=" in item else (item, "") for item in ns.hw_constraints)
        compile_asset(programs, ns.output, target=ns.target or "cpu", precision=ns.precision, hw_constraints=hw,
                      timing=getattr(ns, "compile_timing", None), compress=ns.compress, io=ns.io)
    except CompileFailure as e:
        raise ExportFailure(str(e).removeprefix("coreai-compile: error: ")) from e
    return programs


def _save_checked(path, names, arrays):
    if len(names) != len(arrays):
        raise RuntimeError(f"{path}: {len(arrays)} arrays for {len(names)} names {names}")
    _savez(path, names, arrays)


def _steps(ns):
    """How many progress steps `run` takes: torch.export and
    run_decompositions (not for an --exported-program, unless it is
    re-exported per configuration) and the import per program, and for an
    asset the hand-off to coreai-compile and coreai-compile."""
    programs = max(1, len(ns.static_shapes))
    exports = programs if (not ns.exported_program or ns.static_shapes) else 0
    return 2 * exports + programs + (2 if _is_asset(ns.output) else 0)


def main(argv=None):
    ns = build_parser().parse_args(argv)
    from .exporting import ExportFailure

    try:
        check_outputs(ns)
        ns.compile_timing = [] if ns.timing else None
        with progress.timed() as report, progress.display(total=_steps(ns)):
            run(ns)
        if ns.timing:
            sys.stderr.write(report.text() + "".join(ns.compile_timing))
    except OSError as e:  # writing an output failed (disk full, permissions)
        print(f"coreai_export: error: {e.filename or ''}: {e.strerror or e}", file=sys.stderr)
        return 1
    except ExportFailure as e:
        print(f"coreai_export: error: {e}", file=sys.stderr)
        return 1
    return 0
