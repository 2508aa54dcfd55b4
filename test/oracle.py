"""coreai-core, the suites' oracle, in one long-lived child process per test
process.

coreai-core 1.0.0b3's runtime and interpreter are native code that can die
(a Swift runtime abort, SIGILL in its lowering of `coreai.while`) and that
take a second to start. So every call goes to a worker process started once
and reused: the start-up is paid once per pytest worker, and a death takes
the worker, never the test process.

A death is coreai-core's own when the worker ends by a fatal signal
(SIGABRT, SIGILL, SIGSEGV, SIGBUS, SIGTRAP) or prints the Swift runtime's
abort message, while it runs a coreai-core call. Such a call is rerun once
in a fresh worker and counted (`pytest_terminal_summary` prints
`oracle reruns: N` and what each rerun was); a second death raises
`OracleDied` with both messages. Calls that are known to die (coreai-core's
SIGILL on `coreai.while`) pass `expect_death=True`: no rerun, and the death
comes back as an `OracleDied` result. Our own tools are never rerun: they
do not run here.

`COREAI_TEST_PLANT_ORACLE_ABORT=N` makes the worker die like coreai-core's
Swift runtime (its message, then SIGABRT) on the test process's first N
calls; the suite's own test of the rerun uses it.

The worker speaks length-prefixed pickles on its stdin and stdout; its
stderr goes to a file the parent reads when it dies.
"""

import os
import pickle
import signal
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SWIFT_ABORT = "C++ exception handling detected but the Swift runtime was compiled with exceptions disabled"
FATAL = {signal.SIGABRT, signal.SIGILL, signal.SIGSEGV, signal.SIGBUS, signal.SIGTRAP}
PLANT = "COREAI_TEST_PLANT_ORACLE_ABORT"


class OracleDied(RuntimeError):
    """coreai-core's worker died; `message` says how (signal, last stderr)."""

    def __init__(self, message, signal_name=None):
        super().__init__(message)
        self.message = message
        self.signal_name = signal_name


class OracleError(RuntimeError):
    """coreai-core raised an exception (its type name and message);
    `stderr` holds what the worker printed during the call (coreai-core's
    native code writes its reasons there)."""

    def __init__(self, message, stderr=""):
        super().__init__(message)
        self.stderr = stderr


# Reruns of this process since it started: (call, first death's message).
RERUNS: list[tuple[str, str]] = []


def _send(stream, obj):
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def _receive(stream):
    head = stream.read(8)
    if len(head) < 8:
        return None
    (n,) = struct.unpack("<Q", head)
    data = stream.read(n)
    return pickle.loads(data) if len(data) == n else None


