"""Hardware-constraint encodings on inputs and outputs (`coreai-compile
--hw-constraints`, `convert(hw_constraints=...)`, the `set-hw-constraints`
pass), the counterpart of coreai-core's `AIProgram.set_hardware_constraints`.

The oracle is coreai-core itself: (a) our IR equals what its
`set_hardware_constraints` makes of our unconstrained IR of the same model,
op for op (the one difference: coreai-core rebuilds the graph and drops its
other attributes, such as `__coreai_pure__`; we keep them); (b) our asset
summarizes like coreai-core's `save_asset` of its own IR; (c) the asset runs
in coreai-core's runtime and in coreai-run like eager PyTorch (an input
with an interleave factor only in coreai-run: coreai-core's runtime reads
the encoding from our asset and refuses the plain array its Python surface
can give). The
configurations are the two of conversion guide §7.7 (IOSurface
`1x1x32x1`/`1x1x1` for RoPE caches, `1x1x1x1`/`8x1x1` for embedding tables)
and an MTLBuffer output; a stateful program's state (an input and an output
of one name) and a handle (coreai-torch's golden `state_handle`) are
constrained on both sides. Bad constraints: one error, exit 1, nothing
written.
"""

import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import torch

from models import CORPUS
from test_static_shapes import summary  # the asset's summary in coreai-core (a child process)

REPO = Path(__file__).resolve().parents[2]
COMPILE = REPO / "target" / "debug" / "coreai-compile"
OPT = REPO / "target" / "debug" / "coreai-opt"
RUN = REPO / "target" / "debug" / "coreai-run"
import oracle  # noqa: E402
sys.path.insert(0, str(REPO / "utils" / "coreai-report"))
import report  # noqa: E402

ROPE = "IOSurface:1x1x32x1:1x1x1"
TABLE = "IOSurface:1x1x1x1:8x1x1"
OUT = "MTLBuffer:1x1x1x1:1x1x1"
SUMMARY = ["is_valid", "_compatibility_version", "function_names", "compute_types", "storage_types"]


class Lookup(torch.nn.Module):
    """An embedding table given as an input, (V, 1, D) as the Neural Engine
    takes it (guide §8.6), gathered and scaled."""

    def forward(self, table, ids):
        return table[ids] * 2.0


def lookup():
    torch.manual_seed(3)
    return Lookup(), (torch.randn(16, 1, 8), torch.tensor([0, 5, 15, 5]))


MODELS = {
    # name: (spec, {input or output name: constraints})
    "llama_block": (next(s for n, s, _ in CORPUS if n == "llama_block"), {"x": ROPE, "output": OUT}),
    "stateful_buffer": (next(s for n, s, _ in CORPUS if n == "stateful_buffer"),
                        {"cache": "MTLBuffer:1x1x1:1x1", "x": "Heap:1x1x1:1x1"}),
    "lookup": ("test_hw_constraints:lookup", {"table": TABLE}),
}


# Models whose input has an interleave factor: coreai-core's runtime's
# refusal of a plain input array.
INTERLEAVED_INPUT = {"lookup": "table has an invalid interleave: [1, 1, 1], expected: [8, 1, 1]"}


def flags(constraints):
    return [a for name, c in constraints.items() for a in ("--hw-constraints", f"{name}={c}")]


def compile_(*args, check=True):
    r = subprocess.run([str(COMPILE), *map(str, args)], capture_output=True, text=True)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def core_constrained(text, constraints, save=None):
    """coreai-core's set_hardware_constraints on `text`'s @main, printed by
    coreai-core; with `save`, also its save_asset there."""
    warnings.simplefilter("ignore")
    from coreai._compiler import ir
    from coreai.authoring.asset import AIProgram
    from coreai.authoring.constraints import AllocationType, HardwareConstraints
    from coreai.authoring.context import Context

    def hw(spec):
        backing, alignments, interleave = spec.split(":")
        dims = lambda s: [int(d) for d in s.split("x")]  # noqa: E731
        return HardwareConstraints(AllocationType(backing), dims(alignments), dims(interleave))

    with Context() as c:
        p = AIProgram._from_mlir_module(ir.Module.parse(text, c._mlir_context))  # noqa: SLF001
        p.set_hardware_constraints("main", {n: hw(s) for n, s in constraints.items()})
        if save:
            p.save_asset(Path(save))
        return str(p)


def core_printed(text):
    warnings.simplefilter("ignore")
    from coreai._compiler import ir
    from coreai.authoring.context import Context

    with Context() as c:
        return str(ir.Module.parse(text, c._mlir_context))


def without_graph_attributes(text):
    """The IR with each graph's attribute dictionary removed (coreai-core's
    rebuilt graph has none)."""
    return re.sub(r"\) attributes \{[^{}]*\} \{$", ") {", text, flags=re.M)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """{name: (work dir, module, inputs, expected, our asset)}."""
    out = {}
    sys.path.insert(0, str(Path(__file__).parent))
    for name, (spec, constraints) in MODELS.items():
        work = tmp_path_factory.mktemp(name)
        if spec.startswith("test_hw_constraints:"):
            module, inputs, expected = export_lookup(work)
        else:
            module, inputs, expected = report.export(name, spec, work)
        asset = work / "ours.aimodel"
        compile_(module, "-o", asset, *flags(constraints))
        out[name] = (work, module, inputs, expected, asset)
    return out


