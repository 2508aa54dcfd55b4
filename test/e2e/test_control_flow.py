"""Higher-order ops at the aten stage: coreai-run takes each branch of
torch.cond and runs torch.while_loop for any trip count, matching eager
PyTorch on inputs chosen to exercise every path."""

import numpy as np
import pytest
import torch

from coreai_export.cli import build_parser, run
from models import control
from toolchain import coreai_run



def imported(factory, tmp_path):
    out = tmp_path / "m.mlir"
    run(build_parser().parse_args(["--model", f"models.control:{factory}", "-o", str(out)]))
    return out


def execute(module, names, arrays, tmp_path):
    np.savez(tmp_path / "in.npz", **dict(zip(names, arrays)))
    r = coreai_run(module, "--inputs", tmp_path / "in.npz", "--outputs", tmp_path / "out.npz")
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "out.npz") as z:
        return [z[k] for k in z.files]


@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["true_branch", "false_branch"])
def test_cond_takes_the_branch_pytorch_takes(sign, tmp_path):
    module = imported("cond_branch", tmp_path)
    x = (np.abs(np.random.default_rng(0).normal(size=(3, 4))) * sign).astype(np.float32)
    (got,) = execute(module, ["x"], [x], tmp_path)
    model, _ = control.cond_branch()
    # sin/cos come from different libms (PyTorch's vectorized kernels, Rust's
    # libm), each within an ulp of the exact value: allow two f32 ulps.
    np.testing.assert_allclose(got, model(torch.from_numpy(x)).numpy(), rtol=2.4e-7, atol=0)


@pytest.mark.parametrize("start", [0, 3, 5, 9], ids=lambda s: f"from_{s}")
def test_while_loop_runs_as_many_steps_as_pytorch(start, tmp_path):
    module = imported("while_loop_counter", tmp_path)
    x = np.random.default_rng(1).normal(size=(2, 3)).astype(np.float32)
    got = execute(module, ["i", "x"], [np.array(start, dtype=np.int64), x], tmp_path)
    model, _ = control.while_loop_counter()
    expected = model(torch.tensor(start), torch.from_numpy(x))
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e.numpy())
