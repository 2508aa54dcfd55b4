import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/: skip_policy.py

import export_server  # noqa: E402
import oracle  # noqa: E402
import skip_policy  # noqa: E402


def pytest_configure(config):
    for name, plugin in [("skip_policy", skip_policy), ("oracle", oracle), ("export_server", export_server)]:
        if not config.pluginmanager.has_plugin(name):
            config.pluginmanager.register(plugin, name)
