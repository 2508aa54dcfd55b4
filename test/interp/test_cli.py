"""coreai-run's command line: bad inputs exit 1 with a message naming the
problem; --compare prints a per-output table and fails outside tolerance."""

import subprocess

import numpy as np

from conftest import coreai_run_path, single_op_module

RELU = single_op_module("aten::relu.default", {"x": np.zeros((2, 3), np.float32)}, [((2, 3), np.float32)], generic=False)


def run(runner, *args, module=RELU, inputs=None):
    m = runner.tmp / "cli.mlir"
    m.write_text(module)
    cmd = [str(coreai_run_path()), str(m), *args]
    if inputs is not None:
        np.savez(runner.tmp / "cli_in.npz", **inputs)
        cmd += ["--inputs", str(runner.tmp / "cli_in.npz")]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


def test_missing_input_names_the_argument(runner):
    p = run(runner, inputs={"y": np.zeros((2, 3), np.float32)})
    assert p.returncode == 1
    assert "input 'x': missing from the inputs (type tensor<2x3xf32>)" in p.stderr


def test_wrong_dtype_and_shape(runner):
    p = run(runner, inputs={"x": np.zeros((2, 3), np.float64)})
    assert p.returncode == 1 and "dtype float64 does not match the argument type tensor<2x3xf32>" in p.stderr
    p = run(runner, inputs={"x": np.zeros((3, 2), np.float32)})
    assert p.returncode == 1 and "shape [3, 2] does not match" in p.stderr


def test_unknown_entry_lists_the_entries(runner):
    p = run(runner, "--entry", "nope", inputs={})
    assert p.returncode == 1 and "no entry point named 'nope'; the module defines: main" in p.stderr


def test_not_executable_names_the_op_and_file(runner):
    module = single_op_module("my_lib::scaled_add.default", {"x": np.zeros((4,), np.float32)}, [((4,), np.float32)])
    p = run(runner, module=module, inputs={"x": np.zeros((4,), np.float32)})
    assert p.returncode == 1
    assert 'cli.mlir":2:' in p.stderr and "not executable: my_lib::scaled_add.default" in p.stderr


def test_malformed_ir_and_missing_files(runner):
    p = run(runner, module="func.func @main( {", inputs={})
    assert p.returncode == 1 and "cli.mlir" in p.stderr
    p = subprocess.run([str(coreai_run_path()), str(runner.tmp / "absent.mlir")], capture_output=True, text=True)
    assert p.returncode == 1 and "absent.mlir" in p.stderr


def test_compare_table_and_exit_status(runner):
    x = np.array([[-1.0, 2.0, np.nan], [4.0, -0.0, 6.0]], np.float32)
    good = np.maximum(x, 0)
    good[0, 2] = np.nan
    np.savez(runner.tmp / "good.npz", out0=good)
    p = run(runner, "--compare", str(runner.tmp / "good.npz"), inputs={"x": x})
    assert p.returncode == 0, p.stdout + p.stderr
    assert "out0" in p.stdout and "ok" in p.stdout
    bad = good.copy()
    bad[1, 2] += 1e-3
    np.savez(runner.tmp / "bad.npz", out0=bad)
    p = run(runner, "--compare", str(runner.tmp / "bad.npz"), inputs={"x": x})
    assert p.returncode == 1 and "FAIL" in p.stdout
    # Why it failed, on stderr, in one line.
    assert p.stderr.count("\n") == 1, p.stderr
    assert "coreai-run: error: outputs differ from" in p.stderr
    assert "output 'out0': 1 of 6 elements outside atol" in p.stderr and "max abs error 9.999" in p.stderr  # |6 - f32(6.001)|
    p = run(runner, "--compare", str(runner.tmp / "bad.npz"), "--atol", "1e-2", inputs={"x": x})
    assert p.returncode == 0 and p.stderr == ""
    np.savez(runner.tmp / "shape.npz", out0=good[:1])
    p = run(runner, "--compare", str(runner.tmp / "shape.npz"), inputs={"x": x})
    assert p.returncode == 1 and "output 'out0' has shape [2, 3], expected [1, 3]" in p.stderr


def test_outputs_are_written_in_result_order(runner):
    module = single_op_module(
        "aten::max.dim", {"x": np.zeros((3, 4), np.float32)}, [((3,), np.float32), ((3,), np.int64)], {"dim": 1, "keepdim": False}
    )
    x = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::-1].copy()
    (vals, idx) = runner.run(module, {"x": x})
    np.testing.assert_array_equal(vals, [3, 7, 11])
    np.testing.assert_array_equal(idx, [0, 0, 0])
    with np.load(runner.tmp / f"out{runner.count}.npz") as d:
        assert d.files == ["out0", "out1"]
