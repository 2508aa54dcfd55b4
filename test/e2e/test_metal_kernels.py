"""Custom Metal kernels (coreai-torch's TorchMetalKernel, and
coreai_export.metal.MetalKernel without coreai-torch), on the model of
test/e2e/models/metal_kernels.py: an elementwise kernel, a templated kernel
with float/int/bool scalars and a helper (once on f32, once on f16), and a
kernel with two results.

- The IR: ours after coreai-pipeline equals coreai-torch 0.4.3's
  (TorchConverter.register_custom_kernels) op for op, with SSA names and
  the order of independent ops normalised away (every value is written as
  the expression that computes it) and the 8 random letters coreai-torch
  appends to a kernel name replaced (ours hash the source).
- The numbers: the executor runs the aten and the coreai module with the CPU
  kernels of crates/coreai-interp/examples/metal_kernel.rs registered and
  matches eager PyTorch (the kernels' torch_defn) exactly; without them it
  names the kernel as not executable.
- coreai-core parses and verifies our IR; coreai-compile writes the gpu
  target's asset in the aicode form, equal to coreai-core's save_asset of the
  same IR once decoded, and reads it back to the same program (coreai-core's
  runtime here has no Metal: neither asset runs there).
"""

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import oracle  # noqa: E402
from toolchain import BUILD, COREAI_OPT, IMPORTER, export  # noqa: E402

MODEL = HERE / "models" / "metal_kernels.py"
KERNEL_RUNNER = BUILD / "examples" / "metal_kernel"
COMPILE = BUILD / "coreai-compile"
NAMES = ("mk_add", "mk_axpb", "mk_two")

# coreai-torch's IR of the model: its converter with the kernels registered.
CORE_TORCH = """
import importlib.util, sys, warnings
warnings.simplefilter("ignore")
import torch, coreai_torch
spec = importlib.util.spec_from_file_location("metal_kernels_model", sys.argv[1])
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
model, args = m.coreai_torch_model()
conv = coreai_torch.TorchConverter().add_pytorch_module(
    model, export_fn=lambda mod: torch.export.export(mod, args).run_decompositions(coreai_torch.get_decomp_table()))
conv.register_custom_kernels([model.add, model.axpb, model.two])
open(sys.argv[2], "w").write(str(conv.to_coreai()))
"""


