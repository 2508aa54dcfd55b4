"""Malformed input to every tool: exactly one error, with a location, and the
tool's failure status (1; 2 for the tools whose contract reserves 1 for "a
difference was found": coreai-bisect, coreai-freqop, coreai-graphdiff), and
nothing left behind: no output file, no temporary file.

The inputs are the kinds a user hands over by mistake or that a crash leaves
half-written: a syntax error, an unknown op, bytes that are not text, a
truncated bytecode file, a file that does not exist; and, for the importer,
model files that do not import, factories that fail, a model torch.export
refuses and an output directory that does not exist.
"""

import re
import subprocess

import pytest

from toolchain import BUILD, COREAI_OPT, export

# Each tool: (its command for an input file and an output path, the status it
# fails with).
TOOLS = {
    "coreai-opt": (lambda f, out: [COREAI_OPT, f, "-o", out], 1),
    "coreai-run": (lambda f, out: [BUILD / "coreai-run", f, "--outputs", out], 1),
    "coreai-compile": (lambda f, out: [BUILD / "coreai-compile", f, "-o", out.with_suffix(".aimodel")], 1),
    "coreai-bisect": (lambda f, out: [BUILD / "coreai-bisect", f, "--pass-pipeline=builtin.module(canonicalize)",
                                      "--random-inputs", "1", "-o", out], 2),
    "coreai-freqop": (lambda f, out: [BUILD / "coreai-freqop", f, "--json"], 2),
    "coreai-graphdiff": (lambda f, out: [BUILD / "coreai-graphdiff", f, f, "--output", out], 2),
}

GOOD = 'func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  return %x : tensor<2xf32>\n}\n'


