""".aimodel assets: coreai-compile against coreai-core 1.0.0b3's save_asset.

What coreai-core writes (AIProgram.save_asset): a directory with
main.mlirb, metadata.json and main.hash, its main.mlirb in coreai-core's
versioned serialization (dialect `aicode`), the only form its runtime loads.
coreai-compile writes that form by default (`--format aicode`,
test_aicode_writer.py), and coreai-opt/coreai-run read it back
(test_aicode_reader.py). So the container is compared file by file, and each
asset is loaded and run as it is both in coreai-core's runtime (in a child
process: a file it cannot read aborts the process) and in coreai-run,
against eager PyTorch.
"""

import hashlib
import json
import os
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from models import CORPUS
from test_convert_corpus import CORE_GAPS

REPO = Path(__file__).resolve().parents[2]
COMPILE = REPO / "target" / "debug" / "coreai-compile"
OPT = REPO / "target" / "debug" / "coreai-opt"
RUN = REPO / "target" / "debug" / "coreai-run"

import oracle  # noqa: E402

sys.path.insert(0, str(REPO / "utils" / "coreai-report"))
sys.path.insert(0, str(REPO / "utils" / "aicode"))
import report  # noqa: E402
import roundtrip  # noqa: E402
from compare import decoded_ir  # noqa: E402

FILES = ["main.hash", "main.mlirb", "metadata.json"]
DATE = re.compile(r"^\d{8}T\d{6}Z$")
# A representative set in the default suite; every other corpus model
# (custom_op needs its user lowering, see test_convert_corpus.py) is slow.
QUICK = {"activations", "conv2d_pool", "llama_block", "stateful_buffer", "cond_branch", "dynamic_batch_mlp"}
CASES = [
    pytest.param(n, s, marks=[] if n in QUICK else [pytest.mark.slow], id=n)
    for n, s, _ in CORPUS
    if n != "custom_op"
]


def compile_(*args, check=True, env=None):
    r = subprocess.run([str(COMPILE), *map(str, args)], capture_output=True, text=True, env=env)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def core_save_asset(text, path):
    """coreai-core's own asset of the IR `text`."""
    warnings.simplefilter("ignore")
    from coreai._compiler import ir
    from coreai.authoring.asset import AIProgram
    from coreai.authoring.context import Context

    with Context() as c:
        AIProgram._from_mlir_module(ir.Module.parse(text, c._mlir_context)).save_asset(path)  # noqa: SLF001


def core_runtime(asset, inputs, outputs, function="main"):
    """Loads `asset` in coreai-core's runtime as it is and runs `function`
    (utils/aicode/runasset.py, in the oracle worker): (summary, outputs)."""
    r = oracle.runasset(str(asset), "--function", function, "--inputs", str(inputs),
                        "--outputs", str(outputs))
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[0]), report.load(outputs)


def listing(d):
    return sorted(p.name for p in Path(d).iterdir())


def header(data):
    """Magic, version, producer of MLIR bytecode."""
    assert data[:4] == b"ML\xefR"
    version = data[4] >> 1
    producer = data[5 : data.index(b"\0", 5)].decode()
    return version, producer


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    work = tmp_path_factory.mktemp("llama")
    spec = next(s for n, s, _ in CORPUS if n == "llama_block")
    return report.export("llama_block", spec, work)