def export_lookup(work):
    from coreai_export.cli import main as export_main

    module, inputs, expected = work / "lookup.mlir", work / "lookup.in.npz", work / "lookup.exp.npz"
    factory = Path(__file__).resolve()
    assert export_main(["--module-file", f"{factory}:lookup", "-o", str(module), "--inputs-out", str(inputs),
                        "--expected-out", str(expected)]) == 0
    return module, inputs, expected


@pytest.mark.parametrize("name", MODELS)
def test_the_ir_is_coreai_cores_set_hardware_constraints(name, compiled):
    _, module, _, _, _ = compiled[name]
    constraints = MODELS[name][1]
    ours = compile_(module, "--compile-to", "target", *flags(constraints)).stdout
    plain = compile_(module, "--compile-to", "target").stdout
    assert "#coreaix.hw_constraints" in ours and "#coreaix.hw_constraints" not in plain
    theirs = core_constrained(plain, constraints)
    assert without_graph_attributes(core_printed(ours)) == theirs


@pytest.mark.parametrize("name", MODELS)
def test_the_asset_summarizes_like_coreai_cores_and_runs_like_pytorch(name, compiled):
    work, module, inputs, expected, asset = compiled[name]
    constraints = MODELS[name][1]
    theirs = work / "theirs.aimodel"
    core_constrained(compile_(module, "--compile-to", "target").stdout, constraints, save=theirs)
    mine, core = summary(asset), summary(theirs)
    assert {k: mine[k] for k in SUMMARY} == {k: core[k] for k in SUMMARY}
    assert mine["is_valid"] and "('copy_discarding_constraints'" in " ".join(mine["operation_distribution"])

    want = report.load(expected)
    got = work / "run.npz"
    r = subprocess.run([str(RUN), asset, "--inputs", inputs, "--outputs", got], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert report.compare(report.load(got), want)["ok"]
    core_out = work / "core.npz"
    r = oracle.runasset(str(asset), "--inputs", str(inputs), "--outputs",
                        str(core_out))
    if name in INTERLEAVED_INPUT:
        # The runtime reads the encoding from our asset and wants the input
        # in that layout; its Python surface cannot build one (an array from
        # an input's descriptor has the layout, but `numpy()` and the buffer
        # protocol give copies or refuse it), so it refuses a plain array.
        assert r.returncode != 0 and INTERLEAVED_INPUT[name] in r.stderr, r.stderr[-2000:]
        return
    assert r.returncode == 0, r.stderr[-2000:]
    assert report.compare(report.load(core_out), want)["ok"]


def test_a_constrained_handle_is_rewritten_as_coreai_core_does(tmp_path):
    golden = (REPO / "test" / "golden" / "state_handle.mlir").read_text()
    text = "\n".join(line for line in golden.splitlines() if not line.startswith("//"))
    src = tmp_path / "state_handle.mlir"
    src.write_text(text)
    constraints = {"b_s": "MTLBuffer:1x1:1", "x": "Heap:1x1:1"}
    items = ",".join(f"{n}={c}" for n, c in constraints.items())
    ours = subprocess.run([str(OPT), src, f"--pass-pipeline=builtin.module(set-hw-constraints{{constraints={items}}})"],
                          capture_output=True, text=True, check=True).stdout
    assert "attributes {__coreai_pure__}" in ours
    assert without_graph_attributes(core_printed(ours)) == core_constrained(text, constraints)


def test_convert_and_coreai_export_take_hw_constraints(compiled, tmp_path):
    from coreai.authoring.constraints import AllocationType, HardwareConstraints

    from coreai_export import convert
    from coreai_export.cli import main as export_main

    _, _, inputs, expected, ours = compiled["lookup"]
    model, example = lookup()
    by_object = tmp_path / "object.aimodel"
    convert(model, example, by_object,
            hw_constraints={"table": HardwareConstraints(AllocationType.IOSurface, [1, 1, 1, 1], [8, 1, 1])})
    by_cli = tmp_path / "cli.aimodel"
    assert export_main(["--module-file", f"{Path(__file__).resolve()}:lookup", "-o", str(by_cli),
                        "--hw-constraints", f"table={TABLE}"]) == 0
    printed = lambda a: subprocess.run([str(OPT), a], capture_output=True, text=True, check=True).stdout  # noqa: E731
    assert "#coreaix.hw_constraints<IOSurface, alignments: [1x1x1x1], interleave: [8x1x1]>" in printed(ours)
    for asset in (by_object, by_cli):
        assert printed(asset) == printed(ours)


@pytest.mark.parametrize("bad,message", [
    ("table=IOSurface:1x1x32x1:1x1", "expected interleave to have (rank) elements"),
    ("table=IOSurface:1x1x1x1:3x1x1", "dimension shape 16 must be a multiple of dimension interleave factor 3"),
    ("tabel=IOSurface:1x1x1x1:8x1x1", "no input or output named 'tabel' (inputs: table, ids; outputs: output)"),
    ("table=Texture:1x1x1x1:8x1x1", "the backing 'Texture' is not MTLBuffer, IOSurface or Heap"),
    ("table", "expected NAME=BACKING:ALIGNMENTS:INTERLEAVE"),
    ("main/table=IOSurface:1x1x1x1:8x1x1", "no --entry named 'main' (ENTRY/NAME=... constrains one entry's NAME)"),
])
def test_a_bad_constraint_is_one_error_and_writes_nothing(bad, message, compiled, tmp_path):
    _, module, _, _, _ = compiled["lookup"]
    r = compile_(module, "-o", tmp_path / "m.aimodel", "--hw-constraints", bad, check=False)
    assert r.returncode == 1
    errors = [line for line in r.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and message in errors[0], r.stderr
    assert list(tmp_path.iterdir()) == []
