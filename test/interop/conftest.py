import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/: skip_policy.py

import skip_policy  # noqa: E402


def pytest_configure(config):
    if not config.pluginmanager.has_plugin("skip_policy"):
        config.pluginmanager.register(skip_policy, "skip_policy")