def test_container_matches_coreai_core_file_by_file(llama, tmp_path):
    from coreai.authoring.asset import AIModelAsset

    module, _, _ = llama
    ours = tmp_path / "ours.aimodel"
    compile_(module, "-o", ours)
    ir_text = compile_(module, "--compile-to", "target").stdout
    theirs = tmp_path / "theirs.aimodel"
    core_save_asset(ir_text, theirs)

    assert listing(ours) == listing(theirs) == FILES
    for asset in (ours, theirs):
        program = (asset / "main.mlirb").read_bytes()
        assert (asset / "main.hash").read_bytes() == hashlib.sha256(program).digest()
        assert AIModelAsset.is_valid(asset)
    # Bytecode version 6 both; the producer is each writer's (coreai-core's
    # MLIR is 22.0.0git; ours names this project: the loader does not check
    # it, docs/aicode-format.md §2.3).
    (v1, p1), (v2, p2) = (header((a / "main.mlirb").read_bytes()) for a in (ours, theirs))
    assert v1 == v2 == 6 and p1 == "coreai" and p2 == "MLIR22.0.0git"

    mine, core = (json.loads((a / "metadata.json").read_text()) for a in (ours, theirs))
    assert set(mine) == set(core) == {"creationDate", "producer", "assetVersion"}
    assert mine["assetVersion"] == core["assetVersion"] == "2.0"
    assert DATE.match(mine["creationDate"]) and DATE.match(core["creationDate"])
    assert core["producer"] == "coreai-core 1.0.0b3" and mine["producer"].startswith("coreai ")
    # coreai-core's layout: two-space indent, `"key" : value`, no final newline.
    for asset in (ours, theirs):
        text = (asset / "metadata.json").read_text()
        assert text.startswith('{\n  "') and text.endswith("\n}") and '" : "' in text

    # coreai-core reads our metadata as its own.
    meta = AIModelAsset.load(ours).metadata
    assert meta._producer == mine["producer"]  # noqa: SLF001
    assert abs(meta.creation_date - time.time()) < 600

    # The program: the same as coreai-core's (decoded entry for entry), and
    # coreai-opt reads it back to the compiled IR (test_aicode_reader.py).
    assert decoded_ir(ours / "main.mlirb") == decoded_ir(theirs / "main.mlirb")
    printed = subprocess.run([str(OPT), ours], capture_output=True, text=True, check=True).stdout
    assert roundtrip.signless(printed) == roundtrip.without_unheld(ir_text)


def test_metadata_from_the_command_line_is_read_by_coreai_core(llama, tmp_path):
    from coreai.authoring.asset import AIModelAsset

    module, _, _ = llama
    out = tmp_path / "m.aimodel"
    compile_(module, "-o", out, "--metadata", "author=Ann \"Q\" Lee", "--metadata", "license=MIT",
             "--metadata", "description=a llama block", "--metadata", "version=1.2=b")
    meta = AIModelAsset.load(out).metadata
    assert (meta.author, meta.license, meta.model_description) == ('Ann "Q" Lee', "MIT", "a llama block")
    assert json.loads((out / "metadata.json").read_text())["creatorDefinedMetadata"] == {"version": "1.2=b"}


def test_output_is_byte_identical_across_runs(llama, tmp_path):
    module, _, _ = llama
    env = dict(os.environ, SOURCE_DATE_EPOCH="1796130635")
    a, b = tmp_path / "a.aimodel", tmp_path / "b.aimodel"
    compile_(module, "-o", a, env=env)
    compile_(module, "-o", b, "--mlir-disable-threading", env=env)
    for f in FILES:
        assert (a / f).read_bytes() == (b / f).read_bytes(), f
    assert json.loads((a / "metadata.json").read_text())["creationDate"] == "20261201T131035Z"


