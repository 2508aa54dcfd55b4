"""The project's tools as the pytest suites call them: the importer
(`python -m coreai_export`), `coreai-opt`, `coreai-run`, and coreai-core's
interpreter as the reference for coreai IR. The suites' conftests put this
folder on `sys.path`; tests import from here instead of copying the
subprocess calls.

Binaries come from `$COREAI_BUILD_DIR` (default `target/debug` of the
repository, or `$CARGO_TARGET_DIR/debug`); `$COREAI_RUN` overrides
coreai-run alone."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
IMPORTER = REPO / "importer"
BUILD = Path(os.environ.get("COREAI_BUILD_DIR") or Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "debug")
COREAI_OPT = BUILD / "coreai-opt"
COREAI_RUN = Path(os.environ.get("COREAI_RUN") or BUILD / "coreai-run")


def export(source, out, *flags, factory="factory", inputs_out=None, expected_out=None):
    """`python -m coreai_export --module-file SOURCE:FACTORY -o OUT FLAGS`,
    run by the export server (test/export_server.py: a warm fork instead
    of a new Python); returns the CompletedProcess (the caller checks it)."""
    command = ["--module-file", f"{source}:{factory}", "-o", str(out)]
    if inputs_out is not None:
        command += ["--inputs-out", str(inputs_out)]
    if expected_out is not None:
        command += ["--expected-out", str(expected_out)]
    return coreai_export([*command, *map(str, flags)])


def coreai_export(args, cwd=None, env=None, module="coreai_export"):
    """`python -m MODULE ARGS` (coreai_export or one of its modules, with
    the importer on PYTHONPATH) in the export server; the CompletedProcess."""
    import export_server

    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(IMPORTER), env.get("PYTHONPATH", "")] if p)
    return export_server.run(args, cwd=cwd, env=env, module=module)


def export_source(tmp_path, source, *flags, factory="factory"):
    """Writes `source` to tmp_path/m.py and exports it to tmp_path/aten.mlir
    with tmp_path/in.npz and tmp_path/expected.npz; returns the module path."""
    src = tmp_path / "m.py"
    src.write_text(source)
    aten = tmp_path / "aten.mlir"
    r = export(src, aten, *flags, factory=factory, inputs_out=tmp_path / "in.npz",
               expected_out=tmp_path / "expected.npz")
    assert r.returncode == 0, r.stderr
    return aten


def export_corpus_model(name, out_dir, decompositions="coreai"):
    """Imports corpus model `name` (test/e2e/models) in-process into
    out_dir/NAME.mlir, NAME.in.npz, NAME.exp.npz; returns the three paths."""
    from coreai_export.cli import build_parser, run
    from models import CORPUS, EXPORT_FLAGS

    spec = next(s for n, s, _ in CORPUS if n == name)
    mod, fac = spec.split(":")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    module, inputs, expected = (out_dir / f"{name}{ext}" for ext in (".mlir", ".in.npz", ".exp.npz"))
    run(build_parser().parse_args(
        ["--model", f"models.{mod}:{fac}", "-o", str(module), "--decompositions", decompositions,
         "--inputs-out", str(inputs), "--expected-out", str(expected), *EXPORT_FLAGS.get(name, [])]))
    return module, inputs, expected


def zoo():
    """test/zoo/models.py (the model zoo) as a module of its own name,
    `zoo_models`: test/e2e has another module `models`, so importing the zoo
    by path order would depend on which suite imported first."""
    import importlib.util

    module = sys.modules.get("zoo_models")
    if module is None:
        spec = importlib.util.spec_from_file_location("zoo_models", REPO / "test" / "zoo" / "models.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["zoo_models"] = module
        spec.loader.exec_module(module)
    return module


def coreai_opt(*args, stdin=None):
    """coreai-opt ARGS; returns the CompletedProcess."""
    return subprocess.run([str(COREAI_OPT), *map(str, args)], input=stdin, capture_output=True, text=True)


def lower(module, out, pipeline):
    """coreai-opt MODULE --pass-pipeline=builtin.module(PIPELINE) -o OUT;
    asserts success and returns the output's text."""
    r = coreai_opt(module, f"--pass-pipeline=builtin.module({pipeline})", "-o", out)
    assert r.returncode == 0, r.stderr
    return Path(out).read_text()


def coreai_run(*args, timeout=None):
    """coreai-run ARGS; returns the CompletedProcess."""
    return subprocess.run([str(COREAI_RUN), *map(str, args)], capture_output=True, text=True, timeout=timeout)


def assert_coreai_run_matches(module, inputs, expected, atol, rtol):
    """coreai-run MODULE --inputs INPUTS --compare EXPECTED within atol/rtol."""
    r = coreai_run(module, "--inputs", inputs, "--compare", expected, "--atol", atol, "--rtol", rtol)
    assert r.returncode == 0, f"{Path(module).name}: " + r.stdout + r.stderr


def load(npz):
    """An .npz file as a dict of arrays."""
    with np.load(npz) as z:
        return {k: z[k] for k in z.files}


def run_coreai_core(text, inputs, tmp_path):
    """coreai-core's interpreter on coreai IR `text` (saved as an .aimodel
    asset in tmp_path); returns its outputs by name. It runs in the oracle
    worker (test/oracle.py): an exception inside coreai-core is raised as
    oracle.OracleError, a death is rerun once and counted."""
    import oracle

    return oracle.interpret(text, inputs, tmp_path)
