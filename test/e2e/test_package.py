"""The project as a Python package: `pip install .` (pyproject.toml,
setuptools-rust) gives `import coreai_export` and the compiler's binaries on
the environment's PATH.

The wheel is built as a user's `pip install .` builds it, from the checkout
(with the project venv's setuptools-rust and the debug profile, so the
workspace build the suite already made serves it), and installed into a
fresh venv. The fresh venv sees the project venv's packages (torch, numpy,
coreai-core) through a `.pth` file instead of downloading them again. Then,
from a directory outside the checkout and without the checkout on any path:
the binaries run from the venv's bin, `coreai_export` is the installed copy,
and the installed `coreai-export` writes an asset with the installed
`coreai-compile` that coreai-core's runtime runs like eager PyTorch.
"""

import fcntl
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
COMMANDS = ["coreai-export", "coreai-gate"]
BINARIES = ["coreai-compile", "coreai-opt", "coreai-run", "coreai-bisect", "coreai-freqop", "coreai-graphdiff"]
import oracle  # noqa: E402

MODEL = '''
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        return torch.relu(self.fc(x)) * 2


def factory():
    torch.manual_seed(7)
    return Net(), (torch.randn(3, 8),)
'''


def build_and_install(tmp):
    """Build the wheel from the checkout and install it into a fresh venv under `tmp`."""
    wheels = tmp / "wheels"
    env = dict(os.environ, SETUPTOOLS_RUST_CARGO_PROFILE="dev")
    env.pop("PYTHONPATH", None)
    try:
        r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(wheels), str(REPO)], capture_output=True, text=True, env=env, cwd=tmp)
        assert r.returncode == 0, r.stderr[-3000:]
    finally:
        # setuptools' build directory in the checkout (ignored by git).
        shutil.rmtree(REPO / "build", ignore_errors=True)
        shutil.rmtree(REPO / "importer" / "coreai_export.egg-info", ignore_errors=True)
    (wheel,) = wheels.glob("coreai_export-*.whl")
    base = Path(getattr(sys, "_base_executable", sys.executable))
    fresh = tmp / "venv"
    subprocess.run([str(base), "-m", "venv", str(fresh)], check=True, capture_output=True)
    python = fresh / "bin" / "python"
    r = subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "-q", str(wheel)], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (Path(site) / "project-venv.pth").write_text(sysconfig.get_path("purelib") + "\n")
    (tmp / "ready").touch()


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    # setuptools builds in the checkout (build/, the egg-info), so two builds
    # at once trip over each other: under pytest-xdist the module's tests may
    # land on several workers, and each would build. One builds, under a lock
    # in the directory the workers share; the others wait and use its venv.
    root = tmp_path_factory.getbasetemp()
    if "PYTEST_XDIST_WORKER" in os.environ:
        root = root.parent
    tmp = root / "package"
    tmp.mkdir(exist_ok=True)
    with open(root / "package.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (tmp / "ready").exists():
            shutil.rmtree(tmp)
            tmp.mkdir()
            build_and_install(tmp)
    return tmp / "venv", tmp


def clean_env(fresh):
    """The fresh venv's bin first on PATH; nothing pointing into the checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "COREAI_COMPILE", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join([str(fresh / "bin"), "/usr/local/bin", "/usr/bin", "/bin"])
    return env


def test_the_binaries_are_on_the_venvs_path(venv):
    fresh, tmp = venv
    for name in BINARIES:
        path = shutil.which(name, path=clean_env(fresh)["PATH"])
        assert path == str(fresh / "bin" / name), name
        r = subprocess.run([path, "--version"], capture_output=True, text=True, cwd=tmp)
        assert r.returncode == 0 and r.stdout.startswith(f"{name} "), (name, r.stdout, r.stderr)
    for name in COMMANDS:
        r = subprocess.run([str(fresh / "bin" / name), "--help"], capture_output=True, text=True, cwd=tmp,
                           env=clean_env(fresh))
        assert r.returncode == 0 and "usage:" in r.stdout, (name, r.stderr[-2000:])


def test_coreai_export_is_the_installed_copy_and_finds_the_installed_compiler(venv):
    fresh, tmp = venv
    code = ("import coreai_export; from coreai_export.convert import find_compiler; "
            "print(coreai_export.__file__); print(find_compiler())")
    r = subprocess.run([str(fresh / "bin" / "python"), "-c", code], capture_output=True, text=True, cwd=tmp,
                       env=clean_env(fresh))
    assert r.returncode == 0, r.stderr[-2000:]
    module, compiler = r.stdout.split()
    assert Path(module).is_relative_to(fresh) and not Path(module).is_relative_to(REPO)
    assert compiler == str(fresh / "bin" / "coreai-compile")


def test_the_venvs_python_finds_its_compiler_without_the_venv_on_path(venv):
    """The venv's Python run without activating the venv (an IDE, a Jupyter
    kernel, `venv/bin/python script.py`): PATH holds no venv, and convert()
    still finds the coreai-compile installed beside that Python and writes
    an asset."""
    fresh, tmp = venv
    env = clean_env(fresh)
    env["PATH"] = os.pathsep.join(["/usr/local/bin", "/usr/bin", "/bin"])
    assert shutil.which("coreai-compile", path=env["PATH"]) is None
    work = tmp / "no-path"
    work.mkdir()
    code = ("import torch; from coreai_export import convert; from coreai_export.convert import find_compiler; "
            "print(find_compiler()); "
            "convert(torch.nn.Linear(3, 2), (torch.ones(1, 3),), 'lin.aimodel')")
    r = subprocess.run([str(fresh / "bin" / "python"), "-c", code], capture_output=True, text=True, cwd=work,
                       env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split()[0] == str(fresh / "bin" / "coreai-compile")
    assert (work / "lin.aimodel" / "main.mlirb").is_file()


def test_the_installed_command_writes_an_asset_that_runs_like_pytorch(venv):
    fresh, tmp = venv
    work = tmp / "work"
    work.mkdir()
    (work / "net.py").write_text(MODEL)
    env = clean_env(fresh)
    r = subprocess.run([str(fresh / "bin" / "coreai-export"), "--module-file", "net.py:factory", "-o", "net.aimodel",
                        "--inputs-out", "in.npz"], capture_output=True, text=True, cwd=work, env=env)
    # --inputs-out goes with an .mlir output: one line, exit 1 (the CLI's contract).
    assert r.returncode == 1 and "--inputs-out" in r.stderr
    r = subprocess.run([str(fresh / "bin" / "coreai-export"), "--module-file", "net.py:factory", "-o", "net.aimodel"],
                       capture_output=True, text=True, cwd=work, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    assert sorted(p.name for p in (work / "net.aimodel").iterdir()) == ["main.hash", "main.mlirb", "metadata.json"]

    import numpy as np
    import torch

    sys.path.insert(0, str(work))
    try:
        from net import factory
    finally:
        sys.path.remove(str(work))
    model, (x,) = factory()
    np.savez(work / "in.npz", x=x.numpy())
    want = model(x).detach().numpy()
    r = oracle.runasset(str(work / "net.aimodel"), "--inputs", str(work / "in.npz"),
                        "--outputs", str(work / "out.npz"))
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads(r.stdout.splitlines()[0])["is_valid"]
    with np.load(work / "out.npz") as z:
        (got,) = [z[k] for k in z.files]
    torch.testing.assert_close(torch.from_numpy(got), torch.from_numpy(want), rtol=1e-5, atol=1e-6)
