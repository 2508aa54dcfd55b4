"""coreai-freqop and coreai-graphdiff against coreai-torch's tools.

coreai-torch 0.4.3's `tools/freqop` and `tools/graphdiff` load a program
with `AIModelAsset.load(path).program` and walk it with coreai-core's IR
bindings. The oracles here do exactly that on the same assets: the asset is
written by coreai-core from our converted module (and from coreai-torch's
own `to_coreai()` output for the same model), read back by coreai-core, and
counted (freqop's rule: every `coreai.*` op, a graph with a
`composite_decl` as `composite.<name>`) or matched (graphdiff's graph: op,
value, region and block nodes, edges by kind; networkx's DiGraphMatcher
decides isomorphism). Our tools read the .mlir text of the same programs.
"""

import json
import os
import re
import subprocess
import warnings

import pytest

from toolchain import BUILD, COREAI_OPT, export_corpus_model
from models import CORPUS

FREQOP = os.path.join(BUILD, "coreai-freqop")
GRAPHDIFF = os.path.join(BUILD, "coreai-graphdiff")
SPECS = {n: s for n, s, _ in CORPUS}
MODELS = ["batch_layer_norm", "sdpa_plain", "llama_block", "conv_gn_block"]


def convert(name, tmp_path):
    aten = export_corpus_model(name, tmp_path / name)[0]
    out = tmp_path / name / "m.coreai.mlir"
    r = subprocess.run([COREAI_OPT, str(aten), "--pass-pipeline=builtin.module(coreai-pipeline)", "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    return out


def coreai_torch_text(name):
    """coreai-torch's to_coreai() program for the corpus model, as text."""
    return str(coreai_torch_program(name))


def coreai_torch_program(name):
    """coreai-torch's to_coreai() program for the corpus model."""
    warnings.filterwarnings("ignore")
    import importlib

    import coreai_torch
    import torch

    mod, fac = SPECS[name].split(":")
    model, inputs = getattr(importlib.import_module(f"models.{mod}"), fac)()[:2]
    conv = coreai_torch.TorchConverter()
    conv.add_pytorch_module(
        model.eval(), export_fn=lambda m: torch.export.export(m, inputs).run_decompositions(coreai_torch.get_decomp_table()))
    return conv.to_coreai()


def load_asset_program(text, path):
    """Writes `text` as an .aimodel with coreai-core and loads it back the way
    coreai-torch's tools do."""
    warnings.filterwarnings("ignore")
    from coreai._compiler import ir
    from coreai.authoring.asset import AIModelAsset, AIProgram
    from coreai.authoring.context import Context

    with Context() as c:
        AIProgram._from_mlir_module(ir.Module.parse(text, c._mlir_context)).save_asset(path)  # noqa: SLF001
    return AIModelAsset.load(path).program


def mlir_module(program):
    """The program's MLIR module: `program.module` in the coreai the tools
    were written against, `_module._mlir_module` in coreai-core 1.0.0b3."""
    return program.module if hasattr(program, "module") else program._module._mlir_module  # noqa: SLF001


def oracle_counts(program):
    """freqop's counting rule, on coreai-core's IR."""
    counts, composites = {}, {}
    def walk(op):
        name = op.name
        if name.startswith("coreai."):
            short = name[len("coreai."):]
            if short == "graph" and "composite_decl" in op.attributes:
                c = re.search(r'"([^"]*)"', str(op.attributes["composite_decl"])).group(1)
                composites[c] = composites.get(c, 0) + 1
            counts[short] = counts.get(short, 0) + 1
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    walk(child)
    walk(mlir_module(program).operation)
    return counts, composites


def freqop_json(*files):
    r = subprocess.run([FREQOP, "--json", *map(str, files)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def asset_text(text, tmp_path, stem):
    """The program coreai-torch's tools see for `text`: written as an asset,
    loaded back (loading rewrites it: `range` folds, constants merge), and
    printed to `<stem>.mlir` for our tools. Returns (program, path)."""
    program = load_asset_program(text, tmp_path / f"{stem}.aimodel")
    path = tmp_path / f"{stem}.mlir"
    path.write_text(str(mlir_module(program)))
    return program, path


@pytest.mark.parametrize("name", MODELS)
def test_freqop_counts_as_coreai_torch_on_the_same_asset(name, tmp_path):
    ours = convert(name, tmp_path)
    for stem, text in (("ours", ours.read_text()), ("theirs", coreai_torch_text(name))):
        program, path = asset_text(text, tmp_path, stem)
        counts, composites = oracle_counts(program)
        got = freqop_json(path)["programs"][0]
        assert got["ops"] == counts, stem
        assert got["composites"] == composites, stem
    # Before the asset round trip, ours agrees with the rule too.
    with_core = oracle_counts(load_asset_program(ours.read_text(), tmp_path / "again.aimodel"))[1]
    assert freqop_json(ours)["programs"][0]["composites"] == with_core


def test_freqop_two_files_delta_and_marks(tmp_path):
    pa, a = asset_text(convert("batch_layer_norm", tmp_path).read_text(), tmp_path, "a")
    pb, b = asset_text(convert("llama_block", tmp_path).read_text(), tmp_path, "b")
    ca, cb = oracle_counts(pa)[0], oracle_counts(pb)[0]
    r = subprocess.run([FREQOP, str(a), str(b)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = {}
    for line in r.stdout.splitlines():
        m = re.match(r"^  (\S+)\s+(\d+)\s+(\d+)\s+([+-]\d+)?( \*)?$", line)
        if m and m.group(1) != "Total":
            rows[m.group(1)] = (int(m.group(2)), int(m.group(3)), m.group(4), bool(m.group(5)))
    assert set(rows) == set(ca) | set(cb)
    for op, (x, y, delta, star) in rows.items():
        assert (x, y) == (ca.get(op, 0), cb.get(op, 0))
        assert star == (x != y)
        assert delta == (f"{y - x:+d}" if x != y else None)
    assert f"{sum(1 for v in rows.values() if v[3])} op(s) differ (marked with *)." in r.stdout
    js = freqop_json(a, b)
    assert js["delta"] == {op: cb.get(op, 0) - ca.get(op, 0) for op in rows if rows[op][3]}
    plot = tmp_path / "ops.svg"
    r = subprocess.run([FREQOP, "--plot", str(plot), str(a), str(b)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    svg = plot.read_text()
    assert svg.startswith("<svg") and svg.count("<rect") >= 2 * len(rows)


def test_freqop_bad_input_is_one_message(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f( {\n")
    r = subprocess.run([FREQOP, str(bad), "--output", str(tmp_path / "o.txt")], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.count("error") >= 1 and "bad.mlir:1" in r.stderr
    assert not (tmp_path / "o.txt").exists()


def nx_graph(op):
    """coreai-torch graphdiff's graph of one op, on coreai-core's IR."""
    import networkx as nx

    g, ids = nx.DiGraph(), {}
    def node(**attrs):
        n = len(g)
        g.add_node(n, **attrs)
        return n
    def value(v):
        if v not in ids:
            ids[v] = node(type="value")
        return ids[v]
    def visit(o):
        n = node(type="op", op_name=o.name)
        for r in o.results:
            g.add_edge(n, value(r), edge_type="defines")
        for a in o.operands:
            g.add_edge(value(a), n, edge_type="operand")
        for region in o.regions:
            rn = node(type="region")
            g.add_edge(n, rn, edge_type="contains_region")
            for block in region.blocks:
                bn = node(type="block")
                g.add_edge(rn, bn, edge_type="contains_block")
                for arg in block.arguments:
                    g.add_edge(bn, value(arg), edge_type="block_arg")
                for child in block.operations:
                    visit(child)
    visit(op)
    return g


def oracle_isomorphic(a, b, entry="main", target_entry=None):
    from networkx.algorithms import isomorphism

    def graph(program, entry):
        for op in mlir_module(program).body.operations:
            if op.name == "coreai.graph" and op.sym_name.value == entry:
                return nx_graph(op)
        raise AssertionError(entry)
    m = isomorphism.DiGraphMatcher(
        graph(a, entry), graph(b, target_entry or entry),
        node_match=lambda x, y: x.get("type") == y.get("type") and x.get("op_name") == y.get("op_name"),
        edge_match=lambda x, y: x.get("edge_type") == y.get("edge_type"))
    return m.is_isomorphic()


def graphdiff(*args):
    return subprocess.run([GRAPHDIFF, *map(str, args)], capture_output=True, text=True)


@pytest.mark.parametrize("name", ["batch_layer_norm", "sdpa_plain", "conv_gn_block"])
def test_graphdiff_ours_vs_coreai_torchs_program(name, tmp_path):
    a, ours = asset_text(convert(name, tmp_path).read_text(), tmp_path, "ours")
    b, theirs = asset_text(coreai_torch_text(name), tmp_path, "theirs")
    expected = oracle_isomorphic(a, b)
    r = graphdiff("--entry-point", "main", ours, theirs)
    assert r.returncode == (0 if expected else 1), r.stdout[-3000:] + r.stderr
    # Composite-aware mode: main and every invoked pair.
    r = graphdiff(ours, theirs)
    assert r.returncode in (0, 1), r.stderr
    assert "GRAPH: main" in r.stdout
    # A program is isomorphic to itself with its composites renamed.
    text = ours.read_text()
    renamed = tmp_path / "renamed.mlir"
    names = set(re.findall(r"coreai\.graph private noinline @(\w+)", text))
    for n in names:
        text = re.sub(rf"@{n}\b", f"@{n}_0123abcd", text)
    renamed.write_text(text)
    r = graphdiff(ours, renamed, "--output", tmp_path / "report.html")
    assert r.returncode == 0, r.stdout[-3000:]
    assert "ALL GRAPHS ARE ISOMORPHIC" in r.stdout
    assert (tmp_path / "report.html").read_text().startswith("<!DOCTYPE html>")
    for n in names:
        assert f"target: @{n}_0123abcd" in r.stdout


def graphdiff_sections(out):
    """{(source graph, target graph): isomorphic} from graphdiff's report,
    and the graphs it found no counterpart for."""
    pairs, unmatched = {}, []
    for section in out.split("GRAPH: ")[1:]:
        head = section.splitlines()[0]
        if head.startswith(("REMOVED", "ADDED")):
            unmatched.append(head)
            continue
        m = re.match(r"\S+ \(source: @(\S+), target: @(\S+)\)", head)
        key = (m.group(1), m.group(2)) if m else (head.strip(), head.strip())
        assert ("Graphs are ISOMORPHIC" in section) != ("Graphs are NOT isomorphic" in section), section
        pairs[key] = "Graphs are ISOMORPHIC" in section
    return pairs, unmatched


@pytest.mark.parametrize("name", ["where_clamp", "sdpa_plain", "batch_layer_norm"])
def test_graphdiff_on_coreai_torchs_asset_and_ours(name, tmp_path):
    """The asset coreai-torch writes (`to_coreai().save_asset`) and the one
    coreai-compile writes for the same model, both read by graphdiff and
    freqop as they are: every graph pair graphdiff reports has the verdict
    coreai-torch's graph rule gives on the programs coreai-core loads from
    the two assets, and the counts are coreai-torch's. where_clamp converts
    to the same program both ways (isomorphic, exit 0); sdpa_plain's main
    is the same but its composites are decomposed differently (and ours
    shares one graph between two identical call sites); batch_layer_norm's
    main differs."""
    from coreai.authoring.asset import AIModelAsset

    theirs, ours = tmp_path / "theirs.aimodel", tmp_path / "ours.aimodel"
    coreai_torch_program(name).save_asset(theirs)
    r = subprocess.run([os.path.join(BUILD, "coreai-compile"), str(convert(name, tmp_path)), "-o", str(ours)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    a, b = AIModelAsset.load(theirs).program, AIModelAsset.load(ours).program
    r = graphdiff(theirs, ours)
    assert r.returncode in (0, 1), r.stderr
    pairs, unmatched = graphdiff_sections(r.stdout)
    assert ("main", "main") in pairs, r.stdout[-3000:]
    for (source, target), isomorphic in pairs.items():
        assert isomorphic == oracle_isomorphic(a, b, source, target), (source, target, r.stdout[-3000:])
    assert r.returncode == (0 if all(pairs.values()) and not unmatched else 1), r.stdout[-3000:]
    r = graphdiff("--entry-point", "main", theirs, ours)
    assert r.returncode == (0 if oracle_isomorphic(a, b) else 1), r.stdout[-3000:]
    if name == "where_clamp":
        assert "ALL GRAPHS ARE ISOMORPHIC" in graphdiff(theirs, ours).stdout
    for asset, program in ((theirs, a), (ours, b)):
        counts, composites = oracle_counts(program)
        got = freqop_json(asset)["programs"][0]
        assert (got["ops"], got["composites"]) == (counts, composites), asset


def test_graphdiff_finds_a_changed_op_and_bad_input(tmp_path):
    a, ours = asset_text(convert("llama_block", tmp_path).read_text(), tmp_path, "ours")
    text = ours.read_text()
    # One op replaced by another of the same type signature.
    i = text.rindex("coreai.decomposable.broadcasting_mul")
    changed_text = text[:i] + text[i:].replace("broadcasting_mul", "broadcasting_add", 1)
    assert changed_text != text
    changed = tmp_path / "changed.mlir"
    changed.write_text(changed_text)
    b = load_asset_program(changed_text, tmp_path / "b.aimodel")
    assert not oracle_isomorphic(a, b)
    r = graphdiff(ours, changed, "--max-items", "3")
    assert r.returncode == 1, r.stdout[-2000:]
    assert "NOT isomorphic" in r.stdout and "GRAPHS DIFFER" in r.stdout
    assert re.search(r"(modified|removed|added)\s+coreai\.decomposable\.broadcasting_(mul|add)", r.stdout)
    r = graphdiff(ours, tmp_path / "missing.mlir")
    assert r.returncode == 2 and "missing.mlir" in r.stderr
    r = graphdiff("--entry-point", "nope", ours, ours)
    assert r.returncode == 2 and "nope" in r.stderr


def test_freqop_and_graphdiff_read_an_aimodel_asset(tmp_path):
    """Both tools read an asset written by coreai-compile through its checked
    main.mlirb; a damaged asset is one error, exit 2."""
    from types import SimpleNamespace

    from coreai._compiler import ir
    from coreai.authoring.context import Context

    source = convert("batch_layer_norm", tmp_path)
    asset = tmp_path / "m.aimodel"
    r = subprocess.run([os.path.join(BUILD, "coreai-compile"), str(source), "-o", str(asset)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    # The asset's program as text (coreai-opt reads assets), counted by
    # coreai-core's parser as the oracle.
    text = tmp_path / "m.asset.mlir"
    r = subprocess.run([COREAI_OPT, str(asset), "-o", str(text)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    with Context() as c:
        module = ir.Module.parse(text.read_text(), c._mlir_context)  # noqa: SLF001
        counts, composites = oracle_counts(SimpleNamespace(module=module))
    got = freqop_json(asset)["programs"][0]
    assert got["ops"] == counts
    assert got["composites"] == composites
    assert sum(counts.values()) > 10
    r = graphdiff(asset, text)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    assert "ALL GRAPHS ARE ISOMORPHIC" in r.stdout
    # One op changed in the text: the asset and the text differ.
    t = text.read_text()
    i = t.rindex("coreai.decomposable.broadcasting_mul")
    changed = tmp_path / "changed.mlir"
    changed.write_text(t[:i] + t[i:].replace("broadcasting_mul", "broadcasting_add", 1))
    r = graphdiff(asset, changed)
    assert r.returncode == 1, r.stdout[-3000:] + r.stderr
    # A damaged asset: main.hash no longer matches main.mlirb.
    program = asset / "main.mlirb"
    program.write_bytes(program.read_bytes() + b"\0")
    for r in (subprocess.run([FREQOP, str(asset)], capture_output=True, text=True), graphdiff(asset, text)):
        assert r.returncode == 2, r.stdout + r.stderr
        assert r.stderr.count("error") == 1 and "m.aimodel" in r.stderr and not r.stdout
