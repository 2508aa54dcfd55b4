"""Progress on long steps: a progress bar on stderr when it is a terminal
(torch.export, the import, coreai-compile, counted), nothing when it is
not. The terminal is a pseudo-terminal (`pty`)."""

import os
import pty
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


def export(tmp_path, *, terminal):
    (tmp_path / "net.py").write_text(MODEL)
    env = dict(os.environ, PYTHONPATH=str(REPO / "importer"), TERM="xterm")
    command = [sys.executable, "-m", "coreai_export", "--module-file", "net.py:factory", "-o", "net.aimodel"]
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
    assert "3/3" in shown, shown[-2000:]
    assert (tmp_path / "net.aimodel" / "main.mlirb").is_file()


def test_nothing_is_shown_when_stderr_is_not_a_terminal(tmp_path):
    status, stderr = export(tmp_path, terminal=False)
    assert status == 0, stderr
    assert "torch.export" not in stderr and "3/3" not in stderr and "\x1b[" not in stderr, stderr
