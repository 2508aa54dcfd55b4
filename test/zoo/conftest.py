"""The model zoo suite (test/zoo): its own conftest, so it runs as a pytest
invocation of its own (scripts/test.sh's step after test/e2e).

    .venv/bin/python -m pytest -q -n auto test/zoo
    .venv/bin/python -m pytest -q -n auto test/zoo -k "not dynamic and not coreai_torch"   # the static assets only
    COREAI_ZOO_RESULTS=zoo.jsonl .venv/bin/python -m pytest -q -n auto test/zoo
    .venv/bin/python test/zoo/table.py zoo.jsonl --doc docs/testing.md   # docs/testing.md's table from those results
"""

import json
import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "importer"))
sys.path.insert(0, str(REPO / "test"))  # oracle.py, skip_policy.py, export_server.py

import export_server  # noqa: E402
import oracle  # noqa: E402
import skip_policy  # noqa: E402
import torch  # noqa: E402

import pipeline  # noqa: E402

# One intra-op thread per test process, as in the other suites.
torch.set_num_threads(1)

RESULTS = "COREAI_ZOO_RESULTS"


def pytest_configure(config):
    for name, plugin in [("skip_policy", skip_policy), ("oracle", oracle), ("export_server", export_server)]:
        if not config.pluginmanager.has_plugin(name):
            config.pluginmanager.register(plugin, name)


@pytest.fixture(scope="session")
def shared_dir(tmp_path_factory):
    return pipeline.cache_dir(tmp_path_factory)


@pytest.fixture
def record():
    """record(model, column, outcome): appends one JSON line to
    $COREAI_ZOO_RESULTS (when set) for test/zoo/table.py."""
    path = os.environ.get(RESULTS)

    def write(model, column, outcome, **extra):
        if not path:
            return
        line = json.dumps({"model": model, "column": column, "ok": outcome.ok, "stage": outcome.stage,
                           "message": outcome.message, "max_error": outcome.max_error, **extra})
        with open(path, "a") as f:
            import fcntl

            fcntl.flock(f, fcntl.LOCK_EX)
            f.write(line + "\n")
            fcntl.flock(f, fcntl.LOCK_UN)
    return write
