"""One call from an nn.Module to an .aimodel asset.

    from coreai_export import convert
    convert(model, (x,), "m.aimodel", metadata={"author": "Ann"})

torch.export (with the importer's decomposition setting), the import to
aten MLIR, then the `coreai-compile` binary on it: the compiler's pipeline
and asset writer. The binary is `compiler=` if given, else
`$COREAI_COMPILE`, else `coreai-compile` on PATH, else the repository's
target/release or target/debug build.

Enumerated static shapes (`static_shapes={key: {input: shape}}`, coreai-core's
`AIProgram.set_static_shape_config`): one statically shaped entry point
`main_<key>` per configuration. The specialization happens at export: each
configuration is exported with example inputs of its shapes (the inputs it
does not name keep their example and their `dynamic_shapes`), imported, and
the programs are linked into one asset by `coreai-compile --entry`.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import warnings
from pathlib import Path

from . import inprocess, progress
from .exporting import COMPILER, ExportFailure, experts_for_target, export_module
from .externalize import Externalize, externalized
from .importer import ImportError_, import_program

REPO = Path(__file__).resolve().parents[2]


class CompileFailure(RuntimeError):
    """coreai-compile refused the program; the message is its diagnostic."""


def installed_tool_dirs():
    """Where `pip install` put this package's binaries: the scripts
    directory of the running interpreter's environment and the folder of
    the interpreter itself. They come before PATH, which does not hold
    them when the environment's Python runs without its venv activated (an
    IDE, a Jupyter kernel, `venv/bin/python script.py`)."""
    dirs = []
    for d in (sysconfig.get_path("scripts"), Path(sys.executable).parent):
        if d and Path(d) not in dirs:
            dirs.append(Path(d))
    return dirs


def find_compiler():
    """coreai-compile: $COREAI_COMPILE, beside this Python (its venv's
    scripts), on PATH, or in the checkout's target/release, target/debug."""
    for candidate in (os.environ.get("COREAI_COMPILE"), *(d / "coreai-compile" for d in installed_tool_dirs()),
                      shutil.which("coreai-compile"),
                      REPO / "target" / "release" / "coreai-compile", REPO / "target" / "debug" / "coreai-compile"):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    raise CompileFailure("coreai-compile not found: set COREAI_COMPILE, install the package (pip install .) or put "
                         "it on PATH (cargo build)")


class StaticShapesOnly(UserWarning):
    """`convert(target="ane")` was given dynamic shapes; it exports static
    ones."""


def convert(model, example_inputs, output, *, target="cpu", precision=None, decompositions="none",
            dynamic_shapes=None, static_shapes=None, externalize=(), hw_constraints=None, metadata=None,
            compiler=None, timing=False, compress=None, input_names=None, output_names=None, io=None):
    """Exports `model` on `example_inputs` and compiles it to the asset
    `output` (NAME.aimodel); returns its path. `externalize`: Externalize
    specs, their command-line strings (`RMSNorm=rms_norm:eps`), classes,
    or coreai-torch's ExternalizeSpec objects. `static_shapes`:
    `{key: {input_name: shape}}`, one static entry point `main_<key>` per
    key instead of `main` (an input a key does not name keeps its example
    shape and its `dynamic_shapes`); a bad configuration raises
    ExportFailure before anything is written. `hw_constraints`:
    `{input_or_output_name: constraints}`, coreai-core's
    `set_hardware_constraints` (`coreai-compile --hw-constraints`), each
    constraints either `"BACKING:ALIGNMENTS:INTERLEAVE"`
    (`"IOSurface:1x1x32x1:1x1x1"`) or a coreai-core `HardwareConstraints`.
    `timing=True` prints to stderr, at the end, the wall time of each step
    (torch.export, run_decompositions, the import, the hand-off to
    coreai-compile, coreai-compile) and coreai-compile's own
    `--mlir-timing` report (its parsing, each pass, the asset).
    `compress`: weight compression, `coreai-compile --compress` (a preset
    such as `"int8"` or `"int4-block32"`, or a compression pass with its
    options; docs/compression.md). `input_names`, `output_names`: the
    asset's names of the forward's inputs (in order; a mutated input names
    its state) and of its outputs, instead of torch.export's placeholder
    names and `output`/`output_N`. `precision=None` is the target's
    default (`coreai-compile`'s: f16 on the Neural Engine, which computes in
    f16, f32 elsewhere). `io`: the asset's input and output types,
    `coreai-compile --io`: `"model"` keeps the model's, `"f16"` gives the
    Neural Engine's (f16 for f32; with `target="ane"` si16 for integer
    inputs that only index tables of at most 32767 rows); `None` is the
    default, `"f16"` for `target="ane"` in f16 and `"model"` otherwise.
    With `target="ane"`, `dynamic_shapes` without `static_shapes` exports
    the example inputs' shapes, with a warning: the Neural Engine runs
    static shapes only (a dynamic op would run off it), and
    `static_shapes` gives one function per shape."""
    if target == "ane" and dynamic_shapes is not None and not static_shapes:
        warnings.warn("target='ane': the Neural Engine runs static shapes only (Apple's rules: one function per "
                      "shape), so the model is exported at the example inputs' shapes and dynamic_shapes is not "
                      "used; give static_shapes={key: {input: shape}} for one function per shape",
                      StaticShapesOnly, stacklevel=2)
        dynamic_shapes = None
    specs = [Externalize.of(s) for s in externalize]
    names = (input_names, output_names)
    # Steps: torch.export and the import per program, then coreai-compile.
    programs_count = len(static_shapes) if isinstance(static_shapes, dict) and static_shapes else 1
    token = COMPILER.set(compiler)
    try:
        with progress.timed() as report:
            out, compile_report = _convert(
                model, example_inputs, output, programs_count, static_shapes, specs, target=target,
                precision=precision, decompositions=decompositions, dynamic_shapes=dynamic_shapes,
                hw_constraints=hw_constraints, metadata=metadata, compiler=compiler, timing=timing,
                compress=compress, names=names, io=io)
    finally:
        COMPILER.reset(token)
    if timing:
        sys.stderr.write(report.text() + compile_report)
    return out


