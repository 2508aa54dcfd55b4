"""Progress on the long steps (torch.export, the import, coreai-compile), as
users of torch and coreai-torch see it: a `rich` progress bar on stderr when
stderr is a terminal, nothing otherwise.

    with progress.display(total=3):        # at an entry point
        with progress.step("torch.export"):  # anywhere below it
            ...

A step outside any display, or under a display that is off, does nothing;
a display opened inside another one leaves the outer one in charge.

`with progress.timed() as report:` records every step's wall time inside
the block (whatever the display does); `report.text()` is the report
`convert(timing=True)` prints, in the form of MLIR's `-mlir-timing`.
"""

import contextlib
import os
import sys
import time

_active = None  # (rich Progress, task id) of the display being shown
_timings = None  # [(step, seconds)] while a timed() block runs


class Report:
    """Steps and their wall times, in order, and the block's total."""

    def __init__(self):
        self.steps = []
        self.total = 0.0

    def text(self, title="coreai_export timing report"):
        rule = "===" + "-" * 73 + "==="
        lines = [rule, title.center(79).rstrip(), rule, f"  Total Execution Time: {self.total:.4f} seconds", "",
                 "  ----Wall Time----  ----Name----"]
        for name, seconds in self.steps:
            share = 100.0 * seconds / self.total if self.total else 0.0
            lines.append(f"  {seconds:8.4f} ({share:5.1f}%)  {name}")
        rest = self.total - sum(s for _, s in self.steps)
        lines.append(f"  {rest:8.4f} ({100.0 * rest / self.total if self.total else 0.0:5.1f}%)  (the rest)")
        lines.append(f"  {self.total:8.4f} (100.0%)  Total")
        return "\n".join(lines) + "\n"


@contextlib.contextmanager
def timed():
    """Records the wall time of every step in the block (a Report)."""
    global _timings
    outer, report = _timings, Report()
    _timings = report.steps
    start = time.perf_counter()
    try:
        yield report
    finally:
        report.total = time.perf_counter() - start
        _timings = outer


def _wanted(stream):
    return stream.isatty() and os.environ.get("TERM") != "dumb"


@contextlib.contextmanager
def display(total=None):
    """A progress bar of `total` steps (unknown: None) on stderr while the
    block runs, when stderr is a terminal."""
    global _active
    stream = sys.stderr
    if _active is not None or not _wanted(stream):
        yield
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    # The stream is the one at hand now: the export holds what is written
    # to sys.stderr while it runs (exporting._stderr_held).
    bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), console=Console(file=stream), transient=True)
    with bar:
        _active = (bar, bar.add_task("coreai_export", total=total))
        try:
            yield
        finally:
            _active = None


@contextlib.contextmanager
def step(description):
    """One step of the display being shown: its description while it runs,
    counted when it ends (and its wall time recorded inside timed())."""
    start, steps = time.perf_counter(), _timings
    try:
        if _active is None:
            yield
            return
        bar, task = _active
        bar.update(task, description=description)
        try:
            yield
        finally:
            bar.advance(task)
    finally:
        if steps is not None:
            steps.append((description, time.perf_counter() - start))
