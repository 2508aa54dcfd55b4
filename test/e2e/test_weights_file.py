"""The weights file: an imported module whose `dense_resource` bytes sit in a
safetensors file beside it (`coreai.weights`), the form `coreai_export`
hands coreai-compile. The oracles: the `safetensors` package (the format),
the same module with its weights as hex (coreai-compile's asset, byte for
byte), and eager PyTorch (coreai-run's outputs)."""

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from coreai_export.exporting import export_module
from coreai_export.importer import import_program
from models.convblocks import transposed_decoder

REPO = Path(__file__).resolve().parents[2]
COMPILE = REPO / "target" / "debug" / "coreai-compile"
OPT = REPO / "target" / "debug" / "coreai-opt"
RUN = REPO / "target" / "debug" / "coreai-run"


class Weights(torch.nn.Module):
    """Weights of several dtypes: f32 (a Linear), i64 (gathered rows), bool
    (a mask) and f16 (cast up)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(8, 16)
        self.register_buffer("rows", torch.tensor([3, 0, 2], dtype=torch.int64))
        self.register_buffer("mask", torch.arange(16) % 3 == 0)
        self.register_buffer("scale", torch.linspace(-2, 2, 16).to(torch.float16))

    def forward(self, x):
        y = self.linear(x).masked_fill(self.mask, 0.0) * self.scale.float()
        return y.index_select(0, self.rows)


@pytest.fixture(scope="module")
def program():
    model = Weights().eval()
    x = torch.linspace(-1, 1, 32).reshape(4, 8)
    with torch.no_grad():
        want = model(x).numpy()
        prog = import_program(export_module(model, (x,), "none", None), "main")
    return prog, x.numpy(), want


def tool(*args, cwd=None):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, cwd=cwd)


def compile_in(directory, name="m.mlir"):
    """The main.mlirb coreai-compile writes for `directory`/`name`, run in
    `directory` (locations name the file as given: the same in each form)."""
    r = tool(COMPILE, name, "-o", "m.aimodel", cwd=directory)
    assert r.returncode == 0, r.stderr
    return (directory / "m.aimodel" / "main.mlirb").read_bytes()


def forms(tmp_path, *names):
    """A directory per name under `tmp_path`."""
    for name in names:
        (tmp_path / name).mkdir()
    return [tmp_path / name for name in names]


def test_the_weights_file_is_safetensors_holding_each_blob(program, tmp_path):
    from safetensors.numpy import load_file

    prog, _, _ = program
    prog.write(tmp_path / "m.mlir", weights=True)
    text = (tmp_path / "m.mlir").read_text()
    assert text.startswith('module attributes {coreai.weights = "m.safetensors"} {\n')
    assert "dialect_resources" not in text and "0x" not in text
    loaded = load_file(tmp_path / "m.safetensors")
    assert {k: v.tobytes() for k, v in loaded.items()} == {name: data for name, _, data in prog.resources}
    assert len(prog.resources) == 5  # weight, bias, rows, mask, scale


def test_weights_file_gives_the_asset_the_hex_text_gives(program, tmp_path):
    prog, _, _ = program
    hexed, split = forms(tmp_path, "hex", "split")
    (hexed / "m.mlir").write_text(prog.text)
    prog.write(split / "m.mlir", weights=True)
    assert compile_in(split) == compile_in(hexed)
    assert (split / "m.aimodel" / "main.hash").read_bytes() == (hexed / "m.aimodel" / "main.hash").read_bytes()


@pytest.mark.parametrize("flags", [["--precision", "f16"], ["--target", "ane"]], ids=["f16", "ane"])
def test_a_small_weights_file_read_into_memory_keeps_its_weights(tmp_path, flags):
    # A weights file under four pages is read into the heap, not mapped.
    # Releasing the pages of a weight once read (MADV_DONTNEED) is for
    # mapped files: on the heap it zeroed them, and the transposed
    # convolutions' f16 weights (8 KiB in f32: a whole page inside) came out
    # partly zero, differently in each run.
    model, inputs = transposed_decoder()
    with torch.no_grad():
        prog = import_program(export_module(model.eval(), inputs, "none", None), "main")
    hexed, split = forms(tmp_path, "hex", "split")
    (hexed / "m.mlir").write_text(prog.text)
    prog.write(split / "m.mlir", weights=True)
    assert (split / "m.safetensors").stat().st_size < 4 * 4096
    want = tool(COMPILE, "m.mlir", "-o", "m.aimodel", *flags, cwd=hexed)
    assert want.returncode == 0, want.stderr
    for run in range(3):
        r = tool(COMPILE, "m.mlir", "-o", f"m{run}.aimodel", *flags, cwd=split)
        assert r.returncode == 0, r.stderr
        assert (split / f"m{run}.aimodel" / "main.mlirb").read_bytes() == \
            (hexed / "m.aimodel" / "main.mlirb").read_bytes()


def test_a_file_the_safetensors_package_writes_is_read(program, tmp_path):
    """Tensors of their real dtypes and shapes, in safetensors' own layout:
    only the bytes count."""
    from safetensors.numpy import save_file

    prog, _, _ = program
    hexed, theirs = forms(tmp_path, "hex", "theirs")
    (hexed / "m.mlir").write_text(prog.text)
    prog.write(theirs / "m.mlir", weights=True)
    dtypes = {1: np.int8, 2: np.float16, 4: np.float32, 8: np.int64}
    save_file({name: np.frombuffer(data, dtypes[align]) for name, align, data in prog.resources},
              str(theirs / "m.safetensors"))
    assert compile_in(theirs) == compile_in(hexed)


def test_coreai_run_and_coreai_opt_read_the_weights_file(program, tmp_path):
    prog, x, want = program
    sub = tmp_path / "sub"
    sub.mkdir()
    prog.write(sub / "m.mlir", weights=True)
    signature = json.loads(tool(RUN, sub / "m.mlir", "--print-signature").stdout)
    np.savez(tmp_path / "in.npz", **{signature["arguments"][0]["name"]: x})
    r = tool(RUN, sub / "m.mlir", "--inputs", tmp_path / "in.npz", "--outputs", tmp_path / "out.npz")
    assert r.returncode == 0, r.stderr
    (got,) = np.load(tmp_path / "out.npz").values()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    # What coreai-opt prints holds the weights itself, as from hex.
    (tmp_path / "hex.mlir").write_text(prog.text)
    printed = tool(OPT, sub / "m.mlir")
    assert printed.returncode == 0, printed.stderr
    assert "coreai.weights" not in printed.stdout and "dialect_resources" in printed.stdout
    assert printed.stdout == tool(OPT, tmp_path / "hex.mlir").stdout


def damaged(prog, tmp_path, case):
    """Writes m.mlir and a weights file damaged as `case` says; returns what
    the one error must say."""
    prog.write(tmp_path / "m.mlir", weights=True)
    side = tmp_path / "m.safetensors"
    data = side.read_bytes()
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + size])
    first = prog.resources[0][0]

    def rewrite(new_header, payload=data[8 + size :]):
        h = json.dumps(new_header).encode()
        side.write_bytes(len(h).to_bytes(8, "little") + h + payload)

    def refer(name):
        text = (tmp_path / "m.mlir").read_text().replace('"m.safetensors"', json.dumps(name), 1)
        (tmp_path / "m.mlir").write_text(text)

    if case == "missing":
        side.unlink()
        return "is not a regular file"
    if case == "directory":
        side.unlink()
        side.mkdir()
        return "is not a regular file"
    if case == "absolute":
        refer(str(side))
        return "relative to the module's directory"
    if case == "parent":
        refer("../m.safetensors")
        return "without '..'"
    if case == "short":
        side.write_bytes(data[:5])
        return "not a safetensors file (5 bytes)"
    if case == "header-past-end":
        side.write_bytes((len(data) * 2).to_bytes(8, "little") + data[8:])
        return "exceeds the file"
    if case == "not-json":
        side.write_bytes((4).to_bytes(8, "little") + b"{{{{")
        return "header is not JSON"
    if case == "not-object":
        rewrite([1, 2])
        return "not a JSON object"
    if case == "no-tensor":
        del header[first]
        rewrite(header)
        return f"has no tensor '{first}'"
    if case == "offsets-past-end":
        header[first]["data_offsets"] = [0, len(data)]
        rewrite(header)
        return f"tensor '{first}': data_offsets"
    if case == "wrong-size":
        begin, end = header[first]["data_offsets"]
        header[first]["data_offsets"] = [begin, end - 4]
        rewrite(header)
        return "bytes for it, its type"
    if case == "truncated-data":
        side.write_bytes(data[: len(data) // 2])
        return "data_offsets"
    if case == "not-a-string":
        text = (tmp_path / "m.mlir").read_text().replace('"m.safetensors"', "42", 1)
        (tmp_path / "m.mlir").write_text(text)
        return "must be a string"
    raise AssertionError(case)


CASES = ["missing", "directory", "absolute", "parent", "short", "header-past-end", "not-json", "not-object",
         "no-tensor", "offsets-past-end", "wrong-size", "truncated-data", "not-a-string"]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("which", ["coreai-compile", "coreai-opt", "coreai-run"])
def test_a_bad_weights_file_is_one_error_and_nothing_written(program, tmp_path, case, which):
    prog, x, _ = program
    expected = damaged(prog, tmp_path, case)
    np.savez(tmp_path / "in.npz", x=x)
    out = {"coreai-compile": tmp_path / "o.aimodel", "coreai-opt": tmp_path / "o.mlir",
           "coreai-run": tmp_path / "o.npz"}[which]
    args = {"coreai-compile": [COMPILE, tmp_path / "m.mlir", "-o", out],
            "coreai-opt": [OPT, tmp_path / "m.mlir", "-o", out],
            "coreai-run": [RUN, tmp_path / "m.mlir", "--inputs", tmp_path / "in.npz", "--outputs", out]}[which]
    before = sorted(p.name for p in tmp_path.iterdir())
    r = tool(*args)
    assert r.returncode == 1, r.stderr
    # One error (coreai-opt and coreai-compile quote the source line under it).
    lines = [line for line in r.stderr.splitlines() if "error" in line]
    assert len(lines) == 1 and "panicked" not in r.stderr, r.stderr
    assert expected in lines[0] and "m.mlir" in lines[0], lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == before