def lower(aten, out):
    r = subprocess.run([str(COREAI_OPT), str(aten), "--pass-pipeline=builtin.module(coreai-pipeline)", "-o",
                        str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out.read_text()


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    """Both flavours exported (eager inputs/outputs with them) and lowered."""
    work = tmp_path_factory.mktemp("metal")
    out = {}
    for factory in ("model", "coreai_torch_model"):
        aten = work / f"{factory}.aten.mlir"
        r = export(MODEL, aten, factory=factory, inputs_out=work / "in.npz", expected_out=work / "expected.npz")
        assert r.returncode == 0, r.stderr
        out[factory] = (aten, lower(aten, work / f"{factory}.coreai.mlir"))
    return work, out


def expressions(text):
    """Every `coreai.metal4_kernel` and the graph's output, each as the
    expression computing it (operands replaced by their definitions,
    arguments by their coreai.name), with the kernel-name letters masked."""
    text = re.sub(r"\b(%s)_[a-z]{8}\b" % "|".join(NAMES), r"\1_LETTERS", text)
    head = re.search(r"coreai\.graph @main\((.*?)\) ->", text).group(1)
    names = dict(re.findall(r'(%arg\d+): [^{]*\{coreai\.name = "(\w+)"\}', head))
    defs = {}
    kernels, output = [], None
    for line in text.splitlines():
        line = re.sub(r" loc\(.*\)$", "", line.strip())
        m = re.match(r"(%\w+)(?::\d+)? = (.*)$", line)
        if m:
            defs[m.group(1)] = m.group(2)
            if m.group(2).startswith("coreai.metal4_kernel"):
                kernels.append(m.group(1))
        elif line.startswith("coreai.output"):
            output = line

    def expand(expr, depth=0):
        assert depth < 100

        def one(m):
            ref, idx = m.group(1), m.group(2) or ""
            if ref in names:
                return f"arg({names[ref]})"
            return "(" + expand(defs[ref], depth + 1) + ")" + idx

        return re.sub(r"(%\w+)(#\d+)?", one, expr)

    return [expand(defs[k]) for k in kernels], expand(output)


def test_ir_equals_coreai_torchs(converted, tmp_path):
    work, out = converted
    r = oracle.run_script([sys.executable, "-c", CORE_TORCH, str(MODEL), str(tmp_path / "theirs.mlir")],
                          env=dict(os.environ, PYTHONPATH=str(IMPORTER)))
    assert r.returncode == 0, r.stderr[-3000:]
    theirs = (tmp_path / "theirs.mlir").read_text()
    ours = out["coreai_torch_model"][1]
    their_kernels, their_output = expressions(theirs)
    our_kernels, our_output = expressions(ours)
    assert len(our_kernels) == 4
    for k, (a, b) in enumerate(zip(our_kernels, their_kernels)):
        assert a == b, f"kernel #{k}:\nours:   {a}\ntheirs: {b}"
    assert our_output == their_output
    # The details that matter, spelled out.
    assert ours.count("#coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>") > 0
    assert "float s = 2.5f;\\0Aint n = 3;\\0Abool flag = true;" in ours
    assert "float s = 1e-05f;\\0Aint n = -2;\\0Abool flag = true;" in ours
    assert "inline half twice(half v)" in ours and "inline float twice(float v)" in ours


def test_both_kernel_classes_and_runs_give_the_same_ir(converted, tmp_path):
    work, out = converted
    assert out["model"][1] == out["coreai_torch_model"][1]
    again = lower(out["model"][0], tmp_path / "again.mlir")
    assert again == out["model"][1]
    letters = re.findall(r'kernel_name = "(mk_\w+)"', again)
    # One name per distinct source: the two axpb calls differ (scalars, dtype).
    assert len(letters) == 4 and len(set(letters)) == 4, letters


def run(module, work, *flags):
    assert KERNEL_RUNNER.is_file(), f"{KERNEL_RUNNER} is missing: cargo build --workspace --examples"
    out = work / f"{Path(module).stem}.out.npz"
    r = subprocess.run([str(KERNEL_RUNNER), str(module), str(work / "in.npz"), str(out), *flags],
                       capture_output=True, text=True)
    return r, out


@pytest.mark.parametrize("stage", ["aten", "coreai"])
def test_executor_runs_registered_cpu_kernels_like_eager(converted, stage):
    work, out = converted
    module = out["model"][0] if stage == "aten" else work / "model.coreai.mlir"
    r, got_path = run(module, work)
    assert r.returncode == 0, r.stderr
    with np.load(got_path) as got, np.load(work / "expected.npz") as want:
        assert sorted(got.files) == sorted(want.files)
        for k in want.files:
            assert got[k].dtype == want[k].dtype, k
            np.testing.assert_array_equal(got[k], want[k], err_msg=k)


def test_executor_without_a_cpu_kernel_names_the_kernel(converted):
    work, _ = converted
    r, _ = run(work / "model.coreai.mlir", work, "--no-kernels")
    assert r.returncode == 1
    assert re.search(r":\d+:\d+: not executable: coreai\.metal4_kernel 'mk_add' \(kernel_name mk_add_[a-z]{8}\): "
                     r"no CPU kernel is registered for this Metal kernel", r.stderr), r.stderr
    r, _ = run(work / "model.aten.mlir", work, "--no-kernels")
    assert r.returncode == 1 and "not executable: coreai_metal_kernels::mk_add.default" in r.stderr, r.stderr


def test_coreai_core_parses_and_verifies_our_ir(converted):
    warnings.simplefilter("ignore")
    from coreai._compiler import ir
    from coreai.authoring.context import Context

    _, out = converted
    with Context() as c:
        m = ir.Module.parse(out["model"][1], c._mlir_context)  # noqa: SLF001
        assert m.operation.verify()
        assert str(m).count("coreai.metal4_kernel") == 4


def test_gpu_asset_decodes_like_coreai_cores_and_reads_back(converted, tmp_path):
    """`coreai-compile --target gpu` writes the kernels in the aicode form
    (metal.metal4_kernel_v1, ax.copy_*_constraints_v1, tensors with
    ax.hw_constraints_v1): the decoded IR equals coreai-core's save_asset of
    the same IR and the summaries are equal. coreai-core's runtime here has
    no Metal, so neither asset runs (both fail on the kernel: not compared
    numerically there). Read back, the asset is the program written
    (coreai-core's own reader of it gives the same IR, which coreai-core
    verifies), and the executor with the CPU kernels runs the read program
    like eager PyTorch."""
    warnings.simplefilter("ignore")
    sys.path.insert(0, str(HERE.parents[1] / "utils" / "aicode"))
    from compare import decoded_ir

    work, out = converted
    aten = out["model"][0]
    ours, theirs = tmp_path / "ours.aimodel", tmp_path / "theirs.aimodel"
    r = subprocess.run([str(COMPILE), str(aten), "-o", str(ours), "--target", "gpu"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([str(COMPILE), str(aten), "--target", "gpu", "--compile-to", "target"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    (tmp_path / "target.mlir").write_text(r.stdout)
    r = oracle.run_script([sys.executable, "-c", CORE_SAVE, str(tmp_path / "target.mlir"), str(theirs)])
    assert r.returncode == 0, r.stderr[-2000:]
    mine = decoded_ir(ours / "main.mlirb")
    assert mine == decoded_ir(theirs / "main.mlirb")
    assert mine[0].count("aicode.metal.metal4_kernel_v1") == 4 and "AXMTLBuffer" in mine[0]

    r = oracle.runasset(str(ours), "--also", str(theirs))
    assert r.returncode == 0, r.stderr[-2000:]
    summary, core_summary = (json.loads(line) for line in r.stdout.strip().splitlines())
    assert summary == core_summary and summary["is_valid"] and summary["_compatibility_version"] == "27.0"
    assert "('metal4_kernel', 4)" in summary["operation_distribution"]
    for asset in (ours, theirs):
        r = oracle.runasset(str(asset), "--inputs", str(work / "in.npz"), "--outputs",
                            str(tmp_path / "out.npz"))
        assert r.returncode != 0 and "Unresolved symbol: coreai.metal4_kernel" in r.stderr, r.stderr[-2000:]

    read = subprocess.run([str(COREAI_OPT), str(ours)], capture_output=True, text=True)
    assert read.returncode == 0, read.stderr
    plain = tmp_path / "plain.aimodel"
    r = subprocess.run([str(COMPILE), str(aten), "-o", str(plain), "--target", "gpu", "--format", "coreai"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    written = subprocess.run([str(COREAI_OPT), str(plain)], capture_output=True, text=True, check=True).stdout
    assert read.stdout == written
    r = oracle.run_script([sys.executable, "-c", CORE_READS, str(ours / "main.mlirb"), str(tmp_path / "core_read.mlir")])
    assert r.returncode == 0, r.stderr[-2000:]
    core_read = subprocess.run([str(COREAI_OPT), str(tmp_path / "core_read.mlir")], capture_output=True, text=True)
    assert core_read.returncode == 0 and core_read.stdout == read.stdout, core_read.stderr
    (tmp_path / "read.mlir").write_text(read.stdout)
    from coreai._compiler import ir
    from coreai.authoring.context import Context

    with Context() as c:
        assert ir.Module.parse(read.stdout, c._mlir_context).operation.verify()  # noqa: SLF001
    r, got_path = run(tmp_path / "read.mlir", work)
    assert r.returncode == 0, r.stderr
    with np.load(got_path) as got, np.load(work / "expected.npz") as want:
        assert sorted(got.files) == sorted(want.files)
        for k in want.files:
            np.testing.assert_array_equal(got[k], want[k], err_msg=k)


CORE_SAVE = """
import sys, warnings
from pathlib import Path
warnings.simplefilter("ignore")
from coreai._compiler import ir
from coreai.authoring.asset import AIProgram
from coreai.authoring.context import Context
with Context() as c:
    AIProgram._from_mlir_module(ir.Module.parse(open(sys.argv[1]).read(), c._mlir_context)).save_asset(Path(sys.argv[2]))
"""
# coreai-core's own reading of an aicode file (`convert-from-versioned`, what
# its loader runs), printed.
CORE_READS = """
import sys, warnings
warnings.simplefilter("ignore")
from coreai._compiler import ir
from coreai._compiler.passmanager import PassManager
from coreai.authoring.context import Context
with Context() as c:
    with c._mlir_context:
        m = ir.Module.parse(open(sys.argv[1], "rb").read())
        PassManager.parse("builtin.module(convert-mlir-locations-to-versioned,convert-from-versioned)").run(m.operation)
        open(sys.argv[2], "w").write(str(m))
"""


def test_coreai_core_runtime_has_no_metal_here(converted, tmp_path):
    """coreai-core writes its own asset of our IR, but its runtime on this
    (Linux) machine cannot load a metal4_kernel: nothing to compare there."""
    work, out = converted
    ir_path, asset = tmp_path / "ours.mlir", tmp_path / "core.aimodel"
    ir_path.write_text(out["model"][1])
    r = oracle.run_script([sys.executable, "-c", CORE_SAVE, str(ir_path), str(asset)])
    assert r.returncode == 0, r.stderr[-2000:]
    r = oracle.runasset(str(asset), "--function", "main", "--inputs",
                        str(work / "in.npz"), "--outputs", str(tmp_path / "out.npz"))
    assert r.returncode != 0
    assert "Unresolved symbol: coreai.metal4_kernel" in r.stderr, r.stderr[-2000:]


def test_unknown_kernel_object_is_one_clear_error(tmp_path):
    """A TorchMetalKernel the importer was not told about (built inside the
    factory, not registered): one message saying how to register it."""
    src = tmp_path / "m.py"
    src.write_text(
        "import torch\n"
        "from coreai.authoring import MetalParameter\n"
        "from coreai_torch import TorchMetalKernel\n"
        "def d(x: torch.Tensor) -> torch.Tensor:\n    return x + 1\n"
        "def factory():\n"
        "    k = TorchMetalKernel('mk_hidden', ['x'], ['y'], src='y[i] = x[i] + 1;', torch_defn=d,\n"
        "                         metal_params=[MetalParameter('i', 'uint', 'thread_position_in_grid')])\n"
        "    class M(torch.nn.Module):\n"
        "        def forward(self, x):\n"
        "            return k(x, threads_per_grid=(4, 1, 1), threads_per_thread_group=(4, 1, 1),"
        " result_shapes=[[4]])\n"
        "    return M(), (torch.randn(4),)\n")
    r = export(src, tmp_path / "m.mlir")
    assert r.returncode == 1
    assert "coreai_metal_kernels::mk_hidden: no Metal kernel of that name is known" in r.stderr, r.stderr
    assert "register_metal_kernels" in r.stderr and "Traceback" not in r.stderr


def test_metal_kernel_registered_from_rust(tmp_path):
    """`coreai_test::scaled_add` (a plain torch.library op) lowered as a
    Metal kernel registered from Rust (examples/custom_op/metal.rs,
    metal_kernel::user_lowering): the float schema argument is a scalar
    input baked into the source; the executor runs it with its CPU kernel."""
    aten = tmp_path / "custom.mlir"
    r = export(HERE / "models" / "custom.py", aten, "--decompositions", "none", factory="custom_op",
               inputs_out=tmp_path / "in.npz", expected_out=tmp_path / "expected.npz")
    assert r.returncode == 0, r.stderr
    lowered = tmp_path / "custom.coreai.mlir"
    r = subprocess.run([str(BUILD / "examples" / "custom_op"), str(aten), "-o", str(lowered), "--metal"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = lowered.read_text()
    assert text.count("coreai.metal4_kernel") == 1
    assert "constant float& scale [[buffer(2)]]" in text and "float scale = 2.0f;" in text
    assert "coreai.constant dense<2.000000e+00> : tensor<f32>" in text
    assert "tensor<3x4xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>" in text
    r, got_path = run(lowered, tmp_path)
    assert r.returncode == 0, r.stderr
    with np.load(got_path) as got, np.load(tmp_path / "expected.npz") as want:
        for k in want.files:
            np.testing.assert_array_equal(got[k], want[k], err_msg=k)


def test_f16_targets_keep_the_kernels_types(converted):
    """`--target ane` computes in f16 (cast-to-f16), but a kernel's source
    is written for its types: its arguments and results stay as lowered."""
    work, out = converted

    def signatures(text):
        return re.findall(r"coreai\.metal4_kernel .*?\} : (\(.*)$", text, re.M)

    r = subprocess.run([str(COMPILE), str(out["model"][0]), "--target", "ane", "--compile-to", "target"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert signatures(r.stdout) == signatures(out["model"][1]) and len(signatures(r.stdout)) == 4
