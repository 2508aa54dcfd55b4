"""coreai-run --profile: kernel time per op name on stderr, per run."""

import re
import subprocess

import numpy as np

from conftest import coreai_run_path

MODULE = """
func.func @main(%x: tensor<2x3xf32> {coreai.name = "x"}) -> (tensor<2x3xf32> {coreai.name = "y"}) {
  %0 = aten.relu.default %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = aten.add.Tensor %0, %x {alpha = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = aten.operator "aten::relu.default"(%1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}
"""


def run(runner, *args):
    m = runner.tmp / "profile.mlir"
    m.write_text(MODULE)
    np.savez(runner.tmp / "profile_in.npz", x=np.arange(6, dtype=np.float32).reshape(2, 3) - 3)
    cmd = [str(coreai_run_path()), str(m), "--inputs", str(runner.tmp / "profile_in.npz"),
           "--outputs", str(runner.tmp / "profile_out.npz"), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


def rows(stderr):
    return {m.group(1): (int(m.group(2)), float(m.group(3)), float(m.group(4)))
            for m in re.finditer(r"^(aten\.\S+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)$", stderr, re.M)}


def test_profile_of_one_run(runner):
    p = run(runner, "--profile")
    assert p.returncode == 0, p.stderr
    assert re.search(r"profile: kernels [0-9.]+ ms per run \(over 1 run\)", p.stderr)
    r = rows(p.stderr)
    assert set(r) == {"aten.relu.default", "aten.add.Tensor"}
    assert r["aten.relu.default"][0] == 2 and r["aten.add.Tensor"][0] == 1
    assert abs(sum(v[2] for v in r.values()) - 100.0) < 0.5
    with np.load(runner.tmp / "profile_out.npz") as d:
        x = np.arange(6, dtype=np.float32).reshape(2, 3) - 3
        np.testing.assert_array_equal(d["y"], np.maximum(np.maximum(x, 0) + x, 0))


def test_profile_is_per_bench_run(runner):
    p = run(runner, "--profile", "--bench", "5")
    assert p.returncode == 0, p.stderr
    assert "over 5 runs" in p.stderr and "bench: median" in p.stderr
    r = rows(p.stderr)
    assert r["aten.relu.default"][0] == 2 and r["aten.add.Tensor"][0] == 1


def test_no_profile_without_the_flag(runner):
    p = run(runner)
    assert p.returncode == 0 and "profile:" not in p.stderr
