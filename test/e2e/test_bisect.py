"""coreai-bisect end to end: a miscompile planted in coreai-pipeline
(`test-plant-miscompile{op=NAME nth=K}` between legalization and cleanup)
is found to the exact pass and rewrite, the reproducer is the planted op
alone (a plant keyed by number is re-keyed to the op), its largest tensor
at most a quarter of the model inputs' elements (shapes shrunk), and its lit
test fails, and fails no more once the pass is fixed; an op whose operands
must be what the model computes (a nonzero integer divisor) and an op inside
a branch reduce to the op alone too; a clean pipeline exits 0; bad input
exits 2 with one message.

What the tool must find is known independently of it: the planted pass is
the third of the pipeline, the bad application is number K, and its
location is the one the pass itself prints for #K (`trace-rewrites`).
"""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

from toolchain import BUILD, COREAI_OPT, export_corpus_model, load
from models import CORPUS

BISECT = os.path.join(BUILD, "coreai-bisect")
COREAI_RUN = os.path.join(BUILD, "coreai-run")
SPECS = {n: s for n, s, _ in CORPUS}
# (model, op, K): ops whose skipped computation changes the outputs.
CASES = [
    ("llama_block", "coreai.decomposable.broadcasting_mul", 3),
    ("conv_gn_block", "coreai.decomposable.broadcasting_mul", 2),
    ("binary_broadcast", "coreai.decomposable.broadcasting_sub", 1),
]


def pipeline(op, k):
    return f"builtin.module(decompose,legalize-aten-to-coreai,test-plant-miscompile{{op={op} nth={k}}},canonicalize,cse)"


# Not counted, as in the project's op counts (bench/optimize.py,
# bench/bisect_sweep.py): constants, outputs and the structural ops. The
# same rule for the model and the reproducer: one op alone counts 1.
NOT_COUNTED = {"coreai.constant", "arith.constant", "coreai.output", "func.return", "coreai.graph",
               "func.func", "coreai.yield", "coreai.condition"}


def op_count(path):
    text = open(path).read().split("{-#")[0]
    ops = re.findall(r"^\s*(?:%[^=]+= )?\"?([a-z_]+\.[\w.]+)\"?[ (<{]", text, re.M)
    return sum(op not in NOT_COUNTED for op in ops)


def unplanted(text):
    """`text` with its planted pass planting nothing (the bug fixed)."""
    return re.sub(r"(test-plant-miscompile\{op=\S+) (?:nth|loc)=[^ }]+", r"\1 nth=1000000", text)


def elements(types):
    return [int(np.prod([int(d) for d in dims.split("x")[:-1]] or [1])) for dims in types]


def argument_elements(path):
    """Elements of @main's arguments in a reproducer, from its text."""
    sig = re.search(r"@main\((.*?)\) ->", open(path).read()).group(1)
    return sum(elements(re.findall(r"tensor<([^>]*)>", sig)))


def largest_tensor(path):
    """The element count of the largest tensor type in a reproducer."""
    return max(elements(re.findall(r"tensor<([^>]*)>", open(path).read().split("{-#")[0])))


