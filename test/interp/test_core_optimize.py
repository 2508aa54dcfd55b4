"""core-optimize{exact=true} is exact: every graph of the pass's lit test and
a subset of the property test's random graphs compute the same bits before
and after the pass, on adversarial inputs (NaN, ±0, ±inf, subnormals,
non-integral values, integer extremes), in coreai-run and in coreai-core's
interpreter."""

import os
import re
import subprocess
import zlib

import numpy as np
import pytest

from conftest import adversarial, coreai_run_path
from toolchain import REPO as ROOT

LIT = ROOT / "test" / "Passes" / "core-optimize.mlir"
OPT = coreai_run_path().parent / "coreai-opt"
EXACT = "--pass-pipeline=builtin.module(core-optimize{exact=true})"
DTYPES = {"f32": np.float32, "f16": np.float16, "si32": np.int32, "si64": np.int64}
GRAPH = re.compile(r"^coreai\.graph @(\w+)\((.*)\) ->", re.M)
ARG = re.compile(r"%\w+: tensor<((?:\d+x)*)(\w+)>")


def optimize(text, tmp_path):
    src, out = tmp_path / "in.mlir", tmp_path / "out.mlir"
    src.write_text(text)
    r = subprocess.run([str(OPT), str(src), EXACT, "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out.read_text()


def with_subnormals(a):
    """Adds the smallest subnormal of each sign (and 0.3) to a float array."""
    if a.dtype.kind == "f" and a.size >= 3:
        tiny = np.finfo(a.dtype).smallest_subnormal
        a.flat[-3:] = [tiny, -tiny, 0.3]
    return a


def inputs_for(params, seed, prefix="arg"):
    rng = np.random.default_rng(seed)
    inputs = {}
    for i, (dims, element) in enumerate(ARG.findall(params)):
        if element not in DTYPES:
            return None
        shape = tuple(int(d) for d in dims.split("x") if d)
        inputs[f"{prefix}{i}"] = with_subnormals(adversarial(shape, DTYPES[element], rng))
    return inputs


def run(module, entry, inputs, tmp_path, tag):
    path, inp, out = tmp_path / f"{tag}.mlir", tmp_path / f"{tag}.in.npz", tmp_path / f"{tag}.out.npz"
    path.write_text(module)
    np.savez(inp, **inputs)
    r = subprocess.run([str(coreai_run_path()), str(path), "--entry", entry, "--inputs", str(inp),
                        "--outputs", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with np.load(out) as d:
        return [d[k] for k in d.files]


def assert_bits(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.tobytes() == w.tobytes(), f"bits differ:\n got {g}\n want {w}"


# Graphs of the lit test whose arguments have dynamic dims (some tied to other
# arguments: a broadcast or reshape target, slice bounds): the test feeds
# static shapes only, so FileCheck alone shows what the pass does there.
DYNAMIC_ONLY_FILECHECK = {"dynamic_same_type", "dynamic_reshape_chain"}


def lit_cases():
    cases = []
    for chunk in LIT.read_text().split("// -----"):
        for name, params in GRAPH.findall(chunk):
            if "?" in params:
                assert name in DYNAMIC_ONLY_FILECHECK, f"@{name}: dynamic arguments the test cannot feed"
            elif params.strip():
                cases.append((name, chunk, params))
    return cases


def test_every_filecheck_only_graph_exists():
    names = {name for chunk in LIT.read_text().split("// -----") for name, _ in GRAPH.findall(chunk)}
    assert DYNAMIC_ONLY_FILECHECK <= names


@pytest.mark.parametrize("case", lit_cases(), ids=lambda c: c[0])
def test_lit_graph_is_bit_identical_after_exact_optimization(tmp_path, case):
    name, chunk, params = case
    inputs = inputs_for(params, zlib.crc32(name.encode()))
    if inputs is None:
        pytest.fail(f"@{name}: an argument type the test cannot feed")
    optimized = optimize(chunk, tmp_path)
    assert_bits(run(optimized, name, inputs, tmp_path, "after"), run(chunk, name, inputs, tmp_path, "before"))


def property_cases(tmp_path, count):
    """Dumps `count` cases of the Rust property test (which also checks them
    in coreai-run) into tmp_path."""
    env = dict(os.environ, COREAI_PROPERTY_CASES=str(count), COREAI_PROPERTY_DUMP=str(tmp_path))
    r = subprocess.run(["cargo", "test", "-q", "-p", "coreai", "--test", "core_optimize_property"],
                       cwd=ROOT, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    return sorted(tmp_path.glob("case*.before.mlir"), key=lambda p: int(p.name[4:].split(".")[0]))


def run_core(text, inputs, tmp_path):
    """coreai-core's outputs, or None when its interpreter dies (SIGILL on
    some graphs on this machine, before and after the pass alike)."""
    from test_coreai_vs_coreai_core import run_coreai_core_isolated
    return run_coreai_core_isolated(text, inputs, tmp_path)


def test_random_graphs_match_in_coreai_core(tmp_path):
    compared = 0
    for before in property_cases(tmp_path, 60):
        text = before.read_text()
        after = before.with_name(before.name.replace("before", "after")).read_text()
        _, params = GRAPH.findall(text)[0]
        inputs = inputs_for(params, zlib.crc32(before.name.encode()), prefix="a")
        work = tmp_path / before.stem
        (work / "a").mkdir(parents=True)
        (work / "b").mkdir()
        want = run_core(text, inputs, work / "a")
        if want is None:
            continue  # coreai-core cannot run the original graph: nothing to compare
        got = run_core(after, inputs, work / "b")
        assert got is not None, f"{before.name}: coreai-core runs the original but not the optimized graph"
        assert_bits([got[k] for k in sorted(got)], [want[k] for k in sorted(want)])
        compared += 1
    print(f"coreai-core ran {compared} of the random graphs")
    assert compared >= 5
