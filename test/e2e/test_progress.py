"""Progress on long steps: a progress bar on stderr when it is a terminal
(torch.export, the import, coreai-compile, counted), nothing when it is
not. The terminal is a pseudo-terminal (`pty`)."""

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

MODEL = '''
import torch


def factory():
    torch.manual_seed(1)
    return torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU()), (torch.randn(2, 8),)
'''


def export(tmp_path, *, terminal, flags=()):
    (tmp_path / "net.py").write_text(MODEL)
    env = dict(os.environ, PYTHONPATH=str(REPO / "importer"), TERM="xterm")
    command = [sys.executable, "-m", "coreai_export", "--module-file", "net.py:factory", "-o", "net.aimodel",
               *flags]
    if not terminal:
        r = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=env)
        return r.returncode, r.stderr
    main, sub = pty.openpty()
    p = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=sub, cwd=tmp_path,
                         env=env)
    os.close(sub)
    out = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(main)
    return p.wait(), out.decode(errors="replace")


def test_a_terminal_shows_the_steps_and_their_count(tmp_path):
    status, shown = export(tmp_path, terminal=True)
    assert status == 0, shown[-2000:]
    assert "torch.export" in shown and "coreai-compile" in shown, shown[-2000:]
    assert "5/5" in shown, shown[-2000:]
    assert (tmp_path / "net.aimodel" / "main.mlirb").is_file()


def test_nothing_is_shown_when_stderr_is_not_a_terminal(tmp_path):
    status, stderr = export(tmp_path, terminal=False)
    assert status == 0, stderr
    assert "torch.export" not in stderr and "5/5" not in stderr and "\x1b[" not in stderr, stderr


STEPS = ["torch.export", "run_decompositions('coreai')", "import to aten MLIR",
         "hand-off to coreai-compile", "coreai-compile: pipeline and asset"]


def test_timing_reports_each_step_and_coreai_compiles_passes(tmp_path):
    """--timing: the wall time of every step, in order, whose shares and
    the rest add up to the total, then coreai-compile's --mlir-timing
    report (its parser and passes)."""
    status, stderr = export(tmp_path, terminal=False, flags=["--timing"])
    assert status == 0, stderr
    ours, theirs = stderr.split("... Execution time report ...")
    rows = [line for line in ours.splitlines() if re.match(r"\s+\d+\.\d{4} \(", line)]
    names = [re.sub(r"^\s+\S+ \(\s*[\d.]+%\)\s+", "", r) for r in rows]
    assert [n for n in names if not n.startswith(("(the rest)", "Total"))] == [
        next(n for n in names if n.startswith(step)) for step in STEPS], names
    seconds = [float(r.split()[0]) for r in rows]
    assert abs(sum(seconds[:-1]) - seconds[-1]) < 1e-3, rows
    assert "Parser" in theirs and "legalize-aten-to-coreai" in theirs and "core-optimize" in theirs, theirs


def test_convert_timing_prints_the_same_report(tmp_path, capfd):
    import torch

    sys.path.insert(0, str(REPO / "importer"))
    from coreai_export.convert import convert

    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU())
    convert(model, (torch.randn(2, 8),), tmp_path / "m.aimodel", timing=True)
    err = capfd.readouterr().err
    assert "coreai_export timing report" in err and "... Execution time report ..." in err, err
    assert "run_decompositions('none')" in err and "core-optimize" in err, err
