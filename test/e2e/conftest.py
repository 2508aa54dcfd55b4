import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "importer"))
sys.path.insert(0, os.path.dirname(HERE))  # test/: toolchain.py, skip_policy.py


import skip_policy  # noqa: E402
import torch  # noqa: E402

# One intra-op thread: the corpus models are small, and spinning worker
# threads make a shared 2-core machine crawl.
torch.set_num_threads(1)


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: whole-model cases (deselect with -m 'not slow')")
    if not config.pluginmanager.has_plugin("skip_policy"):
        config.pluginmanager.register(skip_policy, "skip_policy")
