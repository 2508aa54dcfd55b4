"""No silent skips: a pytest plugin every suite's conftest loads.

A test that skips (pytest.skip, pytest.importorskip, a skip/skipif marker,
a module skipped at collection) is reported as a FAILURE, unless it carries

    @pytest.mark.skip_allowed("reason")

and the skip's message contains that reason. The marker is for reasons
that hold on every machine (PyTorch itself rejects the case), reviewed with
the test; a missing file, tool or package is never one.
"""

import pytest

MARKER = "skip_allowed"


def pytest_configure(config):
    config.addinivalue_line(
        "markers", f"{MARKER}(reason): the test may skip with this reason (test/skip_policy.py); any other skip fails"
    )


def _message(longrepr):
    # A skip's longrepr is (path, line, "Skipped: message").
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def _allowed(item, message):
    return any(m.args and m.args[0] in message for m in item.iter_markers(MARKER))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not report.skipped or hasattr(report, "wasxfail"):
        return
    message = _message(report.longrepr)
    if _allowed(item, message):
        return
    report.outcome = "failed"
    report.longrepr = (
        f"{item.nodeid} skipped without an allowed reason ({message}).\n"
        f"A skip in the default run is a failure (test/skip_policy.py): make the test create what it "
        f"needs, or, for a reason that holds on every machine, mark it @pytest.mark.{MARKER}(\"reason\")."
    )


_collection_skips = []


def pytest_collectreport(report):
    # A module skipped at collection stays out of the run (so the rest of
    # the suite still runs) and fails the session at its end. Under
    # pytest-xdist the workers' collection reports arrive here too.
    if report.skipped and report.nodeid not in [s.split(": ")[0] for s in _collection_skips]:
        _collection_skips.append(f"{report.nodeid}: {_message(report.longrepr)}")


def pytest_terminal_summary(terminalreporter):
    if _collection_skips:
        terminalreporter.section("skipped at collection without an allowed reason (test/skip_policy.py)", red=True)
        for line in _collection_skips:
            terminalreporter.line(f"FAILED {line}", red=True)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    if _collection_skips and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
