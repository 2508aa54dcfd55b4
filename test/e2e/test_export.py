"""End-to-end import: every corpus model exports, its module parses, verifies
and round-trips in coreai-opt, and its op names match the ExportedProgram's
FX targets one to one."""

import collections
import operator
import os
import re
import subprocess
import sys

import numpy as np
import pytest
import torch

from coreai_export.cli import build_parser, run
from coreai_export.decompositions import PRESERVED_OPS
from coreai_export.importer import PY_BINARY, PY_UNARY
from models import CORPUS, EXPORT_FLAGS
import toolchain  # noqa: E402
from toolchain import COREAI_RUN, REPO, coreai_opt



def fx_names(gm, out):
    """The op name each call_function node must import as."""
    for n in gm.graph.nodes:
        if n.op == "get_attr":
            sub = getattr(gm, n.target)
            if isinstance(sub, torch.fx.GraphModule):
                fx_names(sub, out)
        if n.op != "call_function" or n.target is operator.getitem:
            continue
        t = n.target
        if isinstance(t, torch._ops.OpOverload):
            out.append(f"{t.namespace}.{t._opname}.{t._overloadname}")
        elif isinstance(t, torch._ops.HigherOrderOperator):
            out.append(f"aten.{t.name()}")
        elif getattr(t, "__name__", None) in PY_BINARY | PY_UNARY:
            out.append(f"aten.{t.__name__}")
        else:
            out.append(f"{getattr(t, '__module__', '')}.{getattr(t, '__name__', t)}")
    return out


OP_RE = re.compile(r'^\s*(?:%[^=]+= )?(aten\.[\w.]+)(?: "([^"]+)")?')


def mlir_names(text):
    """Op names in the module; `aten.operator "ns::x.y"` counts as ns.x.y."""
    out = []
    for line in text.splitlines():
        m = OP_RE.match(line)
        if not m or m.group(1) == "aten.yield":
            continue
        if m.group(1) == "aten.operator":
            out.append(m.group(2).replace("::", "."))
        else:
            out.append(m.group(1))
    return out


def export(name, spec, tmp_path, decompositions="coreai"):
    flags = EXPORT_FLAGS.get(name, [])
    mod, fac = spec.split(":")
    out = tmp_path / f"{name}.mlir"
    ns = build_parser().parse_args(
        ["--model", f"models.{mod}:{fac}", "-o", str(out), "--decompositions", decompositions,
         "--inputs-out", str(tmp_path / "in.npz"), "--expected-out", str(tmp_path / "expected.npz"), *flags]
    )
    prog, ep = run(ns)
    return out, prog, ep


CASES = [pytest.param(n, s, marks=[pytest.mark.slow] if slow else [], id=n) for n, s, slow in CORPUS]


@pytest.mark.parametrize("name,spec", CASES)
def test_corpus_model_imports_verifies_and_round_trips(name, spec, tmp_path):
    path, prog, ep = export(name, spec, tmp_path)
    text = path.read_text()

    first = coreai_opt(str(path))
    assert first.returncode == 0, first.stderr[:4000]
    second = coreai_opt("-", stdin=first.stdout)
    assert second.returncode == 0, second.stderr[:4000]
    assert first.stdout == second.stdout, "printing is not a fixed point"

    assert collections.Counter(mlir_names(text)) == collections.Counter(fx_names(ep.graph_module, []))
    # Only symbolic SymInt arguments (dynamic shapes) send an aten overload the
    # dialect defines to the generic form.
    generic_aten = re.findall(r'aten\.operator "aten::([\w.]+)"', text)
    if name not in EXPORT_FLAGS:
        assert not generic_aten, generic_aten

    with np.load(tmp_path / "in.npz") as z:
        assert z.files == prog.arg_names
    with np.load(tmp_path / "expected.npz") as z:
        assert z.files == prog.result_names
        scale = max([float(np.nanmax(np.abs(z[k]))) for k in z.files if z[k].size and z[k].dtype.kind in "fc"] or [1.0])
        half = any(z[k].dtype == np.float16 for k in z.files)

    # The imported module runs in the executor and matches eager PyTorch:
    # f32 within atol 1e-4 x max|ref| (and rtol 1e-4); integers exactly.
    # f16 models within one f16 ulp (2^-10 relative): PyTorch's CPU kernels
    # compute a half op in f32 and round once per kernel (addmm, layer_norm,
    # softmax), the executor rounds every aten op's result to f16 as its type
    # says, and the two orders of rounding differ by at most an ulp.
    tol = 2.0**-10 if half else 1e-4
    run = subprocess.run(
        [COREAI_RUN, str(path), "--inputs", str(tmp_path / "in.npz"),
         "--compare", str(tmp_path / "expected.npz"), "--atol", str(tol * max(scale, 1.0)), "--rtol", str(tol)],
        capture_output=True, text=True,
    )
    kernel = USER_KERNELS.get(name)
    if kernel:
        # coreai-run alone does not know the user's op ...
        assert run.returncode != 0, f"{name} runs without its user kernel"
        assert kernel[1] in run.stdout + run.stderr, run.stdout + run.stderr
        # ... the program that registers its kernel runs it, like PyTorch.
        out = tmp_path / "out.npz"
        ran = subprocess.run([kernel[0], str(path), str(tmp_path / "in.npz"), str(out)],
                             capture_output=True, text=True)
        assert ran.returncode == 0, ran.stderr
        with np.load(out) as got, np.load(tmp_path / "expected.npz") as want:
            for k in want.files:
                assert np.abs(got[k] - want[k]).max() <= tol * max(scale, 1.0), k
    else:
        assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]