def _convert(model, example_inputs, output, programs_count, static_shapes, specs, *, target, precision,
             decompositions, dynamic_shapes, hw_constraints, metadata, compiler, timing, compress=None,
             names=(None, None), io=None):
    """(the asset's path, coreai-compile's timing report or "")."""
    with progress.display(total=3 * programs_count + 2), experts_for_target(model, target):
        if static_shapes is None:
            programs = [("main", import_model(model, example_inputs, decompositions, dynamic_shapes, specs, names))]
        else:
            programs = specialized(model, example_inputs, static_shapes, decompositions=decompositions,
                                   dynamic_shapes=dynamic_shapes, externalize=specs, names=names)
        report = [] if timing else None
        out = compile_asset(programs, output, target=target, precision=precision, metadata=metadata,
                            hw_constraints=hw_constraints, compiler=compiler, timing=report,
                            compress=compress, io=io)
        return out, "".join(report or [])


def import_model(model, inputs, decompositions, dynamic_shapes, specs, names=(None, None)):
    """The imported program (`@main`) of `model` exported on `inputs`;
    `names`: (input_names, output_names) or Nones."""
    with externalized(model, specs, inputs) as marked:
        ep = export_module(model, inputs, decompositions, dynamic_shapes)
        functions = marked.functions(ep, decompositions)
    return import_program(ep, "main", functions, *names)


def hw_constraint_flags(hw_constraints):
    """`{name: constraints}` as `--hw-constraints NAME=BACKING:ALIGNMENTS:INTERLEAVE`
    flags; a constraints value is that text after `NAME=`, or an object with
    coreai-core's `HardwareConstraints` fields (allocation_type, alignments,
    interleave)."""
    flags = []
    for name, c in (hw_constraints or {}).items():
        if not isinstance(c, str):
            try:
                backing = getattr(c.allocation_type, "value", c.allocation_type)
                c = ":".join([str(backing), "x".join(map(str, c.alignments)), "x".join(map(str, c.interleave))])
            except (AttributeError, TypeError):
                raise ExportFailure(f"hw_constraints[{name!r}]: expected 'BACKING:ALIGNMENTS:INTERLEAVE' "
                                    f"or a HardwareConstraints, got {c!r}") from None
        flags += ["--hw-constraints", f"{name}={c}"]
    return flags


