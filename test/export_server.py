"""`python -m coreai_export ARGS` (and its other modules, `coreai_export.gate`)
for the tests, without paying for a new Python each time.

A fresh process spends about 5 s importing torch and warming up
torch.export before it exports a model that takes 0.3 s. So each test
process starts one server that imports torch and coreai_export once, runs
one small export to warm up, and then forks a child per request. The child
is a fresh copy of that warm process: it takes the request's working
directory, environment and `sys.path` (PYTHONPATH and the working directory
first, as `python -m` puts them), runs the module as `__main__` (runpy, as
`python -m` does) with its stdout and stderr in files, and ends with the
command's exit status. The
test gets the same CompletedProcess a child `python -m coreai_export` would
give: exit status (negative for a signal), stdout and stderr.

torch runs one intra-op thread in the server and so in every child (as in
the suites' own processes); the server never runs a parallel region before
it forks. The default random generator is reset to a fresh process's seed
before each fork, so a model built without a seed gets the weights it
would get in a new process.
"""

import os
import pickle
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
IMPORTER = HERE.parent / "importer"


def _send(fd, obj):
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    data = struct.pack("<Q", len(data)) + data
    while data:
        data = data[os.write(fd, data):]


def _read_exactly(fd, n):
    chunks = []
    while n:
        chunk = os.read(fd, n)
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _receive(fd):
    head = _read_exactly(fd, 8)
    if head is None:
        return None
    data = _read_exactly(fd, struct.unpack("<Q", head)[0])
    return None if data is None else pickle.loads(data)


# ---------------------------------------------------------------- server

def _serve():
    requests, replies = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    sys.path.insert(0, str(IMPORTER))
    import torch

    torch.set_num_threads(1)
    fresh_seed = torch.initial_seed()
    import coreai_export  # noqa: F401 - imported once, here
    from coreai_export.cli import main

    with tempfile.TemporaryDirectory() as warm:
        source = Path(warm) / "warm.py"
        source.write_text("import torch\n\ndef factory():\n    return torch.nn.Linear(3, 2), (torch.ones(1, 3),)\n")
        main(["--module-file", f"{source}:factory", "-o", str(Path(warm) / "warm.mlir"),
              "--expected-out", str(Path(warm) / "warm.npz")])
    base_path = list(sys.path)
    while True:
        request = _receive(requests)
        if request is None:
            return 0
        module, argv, cwd, env = request
        torch.manual_seed(fresh_seed)
        sys.stdout.flush()
        sys.stderr.flush()
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            pid = os.fork()
            if pid == 0:
                os.close(requests)
                os.close(replies)
                _child(module, argv, cwd, env, base_path, out.fileno(), err.fileno())
            _, status = os.waitpid(pid, 0)
            code = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            _send(replies, (code, out.read(), err.read()))


def _child(module, argv, cwd, env, base_path, out_fd, err_fd):
    """`python -m MODULE ARGV` in this forked process; never returns."""
    import runpy
    import traceback

    code = 1
    try:
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        extra = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        sys.path[:] = [cwd, *extra, *base_path]
        sys.argv = [module, *argv]
        try:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as e:
            if e.code is None or isinstance(e.code, int):
                code = e.code or 0
            else:
                print(e.code, file=sys.stderr)
                code = 1
    except BaseException:  # noqa: BLE001 - an uncaught exception ends `python -m` with status 1
        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


# ---------------------------------------------------------------- client

_server = None


def _start():
    return subprocess.Popen([sys.executable, str(Path(__file__)), "--serve"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, cwd=HERE)


def run(argv, cwd=None, env=None, module="coreai_export"):
    """`python -m MODULE ARGV` (a module of coreai_export) in a warm fork;
    a CompletedProcess with text stdout and stderr."""
    global _server
    argv = [str(a) for a in argv]
    request = (module, argv, str(cwd or os.getcwd()), dict(os.environ if env is None else env))
    for _ in (1, 2):  # a server that died (killed from outside) is started again once
        if _server is None or _server.poll() is not None:
            _server = _start()
        try:
            _send(_server.stdin.fileno(), request)
            reply = _receive(_server.stdout.fileno())
        except OSError:
            reply = None
        if reply is not None:
            code, out, err = reply
            return subprocess.CompletedProcess([sys.executable, "-m", module, *argv], code,
                                               out.decode(errors="replace"), err.decode(errors="replace"))
        _server.kill()
        _server.wait()
        _server = None
    raise RuntimeError("the export server died twice in a row")


def stop():
    global _server
    if _server is not None:
        _server.stdin.close()
        try:
            _server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            _server.kill()
        _server = None


if __name__ == "__main__" and sys.argv[1:] == ["--serve"]:
    sys.exit(_serve())


def pytest_unconfigure(config):  # noqa: ARG001 - pytest's hook signature
    stop()