@pytest.mark.parametrize("name,spec", CASES)
def test_corpus_model_compiles_to_an_asset_that_runs_like_pytorch(name, spec, tmp_path):
    module, inputs, expected = report.export(name, spec, tmp_path)
    asset = tmp_path / f"{name}.aimodel"
    compile_(module, "-o", asset)
    want = report.load(expected)
    factor = report.TOLERANCE.get(name, (None,))[0]

    out = tmp_path / "run.npz"
    r = subprocess.run([str(RUN), asset, "--inputs", inputs, "--outputs", out], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    verdict = report.compare(report.load(out), want, factor)
    assert verdict["ok"], verdict

    if name in CORE_GAPS:
        return  # coreai-core's runtime cannot run it (test_convert_corpus.CORE_GAPS)
    summary, outputs = core_runtime(asset, inputs, tmp_path / "core.npz")
    assert summary["is_valid"] and summary["_compatibility_version"] == "27.0", summary
    verdict = report.compare(outputs, want, factor)
    assert verdict["ok"], verdict


def test_multi_function_asset_runs_each_function_like_pytorch(llama, tmp_path):
    norm = report.export("batch_layer_norm", next(s for n, s, _ in CORPUS if n == "batch_layer_norm"), tmp_path)
    parts = {"prefill": llama, "decode": llama, "norm": norm}
    asset = tmp_path / "multi.aimodel"
    compile_(*[a for name, (m, _, _) in parts.items() for a in ("--entry", f"{name}={m}")], "-o", asset)
    for name, (_, inputs, expected) in parts.items():
        want = report.load(expected)
        out = tmp_path / f"{name}.npz"
        r = subprocess.run([str(RUN), asset, "--entry", name, "--inputs", inputs, "--outputs", out],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert report.compare(report.load(out), want)["ok"], name
        summary, got = core_runtime(asset, inputs, tmp_path / f"core-{name}.npz", name)
        assert sorted(summary["function_names"]) == ["decode", "norm", "prefill"]
        assert report.compare(got, want)["ok"], name


def test_coreai_core_runtime_loads_our_asset(llama, tmp_path):
    from coreai.authoring.asset import AIModelAsset

    module, _, _ = llama
    out = tmp_path / "m.aimodel"
    compile_(module, "-o", out)
    summary = AIModelAsset.load(out).summary()
    assert summary.function_names == ["main"] and summary._compatibility_version == "27.0"  # noqa: SLF001


def test_precision_f16_asset_computes_in_f16_and_matches_pytorch(llama, tmp_path):
    """--precision f16 ends the optimized stage with cast-to-f16: the asset's
    program computes in f16 (f32 signature) and stays within the f16
    tolerance of eager fp32 in coreai-run, without simulation."""
    module, inputs, expected = llama
    out = tmp_path / "m.aimodel"
    compile_(module, "-o", out, "--precision", "f16")
    text = subprocess.run([str(OPT), str(out)], capture_output=True, text=True, check=True).stdout
    assert "xf16>" in text and "coreai.cast" in text
    got = tmp_path / "out.npz"
    subprocess.run([str(RUN), str(out), "--inputs", str(inputs), "--outputs", str(got)], check=True,
                   capture_output=True)
    assert report.compare(report.load(got), report.load(expected), 3e-2)["ok"]


# --- bad input: one diagnostic, exit 1, nothing written or replaced ---------

BAD_IR = 'func.func @main(%a: tensor<2xf32>) -> tensor<3xf32> {\n  return %a : tensor<2xf32>\n}\n'
UNLOWERED = ('func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n'
             '  %0 = aten.operator "my_lib::op.default"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n'
             '  return %0 : tensor<2xf32>\n}\n')


def errors(stderr):
    return [line for line in stderr.splitlines() if "error" in line]


@pytest.mark.parametrize("case", ["missing", "does-not-verify", "unlowered", "unknown-target"])
def test_bad_input_writes_nothing(case, tmp_path, llama):
    module, _, _ = llama
    src = tmp_path / "in.mlir"
    args = {
        "missing": [tmp_path / "nope.mlir"],
        "does-not-verify": [src],
        "unlowered": [src],
        "unknown-target": [module, "--target", "tpu"],
    }[case]
    src.write_text(UNLOWERED if case == "unlowered" else BAD_IR)
    before = listing(tmp_path)
    r = compile_(*args, "-o", tmp_path / "m.aimodel", check=False)
    assert r.returncode == 1, r.stderr
    assert len(errors(r.stderr)) >= 1 and "panicked" not in r.stderr, r.stderr
    assert listing(tmp_path) == before
    expected = {"missing": "nope.mlir", "does-not-verify": "in.mlir:", "unlowered": "my_lib::op.default",
                "unknown-target": "tpu"}[case]
    assert expected in r.stderr, r.stderr


def test_an_existing_asset_survives_a_failed_compile_and_a_file_is_never_replaced(llama, tmp_path):
    module, _, _ = llama
    out = tmp_path / "m.aimodel"
    compile_(module, "-o", out, "--metadata", "author=first")
    saved = {f: (out / f).read_bytes() for f in FILES}
    bad = tmp_path / "bad.mlir"
    bad.write_text(BAD_IR)
    assert compile_(bad, "-o", out, check=False).returncode == 1
    assert {f: (out / f).read_bytes() for f in FILES} == saved
    assert listing(tmp_path) == ["bad.mlir", "m.aimodel"]

    plain = tmp_path / "file.aimodel"
    plain.write_text("not an asset")
    r = compile_(module, "-o", plain, check=False)
    assert r.returncode == 1 and "is not an .aimodel asset" in r.stderr, r.stderr
    assert plain.read_text() == "not an asset"


# --- coreai-opt and coreai-run read assets ---------------------------------


def test_tools_read_an_asset_and_refuse_a_damaged_one(llama, tmp_path):
    module, inputs, expected = llama
    asset = tmp_path / "m.aimodel"
    compile_(module, "-o", asset)
    printed = subprocess.run([str(OPT), asset], capture_output=True, text=True)
    assert printed.returncode == 0, printed.stderr
    # The compiled IR, but for what the aicode form does not hold.
    ir_text = compile_(module, "--compile-to", "target").stdout
    assert roundtrip.signless(printed.stdout) == roundtrip.without_unheld(ir_text)

    program = asset / "main.mlirb"
    data = program.read_bytes()
    damage = {
        "truncated": lambda: program.write_bytes(data[: len(data) // 2]),
        "bad hash": lambda: (asset / "main.hash").write_bytes(b"\0" * 32),
        "no metadata": lambda: (asset / "metadata.json").unlink(),
    }
    for what, act in damage.items():
        compile_(module, "-o", asset)
        act()
        for tool in ([str(OPT), asset], [str(RUN), asset, "--inputs", inputs]):
            r = subprocess.run(tool, capture_output=True, text=True)
            assert r.returncode == 1, (what, tool[0], r.stderr)
            assert len(r.stderr.strip().splitlines()) == 1, (what, r.stderr)
            assert "m.aimodel" in r.stderr, (what, r.stderr)


def test_tools_read_coreai_cores_own_asset(llama, tmp_path):
    module, inputs, expected = llama
    ir_text = compile_(module, "--compile-to", "target").stdout
    theirs = tmp_path / "theirs.aimodel"
    core_save_asset(ir_text, theirs)
    r = subprocess.run([str(OPT), theirs], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert roundtrip.signless(r.stdout) == roundtrip.without_unheld(ir_text)
    out = tmp_path / "out.npz"
    r = subprocess.run([str(RUN), theirs, "--inputs", inputs, "--outputs", out], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert report.compare(report.load(out), report.load(expected))["ok"]


def test_convert_from_python_writes_an_asset_that_runs_like_pytorch(tmp_path):
    import numpy as np
    import torch

    from coreai_export import convert
    from models.transformer import llama_block

    model, inputs = llama_block()[:2]
    asset = convert(model, inputs, tmp_path / "m.aimodel", metadata={"author": "Ann"})
    assert json.loads((asset / "metadata.json").read_text())["author"] == "Ann"
    signature = json.loads(subprocess.run([str(RUN), asset, "--print-signature"], capture_output=True,
                                          text=True, check=True).stdout)
    names = [a["name"] for a in signature["arguments"]]
    np.savez(tmp_path / "in.npz", **{n: t.numpy() for n, t in zip(names, inputs)})
    with torch.no_grad():
        want = model(*inputs)
    r = subprocess.run([str(RUN), asset, "--inputs", tmp_path / "in.npz", "--outputs", tmp_path / "out.npz"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = report.load(tmp_path / "out.npz")
    (only,) = got.values()
    assert report.compare({"y": only}, {"y": want.numpy()})["ok"]


# --- the aicode serialization (docs/aicode-format.md) -------------------------

RUN_ADD = """
import asyncio, os, sys
import numpy as np
from coreai.authoring.asset import AIModelAsset
from coreai.runtime import NDArray

async def main(path):
    asset = AIModelAsset.load(path)
    assert AIModelAsset.is_valid(path)
    print(asset.summary()._compatibility_version)
    x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
    y = np.array([[1e30, -0.0, 3.0], [np.inf, 0.5, -7.25]], np.float32)
    async with asset.executable() as m:
        fn = m.load_function("main")
        if asyncio.iscoroutine(fn):
            fn = await fn
        out = await fn(inputs={"x": NDArray(x), "y": NDArray(y)})
        (got,) = [v.numpy() for v in out.values()]
    assert np.array_equal(got, x + y), (got, x + y)
    print("ok")

asyncio.run(main(sys.argv[1]))
sys.stdout.flush()
os._exit(0)  # coreai_export.llm.exit_without_finalizing says why
"""


def test_the_documented_aicode_encoding_writes_an_asset_coreai_core_runs(llama, tmp_path):
    """utils/aicode/emit_add.py writes `main.mlirb` byte by byte from the
    encoding in docs/aicode-format.md (no MLIR): coreai-core's loader accepts
    it and its runtime computes x + y exactly, so the specification the
    native writer will follow is checked against the real reader."""
    module, _, _ = llama
    out = tmp_path / "add.aimodel"
    compile_(module, "-o", out)  # the container and metadata.json
    blob = tmp_path / "main.mlirb"
    subprocess.run([sys.executable, str(REPO / "utils" / "aicode" / "emit_add.py"), str(blob)], check=True,
                   capture_output=True)
    data = blob.read_bytes()
    (out / "main.mlirb").write_bytes(data)
    (out / "main.hash").write_bytes(hashlib.sha256(data).digest())
    # coreai-core aborts the process on an asset it cannot read: run it apart.
    r = oracle.run_script([sys.executable, "-c", RUN_ADD, str(out)], timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["27.0", "ok"], r.stdout


# The system calls that make a file or directory appear.
CREATING = "openat,open,creat,mkdir,mkdirat,rename,renameat,renameat2,link,linkat,symlink,symlinkat"


def created_paths(trace, cwd):
    """Paths strace saw created (successful open with O_CREAT, mkdir, the
    new name of a rename or link), made absolute against `cwd`."""
    paths = []
    for line in trace.read_text().splitlines():
        if line.rstrip().endswith("?") or re.search(r"= -1 ", line):
            continue
        names = re.findall(r'"((?:[^"\\]|\\.)*)"', line)
        call = re.match(r"(?:\d+\s+)?(\w+)\(", line)
        if not call or not names:
            continue
        call = call.group(1)
        if call in ("openat", "open") and "O_CREAT" not in line and "O_TMPFILE" not in line:
            continue
        path = names[-1] if call.startswith(("rename", "link", "symlink")) else names[0]
        paths.append(Path(path) if os.path.isabs(path) else Path(cwd) / path)
    return paths


@pytest.mark.parametrize("entries", [1, 2], ids=["one-function", "two-functions"])
def test_coreai_compile_creates_no_file_but_its_output(llama, tmp_path, entries):
    """Under strace: every file or directory coreai-compile creates is its
    asset or inside the asset's staging directory (written whole, then
    renamed into place); no scratch program, no temporary file elsewhere."""
    module, _, _ = llama
    out = tmp_path / "out"
    out.mkdir()
    inputs = [module] if entries == 1 else ["--entry", f"prefill={module}", "--entry", f"decode={module}"]
    trace = tmp_path / "trace.txt"
    r = subprocess.run(["strace", "-f", "-qq", "-e", f"trace={CREATING}", "-o", str(trace),
                        str(COMPILE), *map(str, inputs), "-o", str(out / "m.aimodel")],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    created = created_paths(trace, tmp_path)
    assert out / "m.aimodel" in created, created
    staging = re.compile(r"^\.m\.aimodel\.\d+\.tmp$")
    others = [p for p in created
              if p != out / "m.aimodel" and not (p.parent == out and staging.match(p.name))
              and not (p.parent.parent == out and staging.match(p.parent.name))]
    assert others == [], others
