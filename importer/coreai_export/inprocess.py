"""coreai-compile in a child forked from this process, its weights shared.

The weights of an imported program are views of the exported tensors'
storage. Handed to the `coreai-compile` binary they are written to a
safetensors file first: at 1B parameters, 4 GB copied into fresh memory
before the compiler starts. On Linux, `convert` instead forks: the child
shares every page of this process copy-on-write, loads
`libcoreai_compile.so` (the compiler as a library, built beside the
binary) and runs the same command line through its C entry point
`coreai_compile_main`, given each weight as the address and length of a
tensor already in memory. Nothing is copied and no weights file is
written; the module text is still a file (small). The parent reads the
child's stderr (the diagnostics, the `--mlir-timing` report) and its exit
status, as it would a subprocess's.

Used when the library sits beside the binary and this is Linux; otherwise
(or with `COREAI_HANDOFF=file`) the binary runs as a subprocess on a
weights file. Both give the same asset, byte for byte
(test/e2e/test_handoff.py).
"""

import ctypes
import os
import shutil
import signal
import subprocess
import sys
import traceback
import warnings
from pathlib import Path

LIBRARY = "libcoreai_compile.so"
# PR_SET_NAME: the child shows as coreai-compile in ps and top.
_PR_SET_NAME = 15


class CoreaiWeight(ctypes.Structure):
    """`CoreaiWeight` of tools/coreai-compile/src/lib.rs."""

    _fields_ = [("file", ctypes.c_char_p), ("name", ctypes.c_char_p), ("data", ctypes.c_void_p),
                ("size", ctypes.c_size_t)]


def library_for(compiler):
    """The compiler library to run in a forked child for the binary
    `compiler`, or None to run the binary: None unless this is Linux, the
    library is in the binary's directory and `COREAI_HANDOFF` is not
    `file`."""
    mode = os.environ.get("COREAI_HANDOFF", "memory")
    if mode not in ("memory", "file"):
        raise ValueError(f"COREAI_HANDOFF={mode!r}: expected 'memory' or 'file'")
    if mode == "file" or not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return None
    found = shutil.which(compiler) if os.sep not in str(compiler) else compiler  # a bare name is on PATH
    if not found:
        return None
    library = Path(found).resolve().parent / LIBRARY
    return library if library.is_file() else None


def _address(data):
    """The address of a contiguous buffer (a memoryview or bytes), without
    copying it."""
    import numpy

    array = numpy.frombuffer(data, dtype=numpy.uint8)
    return array.ctypes.data if array.size else None


def run(library, command, weights, cwd=None):
    """Runs `command` (coreai-compile's command line) through `library`'s
    `coreai_compile_main` in a forked child, in the directory `cwd` if
    given; `weights`: (weights file path, tensor name, buffer) for every
    tensor of the weights files the command's modules name, which are not
    written (a path as the compiler forms it: the input's directory, as the
    command names it, joined with the module's `coreai.weights` name).
    Returns a CompletedProcess with the child's stderr and exit status
    (negative: the signal that ended it), or None when this process cannot
    fork (out of memory to commit under strict overcommit, or of
    processes): then nothing ran."""
    argv = (ctypes.c_char_p * len(command))(*[os.fsencode(str(a)) for a in command])
    table = (CoreaiWeight * max(len(weights), 1))()
    for i, (file, name, data) in enumerate(weights):
        table[i] = CoreaiWeight(os.fsencode(str(file)), name.encode(), _address(data), len(data))
    read_fd, write_fd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        with warnings.catch_warnings():
            # Python 3.12 warns of fork in a process with threads (PyTorch's);
            # the child runs no Python thread and calls nothing of PyTorch.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return None
    if pid == 0:  # the child: never returns
        status = 70
        try:
            os.close(read_fd)
            os.dup2(write_fd, 2)
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            if cwd is not None:
                os.chdir(cwd)
            try:
                ctypes.CDLL(None).prctl(_PR_SET_NAME, b"coreai-compile", 0, 0, 0)
            except (AttributeError, OSError):
                pass
            lib = ctypes.CDLL(str(library))
            main = lib.coreai_compile_main
            main.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(CoreaiWeight),
                             ctypes.c_size_t]
            main.restype = ctypes.c_int
            status = main(len(command), argv, table, len(weights))
        except BaseException:
            try:
                os.write(2, f"coreai-compile: error: running {library}:\n{traceback.format_exc()}".encode())
            except BaseException:
                pass
        finally:
            os._exit(status)
    os.close(write_fd)
    try:
        with os.fdopen(read_fd, "rb") as err:
            stderr = err.read()
        _, wait_status = os.waitpid(pid, 0)
    except BaseException:  # KeyboardInterrupt: the child goes too
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        raise
    returncode = os.waitstatus_to_exitcode(wait_status)
    return subprocess.CompletedProcess(command, returncode, "", stderr.decode(errors="replace"))
