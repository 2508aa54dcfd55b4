"""One call from an nn.Module to an .aimodel asset.

    from coreai_export import convert
    convert(model, (x,), "m.aimodel", metadata={"author": "Ann"})

torch.export (with the importer's decomposition setting), the import to
aten MLIR, then the `coreai-compile` binary on it: the compiler's pipeline
and asset writer. The binary is `compiler=` if given, else
`$COREAI_COMPILE`, else `coreai-compile` on PATH, else the repository's
target/release or target/debug build.
"""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .exporting import export_module
from .externalize import Externalize, externalized
from .importer import import_program

REPO = Path(__file__).resolve().parents[2]


class CompileFailure(RuntimeError):
    """coreai-compile refused the program; the message is its diagnostic."""


def find_compiler():
    for candidate in (os.environ.get("COREAI_COMPILE"), shutil.which("coreai-compile"),
                      REPO / "target" / "release" / "coreai-compile", REPO / "target" / "debug" / "coreai-compile"):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    raise CompileFailure("coreai-compile not found: set COREAI_COMPILE or put it on PATH (cargo build)")


def convert(model, example_inputs, output, *, target="cpu", precision="f32", decompositions="none",
            dynamic_shapes=None, externalize=(), metadata=None, compiler=None):
    """Exports `model` on `example_inputs` and compiles it to the asset
    `output` (NAME.aimodel); returns its path. `externalize`: Externalize
    specs, their command-line strings (`RMSNorm=rms_norm:eps`), classes,
    or coreai-torch's ExternalizeSpec objects."""
    specs = [Externalize.of(s) for s in externalize]
    with externalized(model, specs, example_inputs) as marked:
        ep = export_module(model, example_inputs, decompositions, dynamic_shapes)
        functions = marked.functions(ep, decompositions)
    text = import_program(ep, "main", functions).text
    command = [compiler or find_compiler()]
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "model.mlir"
        source.write_text(text)
        command += [str(source), "-o", str(output), "--target", target, "--precision", precision]
        for key, value in (metadata or {}).items():
            command += ["--metadata", f"{key}={value}"]
        r = subprocess.run(command, capture_output=True, text=True)
    if r.returncode != 0:
        raise CompileFailure(r.stderr.strip())
    return Path(output)