def compile_asset(programs, output, *, target="cpu", precision=None, metadata=None, hw_constraints=None,
                  compiler=None, timing=None, compress=None, io=None):
    """`coreai-compile` on imported programs [(function name, ImportedProgram
    of `@main`)]: one named main is the asset's `main`, others are linked
    with `--entry NAME=FILE`. `timing`: a list that gets coreai-compile's
    `--mlir-timing` report."""
    executable = compiler or find_compiler()
    # The compiler runs in the hand-off directory on the files' bare names:
    # an op without a location of its own gets one in `program0.mlir`, the
    # same in every run (not the temporary directory's random path).
    command = [os.path.abspath(executable) if os.sep in executable else executable]
    # In a forked child the compiler shares the weights (inprocess.py);
    # the binary reads them from a safetensors file.
    library = inprocess.library_for(command[0])
    weights = sum(len(data) for _, prog in programs for _, _, data in prog.resources)
    with tempfile.TemporaryDirectory(dir=handoff_dir(weights)) as tmp:
        files, shared = [], []
        what = "weights shared in memory" if library else "safetensors weights"
        with progress.step(f"hand-off to coreai-compile (MLIR text, {what})"):
            for i, (name, prog) in enumerate(programs):
                source = f"program{i}.mlir"
                side = prog.write(Path(tmp) / source, weights=True, weights_file=library is None)
                shared += [(side.name, key, data) for key, _, data in prog.resources]
                files.append((name, source))
        if len(files) == 1 and files[0][0] == "main":
            command.append(files[0][1])
        else:
            for name, source in files:
                command += ["--entry", f"{name}={source}"]
        command += ["-o", os.path.abspath(output), "--target", target]
        if precision is not None:
            command += ["--precision", precision]
        if io is not None:
            command += ["--io", io]
        command += hw_constraint_flags(hw_constraints)
        if compress:
            command += ["--compress", compress]
        for key, value in (metadata or {}).items():
            command += ["--metadata", f"{key}={value}"]
        if timing is not None:
            command.append("--mlir-timing")
        with progress.step("coreai-compile: pipeline and asset"):
            r = inprocess.run(library, command, shared, cwd=tmp) if library else None
            if r is None:  # no library, or no fork: the binary on the weights files
                if library:
                    for i, (_, prog) in enumerate(programs):
                        prog.write(Path(tmp) / f"program{i}.mlir", weights=True)
                r = subprocess.run(command, capture_output=True, text=True, cwd=tmp)
    if r.returncode != 0:
        message = r.stderr.strip()
        if r.returncode < 0:
            message += f"\ncoreai-compile was killed by {signal.Signals(-r.returncode).name}"
        raise CompileFailure(message.strip())
    if timing is not None:
        timing.append(r.stderr)
    return Path(output)


def handoff_dir(weight_bytes):
    """Where the hand-off files go: `/dev/shm` (memory) when it has room for
    the weights twice over, else the default temporary directory. A weights
    file coreai-compile maps from memory costs no disk write: writing 1 GB
    through the page cache of a disk file took 2.4 s on a 2-core virtual
    machine, 0.45 s to tmpfs. `COREAI_HANDOFF_DIR` overrides the choice."""
    chosen = os.environ.get("COREAI_HANDOFF_DIR")
    if chosen:
        return chosen
    shm = "/dev/shm"
    try:
        stat = os.statvfs(shm)
    except OSError:
        return None
    free = stat.f_bavail * stat.f_frsize
    return shm if os.access(shm, os.W_OK) and free >= 2 * weight_bytes + (256 << 20) else None


