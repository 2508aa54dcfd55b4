"""The aicode reader (crates/coreai-asset: bytecode::reader, aicode::reader):
coreai-opt, coreai-run, coreai-freqop and coreai-graphdiff read aicode assets
(and aicode .mlirb files) back into coreai IR.

- write → read is exact: the same compiled program written as a
  coreai-format asset and as an aicode asset prints the same through
  coreai-opt (locations included), but for what the aicode form does not
  hold and coreai-core's own reader (`convert-from-versioned`) loses the same
  way (utils/aicode/roundtrip.py: `__coreai_pure__`, `template_op`, the
  signedness of signless integer attributes);
- what we read equals what coreai-core's own reader gives for the same file;
- coreai-core's own `save_asset` output reads back to the same program (the
  interop proof), and runs in coreai-run like eager PyTorch;
- a damaged aicode program is one diagnostic, exit 1.
"""

import hashlib
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from models import CORPUS

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "target" / "debug"
sys.path.insert(0, str(REPO / "utils" / "coreai-report"))
sys.path.insert(0, str(REPO / "utils" / "aicode"))
import oracle  # noqa: E402
import report  # noqa: E402
import roundtrip  # noqa: E402

GOLDEN = sorted((REPO / "test" / "golden").glob("*.mlir"))
# Outside the writer's subset (test_aicode_writer.py): images, an
# interpolation mode attribute, delegates.
NOT_COVERED = {"handbuilt_images_encodings", "handbuilt_lut_matmul_index", "handbuilt_target_delegate"}
COVERED = [p for p in GOLDEN if p.stem not in NOT_COVERED]


def tool(name, *args, check=True):
    r = subprocess.run([str(BUILD / name), *map(str, args)], capture_output=True, text=True)
    if check:
        assert r.returncode == 0, r.stderr
    return r


CORE_READS = """
import sys, warnings
warnings.simplefilter("ignore")
from coreai._compiler import ir
from coreai._compiler.passmanager import PassManager
from coreai.authoring.context import Context
for path, out in zip(sys.argv[1::2], sys.argv[2::2]):
    with Context() as c:
        with c._mlir_context:
            m = ir.Module.parse(open(path, "rb").read())
            try:
                PassManager.parse("builtin.module(convert-mlir-locations-to-versioned,convert-from-versioned)").run(
                    m.operation)
                text = str(m)
            except Exception as e:  # noqa: BLE001
                text = "FAILED: " + str(e)
    open(out, "w").write(text)
"""

# Golden programs coreai-core's own reader cannot read back (its own asset
# of them included, which equals ours: test_aicode_writer.py).
CORE_READER_FAILS = {"handbuilt_reduce_scatter": "failed to legalize operation 'aicode.primitive.reduce_v1'"}


@pytest.mark.parametrize("path", COVERED, ids=[p.stem for p in COVERED])
def test_golden_programs_read_back_exactly(path, tmp_path):
    want, got = roundtrip.roundtrip(path, tmp_path, debuginfo=True)
    assert got == want


def test_golden_programs_read_as_coreai_cores_own_reader_reads_them(tmp_path):
    """coreai-core's reading of each aicode asset into coreai IR
    (`convert-from-versioned`, what its loader runs; all in one child
    process, since a bad file can abort it), printed by coreai-opt without
    locations (coreai-core's are `#debuginfo` ones), equals ours: coreai-opt
    reading the asset, and `coreai-compile --compile-to aicode`."""
    args = []
    for path in COVERED:
        asset = tmp_path / f"{path.stem}.aimodel"
        tool("coreai-compile", path, "-o", asset)
        args += [asset / "main.mlirb", tmp_path / f"{path.stem}.core.mlir"]
    r = oracle.run_script([sys.executable, "-c", CORE_READS, *map(str, args)])
    assert r.returncode == 0, r.stderr[-2000:]
    for path in COVERED:
        core = tmp_path / f"{path.stem}.core.mlir"
        if path.stem in CORE_READER_FAILS:
            assert CORE_READER_FAILS[path.stem] in core.read_text()
            continue
        theirs = tool("coreai-opt", core).stdout
        assert tool("coreai-opt", tmp_path / f"{path.stem}.aimodel").stdout == theirs, path.stem
        # The backend as a stage (`aicode-roundtrip`) reads what the asset holds.
        assert tool("coreai-compile", path, "--compile-to", "aicode").stdout == theirs, path.stem


@pytest.mark.parametrize("path", [p for p in COVERED if p.stem in {"activations", "control_while", "state_handle",
                                                                   "dynamic_shapes", "complex", "scan"}],
                         ids=lambda p: p.stem)
