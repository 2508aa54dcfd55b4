"""Deferred weight permutes (`coreai_ir::deferred`): when coreai-compile
writes an asset, a fold of `transpose(weight)` of 64 KiB or more is a blob
that names its source and the permutation, written piece by piece from the
source into the file instead of made in memory.

The oracles: the asset coreai-compile writes with deferral off
(`--mlir-print-ir-after-failure`, which may print the IR, turns it off) must
be the same bytes; coreai-core's runtime and coreai-run must compute eager
PyTorch's outputs from it. The model covers what reads a deferred blob
before the writer: two equal transposed weights (de-duplication compares
them without making them), a weight also used untransposed (compared with
the transposed one of the same type), a rank-3 permute, f16 casts (which
read every weight and drop the f32 blobs) and the Neural Engine's
convolution layouts."""

import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from coreai_export.exporting import export_module
from coreai_export.importer import import_program

REPO = Path(__file__).resolve().parents[2]
COMPILE = REPO / "target" / "debug" / "coreai-compile"
RUN = REPO / "target" / "debug" / "coreai-run"


class Layers(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.up = torch.nn.Linear(128, 384)
        self.twin = torch.nn.Linear(128, 384)
        self.down = torch.nn.Linear(384, 128, bias=False)
        self.table = torch.nn.Parameter(torch.randn(128, 256) / 16)
        self.cube = torch.nn.Parameter(torch.randn(16, 32, 64) / 8)
        with torch.no_grad():
            self.twin.weight.copy_(self.up.weight)

    def forward(self, x):
        h = torch.relu(self.up(x)) + self.twin(x)
        y = self.down(h) + (x @ self.table) @ self.table.T
        z = x[:, :64] @ self.cube.permute(2, 0, 1).reshape(64, 512)
        return y, z


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The model imported with its weights in a safetensors file (as
    convert() hands them over), its inputs and eager outputs."""
    directory = tmp_path_factory.mktemp("deferred")
    model = Layers().eval()
    x = torch.linspace(-1, 1, 4 * 128).reshape(4, 128)
    with torch.no_grad():
        want = [t.numpy() for t in model(x)]
        program = import_program(export_module(model, (x,), "none", None), "main")
    program.write(directory / "m.mlir", weights=True)
    np.savez(directory / "in.npz", x=x.numpy())
    return directory, want


def compile_asset(directory, name, *flags):
    env = dict(os.environ, COREAI_LOG="coreai_ir::deferred=debug")
    r = subprocess.run([str(COMPILE), "m.mlir", "-o", f"{name}.aimodel", *flags], capture_output=True, text=True,
                       cwd=directory, env=env)
    assert r.returncode == 0, r.stderr
    return directory / f"{name}.aimodel", r.stderr


@pytest.mark.parametrize("target,precision,deferred", [
    ("cpu", "f32", 5),  # up, twin, down, table, cube
    ("gpu", "f16", 4),  # twin is up's after de-duplication
    ("ane", "f16", 1),  # the convolutions take the weights untransposed
])
def test_deferred_permutes_write_the_same_asset_and_compute_eager(exported, target, precision, deferred):
    import oracle

    directory, want = exported
    flags = ["--target", target, "--precision", precision]
    asset, log = compile_asset(directory, f"{target}-deferred", *flags)
    assert log.count("permute deferred") >= deferred, log
    if target != "ane":
        # Nothing reads the weights before the writer (the f16 cast casts
        # the sources and defers the permutes again) but in f16 the table,
        # which is also used untransposed: its f32 blob is dropped once cast,
        # and what is permuted from it is made first.
        made = re.findall(r"made in memory bytes=(\d+)", re.sub(r"\x1b\[[0-9;]*m", "", log))
        assert made == ([] if precision == "f32" else ["131072"]), log
    eager_asset, eager_log = compile_asset(directory, f"{target}-eager", *flags, "--mlir-print-ir-after-failure")
    assert "permute deferred" not in eager_log, eager_log
    for file in ["main.mlirb", "main.hash"]:  # metadata.json holds the time it was written
        assert (asset / file).read_bytes() == (eager_asset / file).read_bytes(), file

    tolerance = 1e-4 if precision == "f32" else 3e-2
    runs = {"coreai-core": lambda *a: oracle.runasset(asset, *a),
            "coreai-run": lambda *a: subprocess.run([str(RUN), str(asset), *a], capture_output=True, text=True)}
    for who, run in runs.items():
        out = directory / f"{target}-{who}.npz"
        p = run("--inputs", str(directory / "in.npz"), "--outputs", str(out), "--cast-inputs")
        assert p.returncode == 0, f"{who}: {p.stderr}"
        got = np.load(out)
        for key, value in zip(sorted(got.files), want):
            scale = max(1.0, float(np.abs(value).max()))
            np.testing.assert_allclose(got[key].astype(np.float32), value, rtol=tolerance, atol=tolerance * scale,
                                       err_msg=f"{who} {key}")
