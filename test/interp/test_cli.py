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


# Found by fuzzing (run_module, 2026-12-02): coreai-torch's `control_while`
# golden with the counter's step mutated from 1 to 0, so the condition never
# turns false.
ENDLESS_WHILE = """module {
  coreai.graph @main(%arg0: tensor<si32> {coreai.name = "i"}, %arg1: tensor<3xf32> {coreai.name = "x"}) -> (tensor<si32>, tensor<3xf32>) {
    %0 = coreai.constant dense<2.000000e+00> : tensor<f32>
    %1 = coreai.constant dense<0> : tensor<si32>
    %2 = coreai.constant dense<3> : tensor<si32>
    %3:2 = coreai.while %arg0, %arg1 {
    ^bb0(%arg2: tensor<si32>, %arg3: tensor<3xf32>):
      %4 = coreai.decomposable.broadcasting_greater %2, %arg2 : (tensor<si32>, tensor<si32>) -> tensor<i1>
      coreai.condition %4, %arg2, %arg3 : (tensor<i1>, tensor<si32>, tensor<3xf32>)
    } do {
    ^bb0(%arg2: tensor<si32>, %arg3: tensor<3xf32>):
      %4 = coreai.decomposable.broadcasting_add %arg2, %1 : (tensor<si32>, tensor<si32>) -> tensor<si32> loc("w.py":7:9)
      %5 = coreai.decomposable.broadcasting_mul %arg3, %0 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32> loc("w.py":8:9)
      coreai.yield %4, %5 : tensor<si32>, tensor<3xf32>
    } : (tensor<si32>, tensor<3xf32>) -> (tensor<si32>, tensor<3xf32>)
    coreai.output %3#0, %3#1 : tensor<si32>, tensor<3xf32>
  }
}
"""


def assert_loop_that_ends_gives_the_input_back(runner, out, x, *limit):
    """ENDLESS_WHILE from the counter 5 (the condition is false at once)
    runs under `limit` and returns `x` unchanged."""
    p = run(runner, *limit, "--outputs", str(out), module=ENDLESS_WHILE,
            inputs={"i": np.array(5, np.int32), "x": x})
    assert p.returncode == 0, p.stderr
    with np.load(out) as got:
        np.testing.assert_array_equal(got["result1"], x)


def test_op_budget_stops_an_endless_loop_at_the_same_op_everywhere(runner):
    """--max-ops N: one error at the (N+1)-th op executed, exit 1, no
    output file. The budget counts ops, not seconds, so the op is the same
    on every machine: the three constants, the while, then the loop's
    condition and its body's two ops in turn; op 1002 is the body's add
    (w.py:7:9) in the 333rd iteration. A loop that ends within the budget
    gives the input back."""
    out = runner.tmp / "endless_out.npz"
    out.unlink(missing_ok=True)
    x = np.array([1.0, -2.0, 0.5], np.float32)
    for budget, loc in [(1001, '"w.py":7:9'), (1002, '"w.py":8:9')]:
        p = run(runner, "--max-ops", str(budget), "--outputs", str(out), module=ENDLESS_WHILE,
                inputs={"i": np.array(0, np.int32), "x": x})
        errors = [line for line in p.stderr.splitlines() if "error" in line]
        assert p.returncode == 1 and len(errors) == 1, p.stderr
        assert f"the run's op budget ({budget} ops) ran out at this op" in errors[0], p.stderr
        assert loc in errors[0], p.stderr
        assert not out.exists()
    assert_loop_that_ends_gives_the_input_back(runner, out, x, "--max-ops", "5")


def test_timeout_stops_an_endless_loop(runner):
    """--timeout 1: one error naming the time limit at some op (which op is
    running when a wall-clock deadline passes depends on the machine, so
    the test does not say which), exit 1, no output file, well before the
    test's own 60 s; when the loop ends (the starting counter 5 makes the
    condition false at once) the same module runs under a limit and gives
    the input back."""
    out = runner.tmp / "endless_out.npz"
    out.unlink(missing_ok=True)
    x = np.array([1.0, -2.0, 0.5], np.float32)
    p = run(runner, "--timeout", "1", "--outputs", str(out), module=ENDLESS_WHILE,
            inputs={"i": np.array(0, np.int32), "x": x})
    errors = [line for line in p.stderr.splitlines() if "error" in line]
    assert p.returncode == 1 and len(errors) == 1, p.stderr
    assert "the run's time limit ran out at this op" in errors[0], p.stderr
    assert not out.exists()
    assert_loop_that_ends_gives_the_input_back(runner, out, x, "--timeout", "30")