def inputs(tmp):
    """name -> (path, the location the error must give)."""
    files = {
        "syntax.mlir": (b"func.func @main( {\n", r"syntax\.mlir\"?:1:\d+"),
        "unknown-op.mlir": (b'"coreai.nope"() : () -> ()\n', r"unknown-op\.mlir\"?:1:1"),
        "binary.mlir": (b"\xff\xfe\x00\x01garbage", r"binary\.mlir\"?:1:1"),
        "unterminated.mlir": (b'func.func @main() attributes {s = "abc', r"unterminated\.mlir\"?:1:\d+"),
    }
    out = {}
    for name, (data, where) in files.items():
        (tmp / name).write_bytes(data)
        out[name] = (tmp / name, where)
    good = tmp / "good.mlir"
    good.write_text(GOOD)
    bytecode = tmp / "good.mlirbc"
    subprocess.run([COREAI_OPT, good, "--emit-bytecode", "-o", bytecode], check=True)
    data = bytecode.read_bytes()
    (tmp / "truncated.mlirbc").write_bytes(data[: len(data) // 2])
    out["truncated.mlirbc"] = (tmp / "truncated.mlirbc", r"truncated\.mlirbc: byte \d+")
    out["missing.mlir"] = (tmp / "missing.mlir", r"missing\.mlir")
    good.unlink()
    bytecode.unlink()
    return out


CASES = ["syntax.mlir", "unknown-op.mlir", "binary.mlir", "unterminated.mlir", "truncated.mlirbc", "missing.mlir"]


@pytest.mark.parametrize("tool", TOOLS)
def test_one_error_with_a_location_and_nothing_left(tool, tmp_path):
    command, status = TOOLS[tool]
    work = tmp_path / "in"
    work.mkdir()
    files = inputs(work)
    outdir = tmp_path / "out"
    outdir.mkdir()
    for case in CASES:
        path, where = files[case]
        before = sorted(p.name for p in work.iterdir())
        r = subprocess.run([str(a) for a in command(path, outdir / "result")], capture_output=True,
                           cwd=outdir, timeout=120)
        err = r.stderr.decode(errors="replace")
        assert r.returncode == status, (tool, case, r.returncode, err)
        errors = [line for line in err.splitlines() if re.search(r"\berror: ", line)]
        assert len(errors) == 1, (tool, case, err)
        assert re.search(where, errors[0]), (tool, case, where, errors[0])
        assert "panicked" not in err and "RUST_BACKTRACE" not in err, (tool, case, err)
        assert sorted(p.name for p in work.iterdir()) == before, (tool, case)
        assert list(outdir.iterdir()) == [], (tool, case, list(outdir.iterdir()))


IMPORTER_CASES = {
    # name: (module source, factory, what the one error line must say)
    "syntax error": ("def broken(:\n", "broken", r"m\.py.*SyntaxError"),
    "no such factory": ("x = 1\n", "factory", r"m\.py has no callable 'factory'"),
    "factory raises": ("def factory():\n    raise ValueError('boom')\n", "factory",
                       r"factory raised ValueError: boom"),
    "not a pair": ("import torch\ndef factory():\n    return torch.nn.ReLU()\n", "factory",
                   r"must return \(nn\.Module, example_inputs_tuple"),
    # torch.export refuses data-dependent control flow; torch also prints a
    # warning and the partial graph before raising, which must not show.
    "export fails": ("import torch\n"
                     "class M(torch.nn.Module):\n"
                     "    def forward(self, x):\n"
                     "        return x if x.sum() > 0 else -x\n"
                     "def factory():\n"
                     "    return M(), (torch.ones(2),)\n", "factory",
                     r"failed to export with torch\.export: GuardOnDataDependentSymNode"),
}


@pytest.mark.parametrize("case", IMPORTER_CASES)
def test_importer_gives_one_error(case, tmp_path):
    source, factory, says = IMPORTER_CASES[case]
    (tmp_path / "m.py").write_text(source)
    out = tmp_path / "m.mlir"
    r = export(tmp_path / "m.py", out, factory=factory)
    assert r.returncode == 1, (case, r.stderr)
    # One diagnostic; torch's own explanation may follow it on more lines.
    errors = [line for line in r.stderr.splitlines() if re.match(r"[\w.-]+: error: |[EW]\d{4} ", line)]
    assert len(errors) == 1 and errors[0].startswith("coreai_export: error: "), (case, r.stderr)
    assert re.search(says, errors[0]), (case, says, errors[0])
    assert "Traceback" not in r.stderr and not out.exists(), (case, r.stderr)
    if case == "export fails":
        # The one error comes first: nothing torch printed on the way.
        assert r.stderr.startswith("coreai_export: error: "), r.stderr[:2000]
        assert 'File "' in r.stderr and "m.py" in r.stderr, "the error names the model's line"


def test_importer_output_directory_must_exist(tmp_path):
    (tmp_path / "m.py").write_text("import torch\ndef factory():\n    return torch.nn.ReLU(), (torch.ones(2),)\n")
    r = export(tmp_path / "m.py", tmp_path / "no-such-dir" / "m.mlir")
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"coreai_export: error: -o {tmp_path / 'no-such-dir' / 'm.mlir'}: directory {tmp_path / 'no-such-dir'} "
        "does not exist"], r.stderr


def test_compile_refuses_a_module_without_a_graph(tmp_path):
    """An empty module parses (as in mlir-opt), but an asset without an entry
    point is of no use to the runtime: coreai-compile says so."""
    (tmp_path / "empty.mlir").write_text("")
    out = tmp_path / "m.aimodel"
    r = subprocess.run([BUILD / "coreai-compile", tmp_path / "empty.mlir", "-o", out], capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip().splitlines() == [
        'coreai-compile: error: "' + str(tmp_path / "empty.mlir") + '":0:0: \'builtin.module\' defines no '
        "coreai.graph: an asset needs an entry point (--format coreai writes any coreai program, for this "
        "project's tools)"], r.stderr
    assert list(tmp_path.iterdir()) == [tmp_path / "empty.mlir"]