def test_coreai_cores_own_asset_reads_back_to_the_program(path, tmp_path):
    """coreai-core's save_asset of the compiled program (with its locations),
    read by coreai-opt: the writer's input again."""
    want, _ = roundtrip.roundtrip(path, tmp_path, debuginfo=True)
    text = tool("coreai-opt", tmp_path / "plain.aimodel", "--mlir-print-debuginfo").stdout
    warnings.simplefilter("ignore")
    roundtrip.core_save_asset(text, tmp_path / "core.aimodel")
    got = tool("coreai-opt", tmp_path / "core.aimodel", "--mlir-print-debuginfo").stdout
    assert roundtrip.signless(got) == want


QUICK = {"activations", "llama_block", "stateful_buffer", "cond_branch", "dynamic_batch_mlp", "fp16_mlp"}
MODELS = [pytest.param(n, s, marks=[] if n in QUICK else [pytest.mark.slow], id=n)
          for n, s, _ in CORPUS if n != "custom_op"]


@pytest.mark.parametrize("name,spec", MODELS)
def test_corpus_model_reads_back_runs_in_coreai_run_and_reads_coreai_cores_asset(name, spec, tmp_path):
    """utils/aicode/roundtrip.py's check: round trip exact, coreai-run on
    the aicode asset like eager PyTorch, coreai-core's save_asset of the
    same IR read back to the same program."""
    warnings.simplefilter("ignore")
    assert roundtrip.check(name, spec, tmp_path) == "ok"


def test_every_tool_reads_an_aicode_asset_and_mlirb(tmp_path):
    src = REPO / "test" / "golden" / "activations.mlir"
    asset = tmp_path / "a.aimodel"
    plain = tmp_path / "p.aimodel"
    tool("coreai-compile", src, "-o", asset)  # aicode: the default
    tool("coreai-compile", src, "-o", plain, "--format", "coreai")
    assert (asset / "main.mlirb").read_bytes()[:4] == b"ML\xefR"
    assert b"aicode" in (asset / "main.mlirb").read_bytes()
    bare = tmp_path / "main.mlirb"
    bare.write_bytes((asset / "main.mlirb").read_bytes())
    assert tool("coreai-opt", bare).stdout == tool("coreai-opt", asset).stdout
    freq = [tool("coreai-freqop", p, "--json").stdout for p in (asset, plain)]
    assert freq[0].replace(str(asset), "X") == freq[1].replace(str(plain), "X")
    r = tool("coreai-graphdiff", asset, plain, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    sig = [tool("coreai-run", p, "--print-signature").stdout for p in (asset, plain)]
    assert sig[0] == sig[1]
    # An aicode asset is also a compiler input.
    again = tmp_path / "again.aimodel"
    tool("coreai-compile", asset, "-o", again)
    assert tool("coreai-opt", again).stdout == tool("coreai-opt", asset).stdout


def test_a_damaged_aicode_program_is_one_diagnostic_and_exit_1(tmp_path):
    src = REPO / "test" / "golden" / "activations.mlir"
    asset = tmp_path / "m.aimodel"
    tool("coreai-compile", src, "-o", asset)
    program = asset / "main.mlirb"
    data = program.read_bytes()
    # Damaged programs with a matching main.hash: only the reader sees them.
    cases = {f"truncated to {n}": data[:n] for n in (len(data) // 2, len(data) - 1, 40)}
    cases["attribute section cut"] = data[:200] + b"\xff" * 8 + data[208:]
    for i in range(60, len(data), max(1, len(data) // 25)):
        cases[f"byte {i} flipped"] = data[:i] + bytes([data[i] ^ 0xA5]) + data[i + 1:]
    for what, bytes_ in cases.items():
        program.write_bytes(bytes_)
        (asset / "main.hash").write_bytes(hashlib.sha256(bytes_).digest())
        for argv in (["coreai-opt", asset], ["coreai-run", asset, "--print-signature"]):
            r = tool(*argv, check=False)
            if r.returncode == 0:
                continue  # a flipped byte inside a constant's data is still a program
            assert r.returncode == 1, (what, argv[0], r.returncode, r.stderr[-2000:])
            # One diagnostic (MLIR may quote the offending line under it).
            errors = [line for line in r.stderr.splitlines() if "error" in line]
            assert len(errors) == 1 and "panicked" not in r.stderr, (what, argv[0], r.stderr[-2000:])
    # A cut program is always an error, naming the asset's main.mlirb.
    cut = data[: len(data) // 2]
    program.write_bytes(cut)
    (asset / "main.hash").write_bytes(hashlib.sha256(cut).digest())
    r = tool("coreai-opt", asset, check=False)
    assert r.returncode == 1 and "main.mlirb" in r.stderr and "truncated" in r.stderr, r.stderr
