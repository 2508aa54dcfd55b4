"""coreai-compile --format aicode: main.mlirb in coreai-core's versioned
`aicode` serialization, written natively (crates/coreai-asset: bytecode::writer
and aicode), loaded and run by coreai-core 1.0.0b3's runtime.

For each model: PyTorch → our asset; coreai-core's runtime loads it (in a
child process: a bad file aborts the process), its summary equals the
summary of coreai-core's own save_asset of the same coreai IR, it runs and
matches eager PyTorch, and its decoded IR (utils/aicode/mlirbc.py, every op,
type, property, constant and blob) equals coreai-core's.
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from models import CORPUS

REPO = Path(__file__).resolve().parents[2]
COMPILE = REPO / "target" / "debug" / "coreai-compile"

sys.path.insert(0, str(REPO / "utils" / "coreai-report"))
sys.path.insert(0, str(REPO / "utils" / "aicode"))
import oracle  # noqa: E402
import report  # noqa: E402
from compare import core_save_asset, decoded_ir, linear_program  # noqa: E402

# (name, module:factory): models of test/e2e/models/aicode.py and corpus
# models (a dynamic batch, a Llama-style block with RoPE, RMS norm and
# batch-broadcasting matmuls).
MODELS = [(n, f"aicode:{n}") for n in ["mlp", "convnet", "elementwise", "reductions", "composites",
                                        "shapes_indexing"]] + [
    ("dynamic_batch_mlp", "dynamic:dynamic_batch_mlp"), ("llama_block", "transformer:llama_block"),
    ("cond_branch", "control:cond_branch"), ("while_loop_counter", "control:while_loop_counter"),
    ("stateful_buffer", "control:stateful_buffer")]
SUMMARY = ["is_valid", "_compatibility_version", "function_names", "compute_types", "storage_types",
           "operation_distribution"]


def compile_(*args, check=True):
    r = subprocess.run([str(COMPILE), *map(str, args)], capture_output=True, text=True)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def runtime(asset, inputs=None, outputs=None, returncode=0, also=None):
    """coreai-core's runtime on `asset`, in the oracle worker: (summary,
    outputs), or with `also` (summary, also's summary, outputs); a
    `returncode` other than 0 is the death by that signal the run must end
    in."""
    args = [asset]
    if inputs:
        args += ["--inputs", inputs, "--outputs", outputs]
    if also:
        args += ["--also", also]
    r = oracle.runasset(*args, expect_death=returncode < 0)
    assert r.returncode == returncode, r.stderr[-2000:]
    lines = r.stdout.strip().splitlines()
    got = report.load(outputs) if inputs and returncode == 0 else None
    if also:
        return json.loads(lines[0]), json.loads(lines[1]), got
    return json.loads(lines[0]), got


# Models coreai-core's Linux runtime loads but cannot run, its own asset of
# the same IR included: the process dies with SIGILL in the while loop's
# lowering. For these the test checks that our asset fails the same way.
RUNTIME_ABORTS = {"while_loop_counter": -4}


@pytest.mark.parametrize("name,spec", MODELS, ids=[n for n, _ in MODELS])
def test_our_aicode_asset_runs_in_coreai_core_like_pytorch_and_like_its_own(name, spec, tmp_path):
    module, inputs, expected = report.export(name, spec, tmp_path, decompositions="coreai")
    ours = tmp_path / "ours.aimodel"
    compile_(module, "-o", ours, "--format", "aicode")
    theirs = tmp_path / "theirs.aimodel"
    core_save_asset(compile_(module, "--compile-to", "target").stdout, theirs)

    if name in RUNTIME_ABORTS:
        code = RUNTIME_ABORTS[name]
        runtime(theirs, inputs, tmp_path / "core.npz", returncode=code)
    summary, core_summary, got = runtime(ours, inputs, tmp_path / "out.npz", RUNTIME_ABORTS.get(name, 0),
                                         also=theirs)
    assert summary["is_valid"] and summary["_compatibility_version"] == "27.0", summary
    assert {k: summary[k] for k in SUMMARY} == {k: core_summary[k] for k in SUMMARY}
    if name not in RUNTIME_ABORTS:
        verdict = report.compare(got, report.load(expected), report.TOLERANCE.get(name, (None,))[0])
        assert verdict["ok"], verdict

    # The program itself: the same ops, regions, types, properties, constants
    # and blobs as coreai-core writes (locations aside: ours are unknown).
    assert decoded_ir(ours / "main.mlirb") == decoded_ir(theirs / "main.mlirb")
    data = (ours / "main.mlirb").read_bytes()
    assert data[:4] == b"ML\xefR" and data[4] >> 1 == 6


ADD = """module {
  coreai.graph @main(%x: tensor<2x3xf32> {coreai.name = "x"}, %y: tensor<2x3xf32> {coreai.name = "y"})
      -> (tensor<2x3xf32> {coreai.name = "add"}) {
    %0 = coreai.add %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    coreai.output %0 : tensor<2x3xf32>
  }
}
"""


def test_the_add_program_matches_emit_add_and_runs(tmp_path):
    """The one-op program utils/aicode/emit_add.py writes by hand (the Rust
    writer reproduces that file byte for byte: crates/coreai-asset/tests/
    aicode_writer.rs), compiled from coreai IR: the same IR but for the asset
    version, equal to coreai-core's, and the runtime computes x + y exactly."""
    src = tmp_path / "add.mlir"
    src.write_text(ADD)
    ours = tmp_path / "add.aimodel"
    compile_(src, "-o", ours, "--format", "aicode")
    hand = tmp_path / "hand.mlirb"
    subprocess.run([sys.executable, str(REPO / "utils" / "aicode" / "emit_add.py"), str(hand)], check=True,
                   capture_output=True)
    mine, _, dialects = decoded_ir(ours / "main.mlirb")
    want, _, _ = decoded_ir(hand)
    assert dialects == ["aicode"]
    # emit_add stamps 20250827; coreai-core dates a lone primitive.add_v1 20250707.
    assert mine == want.replace("int<32u 20250827>", "int<32u 20250707>")
    core_save_asset(ADD, tmp_path / "core.aimodel")
    assert decoded_ir(ours / "main.mlirb") == decoded_ir(tmp_path / "core.aimodel" / "main.mlirb")

    x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
    y = np.array([[1e30, -0.0, 3.0], [np.inf, 0.5, -7.25]], np.float32)
    np.savez(tmp_path / "in.npz", x=x, y=y)
    summary, got = runtime(ours, tmp_path / "in.npz", tmp_path / "out.npz")
    assert summary["operation_distribution"] == ["('add', 1)"]
    assert np.array_equal(got["add"], x + y)


QUANTIZE = """module {
  coreai.graph @main(%x: tensor<2x3xf32> {coreai.name = "x"}, %s: tensor<f32> {coreai.name = "s"},
      %z: tensor<ui8> {coreai.name = "z"}, %d: tensor<f32> {coreai.name = "d"}, %a: tensor<si32> {coreai.name = "a"})
      -> (tensor<2x3xui8> {coreai.name = "q"}) {
    %0 = coreai.quantize %x, %s, %z, %d, %a : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<si32>) -> tensor<2x3xui8> loc("model.py":7:3)
    coreai.output %0 : tensor<2x3xui8>
  }
}
"""


def test_an_op_outside_the_subset_is_one_error_and_writes_nothing(tmp_path):
    src = tmp_path / "q.mlir"
    src.write_text(QUANTIZE)
    out = tmp_path / "m.aimodel"
    before = sorted(p.name for p in tmp_path.iterdir())
    r = compile_(src, "-o", out, "--format", "aicode", check=False)
    assert r.returncode == 1, r.stderr
    errors = [line for line in r.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and "panicked" not in r.stderr, r.stderr
    assert "'coreai.quantize' is not yet supported by the aicode writer" in errors[0]
    assert '"model.py":7:3' in errors[0]  # the location of the op
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_multi_function_asset_runs_each_function_like_pytorch(tmp_path):
    """`--entry prefill=A --entry decode=B --format aicode`: both functions
    (and their private composite graphs) in one asset whose decoded IR equals
    coreai-core's save_asset of the same linked program; each function runs
    like eager PyTorch."""
    parts = {"prefill": ("sdpa_plain", "attention:sdpa_plain"),
             "decode": ("conv_gn_block", "convblocks:conv_gn_block")}
    exported = {fn: report.export(name, spec, tmp_path / fn, decompositions="coreai")
                for fn, (name, spec) in parts.items()}
    entries = [a for fn, (module, _, _) in exported.items() for a in ("--entry", f"{fn}={module}")]
    ours, plain, theirs = tmp_path / "ours.aimodel", tmp_path / "plain.aimodel", tmp_path / "theirs.aimodel"
    compile_(*entries, "-o", ours, "--format", "aicode")
    compile_(*entries, "-o", plain, "--format", "coreai")
    linked = subprocess.run([str(REPO / "target" / "debug" / "coreai-opt"), str(plain)], capture_output=True,
                            text=True, check=True).stdout  # the program of the coreai-format asset, as written
    core_save_asset(linked, theirs)
    assert decoded_ir(ours / "main.mlirb") == decoded_ir(theirs / "main.mlirb")
    for fn, (_, inputs, expected) in exported.items():
        r = oracle.runasset(ours, "--function", fn, "--inputs", inputs, "--outputs", tmp_path / f"{fn}.npz")
        assert r.returncode == 0, r.stderr[-2000:]
        summary = json.loads(r.stdout.strip().splitlines()[0])
        assert summary["function_names"] == ["prefill", "decode"] and summary["is_valid"], summary
        verdict = report.compare(report.load(tmp_path / f"{fn}.npz"), report.load(expected))
        assert verdict["ok"], (fn, verdict)


GOLDEN = sorted((REPO / "test" / "golden").glob("*.mlir"))
# Golden programs with types or ops the writer does not cover (one error each):
# images, 2-bit LUT indices, delegates.
NOT_COVERED = {"handbuilt_images_encodings": "coreai.image", "handbuilt_lut_matmul_index": "coreai.interpolate_coordinates",
               "handbuilt_target_delegate": "coreai.target_spec"}


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_programs_decode_like_coreai_cores_own_conversion(path, tmp_path):
    """coreai-torch's programs of test/golden/ (printed by coreai-core): our
    asset's decoded IR, locations included, equals coreai-core's save_asset
    of the same compiled IR, or, for the few outside the writer's subset, one
    error naming it."""
    ours = tmp_path / "ours.aimodel"
    r = compile_(path, "-o", ours, "--format", "aicode", check=False)
    if path.stem in NOT_COVERED:
        errors = [line for line in r.stderr.splitlines() if "error" in line]
        assert r.returncode == 1 and len(errors) == 1 and "not yet supported by the aicode writer" in errors[0], r.stderr
        assert NOT_COVERED[path.stem] in errors[0] and not ours.exists()
        return
    assert r.returncode == 0, r.stderr
    # With locations: the program's file/line/column, as coreai-core writes them.
    ir = compile_(path, "--compile-to", "target", "--mlir-print-debuginfo").stdout
    core_save_asset(ir, tmp_path / "core.aimodel")
    assert decoded_ir(ours / "main.mlirb", locs=True) == decoded_ir(tmp_path / "core.aimodel" / "main.mlirb", locs=True)


DYNAMIC = [("mlp", "aicode:mlp"), ("composites", "aicode:composites"), ("reductions", "aicode:reductions"),
           ("mha_module", "attention:mha_module")]


@pytest.mark.parametrize("name,spec", DYNAMIC, ids=[n for n, _ in DYNAMIC])
def test_a_dynamic_batch_decodes_like_coreai_core_and_runs(name, spec, tmp_path):
    """The same models exported with a dynamic batch (`--dynamic-dims
    x:0=1:8`): the composites' regions compute shapes at run time
    (get_shape_v2, broadcast_shapes_v1, broadcast_to_v1), as coreai-core's
    do; the asset runs the example batch like eager PyTorch."""
    from coreai_export.cli import build_parser, run

    mod, fac = spec.split(":")
    module, inputs, expected = tmp_path / "m.mlir", tmp_path / "in.npz", tmp_path / "exp.npz"
    run(build_parser().parse_args(["--model", f"models.{mod}:{fac}", "-o", str(module), "--decompositions", "coreai",
                                   "--dynamic-dims", "x:0=1:8", "--inputs-out", str(inputs),
                                   "--expected-out", str(expected)]))
    ir = compile_(module, "--compile-to", "target").stdout
    assert "tensor<?x" in ir
    ours, theirs = tmp_path / "ours.aimodel", tmp_path / "theirs.aimodel"
    compile_(module, "-o", ours, "--format", "aicode")
    core_save_asset(ir, theirs)
    assert decoded_ir(ours / "main.mlirb") == decoded_ir(theirs / "main.mlirb")
    summary, got = runtime(ours, inputs, tmp_path / "out.npz")
    assert summary["is_valid"], summary
    verdict = report.compare(got, report.load(expected))
    assert verdict["ok"], verdict


DYNAMIC_TILE = """module {
  coreai.graph @main(%x: tensor<2x?xf32> {coreai.name = "x"}) -> (tensor<6x?xf32> {coreai.name = "y"}) {
    %r = coreai.constant dense<[3, 2]> : tensor<2xui32>
    %y = coreai.tile %x, %r : (tensor<2x?xf32>, tensor<2xui32>) -> tensor<6x?xf32>
    coreai.output %y : tensor<6x?xf32>
  }
}
"""


def test_a_dynamic_tile_decodes_like_coreai_core_and_runs(tmp_path):
    """coreai.tile of a dynamic input (BLOOM's ALiBi repeat over a dynamic
    length): tile_v2's region reads the input's shape with get_shape_v2, as
    coreai-core writes it; the asset runs at a length like numpy's tile."""
    module = tmp_path / "tile.mlir"
    module.write_text(DYNAMIC_TILE)
    ir = compile_(module, "--compile-to", "target").stdout
    ours, theirs = tmp_path / "ours.aimodel", tmp_path / "theirs.aimodel"
    compile_(module, "-o", ours, "--format", "aicode")
    core_save_asset(ir, theirs)
    assert decoded_ir(ours / "main.mlirb") == decoded_ir(theirs / "main.mlirb")
    x = np.arange(10, dtype=np.float32).reshape(2, 5)
    np.savez(tmp_path / "in.npz", x=x)
    summary, got = runtime(ours, tmp_path / "in.npz", tmp_path / "out.npz")
    assert summary["is_valid"], summary
    np.testing.assert_array_equal(got["y"], np.tile(x, (3, 2)))


def test_a_dynamic_batch_asset_runs_another_batch_size_like_pytorch(tmp_path):
    """The dynamic-batch MLP asset, run at batch 5 (exported at 3)."""
    import torch
    from coreai_export.cli import build_parser, run
    from models.aicode import mlp

    module = tmp_path / "m.mlir"
    run(build_parser().parse_args(["--model", "models.aicode:mlp", "-o", str(module), "--decompositions", "coreai",
                                   "--dynamic-dims", "x:0=1:8"]))
    ours = tmp_path / "ours.aimodel"
    compile_(module, "-o", ours, "--format", "aicode")
    model, _ = mlp()
    x = torch.randn(5, 8, generator=torch.Generator().manual_seed(7))
    np.savez(tmp_path / "in.npz", x=x.numpy())
    _, got = runtime(ours, tmp_path / "in.npz", tmp_path / "out.npz")
    (key, out), = got.items()
    with torch.no_grad():
        want = model(x).numpy()
    assert out.shape == (5, 4)
    verdict = report.compare(got, {key: want})
    assert verdict["ok"], verdict


# --target ane / gpu assets (issue 16): the target's program through the
# aicode writer, loaded and run as it is in coreai-core's runtime and in
# coreai-run (utils/aicode/target_assets.py; ane within 3e-2 x max|eager|,
# gpu within the f32 tolerance, integers exactly).
# The whole corpus: `utils/aicode/target_assets.py --slow`.
TARGET_QUICK = {"llama_block", "int_floor_mod"}
TARGET_SLOW = {"resnet18", "mobilenet_v3_small", "vit_tiny", "fp16_conv", "dynamic_batch_mlp", "stateful_buffer"}
TARGET_CASES = [pytest.param(n, s, t, marks=[] if n in TARGET_QUICK else [pytest.mark.slow], id=f"{n}-{t}")
                for n, s, _ in CORPUS if n in TARGET_QUICK | TARGET_SLOW
                for t in ("ane", "gpu")]


@pytest.mark.parametrize("name,spec,target", TARGET_CASES)
def test_target_assets_run_in_coreai_core_like_pytorch(name, spec, target, tmp_path):
    import target_assets

    assert target_assets.check(name, spec, tmp_path, target) == ("ok", "ok")


# Hardware-constraint copies around ordinary ops (issue 16's Neural Engine
# configurations, guide §7.7): an embedding table in the (V, 1, D) form copied
# to IOSurface `alignments [1,1,1,1], interleave [8,1,1]`, an argument to the
# RoPE-cache IOSurface form `alignments [1,1,32,1], interleave [1,1,1]`, the
# sum to a Heap allocation; each copied back before use. The copies are
# identities.
HW_TABLE = (np.arange(16 * 8, dtype=np.float32).reshape(16, 1, 8) - 60.5) * 0.75
HW_EMBED = "#coreaix.hw_constraints<IOSurface, alignments: [1x1x1x1], interleave: [8x1x1]>"
HW_ROPE = "#coreaix.hw_constraints<IOSurface, alignments: [1x1x32x1], interleave: [1x1x1]>"
HW_HEAP = "#coreaix.hw_constraints<Heap, alignments: [1x1x1x1], interleave: [1x1x1]>"
HW_COPIES = f"""module {{
  coreai.graph @main(%ids: tensor<2x5x1xsi32> {{coreai.name = "ids"}} loc("hw.py":1:1),
      %x: tensor<2x5x8xf32> {{coreai.name = "x"}} loc("hw.py":1:2)) -> (tensor<2x5x8xf32> {{coreai.name = "y"}}) {{
    %table = coreai.constant dense<"0x{HW_TABLE.tobytes().hex().upper()}"> : tensor<16x1x8xf32> loc("hw.py":2:1)
    %t = coreaix.copy_with_constraints(%table) : (tensor<16x1x8xf32>) -> tensor<16x1x8xf32, {HW_EMBED}> loc("hw.py":3:1)
    %u = coreaix.copy_discarding_constraints(%t) : (tensor<16x1x8xf32, {HW_EMBED}>) -> tensor<16x1x8xf32> loc("hw.py":4:1)
    %g = coreai.gather_nd %u at %ids : (tensor<16x1x8xf32>, tensor<2x5x1xsi32>) to tensor<2x5x1x8xf32> loc("hw.py":5:1)
    %shape = coreai.constant dense<[2, 5, 8]> : tensor<3xui32> loc("hw.py":6:1)
    %e = coreai.reshape %g, %shape : (tensor<2x5x1x8xf32>, tensor<3xui32>) -> tensor<2x5x8xf32> loc("hw.py":7:1)
    %xc = coreaix.copy_with_constraints(%x) : (tensor<2x5x8xf32>) -> tensor<2x5x8xf32, {HW_ROPE}> loc("hw.py":8:1)
    %xd = coreaix.copy_discarding_constraints(%xc) : (tensor<2x5x8xf32, {HW_ROPE}>) -> tensor<2x5x8xf32> loc("hw.py":9:1)
    %s = coreai.add %e, %xd : (tensor<2x5x8xf32>, tensor<2x5x8xf32>) -> tensor<2x5x8xf32> loc("hw.py":10:1)
    %h = coreaix.copy_with_constraints(%s) : (tensor<2x5x8xf32>) -> tensor<2x5x8xf32, {HW_HEAP}> loc("hw.py":11:1)
    %y = coreaix.copy_discarding_constraints(%h) : (tensor<2x5x8xf32, {HW_HEAP}>) -> tensor<2x5x8xf32> loc("hw.py":12:1)
    coreai.output %y : tensor<2x5x8xf32> loc("hw.py":13:1)
  }} loc("hw.py":1:3)
}} loc("hw.py":1:4)
"""


def test_hw_constraint_copies_decode_like_coreai_core_and_run_as_identities(tmp_path):
    """The IOSurface and Heap copies of HW_COPIES: our asset's decoded IR,
    locations included, equals coreai-core's save_asset of the same IR; the
    asset runs in coreai-core's runtime and in coreai-run (through our
    reader) exactly like the NumPy reference (table[ids] + x); the IR read
    back from it is the program written."""
    src = tmp_path / "hw.mlir"
    src.write_text(HW_COPIES)
    ir = compile_(src, "--compile-to", "target", "--mlir-print-debuginfo").stdout
    assert ir.count("coreaix.copy_with_constraints") == 3 and "IOSurface" in ir and "Heap" in ir
    ours, theirs = tmp_path / "ours.aimodel", tmp_path / "theirs.aimodel"
    compile_(src, "-o", ours)
    core_save_asset(ir, theirs)
    assert decoded_ir(ours / "main.mlirb", locs=True) == decoded_ir(theirs / "main.mlirb", locs=True)

    rng = np.random.default_rng(11)
    ids = rng.integers(0, 16, size=(2, 5, 1), dtype=np.int32)
    x = (rng.standard_normal((2, 5, 8)) * 20).astype(np.float32)
    x[0, 0, :3] = [-0.0, np.inf, -1e30]
    np.savez(tmp_path / "in.npz", ids=ids, x=x)
    want = HW_TABLE[ids[..., 0], 0, :] + x
    summary, core_summary, got = runtime(ours, tmp_path / "in.npz", tmp_path / "core.npz", also=theirs)
    assert summary["is_valid"] and summary["_compatibility_version"] == "27.0", summary
    assert {k: summary[k] for k in SUMMARY} == {k: core_summary[k] for k in SUMMARY}
    np.testing.assert_array_equal(got["y"], want)

    run = subprocess.run([str(REPO / "target" / "debug" / "coreai-run"), str(ours), "--inputs", str(tmp_path / "in.npz"),
                          "--outputs", str(tmp_path / "run.npz")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    with np.load(tmp_path / "run.npz") as ran:
        np.testing.assert_array_equal(ran["y"], want)
    # Read back (locations included): the program written, as the coreai-format asset holds it.
    import roundtrip

    want_ir, read_ir = roundtrip.roundtrip(src, tmp_path, debuginfo=True)
    assert read_ir == want_ir and "IOSurface, alignments: [1x1x32x1]" in read_ir


def test_an_encoded_tensor_outside_the_copies_and_kernels_is_one_error(tmp_path):
    """An ordinary op on a hw_constraints tensor (coreai-core's form of it
    is not measured): one error at the op, nothing written."""
    heap = "#coreaix.hw_constraints<Heap, alignments: [1x1x1], interleave: [1x1]>"
    src = tmp_path / "enc.mlir"
    src.write_text(f"""module {{
  coreai.graph @main(%x: tensor<2x3xf32> {{coreai.name = "x"}}) -> (tensor<2x3xf32, {heap}> {{coreai.name = "y"}}) {{
    %0 = coreaix.copy_with_constraints(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32, {heap}>
    %1 = coreai.add %0, %0 : (tensor<2x3xf32, {heap}>, tensor<2x3xf32, {heap}>) -> tensor<2x3xf32, {heap}> loc("m.py":3:5)
    coreai.output %1 : tensor<2x3xf32, {heap}>
  }}
}}
""")
    before = sorted(p.name for p in tmp_path.iterdir())
    r = compile_(src, "-o", tmp_path / "m.aimodel", check=False)
    errors = [line for line in r.stderr.splitlines() if "error" in line]
    assert r.returncode == 1 and len(errors) == 1 and "panicked" not in r.stderr, r.stderr
    assert ('"m.py":3:5: \'coreai.add\' on a #coreaix.hw_constraints<Heap, ...> tensor is not yet supported by the '
            "aicode writer") in errors[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_sparsified_program_is_written_as_coreai_core_writes_it_and_runs(tmp_path):
    """coreai-opt 0.3.0's `sparsify_weights` of a linear layer (the kept
    values, a packed ui1 bitmask, `build_sparse_with_bitmask` with its
    sparse encoding, `sparse_with_bitmask_to_dense`): our asset's decoded
    IR and blobs equal coreai-core's `save_asset` of the same compiled IR,
    and it runs in coreai-core's runtime like the dense layer with the
    pruned weight (numpy), as in coreai-run."""
    import warnings

    from coreai._compiler import ir
    from coreai.authoring.asset import AIProgram
    from coreai.authoring.context import Context
    from coreai_opt.coreai_utils.passes.weight_sparsification import sparsify_weights

    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    w = rng.standard_normal((64, 48)).astype(np.float32)
    text = linear_program(w)
    with Context() as c:
        program = AIProgram._from_mlir_module(ir.Module.parse(text, c._mlir_context))  # noqa: SLF001
        sparse = str(sparsify_weights(program, target_sparsity=0.6)._module._mlir_module)  # noqa: SLF001
    assert "coreai.build_sparse_with_bitmask" in sparse and "xui1>" in sparse
    module = tmp_path / "sparse.mlir"
    module.write_text(sparse)
    ours, theirs = tmp_path / "ours.aimodel", tmp_path / "theirs.aimodel"
    compile_(module, "-o", ours)
    core_save_asset(compile_(module, "--compile-to", "target").stdout, theirs)
    assert decoded_ir(ours / "main.mlirb") == decoded_ir(theirs / "main.mlirb")

    x = rng.standard_normal((2, 64)).astype(np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    magnitude = np.abs(w)
    pruned = np.where(magnitude <= np.percentile(magnitude, 60), np.float32(0), w)
    want = x.astype(np.float64) @ pruned.astype(np.float64)
    _, got = runtime(ours, tmp_path / "in.npz", tmp_path / "core.npz")
    r = subprocess.run([str(REPO / "target" / "debug" / "coreai-run"), str(ours), "--inputs", str(tmp_path / "in.npz"),
                        "--outputs", str(tmp_path / "run.npz")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    run = np.load(tmp_path / "run.npz")["y"]
    core = got["y"]
    assert np.abs(core - want).max() <= 1e-5 * np.abs(want).max()
    assert np.abs(run - want).max() <= 1e-5 * np.abs(want).max()