class _Worker:
    def __init__(self):
        self.stderr = tempfile.TemporaryFile()
        env = dict(os.environ, PYTHONFAULTHANDLER="1")
        self.proc = subprocess.Popen([sys.executable, "-u", str(Path(__file__)), "--worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
                                     env=env, cwd=HERE)

    def call(self, name, args, planted=False):
        """The worker's reply, and what it printed on stderr meanwhile."""
        self.stderr.seek(0, os.SEEK_END)
        start = self.stderr.tell()
        try:
            _send(self.proc.stdin, (name, args, planted))
            reply = _receive(self.proc.stdout)
        except (BrokenPipeError, OSError):
            reply = None
        if reply is not None:
            self.stderr.seek(start)
            return reply, self.stderr.read().decode(errors="replace")
        code = self.proc.wait()
        self.stderr.seek(0)
        tail = self.stderr.read().decode(errors="replace").strip().splitlines()[-12:]
        return ("died", code, "\n".join(tail)), ""

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
        self.stderr.close()


_worker = None
_planted = 0  # planted aborts done by this process


def _describe(code, tail):
    how = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
    return f"coreai-core's worker died ({how}): {tail or '(no output)'}"


def _is_coreai_cores(code, tail):
    return (code < 0 and signal.Signals(-code) in FATAL) or SWIFT_ABORT in tail


def call(name, *args, expect_death=False):
    """Runs worker function `name(*args)` in the worker; its result, or
    OracleError for an exception inside coreai-core. See the module doc
    for deaths."""
    global _worker, _planted
    first = None
    for attempt in (1, 2):
        if _worker is None:
            _worker = _Worker()
        planted = _planted < int(os.environ.get(PLANT, "0") or 0)
        _planted += planted
        reply, printed = _worker.call(name, args, planted)
        if reply[0] == "ok":
            if first is not None:
                RERUNS.append((name, first))
            return reply[1]
        if reply[0] == "raised":
            if first is not None:
                RERUNS.append((name, first))
            raise OracleError(f"{reply[1]}: {reply[2]}", printed)
        _, code, tail = reply
        _worker.close()
        _worker = None
        message = _describe(code, tail)
        signal_name = signal.Signals(-code).name if code < 0 else None
        if expect_death:
            return OracleDied(message, signal_name)
        if not _is_coreai_cores(code, tail):
            raise OracleDied(message, signal_name)
        if attempt == 2:
            raise OracleDied(f"coreai-core died twice on one call ({name}):\n  first: {first}\n"
                             f"  rerun: {message}", signal_name)
        first = message
    raise AssertionError("unreachable")


# The functions the worker runs (in the worker process).

def _load_inputs(inputs):
    import numpy as np
    from coreai.runtime import NDArray

    return {k: NDArray(np.ascontiguousarray(v)) for k, v in inputs.items()}


def _run_function(asset_path, function, inputs):
    import asyncio

    from coreai.authoring.asset import AIModelAsset

    async def go():
        asset = AIModelAsset.load(asset_path)
        async with asset.executable() as model:
            fn = model.load_function(function)
            if asyncio.iscoroutine(fn):
                fn = await fn
            # States are bound with `state=` from the inputs of their
            # names; their values after the call are outputs of those names.
            fed = _load_inputs(inputs)
            states = {k: fed.pop(k) for k in fn.desc.state_names if k in fed}
            out = await fn(inputs=fed, state=states)
            return {**{k: v.numpy() for k, v in out.items()}, **{k: v.numpy() for k, v in states.items()}}

    return asyncio.run(go())


def w_save_asset(text, path):
    """coreai-core's own save_asset of coreai IR `text` to `path`."""
    from coreai._compiler import ir
    from coreai.authoring.asset import AIProgram
    from coreai.authoring.context import Context

    with Context() as c:
        AIProgram._from_mlir_module(ir.Module.parse(text, c._mlir_context)).save_asset(Path(path))  # noqa: SLF001


def w_interpret(text, inputs, work, function="main"):
    """coreai IR `text` saved as an asset in `work` and run by coreai-core's
    runtime; its outputs by name."""
    path = Path(work) / "m.aimodel"
    w_save_asset(text, path)
    return _run_function(path, function, inputs)


def w_llm_session(bundle, turns):
    """llm_session.record of `turns` through `bundle` in coreai-core's runtime."""
    import llm_session

    return llm_session.record(bundle, "coreai-core", None, turns)


def w_runasset(argv):
    """utils/aicode/runasset.py's main on `argv`; what it printed."""
    import contextlib
    import io

    sys.path.insert(0, str(HERE.parent / "utils" / "aicode"))
    import runasset

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runasset.main(argv)
    return out.getvalue()


def _worker_main():
    import faulthandler
    import warnings

    faulthandler.enable()
    warnings.simplefilter("ignore")
    # coreai-core logs to stdout: the replies go to a copy of the
    # protocol's descriptor, and descriptor 1 becomes stderr.
    stdin, stdout = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    sys.stdout = sys.stderr
    os.dup2(2, 1)
    while True:
        request = _receive(stdin)
        if request is None:
            return 0
        name, args, planted = request
        if planted:
            sys.stderr.write(f"fatal error: {SWIFT_ABORT} (planted by ${PLANT})\n")
            sys.stderr.flush()
            os.abort()
        try:
            reply = ("ok", globals()["w_" + name](*args))
        except Exception as e:  # noqa: BLE001 - coreai-core's exception goes back to the test
            reply = ("raised", type(e).__name__, str(e))
        _send(stdout, reply)


def run_script(argv, **kwargs):
    """`subprocess.run(argv, capture_output=True, text=True, **kwargs)` of a
    Python child that runs coreai-core (or coreai-torch on it) and nothing of
    ours: a death with coreai-core's signature is rerun once and counted, a
    second one raises OracleDied with both messages. For the few oracle
    scripts that need a process of their own; the rest go to the worker."""
    first = None
    for attempt in (1, 2):
        r = subprocess.run(argv, capture_output=True, text=True, **kwargs)
        tail = "\n".join(r.stderr.strip().splitlines()[-12:])
        if not _is_coreai_cores(r.returncode, tail):
            if first is not None:
                RERUNS.append(("a coreai-core script", first))
            return r
        message = _describe(r.returncode, tail).replace("coreai-core's worker", "coreai-core's child")
        if attempt == 2:
            raise OracleDied(f"coreai-core died twice on one call:\n  first: {first}\n  rerun: {message}",
                             signal.Signals(-r.returncode).name if r.returncode < 0 else None)
        first = message
    raise AssertionError("unreachable")


def interpret(text, inputs, work, function="main", expect_death=False):
    """coreai-core's runtime on coreai IR `text` (saved as an asset in
    `work`); outputs by name."""
    return call("interpret", text, dict(inputs), str(work), function, expect_death=expect_death)


def llm_session(bundle, turns):
    """One conversation (`turns`, test/llm_session.py) with the LLM bundle
    `bundle` in coreai-core's runtime, in the worker; its record."""
    return call("llm_session", str(bundle), turns)


def runasset(*args, expect_death=False):
    """`utils/aicode/runasset.py ARGS` (the summary JSON lines, with
    --inputs a run) in the worker, as a CompletedProcess: status 0 and its
    stdout, or status 1 and coreai-core's exception and what it printed on
    stderr. A death is rerun once, then OracleDied; with `expect_death`
    the summaries are read first and the run's death is the negative
    signal number, as from a child process."""
    argv = [str(a) for a in args]
    summaries = ""
    if expect_death and "--inputs" in argv:
        run_flags = {"--inputs", "--outputs", "--function"}
        summary_argv = [a for j, a in enumerate(argv) if a not in run_flags and (j == 0 or argv[j - 1] not in run_flags)]
        summaries = runasset(*summary_argv).stdout
    try:
        out = call("runasset", argv, expect_death=expect_death)
    except OracleError as e:
        return subprocess.CompletedProcess(argv, 1, summaries, f"{e.stderr}{e}\n")
    if isinstance(out, OracleDied):
        return subprocess.CompletedProcess(argv, -signal.Signals[out.signal_name] if out.signal_name else 1,
                                           summaries, out.message)
    return subprocess.CompletedProcess(argv, 0, out, "")


if __name__ == "__main__" and sys.argv[1:] == ["--worker"]:
    # Without finalizing the interpreter, where coreai-core's runtime
    # aborts at random (coreai_export.llm.exit_without_finalizing).
    code = _worker_main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


# The pytest side: reruns reach the controller as user properties of the
# test's report (pytest-xdist carries those), and the summary counts them.

import pytest  # noqa: E402 - the worker itself never gets here


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):  # noqa: ARG001 - pytest's hook signature
    outcome = yield
    report = outcome.get_result()
    if RERUNS:
        for name, message in RERUNS:
            report.user_properties.append(("oracle_rerun", f"{item.nodeid}: {name}: {message}"))
        RERUNS.clear()


_SEEN: list[str] = []


def pytest_runtest_logreport(report):
    for key, value in getattr(report, "user_properties", ()):
        if key == "oracle_rerun":
            _SEEN.append(value)


def pytest_terminal_summary(terminalreporter):
    if hasattr(terminalreporter.config, "workerinput"):
        return
    terminalreporter.write_line(f"oracle reruns: {len(_SEEN)}")
    for line in _SEEN:
        terminalreporter.write_line(f"  {line.splitlines()[0]}")


def pytest_unconfigure(config):  # noqa: ARG001
    global _worker
    if _worker is not None:
        _worker.close()
        _worker = None