# Corpus models calling a user's torch.library op: the executor runs them with
# the user's kernel registered (Program::register_kernel), here the example
# crates/coreai-interp/examples/custom_op_kernel.rs, and names the op without it.
USER_KERNELS = {
    "custom_op": (os.path.join(os.path.dirname(COREAI_RUN), "examples", "custom_op_kernel"),
                  "not executable: coreai_test::scaled_add.default"),
}


def test_corpus_has_forty_models():
    assert len(CORPUS) >= 40


@pytest.mark.parametrize("setting,kept", [("coreai", True), ("default", False)])
def test_decompositions_keep_exactly_the_coreai_composites(setting, kept, tmp_path):
    _, _, ep = export("activations", "elementwise:activations", tmp_path, setting)
    names = set(fx_names(ep.graph_module, []))
    for op in ("aten.silu.default", "aten.hardswish.default", "aten.hardsigmoid.default"):
        assert (op in names) == kept, (setting, op)


def test_preserved_ops_match_installed_coreai_torch():
    import importlib.util

    spec = importlib.util.find_spec("coreai_torch")
    src = open(os.path.join(os.path.dirname(spec.origin), "_decomp.py")).read()
    body = src[src.index("_COMPOSITE_OPS"):]
    body = body[: body.index("]")]
    assert tuple(re.findall(r"torch\.ops\.aten\.(\w+\.\w+)", body)) == PRESERVED_OPS


def test_legalizer_preserves_the_same_ops_as_the_importer():
    """`legalize-aten-to-coreai{table=coreai}` and `--decompositions coreai`
    must agree on the ops the coreai table keeps whole."""
    src = open(os.path.join(REPO, "passes", "decomposition_table.rs")).read()
    body = src[src.index("PRESERVED_BY_COREAI_TABLE: &[&str] = &["):]
    body = body[: body.index("];")]
    assert tuple(re.findall(r'"([\w.]+)"', body)) == tuple(sorted(PRESERVED_OPS))


def test_locations_point_at_user_source_and_module_path(tmp_path):
    path, _, _ = export("conv_gn_block", "convblocks:conv_gn_block", tmp_path)
    text = path.read_text()
    assert re.search(r'loc\("c1:convolution"\(".*convblocks\.py":\d+:0\)\)', text), text[:3000]


def test_dynamic_batch_has_question_mark_and_range(tmp_path):
    path, _, _ = export("dynamic_batch_mlp", "dynamic:dynamic_batch_mlp", tmp_path)
    text = path.read_text()
    assert "tensor<?x8xf32>" in text
    assert re.search(r"coreai.range_constraints = \{.*= \[1, 64\]", text)


def test_states_are_arguments_and_results(tmp_path):
    path, prog, _ = export("stateful_buffer", "control:stateful_buffer", tmp_path)
    assert prog.arg_names == ["x", "count", "cache"]
    assert prog.result_names == ["output", "count", "cache"]
    assert "dense_resource<scale>" in path.read_text()


def test_export_failure_is_explained_and_writes_nothing(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import torch\n"
        "class M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        if x.sum() > 0:\n"
        "            return x\n"
        "        return -x\n"
        "def factory():\n"
        "    return M(), (torch.randn(3),)\n"
    )
    out = tmp_path / "bad.mlir"
    r = toolchain.coreai_export(["--module-file", f"{bad}:factory", "-o", str(out)])
    assert r.returncode == 1
    assert "failed to export" in r.stderr and "What to do" in r.stderr and "torch.cond" in r.stderr
    assert not out.exists()