def trace_location(aten, op, k, tmp_path):
    legal = tmp_path / "legal.mlir"
    r = subprocess.run([COREAI_OPT, str(aten), "--mlir-print-debuginfo",
                        "--pass-pipeline=builtin.module(decompose,legalize-aten-to-coreai)", "-o", str(legal)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([COREAI_OPT, str(legal), "-o", os.devnull,
                        f"--pass-pipeline=builtin.module(test-plant-miscompile{{op={op} nth={k} trace-rewrites=true}})"],
                       capture_output=True, text=True)
    lines = [l for l in r.stderr.splitlines() if l.startswith("rewrite ")]
    assert len(lines) >= k, r.stderr
    return lines[k - 1].split(" at ", 1)[1], len(lines), legal


@pytest.mark.parametrize("name,op,k", CASES, ids=[c[0] for c in CASES])
def test_planted_miscompile_is_found_and_reduced(name, op, k, tmp_path):
    aten, inputs, expected = export_corpus_model(name, tmp_path / "m")
    location, total, legal = trace_location(aten, op, k, tmp_path)
    # Precondition: the planted pipeline really is wrong on these inputs.
    planted = tmp_path / "planted.mlir"
    subprocess.run([COREAI_OPT, str(aten), f"--pass-pipeline={pipeline(op, k)}", "-o", str(planted)], check=True)
    r = subprocess.run([COREAI_RUN, str(planted), "--inputs", str(inputs), "--compare", str(expected),
                        "--atol", "1e-4", "--rtol", "1e-4"], capture_output=True, text=True)
    assert r.returncode == 1, r.stdout

    repro = tmp_path / "repro"
    r = subprocess.run([BISECT, str(aten), f"--pass-pipeline={pipeline(op, k)}", "--inputs", str(inputs),
                        "--expected", str(expected), "--atol", "1e-4", "--rtol", "1e-4", "-o", str(repro)],
                       capture_output=True, text=True)
    assert r.returncode == 1, r.stdout + r.stderr
    summary = [l for l in r.stdout.splitlines() if l.startswith("coreai-bisect: RESULT")]
    assert len(summary) == 1, r.stdout
    assert f"pass=#3 test-plant-miscompile rewrite=#{k}/{total} pattern=plant-miscompile loc={location} " in summary[0]
    runs = re.search(r"step 2: .*\((\d+) executor runs; ceil\(log2 (\d+)\) = (\d+)\)", r.stdout)
    assert runs and int(runs.group(1)) <= int(runs.group(3)) + 1, r.stdout
    # A plant keyed by number is re-keyed to the op (the earlier matches it
    # counts can then go): the reproducer is that op alone.
    assert f"test-plant-miscompile{{op={op} nth={k}}} counts matches" in r.stdout, r.stdout
    assert (repro / "pipeline.txt").read_text() == f"builtin.module(test-plant-miscompile{{op={op} loc=bisect.match{k}}})\n"
    assert op_count(repro / "repro.mlir") == 1, (repro / "repro.mlir").read_text()
    # At most a quarter of the ops of the pass's input (the model after
    # decompose and legalization), counted here, not by the tool.
    assert op_count(repro / "repro.mlir") <= op_count(legal) / 4, (op_count(repro / "repro.mlir"), op_count(legal))
    # Shapes shrink: no tensor of the reproducer holds more than a quarter
    # of the model inputs' elements, and its inputs.npz fits its signature.
    model_elements = sum(a.size for a in load(inputs).values())
    assert largest_tensor(repro / "repro.mlir") <= model_elements / 4, (largest_tensor(repro / "repro.mlir"), model_elements)
    assert sum(a.size for a in load(repro / "inputs.npz").values()) == argument_elements(repro / "repro.mlir")

    lit = [os.path.join(os.path.dirname(sys.executable), "lit"), "-q", str(repro / "repro.mlir")]
    env = dict(os.environ, COREAI_BIN=BUILD)
    r = subprocess.run(lit, capture_output=True, text=True, env=env)
    assert r.returncode == 1 and "Failed: 1" in r.stdout, r.stdout + r.stderr
    # Fixed: the same pass that plants nothing passes the same test.
    text = (repro / "repro.mlir").read_text()
    (repro / "repro.mlir").write_text(unplanted(text))
    r = subprocess.run(lit, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr


def test_location_keyed_plant_reduces_to_the_op(tmp_path):
    """A plant keyed by the op's location (as a real faulty pattern is wrong
    because of the op, not its match number) at the last of 19 matches: the
    reproducer is the op alone with its operands, it keeps the op's source
    location, and its lit test fails."""
    aten, inputs, expected = export_corpus_model("unary_float", tmp_path / "m")
    op = "coreai.decomposable.broadcasting_add"
    _, total, _ = trace_location(aten, op, 1, tmp_path)
    location, total, legal = trace_location(aten, op, total, tmp_path)
    name = re.match(r'loc\("([^"]+)"', location).group(1)
    planted = f"builtin.module(decompose,legalize-aten-to-coreai,test-plant-miscompile{{op={op} loc={name}}},canonicalize,cse)"
    repro = tmp_path / "repro"
    r = subprocess.run([BISECT, str(aten), f"--pass-pipeline={planted}", "--inputs", str(inputs),
                        "--expected", str(expected), "--atol", "1e-4", "--rtol", "1e-4", "-o", str(repro)],
                       capture_output=True, text=True)
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"pass=#3 test-plant-miscompile rewrite=#{total}/{total} pattern=plant-miscompile loc={location} " in r.stdout
    text = (repro / "repro.mlir").read_text()
    # The op alone (its graph, operands and output are not counted),
    # counted here, not by the tool.
    assert op_count(repro / "repro.mlir") == 1, text
    assert op_count(repro / "repro.mlir") <= op_count(legal) / 4
    assert f'{op}"' in text and f'loc("{name}"' in text, text
    lit = [os.path.join(os.path.dirname(sys.executable), "lit"), "-q", str(repro / "repro.mlir")]
    r = subprocess.run(lit, capture_output=True, text=True, env=dict(os.environ, COREAI_BIN=BUILD))
    assert r.returncode == 1 and "Failed: 1" in r.stdout, r.stdout + r.stderr


def bisect_loc_plant(name, op, k, tmp_path):
    """coreai-bisect on `name` with match `k` of `op` planted by its
    location name: (its output, the reproducer's directory, the location)."""
    aten, inputs, expected = export_corpus_model(name, tmp_path / "m")
    location, total, legal = trace_location(aten, op, k, tmp_path)
    loc_name = re.match(r'loc\("([^"]+)"', location).group(1)
    planted = f"builtin.module(decompose,legalize-aten-to-coreai,test-plant-miscompile{{op={op} loc={loc_name}}},canonicalize,cse)"
    repro = tmp_path / "repro"
    r = subprocess.run([BISECT, str(aten), f"--pass-pipeline={planted}", "--inputs", str(inputs),
                        "--expected", str(expected), "--atol", "1e-4", "--rtol", "1e-4", "-o", str(repro)],
                       capture_output=True, text=True)
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"pass=#3 test-plant-miscompile rewrite=#{k}/{total} pattern=plant-miscompile loc={location} " in r.stdout
    return r.stdout, repro, legal


def lit_fails(repro):
    lit = [os.path.join(os.path.dirname(sys.executable), "lit"), "-q", str(repro / "repro.mlir")]
    r = subprocess.run(lit, capture_output=True, text=True, env=dict(os.environ, COREAI_BIN=BUILD))
    assert r.returncode == 1 and "Failed: 1" in r.stdout, r.stdout + r.stderr


def test_integer_division_reduces_on_the_models_values(tmp_path):
    """`a // b` planted: on drawn inputs every candidate divides by zero (an
    executor error), so the reducer feeds each candidate the values its
    arguments take in the model; the reproducer is the division alone and
    its lit test fails."""
    out, repro, _ = bisect_loc_plant("int_true_division", "coreai.decomposable.broadcasting_floor_divide", 1,
                                     tmp_path)
    assert op_count(repro / "repro.mlir") == 1, (repro / "repro.mlir").read_text()
    lit_fails(repro)


def test_op_in_a_branch_is_taken_out_of_it(tmp_path):
    """A plant on the `sin` inside a `coreai.if` branch: the reducer slices
    the branch's block, and the reproducer is the `sin` alone."""
    out, repro, legal = bisect_loc_plant("cond_branch", "coreai.sin", 1, tmp_path)
    text = (repro / "repro.mlir").read_text()
    assert op_count(repro / "repro.mlir") == 1 and "coreai.sin" in text and "coreai.if" not in text, text
    assert "coreai.if" in legal.read_text()
    lit_fails(repro)


def test_clean_pipeline_exits_0(tmp_path):
    aten, inputs, _ = export_corpus_model("llama_block", tmp_path / "m")
    r = subprocess.run([BISECT, str(aten), "--pass-pipeline=builtin.module(coreai-pipeline)",
                        "--inputs", str(inputs), "--atol", "1e-4", "--rtol", "1e-4",
                        "-o", str(tmp_path / "repro")], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    # decompose, legalize-aten-to-coreai, externalize-composites, fp16-stabilize,
    # canonicalize, cse, core-optimize; llama_block gets 5 composites, all exact.
    assert "coreai-bisect: RESULT clean: 7 passes" in r.stdout
    assert not (tmp_path / "repro").exists()


def test_random_inputs_find_the_planted_miscompile(tmp_path):
    aten = export_corpus_model("binary_broadcast", tmp_path / "m")[0]
    r = subprocess.run([BISECT, str(aten), "--random-inputs", "7",
                        f"--pass-pipeline={pipeline('coreai.decomposable.broadcasting_sub', 1)}",
                        "-o", str(tmp_path / "repro")], capture_output=True, text=True)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "pass=#3 test-plant-miscompile rewrite=#1/" in r.stdout


@pytest.mark.parametrize("args,needle", [
    (["MISSING.mlir", "--inputs", "IN"], "MISSING.mlir"),
    (["BAD", "--inputs", "IN"], "bad.mlir:1"),
    (["AT", "--inputs", "NOPE.npz"], "NOPE.npz"),
    (["AT", "--inputs", "BADNPZ"], "bad.npz: invalid Zip archive"),
    (["AT", "--inputs", "IN", "--expected", "CUTNPZ"], "cut.npz: invalid Zip archive"),
    (["AT", "--inputs", "WRONGNPZ"], "the input module does not run: input '"),
    (["AT", "--inputs", "IN", "--pass-pipeline=builtin.module(no-such-pass)"], "no-such-pass"),
    (["AT", "--inputs", "IN", "--pass-pipeline=builtin.module(cse"], "must be 'builtin.module(...)'"),
    # A bad option of the last pass: reported before any pass runs.
    (["AT", "--inputs", "IN", "--pass-pipeline=builtin.module(decompose,test-plant-miscompile{op=x nth=0})"],
     "pass #2 test-plant-miscompile{op=x nth=0}: failed to parse pass pipeline: pass 'test-plant-miscompile', "
     "option 'nth': 0 is not a match number"),
])
def test_bad_input_exits_2_with_one_message(args, needle, tmp_path):
    aten, inputs, _ = export_corpus_model("binary_broadcast", tmp_path / "m")
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @main( {\n")
    (tmp_path / "bad.npz").write_bytes(b"not a zip archive\n")
    (tmp_path / "cut.npz").write_bytes(open(inputs, "rb").read()[:100])
    np.savez(tmp_path / "wrong.npz", y=np.zeros(3, np.float32))
    subst = {"BAD": str(bad), "AT": str(aten), "IN": str(inputs), "BADNPZ": str(tmp_path / "bad.npz"),
             "CUTNPZ": str(tmp_path / "cut.npz"), "WRONGNPZ": str(tmp_path / "wrong.npz"),
             "MISSING.mlir": str(tmp_path / "MISSING.mlir"), "NOPE.npz": str(tmp_path / "NOPE.npz")}
    argv = [subst.get(a, a) for a in args]
    if not any(a.startswith("--pass-pipeline") for a in argv):
        argv.append("--pass-pipeline=builtin.module(coreai-pipeline)")
    r = subprocess.run([BISECT, *argv, "-o", str(tmp_path / "repro")], capture_output=True, text=True)
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.startswith("coreai-bisect: error:") and len(r.stderr.splitlines()) == 1, r.stderr
    assert needle in r.stderr and not r.stdout, r.stdout + r.stderr
    assert not (tmp_path / "repro").exists()
