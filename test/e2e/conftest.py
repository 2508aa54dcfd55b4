import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "importer"))
sys.path.insert(0, os.path.dirname(HERE))  # test/: toolchain.py, skip_policy.py


import export_server  # noqa: E402
import oracle  # noqa: E402
import skip_policy  # noqa: E402
import torch  # noqa: E402

# One intra-op thread: the corpus models are small, and spinning worker
# threads make a shared 2-core machine crawl.
torch.set_num_threads(1)


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: whole-model cases (deselect with -m 'not slow')")
    for name, plugin in [("skip_policy", skip_policy), ("oracle", oracle), ("export_server", export_server)]:
        if not config.pluginmanager.has_plugin(name):
            config.pluginmanager.register(plugin, name)