# ---- enumerated static shapes ----------------------------------------------

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def tensor_inputs(model, inputs):
    """{forward() parameter name: position} of the tensor example inputs:
    the names the importer gives their arguments (`coreai.name`)."""
    import inspect

    import torch

    params = [p.name for p in inspect.signature(model.forward).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return {name: i for i, name in enumerate(params[: len(inputs)]) if isinstance(inputs[i], torch.Tensor)}


def check_static_shapes(static_shapes, model, inputs, entry="main"):
    """Validates `{key: {input_name: shape}}` against the example inputs
    (coreai-core's rules: every dim > 0, the input's rank) and returns
    `{key: {position: shape tuple}}`; a bad entry is one ExportFailure."""
    where = "static shapes"
    if not isinstance(static_shapes, dict) or not static_shapes:
        raise ExportFailure(f"{where}: expected a non-empty {{key: {{input: shape}}}}, got {static_shapes!r}")
    names = tensor_inputs(model, inputs)
    out = {}
    for key, config in static_shapes.items():
        if not isinstance(key, str) or not _KEY.fullmatch(key):
            raise ExportFailure(f"{where}: key {key!r} is not an identifier ({entry}_KEY names the function)")
        if not isinstance(config, dict):
            raise ExportFailure(f"{where}: {key}: expected {{input: shape}}, got {config!r}")
        one = {}
        for name, shape in config.items():
            if name not in names:
                raise ExportFailure(f"{where}: {key}: no tensor input {name!r} (forward() takes {list(names)})")
            example = inputs[names[name]]
            if isinstance(shape, (int, str)) or not all(_is_int(d) for d in _iterable(shape)):
                raise ExportFailure(f"{where}: {key}: {name}: expected a shape (a sequence of ints), got {shape!r}")
            shape = tuple(int(d) for d in shape)
            if len(shape) != example.dim():
                raise ExportFailure(f"{where}: {key}: {name}: shape {list(shape)} has rank {len(shape)}, "
                                    f"the input has rank {example.dim()} (example {list(example.shape)})")
            if not all(d > 0 for d in shape):
                raise ExportFailure(f"{where}: {key}: {name}: shape {list(shape)}: every dim must be > 0")
            one[names[name]] = shape
        out[key] = one
    return out


def _is_int(d):
    import operator

    try:
        return not isinstance(d, bool) and operator.index(d) == d
    except TypeError:
        return False


def _iterable(v):
    try:
        return list(v)
    except TypeError:
        return [None]


def _static_inputs(inputs, config):
    """The example inputs with each configured one replaced by zeros of its
    shape (torch.export traces shapes, not values)."""
    import torch

    return tuple(torch.zeros(config[i], dtype=t.dtype, device=t.device) if i in config else t
                 for i, t in enumerate(inputs))


def _static_dynamic_shapes(dynamic_shapes, names, config):
    """`dynamic_shapes` with the configured inputs made static."""
    if dynamic_shapes is None:
        return None
    if isinstance(dynamic_shapes, dict):
        fixed = {names[i] for i in config}
        return {k: (None if k in fixed else v) for k, v in dynamic_shapes.items()}
    return type(dynamic_shapes)(None if i in config else v for i, v in enumerate(dynamic_shapes))


def specialized(model, inputs, static_shapes, *, decompositions="none", dynamic_shapes=None, externalize=(),
                entry="main", names=(None, None)):
    """[(`<entry>_<key>`, ImportedProgram)] in key order: the model exported
    and imported once per configuration of `static_shapes` (see
    check_static_shapes; its keys name the forward's parameters), each
    program's inputs and outputs named by `names` = (input_names,
    output_names) where given, as `convert` names a single `main`."""
    configs = check_static_shapes(static_shapes, model, inputs, entry)
    params = {i: n for n, i in tensor_inputs(model, inputs).items()}
    input_names = names[0]
    # The argument a configuration's input becomes: its asset name.
    arg_name = {i: (input_names[i] if input_names and i < len(input_names) else n) for i, n in params.items()}
    programs = []
    # In key order, as coreai-core orders the functions (its configuration is
    # a dictionary attribute, whose keys MLIR sorts).
    for key, config in sorted(configs.items()):
        shaped = ", ".join(f"{params[i]}={'x'.join(map(str, s))}" for i, s in config.items())
        try:
            prog = import_model(model, _static_inputs(inputs, config), decompositions,
                                _static_dynamic_shapes(dynamic_shapes, params, config), externalize, names)
        except (ExportFailure, ImportError_) as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise ExportFailure(f"static shapes: {key} ({shaped}): {first}") from e
        missing = [arg_name[i] for i in config if arg_name[i] not in prog.arg_names]
        if missing:
            raise ExportFailure(f"static shapes: {key}: the program has no argument named {missing[0]!r} "
                                f"(its arguments: {prog.arg_names})")
        programs.append((f"{entry}_{key}", prog))
    return programs


def parse_static_shapes(items):
    """Command-line configurations, one per item: `KEY:INPUT=DxD[,INPUT=DxD...]`
    (`b1:x=1x128`, `b4:x=4x128,mask=4x128`) -> `{key: {input: shape}}`."""
    out = {}
    for item in items:
        key, sep, rest = item.partition(":")
        if not sep or not key:
            raise ExportFailure(f"--static-shapes {item!r}: expected KEY:INPUT=DxD[,INPUT=DxD...]")
        if key in out:
            raise ExportFailure(f"--static-shapes {item!r}: configuration {key!r} is given twice")
        config = {}
        for part in filter(None, (p.strip() for p in rest.split(","))):
            name, eq, dims = part.partition("=")
            try:
                if not eq or not name:
                    raise ValueError
                shape = tuple(int(d) for d in dims.split("x"))
            except ValueError:
                raise ExportFailure(f"--static-shapes {item!r}: {part!r} is not INPUT=DxD (e.g. x=1x128)") from None
            if name in config:
                raise ExportFailure(f"--static-shapes {item!r}: input {name!r} is given twice")
            config[name] = shape
        if not config:
            raise ExportFailure(f"--static-shapes {item!r}: no INPUT=DxD")
        out[key] = config
    return out