def test_generated_dialect_is_up_to_date(tmp_path):
    """AtenOps.td and the importer's table are what generate.py writes now."""
    td, table = tmp_path / "AtenOps.td", tmp_path / "_aten_ops.py"
    r = subprocess.run(
        [sys.executable, os.path.join(REPO, "utils", "aten-ods", "generate.py"),
         "-o", str(td), "--signatures", str(table)],
        capture_output=True, text=True,
    )
    assert r.returncode == 0, r.stderr
    assert td.read_text() == open(os.path.join(REPO, "dialects", "aten", "AtenOps.td")).read()
    committed = os.path.join(REPO, "importer", "coreai_export", "_aten_ops.py")
    assert table.read_text() == open(committed).read()


def test_exported_program_input_matches_the_module_path(tmp_path):
    """--exported-program m.pt2 --inputs in.npz imports what --module-file
    imports for the same model, and its expected outputs are eager PyTorch's."""
    src = tmp_path / "m.py"
    src.write_text(
        "import torch\n"
        "class M(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        torch.manual_seed(0)\n"
        "        self.lin = torch.nn.Linear(4, 3)\n"
        "    def forward(self, x):\n"
        "        return torch.relu(self.lin(x)) * 2.5\n"
        "def factory():\n"
        "    torch.manual_seed(1)\n"
        "    return M(), (torch.randn(2, 4),)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "importer"))
    from_module = tmp_path / "from_module.mlir"
    r = toolchain.coreai_export(["--module-file", f"{src}:factory", "-o", str(from_module),
         "--inputs-out", str(tmp_path / "in.npz"), "--expected-out", str(tmp_path / "expected.npz")], env=env)
    assert r.returncode == 0, r.stderr

    import importlib.util
    spec = importlib.util.spec_from_file_location("m", src)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    model, inputs = m.factory()
    torch.export.save(torch.export.export(model.eval(), inputs), tmp_path / "m.pt2")
    from_pt2 = tmp_path / "from_pt2.mlir"
    r = toolchain.coreai_export(["--exported-program", str(tmp_path / "m.pt2"), "--inputs", str(tmp_path / "in.npz"),
         "-o", str(from_pt2), "--expected-out", str(tmp_path / "expected_pt2.npz")], env=env)
    assert r.returncode == 0, r.stderr
    assert mlir_names(from_pt2.read_text()) == mlir_names(from_module.read_text())
    assert coreai_opt(str(from_pt2)).returncode == 0
    with np.load(tmp_path / "expected.npz") as a, np.load(tmp_path / "expected_pt2.npz") as b:
        assert a.files == b.files
        for k in a.files:
            np.testing.assert_array_equal(a[k], b[k])

    # Without its inputs the program cannot be imported: a clear error.
    r = toolchain.coreai_export(["--exported-program", str(tmp_path / "m.pt2"), "-o", str(tmp_path / "x.mlir")], env=env)
    assert r.returncode == 1 and "--exported-program needs --inputs" in r.stderr
    assert not (tmp_path / "x.mlir").exists()


@pytest.mark.parametrize("name", ["cond_branch", "while_loop_counter"])
def test_import_is_byte_identical_across_runs(name, tmp_path):
    """Regions must not carry run-dependent names (object ids)."""
    spec = dict((n, s) for n, s, _ in CORPUS)[name]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = export(name, spec, tmp_path / "a")[0].read_text()
    second = export(name, spec, tmp_path / "b")[0].read_text()
    assert "^bb0(" in first
    assert first == second


def test_view_input_with_unbounded_symbol_exports(tmp_path):
    """An example input that is a view leaves a range constraint with
    torch's `int_oo` upper bound; it is written as -1 (unbounded)."""
    src = tmp_path / "m.py"
    src.write_text(
        "import torch\n"
        "class M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x * 2\n"
        "def factory():\n"
        "    return M(), (torch.arange(6.0).reshape(2, 3),)\n"
    )
    out = tmp_path / "m.mlir"
    r = toolchain.coreai_export(["--module-file", f"{src}:factory", "-o", str(out)])
    assert r.returncode == 0, r.stderr[-2000:]
    assert coreai_opt(str(out)).returncode == 0
