"""The importer's bad-input errors: one line on stderr, exit 1, no traceback
and no output file (issue 20)."""

import os
import subprocess
import sys

import toolchain

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

GOOD = (
    "import torch\n"
    "class M(torch.nn.Module):\n"
    "    def forward(self, x):\n"
    "        return x + 1\n"
    "def factory():\n"
    "    return M(), (torch.randn(3),)\n"
    "def bare_tensor():\n"
    "    return M(), torch.randn(3)\n"
)


def export(*args):
    return toolchain.coreai_export(args)


def assert_one_error(r, *fragments):
    assert r.returncode == 1, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("coreai_export: error: "), r.stderr
    assert "Traceback" not in r.stderr
    for f in fragments:
        assert f in lines[0], r.stderr


def test_missing_output_directory(tmp_path):
    src = tmp_path / "m.py"
    src.write_text(GOOD)
    out = tmp_path / "missing" / "m.mlir"
    r = export("--module-file", f"{src}:factory", "-o", out)
    assert_one_error(r, "-o", "does not exist")
    assert not out.parent.exists()


def test_missing_directory_of_expected_out(tmp_path):
    src = tmp_path / "m.py"
    src.write_text(GOOD)
    out = tmp_path / "m.mlir"
    r = export("--module-file", f"{src}:factory", "-o", out,
               "--expected-out", tmp_path / "nodir" / "e.npz")
    assert_one_error(r, "--expected-out", "does not exist")
    assert not out.exists()


def test_factory_inputs_not_a_tuple(tmp_path):
    src = tmp_path / "m.py"
    src.write_text(GOOD)
    out = tmp_path / "m.mlir"
    r = export("--module-file", f"{src}:bare_tensor", "-o", out)
    assert_one_error(r, "example inputs are a Tensor, not a tuple", "(x,)")
    assert not out.exists()


def test_pt2_torch_cannot_load(tmp_path):
    pt2 = tmp_path / "broken.pt2"
    pt2.write_bytes(b"PK\x03\x04 this is not a torch.export archive" * 8)
    inputs = tmp_path / "in.npz"
    import numpy as np

    np.savez(inputs, x=np.zeros(3, np.float32))
    out = tmp_path / "m.mlir"
    r = export("--exported-program", pt2, "--inputs", inputs, "-o", out)
    assert_one_error(r, "broken.pt2: cannot load")
    assert not out.exists()


def test_unreadable_inputs_npz(tmp_path):
    src = tmp_path / "m.py"
    src.write_text(GOOD)
    pt2 = tmp_path / "m.pt2"
    subprocess.run(
        [sys.executable, "-c",
         "import sys, torch; sys.path.insert(0, sys.argv[1]); import m; "
         "mod, inp = m.factory(); torch.export.save(torch.export.export(mod, inp), sys.argv[2])",
         str(tmp_path), str(pt2)],
        check=True, capture_output=True,
    )
    bad = tmp_path / "in.npz"
    bad.write_bytes(b"not an npz")
    out = tmp_path / "m.mlir"
    r = export("--exported-program", pt2, "--inputs", bad, "-o", out)
    assert_one_error(r, "in.npz: cannot read the inputs")
    assert not out.exists()
