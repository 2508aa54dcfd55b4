"""Progress on the long steps (torch.export, the import, coreai-compile), as
users of torch and coreai-torch see it: a `rich` progress bar on stderr when
stderr is a terminal, nothing otherwise.

    with progress.display(total=3):        # at an entry point
        with progress.step("torch.export"):  # anywhere below it
            ...

A step outside any display, or under a display that is off, does nothing;
a display opened inside another one leaves the outer one in charge.
"""

import contextlib
import os
import sys

_active = None  # (rich Progress, task id) of the display being shown


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
    counted when it ends."""
    if _active is None:
        yield
        return
    bar, task = _active
    bar.update(task, description=description)
    try:
        yield
    finally:
        bar.advance(task)
