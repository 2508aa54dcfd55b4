"""A module exported with a dynamic batch dim runs in coreai-run at batch
sizes other than the example's, matching eager PyTorch: `sym_size` and the
symbolic `view` sizes are evaluated at run time."""

import os
import subprocess

import numpy as np
import pytest
import torch

from coreai_export.cli import build_parser, run
from models import EXPORT_FLAGS, dynamic

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COREAI_RUN = os.path.join(os.environ.get("COREAI_BUILD_DIR", os.path.join(REPO, "target", "debug")), "coreai-run")


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    out = tmp_path_factory.mktemp("dynamic") / "m.mlir"
    flags = EXPORT_FLAGS["dynamic_batch_mlp"]
    run(build_parser().parse_args(["--model", "models.dynamic:dynamic_batch_mlp", "-o", str(out), *flags]))
    assert "tensor<?x8xf32>" in out.read_text()
    return out


@pytest.mark.parametrize("batch", [1, 5, 64])
def test_dynamic_batch_runs_at_other_sizes(module, batch, tmp_path):
    x = np.random.default_rng(batch).normal(size=(batch, 8)).astype(np.float32) * 4
    np.savez(tmp_path / "in.npz", x=x)
    model, _ = dynamic.dynamic_batch_mlp()
    with torch.no_grad():
        expected = model(torch.from_numpy(x))
    np.savez(tmp_path / "expected.npz", **{f"output_{i}": e.numpy() for i, e in enumerate(expected)})
    r = subprocess.run(
        [COREAI_RUN, str(module), "--inputs", str(tmp_path / "in.npz"), "--compare", str(tmp_path / "expected.npz"),
         "--atol", "1e-5", "--rtol", "1e-5"],
        capture_output=True, text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
