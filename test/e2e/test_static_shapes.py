"""Enumerated static shapes (`--static-shapes` / `convert(static_shapes=...)`),
the counterpart of coreai-core's `AIProgram.set_static_shape_config`.

The corpus's dynamic-sequence decoder block (llama_block_dynamic_seq: x is
(2, s, 64)) compiled with two configurations, s = 8 and s = 17:
(a) the asset loads in coreai-core and its summary (function names, their
order, compatibility version, compute and storage types) equals that of
coreai-core's own `set_static_shape_config` + `save_asset` applied to our
dynamic coreai IR of the same model; (b) each function runs in coreai-core's
runtime and in coreai-run like eager PyTorch on inputs of its shapes; (c) a
bad configuration is one error, exit 1, nothing written.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

REPO = Path(__file__).resolve().parents[2]
COMPILE = REPO / "target" / "debug" / "coreai-compile"
COREAI_RUN = REPO / "target" / "debug" / "coreai-run"
import oracle  # noqa: E402
sys.path.insert(0, str(REPO / "utils" / "coreai-report"))
import report  # noqa: E402

from coreai_export import ExportFailure, convert  # noqa: E402
from coreai_export.cli import main as export_main  # noqa: E402
from models.transformer import llama_block_dynamic_seq  # noqa: E402

MODEL = "models.transformer:llama_block_dynamic_seq"
CONFIGS = {"s8": {"x": (2, 8, 64)}, "s17": {"x": (2, 17, 64)}}
FLAGS = ["--static-shapes", "s8:x=2x8x64", "--static-shapes", "s17:x=2x17x64"]
SUMMARY = ["is_valid", "_compatibility_version", "function_names", "compute_types"]


def summary(asset):
    r = oracle.runasset(str(asset))
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.splitlines()[0])


@pytest.fixture(scope="module")
def assets(tmp_path_factory):
    """(ours, coreai-core's) for the two configurations."""
    tmp = tmp_path_factory.mktemp("static_shapes")
    ours = tmp / "ours.aimodel"
    assert export_main(["--model", MODEL, "-o", str(ours), "--decompositions", "coreai", *FLAGS]) == 0
    # The oracle: our dynamic coreai IR (x: 2x?x64), specialized by coreai-core.
    dynamic = tmp / "dynamic.mlir"
    assert export_main(["--model", MODEL, "-o", str(dynamic), "--decompositions", "coreai",
                        "--dynamic-dims", "x:1=1:64"]) == 0
    ir = subprocess.run([str(COMPILE), str(dynamic), "--compile-to", "target"], capture_output=True, text=True,
                        check=True).stdout
    assert "tensor<2x?x64xf32>" in ir
    theirs = tmp / "theirs.aimodel"
    core = oracle.run_script([sys.executable, "-c", CORE_STATIC_SHAPES, str(theirs), json.dumps(CONFIGS)], input=ir)
    assert core.returncode == 0, core.stderr[-2000:]
    return ours, theirs


CORE_STATIC_SHAPES = """
import json, sys
from pathlib import Path
from coreai._compiler import ir
from coreai.authoring.asset import AIProgram
from coreai.authoring.context import Context
with Context() as c:
    p = AIProgram._from_mlir_module(ir.Module.parse(sys.stdin.read(), c._mlir_context))
    p.set_static_shape_config("main", json.loads(sys.argv[2]))
    p.save_asset(Path(sys.argv[1]))
"""


def test_the_asset_summarizes_like_coreai_cores_own_specialization(assets):
    ours, theirs = assets
    got, want = summary(ours), summary(theirs)
    assert want["function_names"] == ["main_s17", "main_s8"]  # coreai-core: in key order
    assert {k: got[k] for k in SUMMARY} == {k: want[k] for k in SUMMARY}


# The linker shares blobs of equal type and bytes (tools/coreai-compile/
# src/link.rs): before, each configuration stored its own copy of every
# weight (l1.bias, l1.bias_1, ...).
def test_the_asset_stores_the_weights_once_like_coreai_core(assets):
    ours, theirs = assets
    assert summary(ours)["storage_types"] == summary(theirs)["storage_types"]


@pytest.mark.parametrize("key", sorted(CONFIGS))
def test_each_function_runs_like_eager_pytorch_in_both_runtimes(assets, key, tmp_path):
    ours, _ = assets
    shape = CONFIGS[key]["x"]
    x = np.random.default_rng(len(key) + shape[1]).normal(scale=3.0, size=shape).astype(np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    model, _ = llama_block_dynamic_seq()
    with torch.no_grad():
        want = {"output": model(torch.from_numpy(x)).numpy()}
    fn = f"main_{key}"
    r = oracle.runasset(str(ours), "--function", fn, "--inputs",
                        str(tmp_path / "in.npz"), "--outputs", str(tmp_path / "core.npz"))
    assert r.returncode == 0, r.stderr[-2000:]
    verdict = report.compare(report.load(tmp_path / "core.npz"), want)
    assert verdict["ok"], ("coreai-core", verdict)
    r = subprocess.run([str(COREAI_RUN), str(ours), "--entry", fn, "--inputs", str(tmp_path / "in.npz"),
                        "--outputs", str(tmp_path / "run.npz")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    verdict = report.compare(report.load(tmp_path / "run.npz"), want)
    assert verdict["ok"], ("coreai-run", verdict)


BAD = [
    (["--static-shapes", "s8:y=2x8x64"], "no tensor input 'y'"),
    (["--static-shapes", "s8:x=2x8"], "has rank 2, the input has rank 3"),
    (["--static-shapes", "s8:x=2x0x64"], "every dim must be > 0"),
    (["--static-shapes", "s8:x=2x8x32"], "s8 (x=2x8x32): the model failed to export with torch.export"),
    (["--static-shapes", "s8:x=2by8"], "'x=2by8' is not INPUT=DxD"),
    (["--static-shapes", "s-8:x=2x8x64"], "key 's-8' is not an identifier"),
    (["--static-shapes", "s8:x=2x8x64", "--static-shapes", "s8:x=2x9x64"], "configuration 's8' is given twice"),
]


@pytest.mark.parametrize("flags,message", BAD, ids=[m.split()[0].strip("'") for _, m in BAD])
def test_a_bad_configuration_is_one_error_and_writes_nothing(flags, message, tmp_path, capsys):
    out = tmp_path / "m.aimodel"
    assert export_main(["--model", MODEL, "-o", str(out), *flags]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("coreai_export: error: ") and message in err[0], err
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_the_command_line_exits_1_without_a_traceback_and_an_mlir_output_is_refused(tmp_path):
    out = tmp_path / "m.mlir"
    r = subprocess.run([sys.executable, "-m", "coreai_export", "--model", MODEL, "-o", str(out), *FLAGS],
                       capture_output=True, text=True, cwd=REPO / "test" / "e2e",
                       env={**os.environ, "PYTHONPATH": f"{REPO / 'importer'}:{REPO / 'test' / 'e2e'}"})
    assert r.returncode == 1 and r.stderr.strip().splitlines() == [
        "coreai_export: error: --static-shapes makes several functions: give -o NAME.aimodel (an asset)"], r.stderr
    assert not out.exists()


def test_convert_validates_before_exporting(tmp_path):
    model, inputs = llama_block_dynamic_seq()
    with pytest.raises(ExportFailure, match=r"s8: x: shape \[2, -1, 64\]: every dim must be > 0"):
        convert(model, inputs, tmp_path / "m.aimodel", static_shapes={"s8": {"x": (2, -1, 64)}})
    assert list(tmp_path.iterdir()) == []


def test_coreai_compile_says_static_shapes_need_the_pytorch_program(tmp_path):
    program = tmp_path / "relu.mlir"
    program.write_text("""module {
  coreai.graph @main(%x: tensor<?x3xf32> {coreai.name = "x"}) -> (tensor<?x3xf32> {coreai.name = "y"}) {
    %0 = coreai.relu %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
    coreai.output %0 : tensor<?x3xf32>
  }
}
""")
    out = tmp_path / "m.aimodel"
    assert subprocess.run([str(COMPILE), str(program), "-o", str(out)]).returncode == 0
    out.rename(tmp_path / "plain.aimodel")
    r = subprocess.run([str(COMPILE), str(program), "-o", str(out), "--static-shapes", "b2:x=2x3"],
                       capture_output=True, text=True)
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "--static-shapes needs the PyTorch program" in r.stderr and "coreai-export" in r.stderr
    assert not out.exists()


def test_an_exported_program_with_a_dynamic_batch_is_re_exported_per_configuration(tmp_path):
    """`--exported-program m.pt2` (x: ?x8, batch 1..64): each configuration
    is exported again from `ExportedProgram.module()`; one beyond the
    program's range is torch.export's guard, in one line."""
    from models.dynamic import dynamic_batch_mlp

    model, (x,) = dynamic_batch_mlp()
    batch = torch.export.Dim("batch", min=1, max=64)
    torch.export.save(torch.export.export(model, (x,), dynamic_shapes={"x": {0: batch}}), tmp_path / "m.pt2")
    np.savez(tmp_path / "in.npz", x=x.numpy())
    common = ["--exported-program", str(tmp_path / "m.pt2"), "--inputs", str(tmp_path / "in.npz")]
    out = tmp_path / "m.aimodel"
    assert export_main([*common, "-o", str(out), "--static-shapes", "b2:x=2x8", "--static-shapes", "b5:x=5x8"]) == 0
    assert summary(out)["function_names"] == ["main_b2", "main_b5"]
    x5 = np.random.default_rng(5).normal(scale=4.0, size=(5, 8)).astype(np.float32)
    np.savez(tmp_path / "x5.npz", x=x5)
    r = subprocess.run([str(COREAI_RUN), str(out), "--entry", "main_b5", "--inputs", str(tmp_path / "x5.npz"),
                        "--outputs", str(tmp_path / "run.npz")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with torch.no_grad():
        want = {f"output_{i}": o.numpy() for i, o in enumerate(model(torch.from_numpy(x5)))}
    verdict = report.compare(report.load(tmp_path / "run.npz"), want)
    assert verdict["ok"], verdict

    beyond = tmp_path / "beyond.aimodel"
    assert export_main([*common, "-o", str(beyond), "--static-shapes", "b99:x=99x8"]) == 1
    assert not beyond.exists()


def test_a_model_whose_dynamic_form_does_not_convert_converts_per_configuration(tmp_path):
    """upsample (nearest and bilinear resizes, one with align_corners) with a
    dynamic height declines (align_corners' scale needs the height);
    `convert(static_shapes=...)` at two heights runs like eager PyTorch in
    coreai-core's runtime and in coreai-run."""
    from models.conv import upsample

    dynamic = tmp_path / "dynamic.mlir"
    assert export_main(["--model", "models.conv:upsample", "-o", str(dynamic),
                        "--dynamic-dims", "x:2=4:64"]) == 0
    r = subprocess.run([str(COMPILE), str(dynamic), "-o", str(tmp_path / "dynamic.aimodel")], capture_output=True,
                       text=True)
    assert r.returncode == 1 and "cannot lower 'aten::upsample_bilinear2d.vec'" in r.stderr

    model, inputs = upsample()
    shapes = {"h8": {"x": (1, 2, 8, 5)}, "h24": {"x": (1, 2, 24, 7)}}
    out = convert(model, inputs, tmp_path / "m.aimodel", decompositions="coreai", static_shapes=shapes)
    assert summary(out)["function_names"] == ["main_h24", "main_h8"]
    for key, config in shapes.items():
        x = np.random.default_rng(3).normal(scale=3.0, size=config["x"]).astype(np.float32)
        np.savez(tmp_path / "in.npz", x=x)
        with torch.no_grad():
            want = {f"output_{i}": o.numpy() for i, o in enumerate(model(torch.from_numpy(x)))}
        r = oracle.runasset(str(out), "--function", f"main_{key}", "--inputs",
                            str(tmp_path / "in.npz"), "--outputs", str(tmp_path / "core.npz"))
        assert r.returncode == 0, r.stderr[-2000:]
        verdict = report.compare(report.load(tmp_path / "core.npz"), want)
        assert verdict["ok"], ("coreai-core", key, verdict)
        r = subprocess.run([str(COREAI_RUN), str(out), "--entry", f"main_{key}", "--inputs", str(tmp_path / "in.npz"),
                            "--outputs", str(tmp_path / "run.npz")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        verdict = report.compare(report.load(tmp_path / "run.npz"), want)
        assert verdict["ok"], ("coreai-run", key, verdict)


def test_without_static_shapes_an_aimodel_output_is_one_main(tmp_path):
    """`-o NAME.aimodel` alone: the program compiled as the asset's `main`."""
    from models.dynamic import dynamic_batch_mlp

    out = tmp_path / "m.aimodel"
    assert export_main(["--model", "models.dynamic:dynamic_batch_mlp", "-o", str(out),
                        "--dynamic-dims", "x:0=1:64"]) == 0
    assert summary(out)["function_names"] == ["main"]
    model, _ = dynamic_batch_mlp()
    x = np.random.default_rng(9).normal(scale=4.0, size=(6, 8)).astype(np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    r = subprocess.run([str(COREAI_RUN), str(out), "--inputs", str(tmp_path / "in.npz"), "--outputs",
                        str(tmp_path / "run.npz")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with torch.no_grad():
        want = {f"output_{i}": o.numpy() for i, o in enumerate(model(torch.from_numpy(x)))}
    verdict = report.compare(report.load(tmp_path / "run.npz"), want)
    assert verdict["ok"], verdict


def test_static_shapes_keep_the_input_and_output_names(tmp_path):
    """`convert(static_shapes=..., input_names=..., output_names=...)`: every
    function of the asset takes and returns the given names (the
    configuration still names the forward's parameter), as a single `main`
    does, and runs under those names."""
    from models.conv import upsample

    model, inputs = upsample()
    shapes = {"h8": {"x": (1, 2, 8, 5)}, "h24": {"x": (1, 2, 24, 7)}}
    out = convert(model, inputs, tmp_path / "m.aimodel", decompositions="coreai", static_shapes=shapes,
                  input_names=["image"], output_names=["nearest", "bilinear", "aligned"])
    for key, config in shapes.items():
        r = subprocess.run([str(COREAI_RUN), str(out), "--entry", f"main_{key}", "--print-signature"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        signature = r.stdout
        assert all(f"\"{n}\"" in signature for n in ["image", "nearest", "bilinear", "aligned"]), signature
        assert '"x"' not in signature and '"output_0"' not in signature, signature
        x = np.random.default_rng(4).normal(size=config["x"]).astype(np.float32)
        np.savez(tmp_path / "in.npz", image=x)
        with torch.no_grad():
            want = dict(zip(["nearest", "bilinear", "aligned"], (o.numpy() for o in model(torch.from_numpy(x)))))
        r = oracle.runasset(str(out), "--function", f"main_{key}", "--inputs",
                            str(tmp_path / "in.npz"), "--outputs", str(tmp_path / "core.npz"))
        assert r.returncode == 0, r.stderr[-2000:]
        verdict = report.compare(report.load(tmp_path / "core.npz"), want)
        assert verdict["ok"], (key, verdict)
